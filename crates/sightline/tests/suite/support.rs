//! Test support: temporary projects, a workspace wired to the pinned servers in
//! `tools/`, and a harness for `sightline batch` that checks, when dropped, that
//! every answer it produced was read.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use sightline::{Engine, Options, render};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Where `tools/install` puts the pinned servers.
pub fn tools_bin() -> PathBuf {
    repo_root().join("tools/node_modules/.bin")
}

/// Fails (never skips) when a server the test needs is missing.
pub fn require(command: &str) {
    let p = tools_bin().join(command);
    assert!(
        p.is_file(),
        "{command} is not installed at {}; run `tools/install` (the README's test command `scripts/test` does this)",
        p.display()
    );
}

/// A workspace that finds servers only in `tools/` and never downloads.
pub fn workspace() -> Engine {
    require("pyright-langserver");
    require("typescript-language-server");
    Engine::new(Options {
        search_path: vec![tools_bin()],
        downloads: Some(false),
        ..Options::default()
    })
}

/// A project in a temporary directory.
pub struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    pub fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let p = Project { dir, root };
        for (rel, text) in files {
            p.write(rel, text);
        }
        p
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn sightline_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sightline"))
}

/// PATH with the pinned servers first.
pub fn path_with_tools() -> String {
    format!(
        "{}:{}",
        tools_bin().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs the CLI once; returns (stdout, exit code).
pub fn run_cli(args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(sightline_bin())
        .args(args)
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data.path())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// A running `sightline batch`. Each `ask` reads exactly one answer; dropping
/// the session with unread output fails the test, so no answer goes unchecked.
pub struct BatchSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _data: tempfile::TempDir,
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
        let mut child = Command::new(sightline_bin())
            .arg("batch")
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
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
            _data: data,
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
            assert!(status.is_ok());
        }
    }
}

/// Every process whose parent chain leads to `pid`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces.
        let Some(after) = stat.rsplit_once(')').map(|(_, a)| a.to_owned()) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if let Some(ppid) = fields.get(1).and_then(|f| f.parse::<u32>().ok()) {
            parents.push((p, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for &(p, pp) in &parents {
            if pp == parent && !out.contains(&p) {
                out.push(p);
                frontier.push(p);
            }
        }
    }
    out
}

pub fn alive(pid: u32) -> bool {
    // A zombie has exited; it only waits to be reaped.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, a)| a.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The text a tool gives for `definition`, answer or error.
pub async fn defs(ws: &Engine, file: &Path, line: usize, col: usize) -> String {
    match ws.definition(file, line, col).await {
        Ok(l) => render::locations_text(&l),
        Err(e) => render::error_text(&e),
    }
}

/// The text a tool gives for `references` (declaration excluded).
pub async fn refs(ws: &Engine, file: &Path, line: usize, col: usize) -> String {
    match ws.references(file, line, col, false).await {
        Ok(l) => render::locations_text(&l),
        Err(e) => render::error_text(&e),
    }
}

/// The text a tool gives for `diagnostics`.
pub async fn diags(ws: &Engine, file: &Path) -> String {
    match ws.diagnostics(file).await {
        Ok(d) => render::diagnostics_text(&d),
        Err(e) => render::error_text(&e),
    }
}
