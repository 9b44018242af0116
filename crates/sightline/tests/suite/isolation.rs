//! The suite is its own world: this test process's runtime, data, config,
//! state and cache directories are private to it (set before any test
//! thread started), never the ones it inherited from the user running it,
//! and so are those of every `sightline` a harness starts. A daemon started
//! in the private tree is stopped when the process exits.

#![allow(clippy::unwrap_used)]

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sightline_test_support::isolation::{PRIVATE_DIRS, inherited, tree};
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{BatchSession, alive, repo_root, sightline_bin};

#[test]
fn this_process_has_its_own_xdg_and_data_directories() {
    let tree = tree().expect("the constructor in tests/all.rs isolates the process");
    for (var, _) in PRIVATE_DIRS {
        let now = std::env::var_os(var).unwrap_or_else(|| panic!("{var} is unset"));
        assert!(
            Path::new(&now).starts_with(tree) && Path::new(&now).is_dir(),
            "{var} is {now:?}, not under the private tree {}",
            tree.display()
        );
        assert_ne!(Some(now), inherited(var), "{var} is the inherited one");
    }
    for var in [
        "SIGHTLINE_NO_DAEMON",
        "SIGHTLINE_DAEMON",
        "SIGHTLINE_CONFIG",
    ] {
        assert!(std::env::var_os(var).is_none(), "{var} leaked in");
    }
}

/// The environment process `pid` was started with (for this process, what
/// its parent handed down: a later change does not show there).
fn environ_of(pid: &str) -> Vec<(OsString, OsString)> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    raw.split(|b| *b == 0)
        .filter_map(|entry| {
            let at = entry.iter().position(|b| *b == b'=')?;
            Some((
                OsStr::from_bytes(&entry[..at]).to_owned(),
                OsStr::from_bytes(&entry[at + 1..]).to_owned(),
            ))
        })
        .collect()
}

fn lookup<'a>(env: &'a [(OsString, OsString)], var: &str) -> Option<&'a OsString> {
    env.iter().find(|(k, _)| k == var).map(|(_, v)| v)
}

/// A CLI question from a test that set up no daemon of its own starts the
/// daemon of the process's private tree (the same for every such test),
/// which `daemon status` then shows. When `ISOLATION_REPORT` names a file,
/// the daemon's pid and the tree are written there for
/// `a_daemon_left_in_the_tree_is_stopped_and_the_tree_removed_at_exit`.
#[test]
fn a_cli_question_starts_the_daemon_in_the_private_tree() {
    // Before anything starts: without the isolation this would be the
    // user's own daemon.
    let tree = tree().expect("the constructor in tests/all.rs isolates the process");
    let runtime = PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR").unwrap());
    assert!(runtime.starts_with(tree), "{}", runtime.display());
    let project = tempfile::tempdir().unwrap();
    let file = project.path().join("notes.txt");
    std::fs::write(&file, "hello\n").unwrap();
    let out = Command::new(sightline_bin())
        .args(["diagnostics", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("unsupported: "),
        "{out:?}"
    );
    let pid: u32 = std::fs::read_to_string(runtime.join("sightline/daemon.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(pid), "the daemon {pid} is not running");
    let status = Command::new(sightline_bin())
        .args(["daemon", "status", "--json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["pid"], pid, "{status}");
    if let Some(report) = std::env::var_os("ISOLATION_REPORT") {
        std::fs::write(report, format!("{pid}\n{}\n", tree.display())).unwrap();
    }
}

/// The private tree of a test process, and a daemon started in it, are
/// gone once the process has exited: the test above, run alone in a child
/// process of this binary (with a tree of its own).
#[test]
fn a_daemon_left_in_the_tree_is_stopped_and_the_tree_removed_at_exit() {
    let report = tempfile::tempdir().unwrap();
    let report = report.path().join("report");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::isolation::a_cli_question_starts_the_daemon_in_the_private_tree",
        ])
        .env("ISOLATION_REPORT", &report)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{out:?}"
    );
    let report = std::fs::read_to_string(&report).unwrap();
    let (pid, child_tree) = report.trim().split_once('\n').unwrap();
    let pid: u32 = pid.parse().unwrap();
    assert_ne!(
        Some(Path::new(child_tree)),
        tree(),
        "the child used this process's tree"
    );
    assert!(!alive(pid), "the child's daemon {pid} outlived it");
    assert!(
        !Path::new(child_tree).exists(),
        "the child's tree {child_tree} is left"
    );
}

/// The MCP SDK gives a server only HOME, PATH and a few more variables, so
/// the MCP harness names the private directories itself: the `sightline
/// mcp` it starts has every one (the runtime, state and data directories
/// the driver's own, the others the process's), none of them inherited.
#[test]
fn an_mcp_session_has_the_private_directories() {
    let project = tempfile::tempdir().unwrap();
    let mut d = McpDriver::start();
    let opened = d.open("s", project.path());
    let pid = opened["pid"].as_u64().unwrap().to_string();
    let env = environ_of(&pid);
    for (var, _) in PRIVATE_DIRS {
        let got =
            lookup(&env, var).unwrap_or_else(|| panic!("the MCP session has no {var}: {env:?}"));
        assert_ne!(
            Some(got),
            inherited(var).as_ref(),
            "{var} is the inherited one"
        );
    }
    for var in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"] {
        assert_eq!(
            lookup(&env, var),
            std::env::var_os(var).as_ref(),
            "the MCP session's {var}"
        );
    }
    d.close("s");
}

/// `sightline batch` answers in process, but its `servers` also lists the
/// shared daemon's: a batch session gets daemon directories of its own, so
/// a daemon another test started in the private tree is not in its answer.
#[test]
fn a_batch_session_lists_no_daemon_of_another_test() {
    let project = tempfile::tempdir().unwrap();
    let file = project.path().join("notes.txt");
    std::fs::write(&file, "hello\n").unwrap();
    let started = Command::new(sightline_bin())
        .args(["diagnostics", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&started.stdout).starts_with("unsupported: "),
        "{started:?}"
    );
    let mut s = BatchSession::builder().start();
    let servers = s.ask("servers");
    assert!(!servers.contains("the shared daemon"), "{servers}");
}

/// Every test and bench binary, and the library's unit tests, isolate
/// themselves (a constructor calling `isolation::isolate`, or
/// `isolate_main` first in a bench's `main`): one that did not would run
/// against the user's directories. sightline-lsp is the exception: it is
/// below sightline and the test support, which it cannot depend on, and
/// its tests start no sightline and read no directory of the user's (the
/// transport tests start only `/bin/sh`).
#[test]
fn every_test_and_bench_binary_isolates_itself() {
    let crates = repo_root().join("crates");
    let mut roots = vec![crates.join("sightline/src/lib.rs")];
    for krate in std::fs::read_dir(&crates).unwrap() {
        let krate = krate.unwrap().path();
        if krate.ends_with("sightline-lsp") {
            continue;
        }
        for kind in ["tests", "benches"] {
            let Ok(files) = std::fs::read_dir(krate.join(kind)) else {
                continue;
            };
            for f in files {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "rs") {
                    roots.push(f);
                }
            }
        }
    }
    assert!(roots.len() > 10, "{roots:?}");
    let missing: Vec<_> = roots
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .unwrap()
                .contains("sightline_test_support::isolation::isolate")
        })
        .collect();
    assert!(missing.is_empty(), "not isolated: {missing:?}");
}
