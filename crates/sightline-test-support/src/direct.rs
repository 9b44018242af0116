//! The direct client the benchmarks measure sightline against: blocking std
//! I/O, hand framing, one reader thread. It answers every server request
//! (`workspace/configuration` with nulls, everything else with `null`) and
//! hands responses and notifications to the caller. It is the floor.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

pub struct Direct {
    stdin: Arc<Mutex<ChildStdin>>,
    responses: mpsc::Receiver<Value>,
    pub notifications: mpsc::Receiver<Value>,
    child: Child,
    next: i64,
}

/// The file URI of `path`.
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn write_frame(w: &mut impl Write, v: &Value) {
    let body = serde_json::to_vec(v).unwrap();
    write!(w, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
    w.write_all(&body).unwrap();
    w.flush().unwrap();
}

impl Direct {
    /// Starts `program --stdio` and completes `initialize`/`initialized`.
    pub fn start(program: &Path, root: &Path, capabilities: Value, init_options: Value) -> Direct {
        Direct::start_with(program, &["--stdio"], root, capabilities, init_options)
    }

    /// Starts `program args` and completes `initialize`/`initialized`.
    pub fn start_with(
        program: &Path,
        args: &[&str],
        root: &Path,
        capabilities: Value,
        init_options: Value,
    ) -> Direct {
        let mut child = Command::new(program)
            .args(args)
            .envs(crate::isolation::env())
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let (ntx, nrx) = mpsc::channel();
        let writer = stdin.clone();
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
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let msg: Value = serde_json::from_slice(&body).unwrap();
                match (msg.get("id"), msg.get("method")) {
                    (Some(id), Some(method)) => {
                        let result = if method == "workspace/configuration" {
                            let n = msg["params"]["items"].as_array().map_or(0, Vec::len);
                            Value::Array(vec![Value::Null; n])
                        } else {
                            Value::Null
                        };
                        let reply = json!({ "jsonrpc": "2.0", "id": id, "result": result });
                        write_frame(&mut *writer.lock().unwrap(), &reply);
                    }
                    (Some(_), None) => {
                        let _ = tx.send(msg);
                    }
                    (None, Some(_)) => {
                        let _ = ntx.send(msg);
                    }
                    (None, None) => {}
                }
            }
        });
        let mut d = Direct {
            stdin,
            responses: rx,
            notifications: nrx,
            child,
            next: 0,
        };
        d.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "workspaceFolders": [{ "uri": uri(root), "name": "bench" }],
                "capabilities": capabilities,
                "initializationOptions": init_options,
            }),
        );
        d.notify("initialized", json!({}));
        d
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let v = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        write_frame(&mut *self.stdin.lock().unwrap(), &v);
    }

    /// Sends every request before reading any answer (the server queues
    /// them, as sightline's requests asked together are); the answers in
    /// the order asked.
    pub fn requests(&mut self, asked: Vec<(&str, Value)>) -> Vec<Value> {
        let first = self.next + 1;
        for (method, params) in &asked {
            self.next += 1;
            let v =
                json!({ "jsonrpc": "2.0", "id": self.next, "method": method, "params": params });
            write_frame(&mut *self.stdin.lock().unwrap(), &v);
        }
        let mut answers = vec![Value::Null; asked.len()];
        let mut left = asked.len();
        while left > 0 {
            let r = self
                .responses
                .recv_timeout(Duration::from_secs(60))
                .expect("the server did not answer");
            if let Some(k) = r["id"]
                .as_i64()
                .and_then(|id| usize::try_from(id - first).ok())
                && let Some(slot) = answers.get_mut(k)
                && slot.is_null()
            {
                *slot = r;
                left -= 1;
            }
        }
        answers
    }

    /// Waits for the server's first notification `method` that `wanted`
    /// takes, at most a minute.
    pub fn wait_for(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let n = self
                .notifications
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("the server sent no {method}"));
            if n["method"] == method && wanted(&n) {
                return n;
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let v = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        write_frame(&mut *self.stdin.lock().unwrap(), &v);
        loop {
            let r = self
                .responses
                .recv_timeout(Duration::from_secs(60))
                .expect("the server did not answer");
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
