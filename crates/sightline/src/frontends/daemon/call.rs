//! The CLI's one-call client of the daemon: one question asked over a short
//! MCP session (`initialize`, then one `tools/call`), with the daemon's
//! progress shown on the way, asked again of a new daemon when a read-only
//! call lost its daemon.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::frontends::daemon::connect::connect_or_start;
use crate::frontends::daemon::handshake::{draining, initialize, other_settings};
use crate::frontends::daemon::transport;
use crate::frontends::daemon::{DaemonError, Hello};

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
    crate::frontends::tools::retried(tool)
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
            Err(NoAnswer::Draining) if drained < 3 => {
                // It left its socket before answering; the next try starts
                // this build's daemon.
                drained += 1;
                tries += 1;
            }
            Err(NoAnswer::Draining) => {
                return Err(DaemonError::Io("the daemon kept draining".into()));
            }
            Err(NoAnswer::Lost(DaemonError::OtherSettings(differ))) => {
                return Err(DaemonError::OtherSettings(differ));
            }
            Err(NoAnswer::Lost(e)) if tries == 0 => return Err(e),
            Err(NoAnswer::Lost(e)) => {
                tracing::warn!("{e}; asking a new daemon");
            }
            Ok(answer) => return Ok(answer),
        }
    }
}

/// Why one call got no answer.
enum NoAnswer {
    /// The daemon is of another build and drains.
    Draining,
    /// The connection failed or closed.
    Lost(DaemonError),
}

/// A progress notification of the daemon's, on the caller's spinner: the
/// first begins it (an install's key when the daemon installs, so that a
/// terminal-less run still prints what it does, as in process).
fn show_progress(
    msg: &Value,
    shown: &mut Option<(&'static str, String)>,
    progress: &dyn crate::progress::Progress,
) {
    let message = msg
        .pointer("/params/message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match shown {
        Some((key, last)) => {
            progress.update(key, message);
            // An install's spinner ends with what the install said last
            // ("installed …"), not what came after it.
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
            *shown = Some((key, message.to_owned()));
        }
    }
}

async fn call_once(
    hello: &Hello,
    start: bool,
    tool: &str,
    arguments: &Value,
    json: bool,
    progress: &dyn crate::progress::Progress,
) -> Result<Option<ToolAnswer>, NoAnswer> {
    let stream = if start {
        connect_or_start().await.map_err(NoAnswer::Lost)?
    } else {
        match transport::connect().await.map_err(NoAnswer::Lost)? {
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
    let lost = |e: std::io::Error| NoAnswer::Lost(DaemonError::Io(e.to_string()));
    w.write_all(format!("{init}\n").as_bytes())
        .await
        .map_err(lost)?;
    // Every way out below ends the spinner.
    let mut shown: Option<(&'static str, String)> = None;
    let answer = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => {
                break Err(NoAnswer::Lost(DaemonError::Io(
                    "the daemon closed the connection".into(),
                )));
            }
            Err(e) => break Err(lost(e)),
        };
        let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if msg.get("method") == Some(&json!("notifications/progress")) {
            show_progress(&msg, &mut shown, progress);
        } else if msg.get("id") == Some(&json!(1)) {
            if draining(&msg) {
                break Err(NoAnswer::Draining);
            }
            if let Some(differ) = other_settings(&msg) {
                break Err(NoAnswer::Lost(DaemonError::OtherSettings(differ)));
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
