//! The fake server's message loop and its default, well-behaved answers.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use serde_json::{Value, json};
use sightline_lsp::framing::{Frame, LspCodec};
use sightline_lsp::{Message, RequestId, ResponseError};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

use crate::script::{Action, PushMode, Script, Which};

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
    rt.block_on(run())
}

struct Doc {
    text: String,
    version: i64,
    previous: Option<(String, i64)>,
}

struct Fake {
    dir: PathBuf,
    script: Script,
    run: u32,
    seen: HashMap<String, u32>,
    docs: HashMap<String, Doc>,
    out: mpsc::UnboundedSender<Vec<u8>>,
    next_request: u64,
    log: Option<std::fs::File>,
}

async fn run() -> i32 {
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let script = match Script::load(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fake: bad script: {e}");
            return 2;
        }
    };
    let runs = dir.join("fake-lsp.runs");
    let run = std::fs::read_to_string(&runs)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
        .unwrap_or(0)
        + 1;
    let _ = std::fs::write(&runs, run.to_string());
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
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
        out: tx,
        next_request: 0,
        log,
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
    let mut frames = FramedRead::new(tokio::io::stdin(), LspCodec::default());
    while let Some(frame) = frames.next().await {
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
    fn log(&mut self, line: &str) {
        if let Some(f) = &mut self.log {
            let _ = writeln!(f, "{line}");
        }
    }

    fn send(&self, bytes: Vec<u8>) {
        let _ = self.out.send(bytes);
    }

    fn notify(&self, method: &str, params: Value) {
        let body = Message::Notification {
            method: method.into(),
            params,
        }
        .encode();
        self.send(frame(&body));
    }

    fn request(&mut self, method: &str, params: Value) {
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
                        tokio::spawn(async move {
                            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
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
                std::process::exit(*code);
            }
            Action::Hang | Action::Ignore => return id.is_some(),
            Action::SleepMs(ms) => tokio::time::sleep(std::time::Duration::from_millis(*ms)).await,
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
                    let body = response(id, Ok(json!("x".repeat(*n))));
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

    /// Keeps documents in step with the client's notifications.
    fn update(&mut self, method: &str, params: &Value) {
        let uri = uri_of(params);
        let version = params
            .pointer("/textDocument/version")
            .and_then(Value::as_i64);
        match method {
            "textDocument/didOpen" => {
                let text = params
                    .pointer("/textDocument/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                self.docs.insert(
                    uri,
                    Doc {
                        text,
                        version: version.unwrap_or(0),
                        previous: None,
                    },
                );
            }
            "textDocument/didChange" => {
                let text = params
                    .pointer("/contentChanges/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if let Some(doc) = self.docs.get_mut(&uri) {
                    let old = std::mem::replace(&mut doc.text, text);
                    doc.previous = Some((old, doc.version));
                    doc.version = version.unwrap_or(doc.version + 1);
                }
            }
            "textDocument/didClose" => {
                self.docs.remove(&uri);
            }
            _ => {}
        }
    }

    /// What follows a notification by default: pushes, and `exit`.
    fn after(&mut self, method: &str, uri: &str) {
        match method {
            "exit" => {
                self.log("exit");
                std::process::exit(0);
            }
            "textDocument/didOpen" | "textDocument/didChange" => match self.script.push {
                PushMode::None => {}
                PushMode::Versioned => self.publish(uri, Which::Current, true),
                PushMode::Unversioned => self.publish(uri, Which::Current, false),
            },
            _ => {}
        }
    }

    fn publish(&mut self, uri: &str, which: Which, versioned: bool) {
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        let (text, version) = match (which, &doc.previous) {
            (Which::Previous, Some((t, v))) => (t.as_str(), *v),
            _ => (doc.text.as_str(), doc.version),
        };
        let mut params = json!({ "uri": uri, "diagnostics": findings(text, "fake") });
        if versioned {
            params["version"] = json!(version);
        }
        self.log(&format!("publish version {version}"));
        self.notify("textDocument/publishDiagnostics", params);
    }

    /// The default, well-behaved answer to a request.
    fn answer(&mut self, method: &str, params: &Value) -> Result<Value, ResponseError> {
        let uri = uri_of(params);
        match method {
            "initialize" => {
                let mut caps = json!({
                    "positionEncoding": "utf-16",
                    "textDocumentSync": 1,
                    "definitionProvider": true,
                    "referencesProvider": true,
                    "hoverProvider": true,
                });
                if let (Some(base), Some(extra)) =
                    (caps.as_object_mut(), self.script.capabilities.as_object())
                {
                    for (k, v) in extra {
                        base.insert(k.clone(), v.clone());
                    }
                }
                Ok(json!({ "capabilities": caps, "serverInfo": { "name": "sightline-fake-lsp" } }))
            }
            "shutdown" => Ok(Value::Null),
            "workspace/diagnostic" => {
                let previous: HashMap<String, String> = params
                    .get("previousResultIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|p| {
                        Some((
                            p.get("uri")?.as_str()?.to_owned(),
                            p.get("value")?.as_str()?.to_owned(),
                        ))
                    })
                    .collect();
                let mut reports = Vec::new();
                for path in fake_files(&self.dir) {
                    let uri = format!("file://{}", path.display());
                    let (text, version) = match self.docs.get(&uri) {
                        Some(d) => (d.text.clone(), Some(d.version)),
                        None => (std::fs::read_to_string(&path).unwrap_or_default(), None),
                    };
                    let result_id =
                        format!("ws-{:x}", text.len() * 31 + text.matches("ERR").count());
                    if previous.get(&uri) == Some(&result_id) {
                        reports.push(json!({ "kind": "unchanged", "uri": uri, "version": version, "resultId": result_id }));
                    } else {
                        reports.push(json!({ "kind": "full", "uri": uri, "version": version, "resultId": result_id, "items": findings(&text, "fake") }));
                    }
                }
                Ok(json!({ "items": reports }))
            }
            "textDocument/diagnostic" => {
                let identifier = params.get("identifier").and_then(Value::as_str);
                let source = identifier.unwrap_or("fake").to_owned();
                let (text, version) = match self.docs.get(&uri) {
                    Some(d) => (d.text.clone(), d.version),
                    None => (self.read(&uri).unwrap_or_default(), 0),
                };
                let result_id = format!("{source}-{version}");
                if params.get("previousResultId").and_then(Value::as_str)
                    == Some(result_id.as_str())
                {
                    return Ok(json!({ "kind": "unchanged", "resultId": result_id }));
                }
                let mut items = findings(&text, &source);
                // Each provider's findings read differently, so that merged
                // answers show every provider.
                if let Some(id) = identifier {
                    for item in &mut items {
                        let message = format!("{} ({id})", item["message"].as_str().unwrap_or(""));
                        item["message"] = json!(message);
                    }
                }
                Ok(json!({ "kind": "full", "resultId": result_id, "items": items }))
            }
            "textDocument/definition" | "textDocument/references" | "textDocument/hover" => {
                let Some(word) = self.word_at(&uri, params) else {
                    return Ok(Value::Null);
                };
                let declaration = params
                    .pointer("/context/includeDeclaration")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let found = match method {
                    "textDocument/definition" => self.occurrences(&word, Some(true)),
                    "textDocument/references" => {
                        self.occurrences(&word, if declaration { None } else { Some(false) })
                    }
                    _ => {
                        return Ok(
                            json!({ "contents": { "kind": "markdown", "value": format!("`{word}`") } }),
                        );
                    }
                };
                Ok(Value::Array(found))
            }
            other => Err(ResponseError::method_not_found(other)),
        }
    }

    fn read(&self, uri: &str) -> Option<String> {
        std::fs::read_to_string(uri.strip_prefix("file://")?).ok()
    }

    fn word_at(&self, uri: &str, params: &Value) -> Option<String> {
        let text = match self.docs.get(uri) {
            Some(d) => d.text.clone(),
            None => self.read(uri)?,
        };
        let line = params.pointer("/position/line")?.as_u64()? as usize;
        let col = params.pointer("/position/character")?.as_u64()? as usize;
        let chars: Vec<char> = text.lines().nth(line)?.chars().collect();
        let is_word = |c: &char| c.is_alphanumeric() || *c == '_';
        if !chars.get(col).is_some_and(is_word) {
            return None;
        }
        let start = (0..=col).rev().take_while(|&i| is_word(&chars[i])).last()?;
        let end = (col..chars.len())
            .take_while(|&i| is_word(&chars[i]))
            .last()?
            + 1;
        Some(chars[start..end].iter().collect())
    }

    /// Whole-word occurrences of `word` in every `.fake` file: only
    /// definitions (`def word`), only uses, or both.
    fn occurrences(&self, word: &str, definitions: Option<bool>) -> Vec<Value> {
        let mut files: Vec<(String, String)> = self
            .docs
            .iter()
            .map(|(u, d)| (u.clone(), d.text.clone()))
            .collect();
        for path in fake_files(&self.dir) {
            let uri = format!("file://{}", path.display());
            if !self.docs.contains_key(&uri)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                files.push((uri, text));
            }
        }
        files.sort();
        let mut out = Vec::new();
        for (uri, text) in files {
            for (n, line) in text.lines().enumerate() {
                for col in word_columns(line, word) {
                    let is_def = line
                        [..line.char_indices().nth(col).map_or(line.len(), |(b, _)| b)]
                        .trim_end()
                        .ends_with("def");
                    if definitions.is_none_or(|d| d == is_def) {
                        out.push(json!({ "uri": uri, "range": {
                            "start": { "line": n, "character": col },
                            "end": { "line": n, "character": col + word.chars().count() },
                        } }));
                    }
                }
            }
        }
        out
    }
}

fn uri_of(params: &Value) -> String {
    params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// One finding per line holding `ERR` (an error) or `WARN` (a warning).
fn findings(text: &str, source: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (needle, severity) in [("ERR", 1), ("WARN", 2)] {
            if let Some(b) = line.find(needle) {
                let col = line[..b].chars().count();
                out.push(json!({
                    "range": { "start": { "line": n, "character": col }, "end": { "line": n, "character": col + needle.len() } },
                    "severity": severity,
                    "source": source,
                    "message": format!("found {needle}"),
                }));
            }
        }
    }
    out
}

/// The character columns where `word` stands as a whole word in `line`.
fn word_columns(line: &str, word: &str) -> Vec<usize> {
    let chars: Vec<char> = line.chars().collect();
    let w: Vec<char> = word.chars().collect();
    let is_word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    (0..chars.len())
        .filter(|&i| {
            chars[i..].starts_with(&w)
                && (i == 0 || !is_word(chars.get(i - 1)))
                && !is_word(chars.get(i + w.len()))
        })
        .collect()
}

fn fake_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(fake_files(&p));
        } else if p.extension().is_some_and(|x| x == "fake") {
            out.push(p);
        }
    }
    out
}
