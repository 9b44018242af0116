//! What a cloned repository's files may hold, through the shared daemon:
//! a workspace declaration or a configuration that is a link to
//! `/dev/zero` is refused without reading it (the daemon's memory stays
//! bounded and the answer is right), and a FIFO in their place wedges
//! nothing: another project's question is answered and `daemon stop`
//! returns.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use sightline_test_support::{
    DaemonDirs, Project, path_with_tools, poll_until, require, rss_kib_of,
};

/// Runs `cmd` to its end, or kills it past `limit`: `None` then. The limit
/// is a guard against a hang (the failure under test), never a wait.
fn output_within(mut cmd: Command, limit: Duration) -> Option<Output> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ended = poll_until(limit, || child.try_wait().unwrap());
    if ended.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    Some(child.wait_with_output().unwrap())
}

fn ts_workspace() -> Project {
    Project::new(&[
        ("package.json", "{\"name\": \"root\", \"private\": true}"),
        ("packages/a/package.json", "{\"name\": \"a\"}"),
        ("packages/a/index.ts", "export const a: number = 1;\n"),
        ("packages/b/package.json", "{\"name\": \"b\"}"),
        (
            "packages/b/index.ts",
            "import { a } from \"../a/index\";\nexport const b: string = a;\n",
        ),
    ])
}

#[test]
fn a_workspace_file_linked_to_dev_zero_is_never_read_and_the_answer_is_right() {
    require("typescript-language-server");
    let p = ts_workspace();
    std::os::unix::fs::symlink("/dev/zero", p.root().join("pnpm-workspace.yaml")).unwrap();
    let dirs = DaemonDirs::new();
    let config = dirs.runtime().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut cmd = dirs.command(p.root(), &config, data.path());
    cmd.args(["diagnostics", "packages/b/index.ts"])
        .env("PATH", path_with_tools());
    let out = output_within(cmd, Duration::from_secs(180)).expect("the question ended");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "index.ts: 1 diagnostic\n2:14 error: Type 'number' is not assignable to type 'string'."
        ),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pid = dirs.daemon_pid().expect("the daemon runs");
    // A daemon that read the link would hold gigabytes by now (or be dead).
    let rss = rss_kib_of(pid).expect("the daemon's memory is readable");
    assert!(rss < 512 * 1024, "the daemon holds {rss} KiB");

    // A configuration that is such a link is one error line naming it.
    std::os::unix::fs::symlink("/dev/zero", p.root().join("sightline.json")).unwrap();
    let mut cmd = dirs.command(p.root(), &config, data.path());
    cmd.args(["diagnostics", "packages/b/index.ts"])
        .env("PATH", path_with_tools());
    let out = output_within(cmd, Duration::from_secs(60)).expect("the question ended");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "error: cannot read {}: not a regular file\n",
            p.root().join("sightline.json").display()
        )
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_fifo_for_a_workspace_file_wedges_no_other_project_and_the_daemon_stops() {
    require("pyright-langserver");
    require("typescript-language-server");
    let hostile = ts_workspace();
    let fifo = hostile.root().join("pnpm-workspace.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let other = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = \"no\"\n")]);
    let dirs = DaemonDirs::new();
    let config = dirs.runtime().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut cmd = dirs.command(hostile.root(), &config, data.path());
    cmd.args(["diagnostics", "packages/b/index.ts"])
        .env("PATH", path_with_tools());
    let out = output_within(cmd, Duration::from_secs(180)).expect("the hostile question ended");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("index.ts: 1 diagnostic\n"),
        "{out:?}"
    );
    let mut cmd = dirs.command(other.root(), &config, data.path());
    cmd.args(["diagnostics", "app.py"])
        .env("PATH", path_with_tools());
    let out =
        output_within(cmd, Duration::from_secs(180)).expect("the other project's question ended");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("app.py: 1 diagnostic\n"),
        "{out:?}"
    );
    let out = daemon_stop(&dirs, Duration::from_secs(60));
    // It says what happened: the daemon stopped, with the servers it ran.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("stopped the daemon (pid ") && said.contains(" servers stopped ("),
        "{out:?}"
    );
}

/// `sightline daemon stop` for the daemon of `dirs`, bounded by `limit` (a
/// guard against a hang), which must succeed.
fn daemon_stop(dirs: &DaemonDirs, limit: Duration) -> Output {
    let mut stop = Command::new(sightline_test_support::sightline_bin());
    stop.args(["daemon", "stop"])
        .envs(sightline_test_support::isolation::env())
        .envs(dirs.env());
    let out = output_within(stop, limit).expect("`daemon stop` returned");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    out
}

/// A fake project, its user configuration, and a daemon of its own that has
/// answered one question (its fake server running): the daemon's pid.
fn a_daemon_with_the_fake_server() -> (
    sightline_test_support::Project,
    std::path::PathBuf,
    DaemonDirs,
    tempfile::TempDir,
    u32,
) {
    let p = super::fake::project(serde_json::json!({ "rules": [] }));
    let config = p.path("user-config.json");
    std::fs::write(
        &config,
        serde_json::json!({ "lsp": { "fake": {
            "command": [super::fake::fake_bin(), "serve"],
            "extensions": [".fake"],
        } } })
        .to_string(),
    )
    .unwrap();
    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let mut ask = dirs.command(p.root(), &config, data.path());
    ask.args(["diagnostics", "a.fake"]);
    let out = output_within(ask, Duration::from_secs(60)).expect("the question ended");
    assert_eq!(out.stdout, super::fake::A_DIAGS.as_bytes(), "{out:?}");
    let daemon = dirs.daemon_pid().expect("a daemon runs");
    (p, config, dirs, data, daemon)
}

/// Kills process `.0` when dropped.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if sightline_test_support::alive(self.0) {
            // SAFETY: kill(2) on our own daemon's pid; no memory is shared.
            unsafe { libc::kill(self.0 as i32, libc::SIGKILL) };
        }
    }
}

/// A daemon that takes the connection and never answers (here stopped with
/// SIGSTOP) does not hold `daemon stop` up: it is killed, its server dies
/// with it, and the answer says so. Before, `daemon stop` waited forever
/// and said `stopping` whatever happened.
#[test]
fn daemon_stop_kills_a_daemon_that_does_not_answer_and_says_so() {
    let (p, _config, dirs, _data, daemon) = a_daemon_with_the_fake_server();
    let server: u32 = super::fake::log(&p)
        .lines()
        .find_map(|l| l.strip_prefix("start run 1 pid "))
        .and_then(|pid| pid.trim().parse().ok())
        .expect("the fake server logged its pid");
    // SAFETY: signals our own daemon, by the pid its runtime directory holds.
    unsafe { libc::kill(daemon as i32, libc::SIGSTOP) };
    // Should `daemon stop` leave it stopped, it is killed before `dirs`
    // asks it to stop (which would wait on it without end).
    let _kill_on_failure = KillOnDrop(daemon);
    let out = daemon_stop(&dirs, Duration::from_secs(90));
    assert!(
        String::from_utf8_lossy(&out.stdout).eq(&format!(
            "killed the daemon (pid {daemon}): it took the request but did not answer within 10 s; its servers die with it\n"
        )),
        "{out:?}"
    );
    assert!(
        !sightline_test_support::alive(daemon),
        "the daemon lives on"
    );
    let server_gone = poll_until(Duration::from_secs(30), || {
        (!sightline_test_support::alive(server)).then_some(())
    });
    assert!(server_gone.is_some(), "its server {server} outlived it");
}

/// `daemon stop` asks the daemon itself, whatever became of the files the
/// daemon started with: here its configuration file is deleted after it
/// started. Before, the stop request opened a session that read that file,
/// was answered "cannot read …/user-config.json", and `daemon stop` then
/// waited a minute for an exit that never came and killed the daemon.
#[test]
fn daemon_stop_stops_a_daemon_whose_configuration_file_is_gone() {
    let (_p, config, dirs, _data, daemon) = a_daemon_with_the_fake_server();
    let _kill_on_failure = KillOnDrop(daemon);
    std::fs::remove_file(&config).unwrap();
    let out = daemon_stop(&dirs, Duration::from_secs(90));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("stopped the daemon (pid {daemon}); 1 server stopped (fake)\n"),
        "{out:?}"
    );
    assert!(
        !sightline_test_support::alive(daemon),
        "the daemon lives on"
    );
}
