//! `sightline mcp` through the daemon: the agent's stdio bridged line by line to the
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
use crate::frontends::daemon::handshake::{draining, initialize, with_hello};
use crate::frontends::daemon::transport;
use crate::frontends::daemon::{DaemonError, Hello};

/// The id of the `initialize` the bridge sends again on a new daemon.
const REINIT_ID: &str = "sightline-reinitialize";

/// The answer a call in flight gets when the daemon goes away; a call of
/// a tool that writes says what became of its files (`recovered`: the
/// edits the bridge found cut off, finished or undone as a whole).
fn gone_answer(
    id: &Value,
    method: &str,
    tool: Option<&str>,
    recovered: &[crate::edit::journal::Recovered],
) -> Value {
    let text = cut_off_call(tool, recovered);
    if method == "tools/call" {
        json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }], "isError": true } })
    } else {
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": sightline_lsp::ErrorCode::InternalError.code(), "message": text } })
    }
}

/// The text of a call of `tool` cut off by its daemon's death; a tool that
/// writes says what became of its files (over stdio and over HTTP alike).
pub(crate) fn cut_off_call(
    tool: Option<&str>,
    recovered: &[crate::edit::journal::Recovered],
) -> String {
    let mut text = "error: the sightline daemon exited during the call".to_owned();
    if tool.is_some_and(crate::frontends::tools::writes) {
        text.push_str(&cut_off_edit(recovered));
    }
    text.push_str("; ask again (a new daemon is starting)");
    text
}

/// What became of the files of an edit whose daemon died during it.
pub(crate) fn cut_off_edit(recovered: &[crate::edit::journal::Recovered]) -> String {
    let Some(r) = recovered.first() else {
        return ": no edit was left half-done (its files are all as they were, or all as the edit leaves them)".to_owned();
    };
    let files = r
        .files
        .iter()
        .filter_map(|f| f.file_name())
        .map(|n| n.to_string_lossy())
        .collect::<Vec<_>>()
        .join(", ");
    if r.finished {
        format!(
            ": its edit was finished as a whole ({} files changed: {files})",
            r.files.len()
        )
    } else {
        format!(": its edit was undone as a whole (no file changed: {files})")
    }
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

#[allow(
    clippy::too_many_lines,
    reason = "one select loop relaying both directions; its state (calls in flight, the held initialize, the drain deadline) is shared by every arm"
)]
async fn bridge(hello: Hello) -> Result<(), DaemonError> {
    // Non-blocking pipes (`sightline mcp`'s reason): no thread hand-off per
    // line.
    let (stdin, mut stdout) = rmcp::transport::stdio_pipes();
    let mut stdin = BufReader::new(stdin).lines();
    let stream = connect_or_start().await?;
    let (r, mut w) = transport::split(stream);
    let mut from_daemon = BufReader::new(r).lines();
    // Calls in flight: id → method.
    // Each call sent and not answered: its id, method, and tool.
    let mut pending: HashMap<String, (Value, String, Option<String>)> = HashMap::new();
    // The session's `initialize`, with the hello, to send again.
    let mut init: Option<Value> = None;
    // The client's messages held while the bridge's own `initialize` is
    // unanswered (a draining daemon would lose them).
    let mut held: Option<Vec<Value>> = None;
    let mut stdin_closed = false;
    let mut last_restart: Option<Instant> = None;
    // The answers to write when a daemon went away with calls in flight.
    let mut answered: Vec<String> = Vec::new();
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
                    // is in flight, then leave. Each call ends by its
                    // server's progress within the ceiling of a server's
                    // waits, so that is the bound here too: a fixed 5 s
                    // lost a cold question's answer on a busy machine. A
                    // client that will not wait kills the process.
                    stdin_closed = true;
                    let ceiling = crate::catalog::Budgets::default().ceiling;
                    drain_deadline
                        .as_mut()
                        .reset(tokio::time::Instant::now() + ceiling + Duration::from_secs(10));
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
                } else if init.is_none() && method.is_some() {
                    // A client of the 2026 protocol may begin without
                    // `initialize` (`discover`, or a request carrying its
                    // own metadata; Claude Code 2.1 does): the daemon still
                    // needs the hello to pick the session's engine, so the
                    // bridge initializes the session itself first, and its
                    // answer is not passed on.
                    let mut own = initialize(&hello, "sightline-bridge");
                    own["id"] = json!(REINIT_ID);
                    let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
                    let _ = w.write_all(format!("{own}\n{done}\n").as_bytes()).await;
                    init = Some(own);
                    held = Some(Vec::new());
                }
                // A call the client cancels gets no answer (rmcp drops it):
                // it is in flight no more, or the bridge would wait for it
                // once stdin closes.
                if method.as_deref() == Some("notifications/cancelled")
                    && let Some(id) = msg.pointer("/params/requestId")
                {
                    pending.remove(&id.to_string());
                }
                if let (Some(id), Some(m)) = (msg.get("id"), method) {
                    let tool = msg["params"]["name"].as_str().map(str::to_owned);
                    pending.insert(id.to_string(), (id.clone(), m, tool));
                }
                if let Some(h) = &mut held {
                    h.push(msg);
                    continue;
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
                                // The session is the bridge's: now the
                                // client's messages go on.
                                for m in held.take().unwrap_or_default() {
                                    let _ = w.write_all(format!("{m}\n").as_bytes()).await;
                                }
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
                        // Messages still held never reached a daemon: they
                        // go to the next one. What was sent is answered.
                        let unsent = held.take().unwrap_or_default();
                        let unsent_ids: std::collections::HashSet<String> =
                            unsent.iter().filter_map(|m| m.get("id")).map(Value::to_string).collect();
                        // The daemon's death let its journal's lock go: an
                        // edit it cut off is finished or undone now.
                        let recovered = crate::edit::journal::recover();
                        pending.retain(|key, (id, method, tool)| {
                            if unsent_ids.contains(key) {
                                return true;
                            }
                            let answer = gone_answer(id, method, tool.as_deref(), &recovered);
                            answered.push(format!("{answer}\n"));
                            false
                        });
                        for answer in answered.drain(..) {
                            let _ = stdout.write_all(answer.as_bytes()).await;
                        }
                        let _ = stdout.flush().await;
                        if stdin_closed && unsent.is_empty() {
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
                        match &init {
                            Some(i) => {
                                let mut again = i.clone();
                                again["id"] = json!(REINIT_ID);
                                let _ = w.write_all(format!("{again}\n").as_bytes()).await;
                                let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
                                let _ = w.write_all(format!("{done}\n").as_bytes()).await;
                                // The client's messages wait for the new
                                // session's answer: a connection that landed
                                // in a dying daemon's backlog ends before it,
                                // and they then go to the next daemon.
                                held = Some(unsent);
                            }
                            None => {
                                for m in unsent {
                                    let _ = w.write_all(format!("{m}\n").as_bytes()).await;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let _ = w.shutdown().await;
    Ok(())
}
