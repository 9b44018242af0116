//! Warm `definition` through sightline against a minimal direct client talking
//! to the same pinned pyright, in one run. Prints both medians and their ratio.
//!
//! The direct client is deliberately bare: blocking std I/O, hand framing, every
//! server request answered with `null`. It is the floor sightline is measured
//! against. Run with `cargo bench -p sightline --bench definition`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ROUNDS: usize = 200;
const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";
const APP: &str = "from lib import add\n\ntotal = add(1, 2)\nprint(total)\n";

fn pyright() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/node_modules/.bin/pyright-langserver");
    assert!(
        p.is_file(),
        "pyright-langserver missing at {}; run tools/install",
        p.display()
    );
    p
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The bare client: one reader thread, responses by id over a channel.
struct Direct {
    stdin: std::process::ChildStdin,
    responses: mpsc::Receiver<Value>,
    child: std::process::Child,
    next: i64,
}

impl Direct {
    fn start(root: &Path) -> Direct {
        let mut child = Command::new(pyright())
            .arg("--stdio")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let (req_tx, req_rx) = mpsc::channel::<Value>();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                r.read_exact(&mut body).unwrap();
                let msg: Value = serde_json::from_slice(&body).unwrap();
                if msg.get("method").is_some() && msg.get("id").is_some() {
                    let _ = req_tx.send(msg);
                } else if msg.get("id").is_some() {
                    let _ = tx.send(msg);
                }
            }
        });
        let mut d = Direct {
            stdin,
            responses: rx,
            child,
            next: 0,
        };
        // Server requests are answered from the writer side, between requests.
        std::thread::spawn(move || drop(req_rx));
        d.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": format!("file://{}", root.display()),
                "capabilities": {},
            }),
        );
        d.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        d
    }

    fn send(&mut self, v: Value) {
        let body = serde_json::to_vec(&v).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let r = self
                .responses
                .recv_timeout(Duration::from_secs(60))
                .expect("pyright did not answer");
            if r["id"] == json!(id) {
                return r;
            }
        }
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no options.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    std::fs::write(root.join("lib.py"), LIB).unwrap();
    std::fs::write(root.join("app.py"), APP).unwrap();
    let app = root.join("app.py");

    // Direct client.
    let mut direct = Direct::start(&root);
    let uri = format!("file://{}", app.display());
    direct.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": APP}}}),
    );
    let params = json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 8}});
    let first = direct.request("textDocument/definition", params.clone());
    assert!(first["result"].to_string().contains("lib.py"), "{first}");
    let mut direct_times = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let r = direct.request("textDocument/definition", params.clone());
        direct_times.push(t.elapsed());
        assert!(r["result"].is_array());
    }
    drop(direct);

    // sightline, same server, same question.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sightline_times = rt.block_on(async {
        let ws = sightline::Workspace::new(sightline::Options {
            search_path: vec![pyright().parent().unwrap().to_owned()],
            downloads: Some(false),
            ..Default::default()
        });
        let warm = ws.definition(&app, 3, 9).await.unwrap();
        assert_eq!(warm.locations[0].path, root.join("lib.py"));
        let mut times = Vec::new();
        for _ in 0..ROUNDS {
            let t = Instant::now();
            let r = ws.definition(&app, 3, 9).await.unwrap();
            times.push(t.elapsed());
            assert_eq!(r.locations.len(), 1);
        }
        ws.shutdown().await;
        times
    });

    let d = median(direct_times);
    let s = median(sightline_times);
    println!("warm definition, pyright, {ROUNDS} rounds each");
    println!("  direct client median: {:8.1} us", d.as_secs_f64() * 1e6);
    println!("  sightline median:     {:8.1} us", s.as_secs_f64() * 1e6);
    println!(
        "  ratio (sightline / direct): {:.2}x",
        s.as_secs_f64() / d.as_secs_f64()
    );
}
