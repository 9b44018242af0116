//! `sightline mcp --daemon`: the agent's stdio bridged line by line to the
//! daemon's socket. The bridge adds the client's [`Hello`] to `initialize`,
//! starts the daemon when none answers, and when the daemon goes away
//! answers every call in flight with an `error:` at once, starts a new
//! daemon and initializes the session there again, so the agent's session
//! goes on. A daemon of another build is asked to drain, and the bridge
//! waits for it to go before starting its own.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::frontends::daemon::connect::{connect_or_start, gone_for_good};
use crate::frontends::daemon::transport;
use crate::frontends::daemon::{DaemonError, HELLO_KEY, Hello};

/// The id of the `initialize` the bridge sends again on a new daemon.
const REINIT_ID: &str = "sightline-reinitialize";

/// The answer a call in flight gets when the daemon goes away.
fn gone_answer(id: &Value, method: &str) -> Value {
    let text =
        "error: the sightline daemon exited during the call; ask again (a new daemon is starting)";
    if method == "tools/call" {
        json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }], "isError": true } })
    } else {
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32603, "message": text } })
    }
}

/// Adds `hello` to an `initialize` request.
fn with_hello(mut msg: Value, hello: &Hello) -> Value {
    if let Some(params) = msg.get_mut("params").and_then(Value::as_object_mut) {
        let caps = params.entry("capabilities").or_insert_with(|| json!({}));
        if let Some(caps) = caps.as_object_mut() {
            let exp = caps.entry("experimental").or_insert_with(|| json!({}));
            if let Some(exp) = exp.as_object_mut() {
                exp.insert(
                    HELLO_KEY.into(),
                    serde_json::to_value(hello).unwrap_or_default(),
                );
            }
        }
    }
    msg
}

/// The `initialize` request (id 1) of a one-call session, with `hello`.
fn initialize(hello: &Hello, client: &str) -> Value {
    with_hello(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": client, "version": env!("CARGO_PKG_VERSION") } } }),
        hello,
    )
}

fn draining(msg: &Value) -> bool {
    msg.pointer("/error/data/sightline") == Some(&json!("draining"))
}

fn other_settings(msg: &Value) -> bool {
    msg.pointer("/error/data/sightline") == Some(&json!(super::SETTINGS_DIFFER))
}

/// Whether the daemon (started when none runs) takes a session of this
/// client: `Ok(false)` when it has other settings, so that the client
/// answers in process. A draining daemon is waited out (three times at
/// most).
pub async fn accepts(hello: &Hello) -> Result<bool, DaemonError> {
    for _ in 0..3 {
        let stream = connect_or_start().await?;
        let (r, mut w) = transport::split(stream);
        let mut lines = BufReader::new(r).lines();
        let init = initialize(hello, "sightline-probe");
        let io = |e: std::io::Error| DaemonError::Io(e.to_string());
        w.write_all(format!("{init}\n").as_bytes())
            .await
            .map_err(io)?;
        let answer = loop {
            let Some(line) = lines.next_line().await.map_err(io)? else {
                return Err(DaemonError::Io("the daemon closed the connection".into()));
            };
            let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if msg.get("id") == Some(&json!(1)) {
                break msg;
            }
        };
        let _ = w.shutdown().await;
        // A draining daemon has left its socket before it answered: the
        // next connection starts this build's own.
        if draining(&answer) {
            continue;
        }
        return Ok(!other_settings(&answer));
    }
    Err(DaemonError::Io("the daemon kept draining".into()))
}

/// Bridges stdin/stdout to the daemon until stdin closes; the exit status.
pub async fn run(hello: Hello) -> i32 {
    match bridge(hello).await {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!("{e}");
            2
        }
    }
}

async fn bridge(hello: Hello) -> Result<(), DaemonError> {
    // Non-blocking pipes (`sightline mcp`'s reason): no thread hand-off per
    // line.
    let (stdin, mut stdout) = rmcp::transport::stdio_pipes();
    let mut stdin = BufReader::new(stdin).lines();
    let stream = connect_or_start().await?;
    let (r, mut w) = transport::split(stream);
    let mut from_daemon = BufReader::new(r).lines();
    // Calls in flight: id → method.
    let mut pending: HashMap<String, (Value, String)> = HashMap::new();
    // The session's `initialize`, with the hello, to send again.
    let mut init: Option<Value> = None;
    let mut stdin_closed = false;
    let mut last_restart: Option<Instant> = None;
    let drain_deadline = tokio::time::sleep(Duration::from_secs(3600));
    tokio::pin!(drain_deadline);
    loop {
        if stdin_closed && pending.is_empty() {
            break;
        }
        tokio::select! {
            line = stdin.next_line(), if !stdin_closed => {
                let Ok(Some(line)) = line else {
                    // The client is done sending: let the daemon answer what
                    // is in flight (5 s at most), then leave.
                    stdin_closed = true;
                    drain_deadline.as_mut().reset(tokio::time::Instant::now() + Duration::from_secs(5));
                    continue;
                };
                let Ok(mut msg) = serde_json::from_str::<Value>(&line) else {
                    // Not JSON: the daemon answers with a parse error.
                    let _ = w.write_all(format!("{line}\n").as_bytes()).await;
                    continue;
                };
                let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
                if method.as_deref() == Some("initialize") {
                    msg = with_hello(msg, &hello);
                    init = Some(msg.clone());
                }
                if let (Some(id), Some(m)) = (msg.get("id"), method) {
                    pending.insert(id.to_string(), (id.clone(), m));
                }
                // A failed write shows as the daemon's end on the read side.
                let _ = w.write_all(format!("{msg}\n").as_bytes()).await;
            }
            () = &mut drain_deadline, if stdin_closed => break,
            line = from_daemon.next_line() => {
                match line {
                    Ok(Some(line)) => {
                        let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                        let is_response = msg.get("method").is_none();
                        if is_response && let Some(id) = msg.get("id") {
                            let reinit = id == &json!(REINIT_ID);
                            if reinit && !draining(&msg) {
                                continue;
                            }
                            if draining(&msg) && let Some(i) = &init && (reinit || i.get("id") == Some(id)) {
                                // A daemon of another build: it has left
                                // its socket and drains; start ours and
                                // initialize again.
                                let _ = w.shutdown().await;
                                let stream = connect_or_start().await?;
                                let (r2, w2) = transport::split(stream);
                                from_daemon = BufReader::new(r2).lines();
                                w = w2;
                                let mut again = i.clone();
                                if reinit {
                                    again["id"] = json!(REINIT_ID);
                                }
                                let _ = w.write_all(format!("{again}\n").as_bytes()).await;
                                if reinit {
                                    let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
                                    let _ = w.write_all(format!("{done}\n").as_bytes()).await;
                                }
                                continue;
                            }
                            pending.remove(&id.to_string());
                        }
                        if stdout.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                            break;
                        }
                        let _ = stdout.flush().await;
                    }
                    _ => {
                        tracing::warn!("the sightline daemon went away; starting a new one");
                        for (_, (id, method)) in pending.drain() {
                            let answer = gone_answer(&id, &method);
                            let _ = stdout.write_all(format!("{answer}\n").as_bytes()).await;
                        }
                        let _ = stdout.flush().await;
                        if stdin_closed {
                            break;
                        }
                        // Not in a tight loop if daemons keep failing.
                        if last_restart.is_some_and(|t: Instant| t.elapsed() < Duration::from_secs(1)) {
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                        last_restart = Some(Instant::now());
                        gone_for_good().await;
                        let stream = connect_or_start().await?;
                        let (r2, w2) = transport::split(stream);
                        from_daemon = BufReader::new(r2).lines();
                        w = w2;
                        if let Some(i) = &init {
                            let mut again = i.clone();
                            again["id"] = json!(REINIT_ID);
                            let _ = w.write_all(format!("{again}\n").as_bytes()).await;
                            let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
                            let _ = w.write_all(format!("{done}\n").as_bytes()).await;
                        }
                    }
                }
            }
        }
    }
    let _ = w.shutdown().await;
    Ok(())
}

/// A tool's answer through the daemon.
#[derive(Debug)]
pub struct ToolAnswer {
    /// Its text.
    pub text: String,
    /// Whether it is an error.
    pub is_error: bool,
    /// Its structured content, when asked for (`json`).
    pub json: Option<Value>,
    /// Whether it is a diagnostics answer that lists an error.
    pub errors: bool,
}

/// Whether a tool only reads, so that a call the daemon took down with it
/// may be asked again of a new daemon. Edits are never asked twice.
fn read_only(tool: &str) -> bool {
    crate::frontends::mcp::tool_name::ToolName::from_name(tool)
        .is_some_and(crate::frontends::mcp::tool_name::ToolName::retried)
}

/// Calls one tool on the daemon over a short MCP session, or `None` when
/// no daemon runs and `start` is false. With `json`, the answer carries the
/// CLI's JSON; `progress` hears what the daemon reports while it works.
/// A read-only call whose daemon goes away is asked once more of a new
/// one; a daemon of another build is left to drain and replaced.
pub async fn call_tool(
    hello: &Hello,
    start: bool,
    tool: &str,
    arguments: Value,
    json: bool,
    progress: &dyn crate::progress::Progress,
) -> Result<Option<ToolAnswer>, DaemonError> {
    let mut tries = if read_only(tool) { 2 } else { 1 };
    let mut drained = 0;
    loop {
        tries -= 1;
        match call_once(hello, start, tool, &arguments, json, progress).await {
            Err(Gone::Draining) if drained < 3 => {
                // It left its socket before answering; the next try starts
                // this build's daemon.
                drained += 1;
                tries += 1;
            }
            Err(Gone::Draining) => {
                return Err(DaemonError::Io("the daemon kept draining".into()));
            }
            Err(Gone::Lost(DaemonError::OtherSettings)) => {
                return Err(DaemonError::OtherSettings);
            }
            Err(Gone::Lost(e)) if tries == 0 => return Err(e),
            Err(Gone::Lost(e)) => {
                tracing::warn!("{e}; asking a new daemon");
            }
            Ok(answer) => return Ok(answer),
        }
    }
}

/// Why one call got no answer.
enum Gone {
    /// The daemon is of another build and drains.
    Draining,
    /// The connection failed or closed.
    Lost(DaemonError),
}

async fn call_once(
    hello: &Hello,
    start: bool,
    tool: &str,
    arguments: &Value,
    json: bool,
    progress: &dyn crate::progress::Progress,
) -> Result<Option<ToolAnswer>, Gone> {
    let stream = if start {
        connect_or_start().await.map_err(Gone::Lost)?
    } else {
        match transport::connect().await.map_err(Gone::Lost)? {
            Some(s) => s,
            None => return Ok(None),
        }
    };
    let (r, mut w) = transport::split(stream);
    let mut lines = BufReader::new(r).lines();
    let init = initialize(hello, "sightline-cli");
    let mut meta = json!({ "progressToken": "sightline-cli" });
    if json {
        meta[crate::frontends::mcp::JSON_META] = json!(true);
    }
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": meta } });
    let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let lost = |e: std::io::Error| Gone::Lost(DaemonError::Io(e.to_string()));
    w.write_all(format!("{init}\n").as_bytes())
        .await
        .map_err(lost)?;
    // Every way out below ends the spinner.
    // The spinner's key: an install's, when the daemon installs, so that
    // a terminal-less run still prints what it does (as in process).
    let mut shown: Option<(&'static str, String)> = None;
    let answer = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => {
                break Err(Gone::Lost(DaemonError::Io(
                    "the daemon closed the connection".into(),
                )));
            }
            Err(e) => break Err(lost(e)),
        };
        let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if msg.get("method") == Some(&json!("notifications/progress")) {
            let message = msg
                .pointer("/params/message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match &mut shown {
                Some((key, last)) => {
                    progress.update(key, message);
                    // An install's spinner ends with what the install said
                    // last ("installed …"), not what came after it.
                    if !key.starts_with("install") || message.starts_with("install") {
                        *last = message.to_owned();
                    }
                }
                None => {
                    let key = if message.starts_with("install") {
                        "install (daemon)"
                    } else {
                        "daemon"
                    };
                    progress.begin(key, message);
                    shown = Some((key, message.to_owned()));
                }
            }
        } else if msg.get("id") == Some(&json!(1)) {
            if draining(&msg) {
                break Err(Gone::Draining);
            }
            if other_settings(&msg) {
                break Err(Gone::Lost(DaemonError::OtherSettings));
            }
            if let Some(e) = msg.get("error") {
                // The session's own failure (a bad project file): the
                // answer, as in process.
                let message = e["message"].as_str().unwrap_or("?");
                break Ok(Some(ToolAnswer {
                    text: format!("error: {message}"),
                    is_error: true,
                    errors: false,
                    json: json
                        .then(|| json!({ "error": { "kind": "bad_input", "message": message } })),
                }));
            }
            if let Err(e) = w.write_all(format!("{done}\n{call}\n").as_bytes()).await {
                break Err(lost(e));
            }
        } else if msg.get("id") == Some(&json!(2)) {
            if let Some(e) = msg.get("error") {
                let text = format!("error: {}", e["message"].as_str().unwrap_or("?"));
                break Ok(Some(ToolAnswer {
                    json: json.then(
                        || json!({ "error": { "kind": "bad_input", "message": e["message"] } }),
                    ),
                    text,
                    is_error: true,
                    errors: false,
                }));
            }
            break Ok(Some(ToolAnswer {
                text: msg
                    .pointer("/result/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                is_error: msg.pointer("/result/isError") == Some(&json!(true)),
                json: msg.pointer("/result/structuredContent").cloned(),
                errors: msg
                    .pointer("/result/_meta")
                    .and_then(|m| m.get(crate::frontends::mcp::ERRORS_KEY))
                    == Some(&json!(true)),
            }));
        }
    };
    if let Some((key, last)) = shown {
        progress.end(key, &last);
    }
    answer
}
