//! The CLI as a child process: one command (`run_cli`), or a `sightline
//! batch` session that checks, when dropped, that every answer it produced
//! was read.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::paths::{path_with_tools, require, sightline_bin};

/// Whether a command may exit before it reads all of its stdin.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// It reads all of it: a closed pipe fails the test.
    Read,
    /// It may answer and exit first (a refusal at once), which closes the
    /// pipe; its answer is what counts.
    MayBeUnread,
}

/// Runs `cmd` with `input` on its stdin, which it must read all of, and
/// its stdout read (its stderr as the caller set it): its output.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> std::process::Output {
    output_with(cmd, input, Input::Read)
}

fn output_with(cmd: &mut Command, input: &[u8], how: Input) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let wrote = child.stdin.take().unwrap().write_all(input);
    match wrote {
        Err(e) if how == Input::MayBeUnread => {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        wrote => wrote.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// `cmd` with `input` on its stdin (read as `how` says), its stderr
/// dropped: (stdout, exit code).
pub fn run_with_stdin(cmd: &mut Command, input: &str, how: Input) -> (String, i32) {
    let out = output_with(cmd.stderr(Stdio::null()), input.as_bytes(), how);
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// Runs the CLI once, in the process's private directories with a data
/// directory of its own, through a daemon of its own (stopped before this
/// returns) unless `env` gives a runtime directory; returns (stdout, exit
/// code).
pub fn run_cli(args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let data = tempfile::tempdir().unwrap();
    let own = !env.iter().any(|(k, _)| *k == "XDG_RUNTIME_DIR");
    let daemon = own.then(crate::DaemonDirs::new);
    let out = Command::new(sightline_bin())
        .args(args)
        .envs(crate::isolation::env())
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data.path())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(daemon.iter().flat_map(|d| d.env()))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    drop(daemon);
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// What `sightline ARGS` that must refuse to start prints: run in `cwd`
/// with the process's private directories, `daemon`'s runtime directory,
/// and `config` as the user configuration's home when given; its exit
/// status, stdout and stderr.
pub fn refusal(
    args: &[&str],
    cwd: &std::path::Path,
    daemon: &crate::DaemonDirs,
    config: Option<&std::path::Path>,
) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(sightline_bin());
    cmd.args(args)
        .current_dir(cwd)
        .envs(crate::isolation::env())
        .envs(daemon.env())
        .stdin(Stdio::null());
    if let Some(c) = config {
        cmd.env("XDG_CONFIG_HOME", c);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The context Claude Code's model is given by a hook's JSON answer
/// (`hookSpecificOutput.additionalContext`), or "" for none.
pub fn hook_context(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return String::new();
    }
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap_or_default();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

/// One `sightline hook` (then `args`) in `cwd` with `payload` on stdin,
/// through `dirs`' daemon and its data directory (`dirs.runtime()/data`,
/// shared by every call, so that its before and after calls meet); the
/// hook always exits 0, which is checked. Its stdout, and how long it took.
pub fn run_hook(
    cwd: &std::path::Path,
    dirs: &crate::DaemonDirs,
    args: &[&str],
    payload: &serde_json::Value,
) -> (String, Duration) {
    let t = std::time::Instant::now();
    let (out, code) = run_with_stdin(
        Command::new(sightline_bin())
            .arg("hook")
            .args(args)
            .current_dir(cwd)
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", dirs.runtime().join("data"))
            .envs(dirs.env()),
        &payload.to_string(),
        Input::Read,
    );
    assert_eq!(code, 0, "sightline hook exits 0");
    (out, t.elapsed())
}

/// A running `sightline batch`. Each `ask` reads exactly one answer; dropping
/// the session with unread output fails the test, so no answer goes unchecked.
/// It runs in the process's private directories with a data directory and,
/// unless its environment gives a runtime directory, a daemon's directories
/// of its own: `batch` answers in process, but its `servers` lists the
/// shared daemon's servers too, which must be none of another test's.
pub struct BatchSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Killed by the test ([`BatchSession::kill`]): its end is not checked.
    killed: bool,
    _data: tempfile::TempDir,
    _daemon: Option<crate::DaemonDirs>,
}

pub struct BatchBuilder {
    env: Vec<(String, String)>,
}

impl BatchBuilder {
    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.push((k.into(), v.into()));
        self
    }

    pub fn start(self) -> BatchSession {
        require("pyright-langserver");
        require("typescript-language-server");
        let data = tempfile::tempdir().unwrap();
        let own = !self.env.iter().any(|(k, _)| k == "XDG_RUNTIME_DIR");
        let daemon = own.then(crate::DaemonDirs::new);
        let mut child = Command::new(sightline_bin())
            .arg("batch")
            .envs(crate::isolation::env())
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(daemon.iter().flat_map(|d| d.env()))
            .envs(self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        BatchSession {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            killed: false,
            _data: data,
            _daemon: daemon,
        }
    }
}

impl BatchSession {
    pub fn builder() -> BatchBuilder {
        BatchBuilder { env: Vec::new() }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one command and returns its answer (the lines up to the blank line).
    pub fn ask(&mut self, command: &str) -> String {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("sightline batch did not answer within 60 s");
            if line.is_empty() {
                return answer;
            }
            answer.push_str(&line);
            answer.push('\n');
        }
    }

    pub fn kill(&mut self) {
        self.killed = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BatchSession {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let status = self.child.wait();
        let unread: Vec<String> = self.lines.try_iter().collect();
        if !std::thread::panicking() {
            assert!(
                unread.is_empty(),
                "sightline batch printed output nobody read: {unread:?}"
            );
            // Once its input ends, a batch exits with its worst answer's
            // status (0, 1 for findings, 2 for a failed command); a batch
            // that crashed (a panic's 101, a signal) did not answer whole.
            let status = status.expect("sightline batch could not be waited for");
            assert!(
                self.killed || matches!(status.code(), Some(0..=2)),
                "sightline batch crashed: {status}"
            );
        }
    }
}
