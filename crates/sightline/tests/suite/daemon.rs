//! The shared daemon (`sightline mcp --daemon`): sessions share servers, the
//! daemon's death during a call is answered at once and the session goes
//! on, idle exit, version skew, and the refusal of another uid. Each test
//! has its own runtime and state directories, and stops its daemon.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{
    DaemonDirs, Project, alive, descendants, path_with_tools, require, sightline_bin,
};

const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";
const APP: &str = "from lib import add\n\ntotal = add(1, 2)\n";

/// A test's daemon directories (the support crate's, with the daemon
/// switched on); dropping it stops the daemon and checks that it and its
/// servers are gone.
struct Dirs {
    inner: DaemonDirs,
}

impl Dirs {
    fn new() -> Dirs {
        Dirs {
            inner: DaemonDirs::new(),
        }
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![("SIGHTLINE_DAEMON", "1".to_owned())];
        env.extend(
            self.inner
                .env()
                .into_iter()
                .map(|(k, v)| (k, v.display().to_string())),
        );
        env
    }

    fn open(&self, d: &mut McpDriver, session: &str, cwd: &Path, extra: &[(&str, &str)]) {
        let env = self.env();
        let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        all.extend_from_slice(extra);
        let opened = d.open_env(session, cwd, &path_with_tools(), &["mcp"], &all);
        assert!(opened.get("error").is_none(), "{opened}");
    }

    fn pid_file(&self) -> PathBuf {
        self.inner.runtime().join("sightline/daemon.pid")
    }

    /// The running daemon's pid.
    fn daemon_pid(&self) -> u32 {
        let text = std::fs::read_to_string(self.pid_file()).unwrap();
        let pid = text.trim().parse().unwrap();
        assert!(alive(pid), "the daemon {pid} is not running");
        pid
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args).stdin(Stdio::null());
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// A CLI call in `cwd` with the environment of `d`'s sessions: the MCP
    /// SDK gives a server only HOME, PATH and the like (CARGO_HOME, which
    /// `cargo test` sets, would make another engine), and the sessions'
    /// settings (with others the CLI answers in process).
    fn cli_as_session(&self, d: &McpDriver, cwd: &Path, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .env_clear()
            .env("HOME", std::env::var_os("HOME").unwrap())
            .env("PATH", path_with_tools())
            .envs(self.env())
            .envs(d.settings_env());
        cmd.output().unwrap()
    }

    fn status(&self) -> Value {
        let out = self.cli(&["daemon", "status", "--json"]);
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn log(&self) -> String {
        self.inner.log()
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let pid = std::fs::read_to_string(self.pid_file())
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok());
        let _ = self.cli(&["daemon", "stop"]);
        if let Some(pid) = pid {
            let gone = wait_until(Duration::from_secs(15), || !alive(pid));
            if !gone {
                // SAFETY: kill with a pid read from our own daemon's file.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            if !std::thread::panicking() {
                assert!(gone, "the daemon {pid} did not stop:\n{}", self.log());
            }
        }
    }
}

/// Whether `f` came to hold within `max` (`poll_until`).
pub(super) fn wait_until(max: Duration, mut f: impl FnMut() -> bool) -> bool {
    sightline_test_support::poll_until(max, || f().then_some(())).is_some()
}

fn project() -> Project {
    Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)])
}

pub(super) fn pyrights_under(pid: u32) -> Vec<u32> {
    descendants(pid)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.contains("pyright-langserver") && !c.contains("__sandbox"))
        })
        .collect()
}

fn definition(d: &mut McpDriver, session: &str, p: &Project) -> String {
    let a = d.call(
        session,
        "lsp_definition",
        json!({ "file": p.path("app.py"), "line": 3, "symbol": "add" }),
    );
    assert!(!a.is_error, "{}", a.text);
    a.text
}

#[test]
fn two_sessions_and_a_cli_call_share_one_pyright_and_the_status_shows_it() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "a", p.root(), &[]);
    dirs.open(&mut d, "b", p.root(), &[]);
    let first = definition(&mut d, "a", &p);
    assert_eq!(
        first,
        "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n"
    );
    assert_eq!(definition(&mut d, "b", &p), first);
    let daemon = dirs.daemon_pid();
    // A CLI call in the project without `--root` (its file is served under
    // its project's root, which is the sessions' root): the same pyright,
    // and the text and exit status of the in-process CLI.
    let root = p.root().to_str().unwrap();
    let out = dirs.cli_as_session(&d, p.root(), &["definition", "app.py:3:9"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), first, "{out:?}");
    assert_eq!(out.status.code(), Some(0));
    let out = dirs.cli_as_session(&d, p.root(), &["--root", root, "definition", "app.py:99:1"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("error: line 99"),
        "{out:?}"
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(pyrights_under(daemon).len(), 1, "{:?}", dirs.status());
    // The CLI calls' sessions end on the daemon's side a moment after
    // their answers.
    assert!(
        wait_until(Duration::from_secs(10), || dirs.status()["clients"]
            == json!(2)),
        "{}",
        dirs.status()
    );
    let status = dirs.status();
    assert_eq!(status["pid"], json!(daemon));
    let servers = status["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{status}");
    assert_eq!(servers[0]["id"], json!("pyright"));
    // Two sessions' definitions and the CLI's: the CLI asked the daemon.
    assert_eq!(servers[0]["requests"], json!(3), "{status}");
    // `sightline servers` lists the daemon's running ones after its own.
    let out = dirs.cli(&["servers"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let tail = text
        .split("the shared daemon: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(tail.starts_with(&format!("daemon pid {daemon}")), "{tail}");
    assert!(
        tail.contains(&format!("pyright {} pid", p.root().display())),
        "{tail}"
    );
    // `sightline restart` through the daemon: a new pyright, ready when
    // the command returns, and the sessions go on with it.
    let old = pyrights_under(daemon);
    let out = dirs.cli_as_session(&d, p.root(), &["restart", "pyright"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!(
            "restarted pyright for {}: ready in ",
            p.root().display()
        )),
        "{out:?}"
    );
    let new = pyrights_under(daemon);
    assert_eq!(new.len(), 1);
    assert_ne!(new, old);
    assert_eq!(definition(&mut d, "a", &p), first);
    d.close("a");
    d.close("b");
}

#[test]
fn a_session_in_a_wider_workspace_gets_a_server_of_its_own_not_one_confined_to_the_project() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = Project::new(&[
        ("proj/pyproject.toml", ""),
        ("proj/lib.py", LIB),
        ("proj/app.py", APP),
    ]);
    let proj = p.path("proj");
    let mut d = McpDriver::start();
    // Both serve proj/app.py under proj/, but the outer session's server may
    // write the whole workspace and the inner one's only proj/.
    dirs.open(&mut d, "outer", p.root(), &[]);
    dirs.open(&mut d, "inner", &proj, &[]);
    for session in ["outer", "inner"] {
        let a = d.call(
            session,
            "lsp_definition",
            json!({ "file": proj.join("app.py"), "line": 3, "symbol": "add" }),
        );
        assert!(a.text.starts_with("1 definition\n"), "{}", a.text);
    }
    let daemon = dirs.daemon_pid();
    assert_eq!(pyrights_under(daemon).len(), 2, "{}", dirs.status());
    // A CLI call in proj/ without `--root` is confined to proj/, as the
    // inner session is: it gets the inner session's pyright.
    let out = dirs.cli_as_session(&d, &proj, &["definition", "app.py:3:9"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let status = dirs.status();
    assert_eq!(pyrights_under(daemon).len(), 2, "{status}");
    let mut requests: Vec<(Value, Value)> = status["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["writable"][0].clone(), s["requests"].clone()))
        .collect();
    requests.sort_by_key(|(w, _)| w.to_string());
    let outer = json!(p.root());
    let inner = json!(proj);
    assert_eq!(
        requests,
        vec![(outer, json!(1)), (inner, json!(2))],
        "{status}"
    );
    d.close("outer");
    d.close("inner");
}

#[test]
fn the_daemon_killed_during_a_call_answers_it_and_the_session_goes_on() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "s", p.root(), &[]);
    let daemon = dirs.daemon_pid();
    // Kill the daemon as soon as its pyright runs: the references call that
    // started it is then in flight.
    let killer = std::thread::spawn(move || {
        let started = wait_until(Duration::from_secs(30), || {
            !pyrights_under(daemon).is_empty()
        });
        let servers = pyrights_under(daemon);
        // Taken before the signal is sent: taken after, this thread may be
        // descheduled between the two while the answer already arrives.
        let killing = Instant::now();
        // SAFETY: the daemon's pid, read from its own file.
        unsafe { libc::kill(daemon as i32, libc::SIGKILL) };
        (started, servers, killing)
    });
    let a = d.call(
        "s",
        "lsp_references",
        json!({ "file": p.path("lib.py"), "line": 1, "symbol": "add" }),
    );
    let answered = Instant::now();
    let (started, servers, killed) = killer.join().unwrap();
    assert!(started, "the daemon never started pyright");
    assert!(a.is_error, "{}", a.text);
    assert!(
        a.text.starts_with("error: the sightline daemon exited"),
        "{}",
        a.text
    );
    // No time is asserted (a loaded machine stretches any): the words
    // above come only from the connection's end, never from a timeout,
    // and the answer came after the kill.
    assert!(answered >= killed);
    // Its servers die with it.
    for s in &servers {
        assert!(
            wait_until(Duration::from_secs(10), || !alive(*s)),
            "pyright {s} outlived its daemon"
        );
    }
    // The session goes on, on a new daemon. (The logs are shown on failure:
    // a new daemon that went away during this call was seen once, in CI.)
    let a = d.call(
        "s",
        "lsp_definition",
        json!({ "file": p.path("app.py"), "line": 3, "symbol": "add" }),
    );
    assert_eq!(
        (a.is_error, a.text.as_str()),
        (
            false,
            "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n"
        ),
        "session log:\n{}\ndaemon log:\n{}",
        std::fs::read_to_string(d.log_path("s")).unwrap_or_default(),
        dirs.inner.log()
    );
    assert_ne!(dirs.daemon_pid(), daemon);
    d.close("s");
}

#[test]
fn the_daemon_exits_when_idle_and_a_new_build_replaces_an_old_one() {
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    // A daemon of an old build, idle at once once its client leaves, but
    // only after 60 s by default; here the idle time is 1 s.
    dirs.open(
        &mut d,
        "old",
        p.root(),
        &[
            ("SIGHTLINE_BUILD_ID", "old"),
            ("SIGHTLINE_DAEMON_IDLE_SECS", "600"),
        ],
    );
    let old = dirs.daemon_pid();
    d.close("old");
    assert!(alive(old), "the old daemon left before its idle time");
    // A client of another build: the old daemon drains and exits, and the
    // client's session runs on a daemon of its build.
    dirs.open(
        &mut d,
        "new",
        p.root(),
        &[
            ("SIGHTLINE_BUILD_ID", "new"),
            ("SIGHTLINE_DAEMON_IDLE_SECS", "1"),
        ],
    );
    assert!(
        wait_until(Duration::from_secs(10), || !alive(old)),
        "the old daemon did not drain"
    );
    let new = dirs.daemon_pid();
    assert_ne!(new, old);
    assert_eq!(dirs.status()["build"], json!("new"));
    assert!(dirs.log().contains("draining"), "{}", dirs.log());
    // Idle exit: no client, no server, 1 s.
    d.close("new");
    assert!(
        wait_until(Duration::from_secs(10), || !alive(new)),
        "the idle daemon did not exit:\n{}",
        dirs.log()
    );
}

#[test]
fn a_client_of_another_uid_is_refused() {
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "s", p.root(), &[]);
    let daemon = dirs.daemon_pid();
    // Open the directory and socket to everyone, so that only the daemon's
    // own check stands between another user and it.
    use std::os::unix::fs::PermissionsExt;
    let dir = dirs.inner.runtime().join("sightline");
    std::fs::set_permissions(dirs.inner.runtime(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        dir.join("daemon.sock"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    let socket = dir.join("daemon.sock");
    // A child that drops to `nobody` and speaks MCP's first line.
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(sightline_test_support::mcp::python())
        .args([
            "-c",
            "import socket,sys\n\
             s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n\
             try:\n\
             \x20 s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\\n')\n\
             \x20 print('answered' if s.recv(4096) else 'closed')\n\
             except (ConnectionResetError, BrokenPipeError): print('closed')",
        ])
        .arg(&socket)
        .output()
        .expect("setpriv (util-linux) is needed to drop to another uid");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "closed");
    assert!(
        wait_until(Duration::from_secs(5), || dirs
            .log()
            .contains("refused a client of uid Ok(65534)")),
        "{}",
        dirs.log()
    );
    assert!(alive(daemon));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    d.close("s");
}

#[test]
fn ten_clients_at_once_start_one_daemon_and_one_server() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let children: Vec<std::process::Child> = (0..10)
        .map(|_| {
            let mut cli = Command::new(sightline_bin());
            cli.args(["definition", "app.py:3:9"])
                .current_dir(p.root())
                .env("PATH", path_with_tools())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (k, v) in dirs.env() {
                cli.env(k, v);
            }
            cli.spawn().unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n",
            "{out:?}"
        );
    }
    let daemon = dirs.daemon_pid();
    // Every `sightline daemon` process but the one that holds the lock has
    // exited.
    let daemons: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| {
            alive(*pid)
                && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    c.split(|b| *b == 0).nth(1) == Some(b"daemon".as_slice())
                        && std::fs::read_to_string(format!("/proc/{pid}/environ"))
                            .is_ok_and(|e| e.contains(&dirs.inner.runtime().display().to_string()))
                })
        })
        .collect();
    assert_eq!(daemons, vec![daemon]);
    assert_eq!(pyrights_under(daemon).len(), 1);
}

#[test]
fn over_the_memory_limit_an_idle_server_stops_and_comes_back_when_asked() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    // 1 MB: any running server is over it once its call has ended.
    dirs.open(
        &mut d,
        "s",
        p.root(),
        &[("SIGHTLINE_DAEMON_MEMORY_LIMIT_MB", "1")],
    );
    let want = "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n";
    assert_eq!(definition(&mut d, "s", &p), want);
    let daemon = dirs.daemon_pid();
    assert!(
        wait_until(Duration::from_secs(20), || pyrights_under(daemon)
            .is_empty()),
        "pyright still runs over the limit:\n{}",
        dirs.log()
    );
    assert!(
        dirs.log().contains("over the 1 MiB limit; stopped pyright"),
        "{}",
        dirs.log()
    );
    // The next question starts it again.
    assert_eq!(definition(&mut d, "s", &p), want);
    d.close("s");
}

#[test]
fn a_new_build_gets_its_own_daemon_while_the_old_one_finishes_its_sessions() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "old", p.root(), &[("SIGHTLINE_BUILD_ID", "old")]);
    let old = dirs.daemon_pid();
    // The old session stays open while a client of the new build arrives.
    dirs.open(&mut d, "new", p.root(), &[("SIGHTLINE_BUILD_ID", "new")]);
    let new = dirs.daemon_pid();
    assert_ne!(new, old);
    let want = "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n";
    assert_eq!(definition(&mut d, "new", &p), want);
    // The old daemon still serves its session, then exits when it ends.
    assert!(alive(old));
    assert_eq!(definition(&mut d, "old", &p), want);
    d.close("old");
    assert!(
        wait_until(Duration::from_secs(15), || !alive(old)),
        "{}",
        dirs.log()
    );
    assert!(alive(new));
    d.close("new");
}

#[test]
fn answers_in_flight_when_stdin_closes_are_still_written() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let app = p.path("app.py");
    let input = format!(
        "{}\n{}\n{}\n",
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "lsp_definition", "arguments": { "file": app, "line": 3, "symbol": "add" } } }),
    );
    let mut cmd = Command::new(sightline_bin());
    cmd.args(["mcp", "--daemon"])
        .current_dir(p.root())
        .env("PATH", path_with_tools())
        .stderr(Stdio::null());
    for (k, v) in dirs.env() {
        cmd.env(k, v);
    }
    let out = sightline_test_support::cli::output_with_stdin(&mut cmd, input.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    let answer = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == json!(2))
        .unwrap_or_else(|| panic!("no answer to the call: {text}"));
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n")
    );
}

#[test]
fn trust_granted_or_revoked_takes_effect_on_the_daemon_at_once() {
    let dirs = Dirs::new();
    let p = Project::new(&[(".git/HEAD", ""), ("a.mine", "ERR here\n")]);
    let fake = super::fake::fake_bin();
    p.write(
        "server.sh",
        &format!("#!/bin/sh\ntouch ran.mark\nexec {} serve\n", fake.display()),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p.path("server.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    p.write(
        "sightline.json",
        "{\n  \"lsp\": {\n    \"mine\": { \"command\": [\"./server.sh\"], \"extensions\": [\".mine\"] }\n  }\n}\n",
    );
    let data = tempfile::tempdir().unwrap();
    let root = p.root().to_str().unwrap().to_owned();
    let file = p.path("a.mine").display().to_string();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args)
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", data.path())
            .env_remove("SIGHTLINE_CONFIG")
            .stdin(Stdio::null());
        for (k, v) in dirs.env() {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
        )
    };
    let ask = || run(&["--root", &root, "diagnostics", &file]);
    let (out, code) = ask();
    assert!(
        out.starts_with("unavailable: the project configuration"),
        "{out}"
    );
    assert_eq!(code, Some(2));
    assert!(!p.path("ran.mark").exists(), "an untrusted command ran");
    // Trusted: the same daemon now runs the project's server.
    assert_eq!(run(&["trust", &root]).1, Some(0));
    let (out, _) = ask();
    assert!(out.contains("found ERR"), "{out}");
    assert!(p.path("ran.mark").exists());
    // Asked again under the same configuration: the same server answers
    // (nothing started it again).
    std::fs::remove_file(p.path("ran.mark")).unwrap();
    let (out, _) = ask();
    assert!(out.contains("found ERR"), "{out}");
    assert!(!p.path("ran.mark").exists(), "the server was started again");
    // Revoked: it no longer does.
    assert_eq!(run(&["trust", "--revoke", &root]).1, Some(0));
    let (out, code) = ask();
    assert!(
        out.starts_with("unavailable: the project configuration"),
        "{out}"
    );
    assert_eq!(code, Some(2));
    assert!(!p.path("ran.mark").exists(), "a revoked command ran");
}

/// `sightline --root ROOT diagnostics FILE` through the daemon of `dirs`,
/// with `var` set to `value` or removed; its stdout. VIRTUAL_ENV is removed
/// unless it is the variable.
fn diagnostics_with(
    dirs: &Dirs,
    root: &str,
    file: &str,
    var: &str,
    value: Option<&Path>,
) -> String {
    let mut cmd = Command::new(sightline_bin());
    cmd.args(["--root", root, "diagnostics", file])
        .env("PATH", path_with_tools())
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null());
    for (k, v) in dirs.env() {
        cmd.env(k, v);
    }
    match value {
        Some(v) => cmd.env(var, v),
        None => cmd.env_remove(var),
    };
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}

#[test]
fn each_client_s_virtualenv_gets_an_engine_of_its_own() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "import only_in_a\n")]);
    // A virtualenv (outside the project, so only VIRTUAL_ENV finds it) whose
    // site-packages holds the one package the project imports.
    let envs = tempfile::tempdir().unwrap();
    let venv = envs.path().join("a");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success(), "python3 -m venv failed");
    let lib = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::create_dir_all(lib.join("site-packages/only_in_a")).unwrap();
    std::fs::write(lib.join("site-packages/only_in_a/__init__.py"), "").unwrap();
    let root = p.root().display().to_string();
    let file = p.path("app.py").display().to_string();
    let ask = |venv: Option<&Path>| diagnostics_with(&dirs, &root, &file, "VIRTUAL_ENV", venv);
    let unresolved = "Import \"only_in_a\" could not be resolved";
    let with = ask(Some(&venv));
    // Resolved: at most pyright's hint that the import is not used, and a
    // complete answer (no note that pyright was still analysing).
    assert!(
        with.starts_with("app.py:") && !with.contains(unresolved) && !with.contains("note:"),
        "{with}"
    );
    // Another client of the same daemon, in the same project, without the
    // virtualenv: its pyright does not see the package.
    let without = ask(None);
    assert!(without.contains(unresolved), "{without}");
    assert_eq!(ask(Some(&venv)), with);
    let status = dirs.status();
    assert!(status.to_string().contains("pyright"), "{status}");
}

#[test]
fn each_client_s_pythonpath_reaches_only_its_own_servers() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import only_on_the_path\n"),
    ]);
    // A package outside the project that only PYTHONPATH finds: pyright asks
    // its interpreter for `sys.path`, which the variable extends.
    let extra = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(extra.path().join("only_on_the_path")).unwrap();
    std::fs::write(extra.path().join("only_on_the_path/__init__.py"), "").unwrap();
    let root = p.root().display().to_string();
    let file = p.path("app.py").display().to_string();
    let ask =
        |pythonpath: Option<&Path>| diagnostics_with(&dirs, &root, &file, "PYTHONPATH", pythonpath);
    let unresolved = "Import \"only_on_the_path\" could not be resolved";
    // The first client starts the daemon, with its PYTHONPATH in the
    // daemon's own environment.
    let with = ask(Some(extra.path()));
    assert!(
        with.starts_with("app.py:") && !with.contains(unresolved) && !with.contains("note:"),
        "{with}"
    );
    // A client without it, same daemon and project: its server must not
    // inherit the daemon's.
    let without = ask(None);
    assert!(without.contains(unresolved), "{without}");
    assert_eq!(ask(Some(extra.path())), with);
    // The daemon answered (not each process on its own).
    let status = dirs.status();
    assert!(status.to_string().contains("pyright"), "{status}");
}

#[test]
fn a_client_with_other_settings_answers_in_process_not_with_the_daemon_s() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let ask = |data: &Path| {
        let mut cli = Command::new(sightline_bin());
        cli.args(["definition", "app.py:3:9"])
            .current_dir(p.root())
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", data)
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .stdin(Stdio::null());
        for (k, v) in dirs.env() {
            cli.env(k, v);
        }
        cli.output().unwrap()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let want = "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n";
    let first = ask(a.path());
    assert_eq!(String::from_utf8_lossy(&first.stdout), want, "{first:?}");
    let daemon = dirs.daemon_pid();
    assert!(!dirs.log().contains("other settings"), "{}", dirs.log());
    // Another data directory (where installs and trust live): the daemon,
    // started with the first, refuses; the call answers in process.
    // Said in the answer's first line, never a second set of servers
    // without a word.
    let second = ask(b.path());
    let said = String::from_utf8_lossy(&second.stdout);
    let (note, answer) = said.split_once('\n').unwrap_or_default();
    assert!(
        note.starts_with("note: the running sightline daemon has other settings (data directory); this answer comes from servers started for this call alone"),
        "{said}"
    );
    assert_eq!(answer, want, "{second:?}");
    assert_eq!(second.status.code(), Some(0));
    assert!(
        dirs.log().contains("a client with other settings"),
        "{}",
        dirs.log()
    );
    assert_eq!(dirs.daemon_pid(), daemon);
}

#[test]
fn an_mcp_session_with_other_settings_says_so_in_its_first_answer() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    let other = tempfile::tempdir().unwrap();
    dirs.open(&mut d, "mine", p.root(), &[]);
    dirs.open(
        &mut d,
        "other",
        p.root(),
        &[("SIGHTLINE_DATA_DIR", other.path().to_str().unwrap())],
    );
    let ask = |d: &mut McpDriver, session: &str| {
        d.call(
            session,
            "lsp_definition",
            json!({ "file": p.path("app.py"), "line": 3, "column": 9 }),
        )
        .text
    };
    let mine = ask(&mut d, "mine");
    assert!(mine.starts_with("1 definition"), "{mine}");
    let first = ask(&mut d, "other");
    let (note, answer) = first.split_once('\n').unwrap_or_default();
    assert!(
        note.starts_with(
            "note: the running sightline daemon has other settings (data directory); "
        ),
        "{first}"
    );
    assert_eq!(answer, mine);
    // Once: the next answers are the answers alone.
    assert_eq!(ask(&mut d, "other"), mine);
    d.close("other");
    d.close("mine");
}

#[test]
fn ctrl_c_on_a_cli_call_through_the_daemon_exits_2_and_the_daemon_goes_on() {
    use super::fake;
    // A server that never answers `definition`, so the call is in flight.
    let p = fake::project(json!({ "rules": [
        { "method": "textDocument/definition", "actions": ["hang"] },
    ] }));
    let dirs = Dirs::new();
    let config = p.path("user-config.json");
    std::fs::write(
        &config,
        json!({ "lsp": { "fake": {
            "command": [fake::fake_bin(), "serve"],
            "extensions": [".fake"],
        } } })
        .to_string(),
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args)
            .current_dir(p.root())
            .env("SIGHTLINE_CONFIG", &config)
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in dirs.env() {
            cmd.env(k, v);
        }
        cmd
    };
    let mut call = cli(&["definition", "a.fake:2:1"]).spawn().unwrap();
    assert!(
        wait_until(Duration::from_secs(30), || fake::received(
            &p,
            "textDocument/definition"
        ) >= 1),
        "the definition never reached the server: {}",
        fake::log(&p)
    );
    let daemon = dirs.daemon_pid();
    let interrupted = Command::new("kill")
        .args(["-INT", &call.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    // Waited on with a bound only so that a hang fails instead of stalling.
    assert!(
        wait_until(Duration::from_secs(10), || call
            .try_wait()
            .unwrap()
            .is_some()),
        "the CLI call did not end on SIGINT"
    );
    assert_eq!(call.wait().unwrap().code(), Some(2));
    // The daemon and its server go on: the next question is answered.
    let out = cli(&["diagnostics", "a.fake"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        fake::A_DIAGS,
        "{out:?}"
    );
    assert_eq!(dirs.daemon_pid(), daemon);
}

#[test]
fn a_cli_rename_and_patch_are_served_by_the_daemon_s_running_pyright() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "a", p.root(), &[]);
    definition(&mut d, "a", &p);
    let daemon = dirs.daemon_pid();
    let warm = pyrights_under(daemon);
    assert_eq!(warm.len(), 1);
    // The rename from the command line: the daemon's pyright answers it
    // (its request count grows), no server of the command's own starts,
    // and the answer is the in-process command's (no checkpoint named).
    let out = dirs.cli_as_session(&d, p.root(), &["rename", "lib.py:1:5", "plus"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("renamed add → plus: "), "{out:?}");
    assert!(!text.contains("checkpoint:"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(p.path("app.py")).unwrap(),
        "from lib import plus\n\ntotal = plus(1, 2)\n"
    );
    // A patch's relative paths start at the command's directory, though
    // the daemon works elsewhere; a dry run writes nothing.
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-total = plus(1, 2)\n+total = plus(1, \"2\")\n*** End Patch\n";
    for dry in [true, false] {
        let mut argv = vec!["apply-patch"];
        if dry {
            argv.push("--dry-run");
        }
        let mut cmd = Command::new(sightline_bin());
        cmd.args(&argv)
            .current_dir(p.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env_clear()
            .env("HOME", std::env::var_os("HOME").unwrap())
            .env("PATH", path_with_tools())
            .envs(dirs.env())
            .envs(d.settings_env());
        let mut child = cmd.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), patch.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("app.py: 1 new error\n3:17 error: Argument"),
            "{out:?}"
        );
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert_eq!(
            std::fs::read_to_string(p.path("app.py"))
                .unwrap()
                .contains("\"2\""),
            !dry,
            "{text}"
        );
    }
    let status = dirs.status();
    assert_eq!(pyrights_under(daemon), warm, "{status}");
    let servers = status["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{status}");
    assert!(
        servers[0]["requests"].as_u64().unwrap() > 1,
        "only the session's definition reached the daemon's pyright: {status}"
    );
    assert_eq!(status["sessions_by_client"]["cli"], json!(3), "{status}");
    d.close("a");
}

#[test]
fn clients_whose_path_differs_but_finds_the_same_programs_share_one_pyright() {
    require("pyright-langserver");
    let dirs = Dirs::new();
    let p = project();
    let mut d = McpDriver::start();
    dirs.open(&mut d, "a", p.root(), &[]);
    first_answer(&mut d, &p);
    let daemon = dirs.daemon_pid();
    // An MCP host's PATH: directories of its own first (one that does not
    // exist, one that holds no server), then the user's.
    let helpers = tempfile::tempdir().unwrap();
    let other_path = format!(
        "/nonexistent/host-bin:{}:{}",
        helpers.path().display(),
        path_with_tools()
    );
    let out = Command::new(sightline_bin())
        .args(["definition", "app.py:3:9"])
        .current_dir(p.root())
        .stdin(Stdio::null())
        .env_clear()
        .env("HOME", std::env::var_os("HOME").unwrap())
        .env("PATH", &other_path)
        .envs(dirs.env())
        .envs(d.settings_env())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n",
        "{out:?}"
    );
    assert_eq!(pyrights_under(daemon).len(), 1, "{}", dirs.status());
    d.close("a");
}

fn first_answer(d: &mut McpDriver, p: &Project) {
    assert_eq!(
        definition(d, "a", p),
        "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n"
    );
}
