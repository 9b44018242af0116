//! `sightline mcp --http` for the tests: started with a driver's
//! environment (its daemon, its settings), its address and token read from
//! what it says on stderr, and stopped (SIGTERM, then waited for) on drop.
//! Sessions open on it through the driver's SDK (`open_http`), and raw
//! requests go through the driver too (`http_post`), so that a test sees
//! exactly the status and body a client gets.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::McpDriver;
use crate::paths::sightline_bin;

/// A running `sightline mcp --http`.
pub struct HttpMcp {
    child: Child,
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The bearer token it requires.
    pub token: String,
    /// The file it generated the token into, if it did.
    pub token_file: Option<PathBuf>,
    /// Where its stderr goes after the first lines.
    pub log: PathBuf,
}

impl HttpMcp {
    /// `Origin` of the server itself.
    pub fn origin(&self) -> String {
        self.url.trim_end_matches("/mcp").to_owned()
    }

    /// Stops it as a user would (SIGTERM) and returns its exit status;
    /// one that has not exited 30 s later is killed, and the test fails.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        #[cfg(unix)]
        // SAFETY: the signal goes to our own child, not yet waited for.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        #[cfg(not(unix))]
        let _ = self.child.kill();
        let stopped = crate::poll_until(Duration::from_secs(30), || {
            self.child.try_wait().ok().flatten()
        });
        match stopped {
            Some(status) => status,
            None => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("sightline mcp --http did not stop within 30 s of SIGTERM");
            }
        }
    }
}

impl HttpMcp {
    /// Starts `cmd` (a `sightline mcp --http ...`), its stderr logged in
    /// `logs`, and waits until it says where it listens (and, when `token`
    /// is not the one it was given, the token it made).
    pub fn spawn(mut cmd: Command, logs: &Path, token: Option<&str>) -> HttpMcp {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Killed if this panics before the server is handed out.
        let mut child = KilledOnPanic(Some(child));
        let child_ref = child.0.as_mut().unwrap();
        let log = logs.join(format!("http-{}.log", child_ref.id()));
        let (tx, rx) = mpsc::channel();
        let stderr = child_ref.stderr.take().unwrap();
        let mut file = std::fs::File::create(&log).unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let _ = writeln!(file, "{line}");
                let _ = tx.send(line);
            }
        });
        let mut url = None;
        let mut made = None;
        while url.is_none() || (token.is_none() && made.is_none()) {
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| {
                    panic!(
                        "{cmd:?} did not say where it listens: {}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    )
                });
            if let Some(at) = line.strip_prefix("sightline: MCP over HTTP at ") {
                url = Some(at.to_owned());
            }
            if let Some(rest) = line.strip_prefix("sightline: token (also in ") {
                let (file, secret) = rest.split_once(", removed at exit): ").unwrap();
                made = Some((PathBuf::from(file), secret.to_owned()));
            }
        }
        // The rest of its stderr goes on to the log.
        std::thread::spawn(move || for _ in rx {});
        let (token_file, secret) = match (token, made) {
            (Some(t), _) => (None, t.to_owned()),
            (None, Some((file, secret))) => (Some(file), secret),
            (None, None) => unreachable!(),
        };
        HttpMcp {
            child: child.0.take().unwrap(),
            url: url.unwrap(),
            token: secret,
            token_file,
            log,
        }
    }
}

/// A child killed when dropped still held: a spawn that panics leaves no
/// server running.
struct KilledOnPanic(Option<Child>);

impl Drop for KilledOnPanic {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.stop();
        }
    }
}

impl McpDriver {
    /// Starts `sightline ARGS` (`mcp --http 0 ...`) in `cwd` with the
    /// environment a session of this driver gets, and waits until it says
    /// where it listens (and, for a token it made, the token).
    pub fn serve_http(&mut self, cwd: &Path, args: &[&str], token: Option<&str>) -> HttpMcp {
        let env = self.session_env(&crate::path_with_tools(), &[]);
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args).current_dir(cwd).env_clear();
        for (k, v) in env.as_object().unwrap() {
            cmd.env(k, v.as_str().unwrap());
        }
        HttpMcp::spawn(cmd, self.logs.path(), token)
    }

    /// Opens an SDK session on `http` (its streamable HTTP client), with
    /// the token.
    pub fn open_http(&mut self, session: &str, http: &HttpMcp) -> Value {
        self.send(json!({
            "cmd": "open", "session": session, "url": http.url, "token": http.token,
        }))
    }

    /// One raw POST: its status and body.
    pub fn http_post(&mut self, url: &str, headers: &[(&str, &str)], body: Value) -> (u16, String) {
        let headers: serde_json::Map<String, Value> = headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        let a = self.send(json!({ "cmd": "http", "url": url, "headers": headers, "body": body }));
        (
            u16::try_from(a["status"].as_u64().unwrap()).unwrap(),
            a["body"].as_str().unwrap().to_owned(),
        )
    }
}

impl McpDriver {
    /// `sightline daemon status --json` of this driver's daemon.
    pub fn daemon_status(&self) -> Value {
        let out = Command::new(sightline_bin())
            .args(["daemon", "status", "--json"])
            .envs(crate::isolation::env())
            .envs(self.settings_env())
            .envs(self.daemon.env())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "daemon status --json: {e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}
