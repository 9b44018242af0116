//! A test's own daemon: runtime and state directories no other test shares
//! (over the process's private ones, which its tests share), set in the
//! environment of every `sightline` the test starts, and on drop
//! `sightline daemon stop`, which returns once the daemon and its servers
//! are gone. Tests so stay independent and leave nothing running.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::paths::sightline_bin;

/// Runtime and state directories for one daemon.
pub struct DaemonDirs {
    runtime: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Default for DaemonDirs {
    fn default() -> Self {
        Self::new()
    }
}

impl DaemonDirs {
    pub fn new() -> DaemonDirs {
        DaemonDirs {
            runtime: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// `XDG_RUNTIME_DIR` and `XDG_STATE_HOME` for a `sightline` of this test.
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("XDG_RUNTIME_DIR", self.runtime.path().to_owned()),
            ("XDG_STATE_HOME", self.state.path().to_owned()),
        ]
    }

    /// A `sightline` command through this daemon, run in `cwd` with the
    /// user configuration file `config`, the data directory `data` and no
    /// downloads, as a user's CLI call in a project.
    pub fn command(&self, cwd: &Path, config: &Path, data: &Path) -> Command {
        let mut cmd = Command::new(sightline_bin());
        cmd.current_dir(cwd)
            .env("SIGHTLINE_CONFIG", config)
            .env("SIGHTLINE_DATA_DIR", data)
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(self.env())
            .stdin(Stdio::null());
        cmd
    }

    /// Where the daemon logs.
    pub fn log_path(&self) -> PathBuf {
        self.state.path().join("sightline/daemon.log")
    }

    /// The daemon's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// The runtime directory.
    pub fn runtime(&self) -> &Path {
        self.runtime.path()
    }

    /// Stops the daemon, if one runs, and waits until it has exited; one
    /// that does not answer is killed (its servers die with it).
    pub fn stop(&self) {
        let pid = std::fs::read_to_string(self.runtime.path().join("sightline/daemon.pid"))
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok());
        let mut cmd = Command::new(sightline_bin());
        cmd.args(["daemon", "stop"])
            .envs(crate::isolation::env())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        let _ = cmd.status();
        if let Some(pid) = pid
            && crate::alive(pid)
        {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

impl Drop for DaemonDirs {
    fn drop(&mut self) {
        self.stop();
    }
}

impl DaemonDirs {
    /// `sightline daemon status --json` as the user's shell asks it: this
    /// process's environment (its private directories) and the runtime
    /// directory; the JSON answer.
    pub fn status(&self) -> serde_json::Value {
        let out = Command::new(sightline_bin())
            .args(["daemon", "status", "--json"])
            .envs(crate::isolation::env())
            .envs(self.env())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("daemon status: {text}"))
    }

    /// The running daemon's pid, from its pid file.
    pub fn daemon_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.runtime().join("sightline/daemon.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Each variable of the daemon's environment and of every process under
    /// it (its servers), that holds one of `needles` in its name or value:
    /// `PID: NAME=VALUE`. Empty when none does; the daemon must be running.
    pub fn environ_holding(&self, needles: &[&str]) -> Vec<String> {
        let pid = self.daemon_pid().expect("a daemon runs");
        let mut found = Vec::new();
        for p in std::iter::once(pid).chain(crate::process::descendants(pid)) {
            let Ok(raw) = std::fs::read(format!("/proc/{p}/environ")) else {
                continue;
            };
            for var in raw.split(|b| *b == 0) {
                let var = String::from_utf8_lossy(var);
                if needles.iter().any(|n| var.contains(n)) {
                    found.push(format!("{p}: {var}"));
                }
            }
        }
        found
    }
}
