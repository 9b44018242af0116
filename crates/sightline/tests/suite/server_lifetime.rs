//! Servers in the daemon outlive a command, not their project: a server
//! whose root is deleted or moved away stops within seconds, by the
//! daemon's status and by its pid, and the status shows what all servers
//! hold against the memory budget. The daemon's log stays under its bound
//! while the daemon runs.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline_test_support::{DaemonDirs, Project, alive, path_with_tools, require, sightline_bin};

/// The daemon of one test, with private data and config directories.
struct World {
    daemon: DaemonDirs,
    data: tempfile::TempDir,
    config: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        require("pyright-langserver");
        World {
            daemon: DaemonDirs::new(),
            data: tempfile::tempdir().unwrap(),
            config: tempfile::tempdir().unwrap(),
        }
    }

    fn cli(&self, args: &[&str]) -> (String, i32) {
        let out = Command::new(sightline_bin())
            .args(args)
            .env("RUST_LOG", "sightline=debug")
            .env_remove("SIGHTLINE_NO_DAEMON")
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", self.data.path())
            .env("XDG_CONFIG_HOME", self.config.path())
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(self.daemon.env())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            out.status.code().unwrap_or(-1),
        )
    }

    fn status(&self) -> Value {
        let (out, code) = self.cli(&["daemon", "status", "--json"]);
        assert_eq!(code, 0, "{out}");
        serde_json::from_str(&out).unwrap()
    }

    /// The pid of the server running for `root`, if one runs.
    fn server_for(&self, root: &std::path::Path) -> Option<u32> {
        self.status()["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["root"].as_str() == Some(&root.display().to_string()))
            .map(|s| s["pid"].as_u64().unwrap() as u32)
    }
}

/// Polls until `done`, for at most `limit`; whether it came true.
fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    done()
}

#[test]
fn a_server_whose_root_is_deleted_or_moved_stops_within_seconds() {
    let w = World::new();
    let deleted = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let moved = Project::new(&[("pyproject.toml", ""), ("b.py", "y: int = 2\n")]);
    let kept = Project::new(&[("pyproject.toml", ""), ("c.py", "z: int = 3\n")]);
    for (p, f) in [(&deleted, "a.py"), (&moved, "b.py"), (&kept, "c.py")] {
        let (out, code) = w.cli(&["diagnostics", &p.path(f).display().to_string()]);
        assert_eq!(code, 0, "{out}");
    }
    let pids: Vec<u32> = [&deleted, &moved, &kept]
        .iter()
        .map(|p| w.server_for(p.root()).expect("a pyright for each project"))
        .collect();
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?}");

    std::fs::remove_dir_all(deleted.root()).unwrap();
    let away = tempfile::tempdir().unwrap();
    std::fs::rename(moved.root(), away.path().join("moved")).unwrap();

    for (root, pid) in [(deleted.root(), pids[0]), (moved.root(), pids[1])] {
        assert!(
            within(Duration::from_secs(10), || w.server_for(root).is_none()
                && !alive(pid)),
            "the server of {} (pid {pid}) still runs 10 s after its root went: {}",
            root.display(),
            w.status()
        );
    }
    // The project still there keeps its server.
    assert_eq!(w.server_for(kept.root()), Some(pids[2]));
    assert!(alive(pids[2]));
}

#[test]
fn daemon_status_shows_the_servers_memory_against_the_budget() {
    let w = World::new();
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let (out, code) = w.cli(&["diagnostics", &p.path("a.py").display().to_string()]);
    assert_eq!(code, 0, "{out}");
    let status = w.status();
    let each: u64 = status["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["rss_kib"].as_u64().unwrap())
        .sum();
    assert!(each > 0, "{status}");
    assert_eq!(status["memory_kib"].as_u64(), Some(each), "{status}");
    let limit = status["memory_limit_kib"].as_u64().unwrap();
    assert!(limit > 0, "{status}");
    let (text, code) = w.cli(&["daemon", "status"]);
    assert_eq!(code, 0);
    let line = format!(" MiB of the {} MiB memory budget", limit / 1024);
    assert!(
        text.lines()
            .any(|l| l.starts_with("servers hold ") && l.ends_with(&line)),
        "{text}"
    );
}

#[test]
fn the_daemons_log_stays_under_its_bound_while_the_daemon_runs() {
    let w = World::new();
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let file = p.path("a.py").display().to_string();
    let (out, code) = w.cli(&["diagnostics", &file]);
    assert_eq!(code, 0, "{out}");
    let log = w.daemon.log_path();
    let old = log.with_extension("log.old");
    assert!(!old.exists());
    // The log grows past 1 MiB while the daemon runs.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let line = "x".repeat(1023) + "\n";
        for _ in 0..1536 {
            f.write_all(line.as_bytes()).unwrap();
        }
    }
    assert!(
        within(Duration::from_secs(10), || old.is_file()
            && std::fs::metadata(&log).is_ok_and(|m| m.len() < 1 << 20)),
        "the log was not started over: {:?}",
        std::fs::metadata(&log).map(|m| m.len())
    );
    assert!(std::fs::metadata(&old).unwrap().len() > 1 << 20);
    // The daemon writes on, to the new log: a second project's pyright
    // starts, and the daemon logs what it says.
    let q = Project::new(&[("pyproject.toml", ""), ("b.py", "y: int = 1\n")]);
    let (out, code) = w.cli(&["diagnostics", &q.path("b.py").display().to_string()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        within(Duration::from_secs(10), || std::fs::metadata(&log)
            .is_ok_and(|m| m.len() > 0)),
        "the daemon's new log stays empty"
    );
}
