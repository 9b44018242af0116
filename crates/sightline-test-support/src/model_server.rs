//! A scripted model server on loopback, for driving real agent CLIs
//! without a model: Claude Code's Anthropic Messages API, Gemini CLI's
//! Gemini API and Codex's Responses API. It records every conversation request and answers each from
//! the test's script, as server-sent events. One thread, plain HTTP/1.1,
//! one request per connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The ids of the tool calls made, one each.
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// What the model says next.
#[derive(Debug, Clone)]
pub enum Turn {
    /// A tool call: the tool's name and its input.
    Tool(String, Value),
    /// A final text.
    Text(String),
    /// Several tool calls in one message, to be run at once (the Anthropic
    /// Messages API only: Claude Code runs its subagents' `Agent` calls of
    /// one message in parallel).
    Tools(Vec<(String, Value)>),
}

/// Picks the turn for one request body: the test's script.
pub type Script = dyn Fn(&Value) -> Turn + Send + Sync;

/// The running server: its address and what it was sent.
pub struct ModelServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    requests: Arc<Mutex<Vec<(String, Value)>>>,
    arrived: Arc<Mutex<Vec<std::time::Instant>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    port: u16,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ModelServer {
    /// Starts the server, answering each request as `script` says.
    pub fn start(script: Box<Script>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (seen, stopping) = (requests.clone(), stop.clone());
        let at = arrived.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = serve(stream, &*script, &seen, &at);
            }
        });
        ModelServer {
            url: format!("http://127.0.0.1:{port}"),
            requests,
            arrived,
            stop,
            port,
            thread: Some(thread),
        }
    }

    /// When each request of [`ModelServer::requests`] arrived, in order.
    pub fn arrivals(&self) -> Vec<std::time::Instant> {
        self.arrived
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Every request so far: its path and its JSON body.
    pub fn requests(&self) -> Vec<(String, Value)> {
        self.requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    stream: TcpStream,
    script: &Script,
    seen: &Mutex<Vec<(String, Value)>>,
    arrived: &Mutex<Vec<std::time::Instant>>,
) -> std::io::Result<()> {
    let record = |path: String, body: &Value| {
        seen.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((path, body.clone()));
        arrived
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(std::time::Instant::now());
    };
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_owned();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut out = stream;
    if path.ends_with("/responses") {
        record(path, &body);
        let events = responses_events(&script(&body));
        return write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{events}",
            events.len()
        );
    }
    if path.contains(":streamGenerateContent") {
        record(path, &body);
        let events = gemini_events(&script(&body));
        return write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{events}",
            events.len()
        );
    }
    if path.contains(":generateContent") || path.contains(":countTokens") {
        // Gemini CLI's routing and token counts: a small model's choice.
        let reply = if path.contains(":countTokens") {
            json!({ "totalTokens": 1 })
        } else {
            json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "text": "{\"reasoning\": \"scripted\", \"model_choice\": \"flash\"}" }] }, "finishReason": "STOP", "index": 0 }],
                    "usageMetadata": { "promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2 } })
        }
        .to_string();
        return write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
            reply.len()
        );
    }
    if !path.starts_with("/v1/messages") || path.contains("count_tokens") {
        let reply = json!({ "input_tokens": 1 }).to_string();
        return write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
            reply.len()
        );
    }
    record(path, &body);
    let events = anthropic_events(&script(&body));
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{events}"
    )?;
    out.flush()
}

/// A turn as the Messages API streams it.
fn anthropic_events(turn: &Turn) -> String {
    let tool = |name: &str, input: &Value| {
        (
            json!({ "type": "tool_use", "id": format!("toolu_{}", NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::SeqCst)), "name": name, "input": {} }),
            json!({ "type": "input_json_delta", "partial_json": input.to_string() }),
        )
    };
    let (blocks, stop) = match turn {
        Turn::Tool(name, input) => (vec![tool(name, input)], "tool_use"),
        Turn::Tools(calls) => (calls.iter().map(|(n, i)| tool(n, i)).collect(), "tool_use"),
        Turn::Text(text) => (
            vec![(
                json!({ "type": "text", "text": "" }),
                json!({ "type": "text_delta", "text": text }),
            )],
            "end_turn",
        ),
    };
    let mut events = vec![(
        "message_start",
        json!({ "type": "message_start", "message": {
        "id": "msg_scripted", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": { "input_tokens": 1, "output_tokens": 1 } } }),
    )];
    for (index, (block, delta)) in blocks.into_iter().enumerate() {
        events.push((
            "content_block_start",
            json!({ "type": "content_block_start", "index": index, "content_block": block }),
        ));
        events.push((
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": index, "delta": delta }),
        ));
        events.push((
            "content_block_stop",
            json!({ "type": "content_block_stop", "index": index }),
        ));
    }
    events.push((
        "message_delta",
        json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null }, "usage": { "output_tokens": 1 } }),
    ));
    events.push(("message_stop", json!({ "type": "message_stop" })));
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// A turn as the Responses API streams it: the output item, whole. A tool
/// whose input is a string is a freeform (custom) tool, as Codex's
/// `apply_patch` is.
fn responses_events(turn: &Turn) -> String {
    let n = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let item = match turn {
        Turn::Tool(name, Value::String(input)) => json!({
            "type": "custom_tool_call", "id": format!("ctc_{n}"), "call_id": format!("call_{n}"), "name": name, "input": input,
        }),
        // `NAMESPACE::NAME`: a tool of a namespace (Codex's MCP servers).
        Turn::Tool(name, args) => {
            let mut call = json!({
                "type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"), "name": name, "arguments": args.to_string(),
            });
            if let Some((namespace, tool)) = name.split_once("::") {
                call["namespace"] = json!(namespace);
                call["name"] = json!(tool);
            }
            call
        }
        Turn::Tools(_) => {
            panic!("several tool calls in one turn are scripted for Claude Code only")
        }
        Turn::Text(text) => json!({
            "type": "message", "id": format!("msg_{n}"), "role": "assistant",
            "content": [{ "type": "output_text", "text": text }],
        }),
    };
    let usage = json!({ "input_tokens": 1, "output_tokens": 1, "total_tokens": 2 });
    [
        ("response.created", json!({ "type": "response.created", "response": { "id": format!("resp_{n}") } })),
        ("response.output_item.done", json!({ "type": "response.output_item.done", "output_index": 0, "item": item })),
        ("response.completed", json!({ "type": "response.completed", "response": { "id": format!("resp_{n}"), "usage": usage } })),
    ]
    .iter()
    .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
    .collect()
}

/// A turn as the Gemini API streams it: one event.
fn gemini_events(turn: &Turn) -> String {
    let part = match turn {
        Turn::Tool(name, args) => json!({ "functionCall": { "name": name, "args": args } }),
        Turn::Text(text) => json!({ "text": text }),
        Turn::Tools(_) => {
            panic!("several tool calls in one turn are scripted for Claude Code only")
        }
    };
    let event = json!({
        "candidates": [{ "content": { "role": "model", "parts": [part] }, "finishReason": "STOP", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2 },
    });
    format!("data: {event}\r\n\r\n")
}

/// Whether a Messages request reports a tool's result back: a message
/// after the model's last turn carries one (Claude Code puts a hook's added
/// context after it, as a message of its own).
pub fn after_tool(body: &Value) -> bool {
    // The Responses API's conversation: a tool's output after the model's
    // last call.
    if let Some(input) = body["input"].as_array() {
        return input
            .iter()
            .rev()
            .take_while(|i| {
                !matches!(
                    i["type"].as_str(),
                    Some("function_call" | "custom_tool_call")
                )
            })
            .any(|i| {
                matches!(
                    i["type"].as_str(),
                    Some("function_call_output" | "custom_tool_call_output")
                )
            });
    }
    // The Gemini API's conversation: a function response after the model's
    // last turn.
    if let Some(contents) = body["contents"].as_array() {
        return contents
            .iter()
            .rev()
            .take_while(|c| c["role"] != "model")
            .filter_map(|c| c["parts"].as_array())
            .any(|p| p.iter().any(|part| part.get("functionResponse").is_some()));
    }
    let Some(messages) = body["messages"].as_array() else {
        return false;
    };
    messages
        .iter()
        .rev()
        .take_while(|m| m["role"] != "assistant")
        .filter_map(|m| m["content"].as_array())
        .any(|c| c.iter().any(|b| b["type"] == "tool_result"))
}
