//! Answers bounded by the server's progress, not by a clock: a server that
//! works past the budget (even starved of the processor by a busy machine)
//! is waited for, through the daemon as users run it.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

use serde_json::json;
use sightline_test_support::DaemonDirs;

use super::fake;

/// A process spinning on core 0 for as long as it lives, killed on drop.
struct Hog(std::process::Child);

impl Hog {
    fn on_core_0() -> Hog {
        Hog(Command::new("taskset")
            .args(["-c", "0", "sh", "-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .expect("taskset (util-linux) runs the hog"))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The fake server, its scheduling group niced to 19 and pinned to the
/// core a hog spins on, checks `a.fake` for 4 s of the clock while it runs
/// about 1.5 % of the time: by its processor time alone it looked idle at
/// the 1 s budget (the answer was "no diagnostics" + "still analysing after
/// 1.0 s"), but it is runnable all along, so the answer waits for it and is
/// exact.
#[test]
fn a_server_starved_of_the_processor_is_waited_for_and_answered() {
    let p = fake::project(json!({ "rules": [
        { "method": "textDocument/didOpen", "file": "a.fake", "actions": [
            { "spin_ms": 4000 },
            { "publish": { "which": "current", "versioned": true } },
        ] },
    ] }));
    let config = p.path("user-config.json");
    std::fs::write(
        &config,
        json!({ "lsp": { "fake": {
            "command": ["taskset", "-c", "0", fake::fake_bin(), "serve"],
            "extensions": [".fake"],
            "diagnostics": { "document_ms": 1000 },
        } } })
        .to_string(),
    )
    .unwrap();
    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let ask = |file: &str| {
        dirs.command(p.root(), &config, data.path())
            .args(["diagnostics", file])
            .output()
            .unwrap()
    };
    // The daemon and its server start, unloaded.
    let first = ask("b.fake");
    assert_eq!(
        String::from_utf8_lossy(&first.stdout),
        "b.fake: no diagnostics\n",
        "{first:?}"
    );
    // The daemon leads a session of its own, so its server is in a
    // scheduling group of its own, whose share nice alone would not
    // change: the group is niced to 19, against the hog's at 0.
    let daemon = dirs.daemon_pid().expect("a daemon runs");
    std::fs::write(format!("/proc/{daemon}/autogroup"), "19")
        .expect("the daemon's scheduling group can be niced (/proc/PID/autogroup)");
    let _hog = Hog::on_core_0();
    let out = ask("a.fake");
    // The daemon's log is written as it goes; stopped, it has all of it.
    if String::from_utf8_lossy(&out.stdout) != fake::A_DIAGS {
        dirs.stop();
    }
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        fake::A_DIAGS,
        "stderr: {}\nserver log:\n{}\ndaemon log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        fake::log(&p),
        dirs.log()
    );
    dirs.stop();
}

/// A question whose server works on it past `request_ms` (spinning on the
/// processor for 3 s against a 1 s budget) is answered when the server is
/// done, through the daemon; before, it was "not ready: fake did not answer
/// textDocument/definition within 1.0 s; ask again shortly". A server that
/// sits idle on a question still ends it soon after the budget, saying so.
#[test]
fn a_question_is_waited_for_while_its_server_works_on_it_not_while_it_idles() {
    let p = fake::project(json!({ "rules": [
        { "method": "textDocument/definition", "actions": [{ "spin_ms": 3000 }] },
        { "method": "textDocument/hover", "actions": ["hang"] },
    ] }));
    let config = p.path("user-config.json");
    std::fs::write(
        &config,
        json!({ "lsp": { "fake": {
            "command": [fake::fake_bin(), "serve"],
            "extensions": [".fake"],
            "diagnostics": { "request_ms": 1000 },
        } } })
        .to_string(),
    )
    .unwrap();
    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let ask = |args: &[&str]| {
        let out = dirs
            .command(p.root(), &config, data.path())
            .args(args)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (out, err) = ask(&["definition", "a.fake:2:1"]);
    assert_eq!(
        out,
        fake::ALPHA_DEF,
        "stderr: {err}\nserver log:\n{}",
        fake::log(&p)
    );
    let (out, err) = ask(&["hover", "a.fake:2:1"]);
    assert_eq!(
        (out.as_str(), err.as_str()),
        (
            "not ready: fake did not answer textDocument/hover within 1.0 s; ask again shortly\n",
            ""
        ),
        "server log:\n{}",
        fake::log(&p)
    );
    dirs.stop();
}
