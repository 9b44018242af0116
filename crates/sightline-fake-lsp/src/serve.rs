//! The fake server's message loop: reading messages, following the script's
//! rules (crash, hang, raw bytes, floods, ...), and otherwise the default
//! answers of `answers`.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use futures_util::StreamExt;
use serde_json::{Value, json};
use sightline_lsp::{Frame, LspCodec};
use sightline_lsp::{Message, RequestId, ResponseError};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::answers::uri_of;
use crate::script::{Action, Script};

pub fn main() -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("fake: {e}");
            return 1;
        }
    };
    rt.block_on(async {
        let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let script = match Script::load(&dir) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("fake: bad script: {e}");
                return 2;
            }
        };
        serve(
            dir,
            script,
            tokio::io::stdin(),
            tokio::io::stdout(),
            Crash::ExitProcess,
        )
        .await
    })
}

/// What a scripted `crash` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crash {
    /// Exits the process with the scripted status (the spawned server).
    ExitProcess,
    /// Stops serving and closes both streams (the server in a test's own
    /// process, whose client then sees it exit).
    CloseStreams,
}

pub(crate) struct Doc {
    pub(crate) text: String,
    pub(crate) version: i64,
    pub(crate) previous: Option<(String, i64)>,
}

pub(crate) struct Fake {
    pub(crate) dir: PathBuf,
    pub(crate) script: Script,
    pub(crate) run: u32,
    pub(crate) seen: HashMap<String, u32>,
    pub(crate) docs: HashMap<String, Doc>,
    /// The URIs of the open documents, for an answer given later
    /// (`DelayMs`) to see whether its document is still open then.
    pub(crate) open: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    pub(crate) out: mpsc::UnboundedSender<Vec<u8>>,
    /// Actions scheduled by `Later`, with the method and URI they ran for.
    pub(crate) later: mpsc::UnboundedSender<(Vec<Action>, String, String)>,
    pub(crate) next_request: u64,
    pub(crate) log: Option<std::fs::File>,
    pub(crate) crash: Crash,
    /// The scripted crash's status, once it happened in `CloseStreams` mode.
    pub(crate) crashed: Option<i32>,
}

/// Serves LSP on `input` and `output` until the input ends (or a scripted
/// crash), following `script`; `dir` is the root, where the runs are
/// counted and the log is kept. The status the process would exit with.
pub async fn serve(
    dir: PathBuf,
    script: Script,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
    crash: Crash,
) -> i32 {
    let runs = dir.join("fake-lsp.runs");
    let run = std::fs::read_to_string(&runs)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
        .unwrap_or(0)
        + 1;
    let _ = std::fs::write(&runs, run.to_string());
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (later, mut due) = mpsc::unbounded_channel();
    let writer = tokio::spawn(async move {
        let mut stdout = output;
        while let Some(bytes) = rx.recv().await {
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("fake-lsp.log"))
        .ok();
    let mut fake = Fake {
        dir,
        script,
        run,
        seen: HashMap::new(),
        docs: HashMap::new(),
        open: Default::default(),
        out: tx,
        later,
        next_request: 0,
        log,
        crash,
        crashed: None,
    };
    fake.log(&format!("start run {run} pid {}", std::process::id()));
    if let Some(actions) = fake
        .script
        .actions("$spawn", run, 1, &Value::Null)
        .map(<[Action]>::to_vec)
    {
        for a in actions {
            fake.act(&a, None, "$spawn", "").await;
        }
    }
    let mut frames = FramedRead::new(input, LspCodec::default());
    loop {
        if let Some(code) = fake.crashed {
            // In a test's process: the streams close, as a dead server's do.
            drop(fake);
            let _ = writer.await;
            return code;
        }
        let frame = tokio::select! {
            frame = frames.next() => frame,
            Some((actions, method, uri)) = due.recv() => {
                for a in actions {
                    fake.act(&a, None, &method, &uri).await;
                }
                continue;
            }
        };
        let Some(frame) = frame else { break };
        let Ok(Frame::Body(body)) = frame else {
            continue;
        };
        match Message::decode(&body) {
            Ok(m) => fake.handle(m).await,
            Err(e) => fake.log(&format!("undecodable: {e}")),
        }
    }
    fake.log("stdin closed");
    // A server that ignores the end of its input must be killed.
    if let Some(actions) = fake.script.actions("$eof", run, 1, &Value::Null)
        && actions.iter().any(|a| matches!(a, Action::Hang))
    {
        std::future::pending::<()>().await;
    }
    drop(fake);
    let _ = writer.await;
    0
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn response(id: &RequestId, result: Result<Value, ResponseError>) -> Vec<u8> {
    Message::Response {
        id: Some(id.clone()),
        result,
    }
    .encode()
}

impl Fake {
    pub(crate) fn log(&mut self, line: &str) {
        if let Some(f) = &mut self.log {
            let _ = writeln!(f, "{line}");
        }
    }

    pub(crate) fn send(&self, bytes: Vec<u8>) {
        let _ = self.out.send(bytes);
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        let body = Message::Notification {
            method: method.into(),
            params,
        }
        .encode();
        self.send(frame(&body));
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) {
        self.next_request += 1;
        let body = Message::Request {
            id: RequestId::String(format!("fake-{}", self.next_request)),
            method: method.into(),
            params,
        }
        .encode();
        self.send(frame(&body));
    }

    async fn handle(&mut self, message: Message) {
        match message {
            Message::Request { id, method, params } => {
                self.log(&format!("<- {method} {params}"));
                let nth = self.count(&method);
                let uri = uri_of(&params);
                let actions = self
                    .script
                    .actions(&method, self.run, nth, &params)
                    .map(<[Action]>::to_vec)
                    .unwrap_or_default();
                let mut reply = None;
                let mut delay = None;
                let mut answered = false;
                for a in &actions {
                    match a {
                        Action::Reply(v) => reply = Some(Ok(v.clone())),
                        Action::Error { code, message } => {
                            reply = Some(Err(ResponseError {
                                code: *code,
                                message: message.clone(),
                                data: None,
                            }))
                        }
                        Action::DelayMs(ms) => delay = Some(*ms),
                        other => answered |= self.act(other, Some(&id), &method, &uri).await,
                    }
                }
                if answered {
                    return;
                }
                let result = reply.unwrap_or_else(|| self.answer(&method, &params));
                let bytes = frame(&response(&id, result));
                match delay {
                    Some(ms) => {
                        let out = self.out.clone();
                        // As clangd: a document closed while its request
                        // waits fails the request.
                        let closed_fails =
                            self.script.only_open && params.pointer("/textDocument/uri").is_some();
                        let open = self.open.clone();
                        tokio::spawn(async move {
                            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                            let closed =
                                closed_fails && !open.lock().is_ok_and(|o| o.contains(&uri));
                            let bytes = if closed {
                                frame(&response(
                                    &id,
                                    Err(ResponseError {
                                        code: sightline_lsp::ErrorCode::InvalidParams.code(),
                                        message: "trying to get AST for non-added document".into(),
                                        data: None,
                                    }),
                                ))
                            } else {
                                bytes
                            };
                            let _ = out.send(bytes);
                        });
                    }
                    None => self.send(bytes),
                }
            }
            Message::Notification { method, params } => {
                self.log(&format!("<- {method} {params}"));
                let nth = self.count(&method);
                let uri = uri_of(&params);
                self.update(&method, &params);
                let actions = self
                    .script
                    .actions(&method, self.run, nth, &params)
                    .map(<[Action]>::to_vec)
                    .unwrap_or_default();
                let mut ignored = false;
                for a in &actions {
                    ignored |= matches!(a, Action::Ignore);
                    self.act(a, None, &method, &uri).await;
                }
                if !ignored {
                    self.after(&method, &uri);
                }
            }
            Message::Response { id, result } => {
                let text = match result {
                    Ok(v) => format!("ok {v}"),
                    Err(e) => format!("error {} {}", e.code, e.message),
                };
                self.log(&format!(
                    "response {} {text}",
                    id.map(|i| format!("{i:?}")).unwrap_or_default()
                ));
            }
        }
    }

    fn count(&mut self, method: &str) -> u32 {
        let n = self.seen.entry(method.to_owned()).or_default();
        *n += 1;
        *n
    }

    /// Runs one scripted action; true when it took the place of the answer.
    #[allow(clippy::too_many_lines, reason = "one arm per scripted action")]
    async fn act(
        &mut self,
        action: &Action,
        id: Option<&RequestId>,
        method: &str,
        uri: &str,
    ) -> bool {
        match action {
            Action::Crash(code) => {
                eprintln!("fake: crashing on {method} as scripted");
                self.log(&format!("crash on {method}"));
                if self.crash == Crash::ExitProcess {
                    std::process::exit(*code);
                }
                self.crashed = Some(*code);
                return true;
            }
            Action::Hang | Action::Ignore => return id.is_some(),
            Action::SleepMs(ms) => tokio::time::sleep(std::time::Duration::from_millis(*ms)).await,
            Action::SpinMs(ms) => {
                let until = std::time::Instant::now() + std::time::Duration::from_millis(*ms);
                while std::time::Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
            Action::Raw(text) => self.send(text.clone().into_bytes()),
            Action::RawBody(text) => {
                let id = id.map(|i| serde_json::to_string(i).unwrap_or_default());
                let text = text.replace("$ID", id.as_deref().unwrap_or("null"));
                self.send(frame(text.as_bytes()));
                return id.is_some();
            }
            Action::Truncated => {
                if let Some(id) = id {
                    let body = response(id, Ok(json!(null)));
                    let mut bytes =
                        format!("Content-Length: {}\r\n\r\n", body.len() + 40).into_bytes();
                    bytes.extend_from_slice(&body[..body.len() / 2]);
                    self.send(bytes);
                    return true;
                }
            }
            Action::MalformedHeader => {
                if let Some(id) = id {
                    let body = response(id, Ok(json!(null)));
                    let mut bytes = b"Content-Length: twelve\r\n\r\n".to_vec();
                    bytes.extend_from_slice(&body);
                    bytes.extend_from_slice(b"\r\n");
                    self.send(bytes);
                    return true;
                }
            }
            Action::Oversized(n) => {
                if let Some(id) = id {
                    // Built as bytes, not through serde: in a debug build,
                    // serializing a 50 MB string takes seconds of the client's
                    // request budget on a loaded machine.
                    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
                    let open = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":\"");
                    let mut body = Vec::with_capacity(open.len() + n + 2);
                    body.extend_from_slice(open.as_bytes());
                    body.resize(open.len() + n, b'x');
                    body.extend_from_slice(b"\"}");
                    self.send(frame(&body));
                    return true;
                }
            }
            Action::Flood { count, method } => {
                for i in 0..*count {
                    self.notify(method, json!({ "type": 4, "message": format!("flood {i}") }));
                }
            }
            Action::Notify { method, params } => self.notify(method, params.clone()),
            Action::Request { method, params } => self.request(method, params.clone()),
            Action::Publish { which, versioned } => self.publish(uri, *which, *versioned),
            Action::RegisterPull(identifier) => self.request(
                "client/registerCapability",
                json!({ "registrations": [{
                    "id": format!("pull-{identifier}"),
                    "method": "textDocument/diagnostic",
                    "registerOptions": { "identifier": identifier, "interFileDependencies": false, "workspaceDiagnostics": false },
                }] }),
            ),
            Action::ProgressBegin(token) => {
                self.request("window/workDoneProgress/create", json!({ "token": token }));
                self.notify(
                    "$/progress",
                    json!({ "token": token, "value": { "kind": "begin", "title": "indexing" } }),
                );
            }
            Action::ProgressTitled { token, title } => {
                self.request("window/workDoneProgress/create", json!({ "token": token }));
                self.notify(
                    "$/progress",
                    json!({ "token": token, "value": { "kind": "begin", "title": title } }),
                );
            }
            Action::Later { ms, actions } => {
                let later = self.later.clone();
                let job = (actions.clone(), method.to_owned(), uri.to_owned());
                let ms = *ms;
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                    let _ = later.send(job);
                });
            }
            Action::ProgressEnd { token, after_ms } => {
                let body = Message::Notification {
                    method: "$/progress".into(),
                    params: json!({ "token": token, "value": { "kind": "end" } }),
                }
                .encode();
                let out = self.out.clone();
                let ms = *after_ms;
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                    let _ = out.send(frame(&body));
                });
            }
            Action::SpawnChild => {
                let child = std::process::Command::new("sleep")
                    .arg("300")
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn();
                if let Ok(c) = child {
                    self.log(&format!("child {}", c.id()));
                }
            }
            Action::WriteFile(path) => {
                let path = match path.strip_prefix("~/") {
                    Some(rest) => std::env::var("HOME").map(|h| format!("{h}/{rest}")).unwrap_or_else(|_| path.clone()),
                    None => path.clone(),
                };
                match std::fs::write(&path, "written by the fake server\n") {
                    Ok(()) => self.log(&format!("wrote {path}")),
                    Err(e) => {
                        eprintln!("fake: cannot write {path}: {e}");
                        self.log(&format!("denied {path}: {e}"));
                    }
                }
            }
            Action::Reply(_) | Action::Error { .. } | Action::DelayMs(_) => {}
        }
        false
    }
}
