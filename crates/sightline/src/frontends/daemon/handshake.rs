//! The first exchange of a client of the daemon: the MCP `initialize`
//! carrying the client's [`Hello`], and what the daemon's answer to it says
//! (draining, other settings). The bridge, the one-call client and the
//! probe of `sightline mcp` all start this way.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::frontends::daemon::connect::connect_or_start;
use crate::frontends::daemon::transport;
use crate::frontends::daemon::{DaemonError, HELLO_KEY, Hello};

/// Adds `hello` to an `initialize` request.
pub(crate) fn with_hello(mut msg: Value, hello: &Hello) -> Value {
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
pub(crate) fn initialize(hello: &Hello, client: &str) -> Value {
    with_hello(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": client, "version": env!("CARGO_PKG_VERSION") } } }),
        hello,
    )
}

pub(crate) fn draining(msg: &Value) -> bool {
    msg.pointer("/error/data/sightline") == Some(&json!("draining"))
}

/// The settings named when the daemon refused the session for them.
pub(super) fn other_settings(msg: &Value) -> Option<Vec<String>> {
    if msg.pointer("/error/data/sightline") != Some(&json!(super::SETTINGS_DIFFER)) {
        return None;
    }
    let differ = msg.pointer("/error/data/differ").and_then(Value::as_array);
    Some(
        differ
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    )
}

/// Whether the daemon (started when none runs) takes a session of this
/// client: `Err(OtherSettings)` when it has other settings, so that the
/// client answers in process. A draining daemon is waited out (three times
/// at most).
pub async fn accepts(hello: &Hello) -> Result<(), DaemonError> {
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
        return match other_settings(&answer) {
            Some(differ) => Err(DaemonError::OtherSettings(differ)),
            None => Ok(()),
        };
    }
    Err(DaemonError::Io("the daemon kept draining".into()))
}
