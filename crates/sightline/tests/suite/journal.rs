//! A multi-file edit is whole under any death: a rename of a function used
//! in 60 files, its process (the command in process, or the daemon) killed
//! with SIGKILL at varying points of its writes, leaves every file old or
//! every file new, and no temporary file, once the next sightline starts;
//! the command whose daemon died says what became of the files.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sightline_test_support::{DaemonDirs, Project, alive, path_with_tools, require};

const USERS: usize = 60;

fn project() -> Project {
    let mut files: Vec<(String, String)> = vec![
        ("pyproject.toml".into(), String::new()),
        (
            "lib.py".into(),
            "def add(a: int, b: int) -> int:\n    return a + b\n".into(),
        ),
    ];
    for i in 0..USERS {
        files.push((
            format!("use_{i:02}.py"),
            format!("from lib import add\n\nvalue_{i} = add({i}, 1)\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Project::new(&refs)
}

/// How many files use the old name and how many the new, and the
/// temporary files left anywhere in the project.
fn state(root: &Path) -> (usize, usize, Vec<String>) {
    let (mut old, mut new, mut tmp) = (0, 0, Vec::new());
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".sightline-tmp") {
            tmp.push(name);
            continue;
        }
        if !name.ends_with(".py") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        if text.contains("plus") {
            new += 1;
        } else if text.contains("add") {
            old += 1;
        }
    }
    (old, new, tmp)
}

/// A number in `0..n` that differs from try to try.
fn varying(n: u32) -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        % n
}

/// Waits until an edit's journal shows up in `data` (the writes begin), or
/// the command `cli` ends, then a varying number of further looks, and
/// kills `pid`; whether the journal was seen. The looks are a tight loop:
/// the writes of 61 files take milliseconds.
fn kill_during_writes(data: &Path, cli: u32, pid: u32) -> bool {
    let journal = data.join("journal");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let seen = loop {
        let any = std::fs::read_dir(&journal)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "journal"));
        if any || !alive(cli) || std::time::Instant::now() > deadline {
            break any;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    for _ in 0..varying(4) {
        std::thread::yield_now();
    }
    // SAFETY: a pid of this test's own child or daemon.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    seen
}

/// The next sightline to start, which finishes or undoes the cut-off edit.
fn next_start(root: &Path, dirs: &DaemonDirs, config: &Path, data: &Path) {
    let out = dirs
        .command(root, config, data)
        .args(["--no-daemon", "servers"])
        .env("PATH", path_with_tools())
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
}

fn assert_whole(root: &Path, when: &str) {
    let (old, new, tmp) = state(root);
    assert!(
        (old == USERS + 1 && new == 0) || (new == USERS + 1 && old == 0),
        "{when}: {old} files old and {new} new"
    );
    assert_eq!(tmp, Vec::<String>::new(), "{when}: temporary files left");
}

#[test]
fn a_rename_killed_during_its_writes_leaves_all_files_old_or_all_new() {
    require("pyright-langserver");
    let dirs = DaemonDirs::new();
    let config = dirs.runtime().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let mut seen = 0;
    // In process: the command itself is killed.
    for n in 0..3 {
        let p = project();
        let data = tempfile::tempdir().unwrap();
        let child = dirs
            .command(p.root(), &config, data.path())
            .args(["--no-daemon", "rename", "lib.py:1:5", "plus"])
            .env("PATH", path_with_tools())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seen += usize::from(kill_during_writes(data.path(), child.id(), child.id()));
        let mut child = child;
        let _ = child.wait();
        next_start(p.root(), &dirs, &config, data.path());
        assert_whole(p.root(), &format!("in process, try {n}"));
    }
    // Through the daemon: the daemon is killed during the command's
    // rename, and the command says what became of the files.
    for n in 0..3 {
        let p = project();
        let data = tempfile::tempdir().unwrap();
        // The daemon started and pyright warm, so the kill meets the writes.
        let warm = dirs
            .command(p.root(), &config, data.path())
            .args(["references", "lib.py:1:5"])
            .env("PATH", path_with_tools())
            .output()
            .unwrap();
        assert_eq!(warm.status.code(), Some(0), "{warm:?}");
        let daemon = dirs.daemon_pid().unwrap();
        let child = dirs
            .command(p.root(), &config, data.path())
            .args(["rename", "lib.py:1:5", "plus"])
            .env("PATH", path_with_tools())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let killed = kill_during_writes(data.path(), child.id(), daemon);
        seen += usize::from(killed);
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        next_start(p.root(), &dirs, &config, data.path());
        assert_whole(p.root(), &format!("through the daemon, try {n}: {text}"));
        if killed {
            let (_, new, _) = state(p.root());
            let said = if new > 0 {
                "its edit was finished as a whole"
            } else {
                "no file changed"
            };
            assert!(
                text.contains("the daemon")
                    && (text.contains(said) || text.contains("no edit was left half-done")),
                "{text}"
            );
        }
        dirs.stop();
    }
    // A run that never met the writes tests nothing.
    assert!(seen > 0, "no kill came during the writes");
}
