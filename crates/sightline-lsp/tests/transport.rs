//! The transport against an in-memory peer that speaks through the real codec:
//! responses routed by id, server requests answered, cancel-on-drop, timeouts,
//! and every pending request failed when the peer goes away.

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sightline_lsp::{Client, ClientError, Handler, Message, RequestId, ResponseError};
use sightline_lsp::{Frame, LspCodec};
use tokio_util::codec::{FramedRead, FramedWrite};

#[derive(Default)]
struct Recorder {
    notes: Mutex<Vec<String>>,
}

impl Handler for Recorder {
    fn request(&self, method: &str, _params: Value) -> Result<Value, ResponseError> {
        match method {
            "workspace/configuration" => Ok(json!([null])),
            other => Err(ResponseError::method_not_found(other)),
        }
    }
    fn notification(&self, method: &str, _params: Value) {
        self.notes.lock().unwrap().push(method.to_owned());
    }
}

type PeerRead = FramedRead<tokio::io::ReadHalf<tokio::io::DuplexStream>, LspCodec>;
type PeerWrite = FramedWrite<tokio::io::WriteHalf<tokio::io::DuplexStream>, LspCodec>;

fn pair() -> (Client, Arc<Recorder>, PeerRead, PeerWrite) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(ours);
    let rec = Arc::new(Recorder::default());
    let client = Client::over_streams("fake", r, w, rec.clone());
    let (pr, pw) = tokio::io::split(theirs);
    (
        client,
        rec,
        FramedRead::new(pr, LspCodec::default()),
        FramedWrite::new(pw, LspCodec::default()),
    )
}

async fn next(read: &mut PeerRead) -> Message {
    loop {
        if let Frame::Body(b) = read.next().await.unwrap().unwrap() {
            return Message::decode(&b).unwrap();
        }
    }
}

async fn send(write: &mut PeerWrite, m: Message) {
    write.send(m.encode().as_slice()).await.unwrap();
}

#[tokio::test]
async fn responses_are_routed_by_id_even_out_of_order() {
    let (client, _rec, mut read, mut write) = pair();
    let c1 = client.clone();
    let c2 = client.clone();
    let a = tokio::spawn(async move {
        c1.request_value("a", Value::Null, Duration::from_secs(5))
            .await
    });
    let b = tokio::spawn(async move {
        c2.request_value("b", Value::Null, Duration::from_secs(5))
            .await
    });
    let mut ids = Vec::new();
    for _ in 0..2 {
        if let Message::Request { id, method, .. } = next(&mut read).await {
            ids.push((id, method));
        }
    }
    // Answer in reverse order, one id as a numeric string.
    for (id, method) in ids.into_iter().rev() {
        let id = RequestId::String(id.as_number().unwrap().to_string());
        send(
            &mut write,
            Message::Response {
                id: Some(id),
                result: Ok(json!(method)),
            },
        )
        .await;
    }
    assert_eq!(a.await.unwrap().unwrap(), json!("a"));
    assert_eq!(b.await.unwrap().unwrap(), json!("b"));
}

#[tokio::test]
async fn server_requests_are_always_answered_and_notifications_kept() {
    let (_client, rec, mut read, mut write) = pair();
    send(
        &mut write,
        Message::Request {
            id: RequestId::Number(1),
            method: "workspace/configuration".into(),
            params: json!({}),
        },
    )
    .await;
    send(
        &mut write,
        Message::Request {
            id: RequestId::String("x".into()),
            method: "custom/thing".into(),
            params: Value::Null,
        },
    )
    .await;
    for _ in 0..1000 {
        send(
            &mut write,
            Message::Notification {
                method: "window/logMessage".into(),
                params: Value::Null,
            },
        )
        .await;
    }
    match next(&mut read).await {
        Message::Response {
            id: Some(RequestId::Number(1)),
            result: Ok(v),
        } => assert_eq!(v, json!([null])),
        other => panic!("{other:?}"),
    }
    match next(&mut read).await {
        Message::Response {
            id: Some(RequestId::String(s)),
            result: Err(e),
        } => {
            assert_eq!(s, "x");
            assert!(e.is(sightline_lsp::ErrorCode::MethodNotFound), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    // A request after the flood proves every notification was consumed in order.
    send(
        &mut write,
        Message::Request {
            id: RequestId::Number(2),
            method: "workspace/configuration".into(),
            params: json!({}),
        },
    )
    .await;
    assert!(matches!(next(&mut read).await, Message::Response { .. }));
    assert_eq!(rec.notes.lock().unwrap().len(), 1000);
}

#[tokio::test]
async fn timeout_and_drop_send_cancel_request() {
    let (client, _rec, mut read, _write) = pair();
    let err = client
        .request_value("slow", Value::Null, Duration::from_millis(50))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
    let Message::Request { id, .. } = next(&mut read).await else {
        panic!()
    };
    match next(&mut read).await {
        Message::Notification { method, params } => {
            assert_eq!(method, "$/cancelRequest");
            assert_eq!(params["id"], json!(id.as_number().unwrap()));
        }
        other => panic!("{other:?}"),
    }
    // Dropping an in-flight future cancels it too.
    let c = client.clone();
    let task = tokio::spawn(async move {
        c.request_value("dropped", Value::Null, Duration::from_secs(60))
            .await
    });
    let Message::Request { id, .. } = next(&mut read).await else {
        panic!()
    };
    task.abort();
    match next(&mut read).await {
        Message::Notification { method, params } => {
            assert_eq!(method, "$/cancelRequest");
            assert_eq!(params["id"], json!(id.as_number().unwrap()));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn peer_exit_fails_every_pending_request() {
    let (client, _rec, mut read, write) = pair();
    let c = client.clone();
    let pending = tokio::spawn(async move {
        c.request_value("never", Value::Null, Duration::from_secs(60))
            .await
    });
    let _ = next(&mut read).await;
    drop(write);
    drop(read);
    let err = pending.await.unwrap().unwrap_err();
    assert!(matches!(err, ClientError::ServerExited { .. }), "{err}");
    let again = client
        .request_value("after", Value::Null, Duration::from_secs(1))
        .await
        .unwrap_err();
    assert!(matches!(again, ClientError::ServerExited { .. }), "{again}");
}

/// A server named "crasher" that runs `script` in `sh`.
async fn crasher(script: &str) -> Client {
    let mut cfg = sightline_lsp::SpawnConfig::new("crasher", "/bin/sh", "/");
    cfg.args = vec!["-c".into(), script.into()];
    Client::spawn(cfg, Arc::new(Recorder::default()))
        .await
        .unwrap()
}

/// The error of an `initialize` asked of `client`, as text.
async fn initialize_error(client: &Client) -> String {
    client
        .request_value("initialize", json!({}), Duration::from_secs(10))
        .await
        .unwrap_err()
        .to_string()
}

#[tokio::test]
async fn real_process_exit_carries_stderr_tail() {
    let client = crasher("read line; echo 'fatal: index corrupt' >&2; exit 3").await;
    let text = initialize_error(&client).await;
    assert!(text.contains("crasher exited with status 3"), "{text}");
    assert!(text.contains("fatal: index corrupt"), "{text}");
}

/// A write that fails on the closed pipe before the reader has seen stdout
/// close still names the exit status and stderr (CI saw Roslyn's stand-in
/// answered "razor exited" with neither).
#[tokio::test]
async fn a_write_to_a_closed_pipe_waits_to_name_the_exit() {
    let client = crasher("exec 0<&-; echo 'fatal: no input' >&2; sleep 1; exit 4").await;
    // Its stdin is closed once the line is on stderr; its stdout is open a
    // second more, so the reader has not seen it go.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !client.stderr_tail(1).contains("fatal: no input") {
        assert!(std::time::Instant::now() < deadline, "no stderr line");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let text = initialize_error(&client).await;
    assert!(text.contains("crasher exited with status 4"), "{text}");
    assert!(text.contains("fatal: no input"), "{text}");
}
