//! A harness around `tests/mcp/driver.py`, which drives `sightline mcp` with
//! the official MCP Python SDK (pinned in `tools/requirements.txt`). Each
//! command gets exactly one answer; dropping the harness with an answer
//! unread fails the test.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::paths::{path_with_tools, repo_root, sightline_bin};

pub fn python() -> PathBuf {
    let p = repo_root().join("tools/.venv/bin/python");
    assert!(
        p.is_file(),
        "the MCP Python SDK is not installed at {}; run `tools/install` (the README's test command `scripts/test` does this)",
        p.display()
    );
    p
}

pub struct McpDriver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// The daemon the sessions share, and one more for each session started
    /// with an environment of its own (a daemon's environment is its first
    /// client's). Dropped after the driver (so each stops once its sessions
    /// have ended) and before the data directory the daemons use.
    pub(crate) daemon: crate::DaemonDirs,
    more: Vec<crate::DaemonDirs>,
    _data: tempfile::TempDir,
    data: PathBuf,
    pub(crate) logs: tempfile::TempDir,
    /// The program the next `open` starts, when not this build's.
    program: Option<PathBuf>,
    /// The name the next `open`'s client gives, when not the SDK's.
    client: Option<String>,
}

/// The tools every session lists, as the README's table of them names
/// them in order (a unit test keeps that table equal to the registry, so
/// a test that compares with it needs no edit when a tool is added).
pub fn questions_in_readme() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let table = readme
        .split("| tool | arguments | answers |")
        .nth(1)
        .expect("the README's table of the tools");
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('`').nth(1).unwrap().to_owned())
        .collect()
}

/// The answer to a tool call.
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
    pub progress: Vec<String>,
    /// With [`McpDriver::together`]: when the call was sent and when it
    /// was answered, in ms from the first call's start.
    pub span_ms: Option<(u64, u64)>,
    /// The result's structured content, which the SDK checked against the
    /// tool's output schema.
    pub structured: Option<Value>,
}

impl McpDriver {
    pub fn start() -> McpDriver {
        let script = repo_root().join("crates/sightline/tests/mcp/driver.py");
        let mut child = Command::new(python())
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let data = tempfile::tempdir().unwrap();
        McpDriver {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            data: data.path().to_owned(),
            _data: data,
            logs: tempfile::tempdir().unwrap(),
            daemon: crate::DaemonDirs::new(),
            more: Vec::new(),
            program: None,
            client: None,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The settings the sessions run with (the process's private
    /// configuration, data and cache homes, the driver's data directory, no
    /// installs): a CLI call given them gets the sessions' daemon, where
    /// other settings would make it answer in process.
    pub fn settings_env(&self) -> Vec<(&'static str, String)> {
        let mut env: Vec<(&'static str, String)> = crate::isolation::env()
            .into_iter()
            .filter(|(k, _)| ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"].contains(k))
            .map(|(k, v)| (k, v.display().to_string()))
            .collect();
        env.push(("SIGHTLINE_DATA_DIR", self.data.display().to_string()));
        env.push(("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1".into()));
        env
    }

    /// Trusts `dir` in the data directory the sessions use (`sightline
    /// trust`), so that a program the project ships may run.
    pub fn trust(&self, dir: &Path) {
        let out = Command::new(sightline_bin())
            .args(["trust", &dir.display().to_string()])
            .envs(crate::isolation::env())
            .env("SIGHTLINE_DATA_DIR", &self.data)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "sightline trust failed: {out:?}");
    }

    /// Sends one command and returns its one answer.
    pub fn send(&mut self, command: Value) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the MCP driver did not answer within 120 s");
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert!(
            answer.get("exception").is_none(),
            "the MCP client failed: {answer}"
        );
        answer
    }

    /// The stderr log of one session's `sightline mcp`.
    pub fn log_path(&self, session: &str) -> PathBuf {
        self.logs.path().join(format!("{session}.log"))
    }

    /// The session's stderr, then the log of every daemon of this driver
    /// (where a session through the daemon logs its work).
    pub fn log(&self, session: &str) -> String {
        let mut log = std::fs::read_to_string(self.log_path(session)).unwrap_or_default();
        for d in std::iter::once(&self.daemon).chain(&self.more) {
            log.push_str(&d.log());
        }
        log
    }

    /// Starts `sightline mcp` in `cwd` with the pinned servers on PATH.
    pub fn open(&mut self, session: &str, cwd: &Path) -> Value {
        self.open_with(session, cwd, &path_with_tools())
    }

    pub fn open_with(&mut self, session: &str, cwd: &Path, path: &str) -> Value {
        self.open_args(session, cwd, path, &["mcp"])
    }

    pub fn open_args(&mut self, session: &str, cwd: &Path, path: &str, args: &[&str]) -> Value {
        self.open_env(session, cwd, path, args, &[])
    }

    /// Starts `command mcp` (an installed sightline, not this build's) in
    /// `cwd` with the pinned servers on PATH, through this driver's daemon.
    pub fn open_command(&mut self, session: &str, cwd: &Path, command: &Path) -> Value {
        self.program = Some(command.to_owned());
        let opened = self.open(session, cwd);
        self.program = None;
        opened
    }

    /// Starts `sightline mcp` in `cwd` as the client `name` (its
    /// `clientInfo.name` in `initialize`), through this driver's daemon.
    pub fn open_as(&mut self, session: &str, cwd: &Path, name: &str) -> Value {
        self.client = Some(name.to_owned());
        let opened = self.open(session, cwd);
        self.client = None;
        opened
    }

    /// [`Self::open_args`] with more environment variables.
    pub fn open_env(
        &mut self,
        session: &str,
        cwd: &Path,
        path: &str,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> Value {
        let errlog = self.log_path(session);
        let env = self.session_env(path, extra);
        self.send(json!({
            "cmd": "open",
            "session": session,
            "command": self.program.clone().unwrap_or_else(sightline_bin),
            "args": args,
            "cwd": cwd,
            "errlog": errlog,
            "env": env,
            "client": self.client,
        }))
    }

    /// The environment of a `sightline mcp` this driver starts: the
    /// process's private directories, the driver's settings, `path` as
    /// `PATH`, the driver's daemon (or, with `extra` variables, a daemon of
    /// its own), and `extra`.
    pub(crate) fn session_env(&mut self, path: &str, extra: &[(&str, &str)]) -> Value {
        // The SDK gives the server only HOME, PATH and a few more, so the
        // private directories are named here, each one.
        let mut env = json!({});
        for (k, v) in crate::isolation::env() {
            env[k] = json!(v);
        }
        for (k, v) in self.settings_env() {
            env[k] = json!(v);
        }
        env["PATH"] = json!(path);
        env["RUST_LOG"] = json!("sightline=info,sightline_lsp=debug");
        if !extra.iter().any(|(k, _)| *k == "XDG_RUNTIME_DIR") {
            let daemon = if extra.is_empty() {
                &self.daemon
            } else {
                self.more.push(crate::DaemonDirs::new());
                self.more.last().unwrap()
            };
            for (k, v) in daemon.env() {
                env[k] = json!(v);
            }
        }
        for (k, v) in extra {
            env[*k] = json!(v);
        }
        env
    }

    pub fn call(&mut self, session: &str, tool: &str, args: Value) -> Answer {
        self.call_with(session, tool, args, false)
    }

    pub fn call_with(&mut self, session: &str, tool: &str, args: Value, progress: bool) -> Answer {
        let a = self.send(json!({
            "cmd": "call", "session": session, "tool": tool, "args": args, "progress": progress,
        }));
        assert!(a.get("protocol_error").is_none(), "{tool} {a}");
        Answer {
            text: a["text"].as_str().unwrap().to_owned(),
            is_error: a["isError"].as_bool().unwrap(),
            progress: a["progress"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap_or("").to_owned())
                .collect(),
            structured: Some(a["structured"].clone()).filter(|s| !s.is_null()),
            span_ms: None,
        }
    }

    /// Several calls at once: each `(session, tool, args, after_ms)` is
    /// started `after_ms` after the first; their answers, in order.
    pub fn together(&mut self, calls: &[(&str, &str, Value, u64)]) -> Vec<Answer> {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(session, tool, args, after_ms)| {
                json!({ "session": session, "tool": tool, "args": args, "after_ms": after_ms })
            })
            .collect();
        let a = self.send(json!({ "cmd": "together", "calls": calls }));
        a["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert!(r.get("protocol_error").is_none(), "{r}");
                Answer {
                    text: r["text"].as_str().unwrap().to_owned(),
                    is_error: r["isError"].as_bool().unwrap(),
                    progress: Vec::new(),
                    span_ms: Some((
                        r["started_ms"].as_u64().unwrap(),
                        r["ended_ms"].as_u64().unwrap(),
                    )),
                    structured: Some(r["structured"].clone()).filter(|s| !s.is_null()),
                }
            })
            .collect()
    }

    /// A call the server must reject as malformed; returns the JSON-RPC error.
    pub fn protocol_error(&mut self, session: &str, tool: &str, args: Value) -> Value {
        let a = self.send(json!({ "cmd": "call", "session": session, "tool": tool, "args": args }));
        a.get("protocol_error")
            .cloned()
            .unwrap_or_else(|| panic!("{tool} was not rejected: {a}"))
    }

    pub fn close(&mut self, session: &str) {
        self.send(json!({ "cmd": "close", "session": session }));
    }
}

impl Drop for McpDriver {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let status = self.child.wait();
        let unread: Vec<String> = self.lines.try_iter().collect();
        if !std::thread::panicking() {
            assert!(
                unread.is_empty(),
                "the MCP driver said what nobody read: {unread:?}"
            );
            assert!(status.is_ok_and(|s| s.success()), "the MCP driver failed");
        }
    }
}
