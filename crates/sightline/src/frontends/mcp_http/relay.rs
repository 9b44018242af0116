//! One HTTP client's MCP session relayed to the shared daemon: each request
//! goes down a daemon connection as the stdio bridge sends it (the client's
//! [`Hello`] in `initialize`), its answer comes back typed, and what the
//! daemon tells the client meanwhile (progress, log messages, a
//! subscription's updates) goes to the client's peer. A connection that
//! ends (the daemon stopped or was replaced) is made again, initialized as
//! before, at the next request; a call cut off by it says what became of
//! its files, as the bridge's does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeRequestParams,
    InitializeResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerConfig, ServerNotification, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

use crate::frontends::daemon::Hello;
use crate::frontends::daemon::connect::connect_or_start;
use crate::frontends::daemon::handshake::{draining, initialize, with_hello};
use crate::frontends::daemon::transport;

/// The answers awaited on one connection, by the id sent to the daemon;
/// `None` once the connection ended (every waiter then hears `None`).
type Awaited = Arc<Mutex<Option<HashMap<u64, oneshot::Sender<Value>>>>>;

/// Where the daemon's notifications go: the peer of the client's latest
/// request (a session's requests share one).
type Listener = Arc<Mutex<Option<Peer<RoleServer>>>>;

/// A live connection to the daemon, initialized for this session.
struct Link {
    writer: tokio::sync::Mutex<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>,
    awaited: Awaited,
    next_id: AtomicU64,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Link {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Link {
    /// Whether the daemon still answers on it.
    fn alive(&self) -> bool {
        !self.reader.is_finished()
    }

    /// Sends `method` with `params`; the daemon's whole answer (`result`
    /// or `error`), or `None` when the connection ended first.
    async fn ask(
        &self,
        method: &str,
        params: Value,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Option<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        // A connection that ended before the request was sent: no answer
        // will come.
        self.awaited
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()?
            .insert(id, tx);
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send(&msg).await;
        tokio::select! {
            answer = rx => answer.ok(),
            () = cancel.cancelled() => {
                if let Some(awaited) = self.awaited.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
                    awaited.remove(&id);
                }
                let cancelled = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": { "requestId": id, "reason": "the HTTP client cancelled it" } });
                self.send(&cancelled).await;
                None
            }
        }
    }

    /// Writes one message; a failed write shows as the connection's end on
    /// the read side.
    async fn send(&self, msg: &Value) {
        let mut w = self.writer.lock().await;
        let _ = w.write_all(format!("{msg}\n").as_bytes()).await;
        let _ = w.flush().await;
    }
}

/// What went wrong reaching the daemon, as the client's error.
fn unreachable(e: &impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("sightline daemon: {e}"), None)
}

/// The MCP server an HTTP session talks to: a relay to the daemon.
#[derive(Clone)]
pub(crate) struct DaemonRelay {
    hello: Arc<Hello>,
    /// The session's `initialize` params as the client sent them (the
    /// hello added when sent), to initialize a new connection alike.
    init: Arc<Mutex<Option<Value>>>,
    link: Arc<tokio::sync::Mutex<Option<Arc<Link>>>>,
    listener: Listener,
}

impl DaemonRelay {
    /// A relay for sessions of the client `hello` describes.
    pub(crate) fn new(hello: Arc<Hello>) -> Self {
        Self {
            hello,
            init: Arc::default(),
            link: Arc::default(),
            listener: Arc::default(),
        }
    }

    /// The session's connection, made (and initialized) when there is none
    /// or the last one ended.
    async fn link(&self, client: &str) -> Result<Arc<Link>, ErrorData> {
        let mut held = self.link.lock().await;
        if let Some(link) = held.as_ref().filter(|l| l.alive()) {
            return Ok(link.clone());
        }
        // A daemon of another build drains: the next connection starts
        // this build's own (three times at most, as the bridge does).
        for attempt in 0..3 {
            // After a daemon went away (a connection that ended, or one
            // that closed unanswered): its connection ends before its
            // socket closes, and one made in between would land in the
            // dying socket's backlog. The bridge waits alike.
            if held.is_some() || attempt > 0 {
                crate::frontends::daemon::connect::gone_for_good().await;
            }
            let link = self.connect().await?;
            let params = self.initialize_params(client);
            let never = tokio_util::sync::CancellationToken::new();
            let Some(answer) = link.ask("initialize", params, &never).await else {
                continue;
            };
            if draining(&answer) {
                continue;
            }
            if let Some(error) = answer.get("error") {
                return Err(
                    serde_json::from_value(error.clone()).unwrap_or_else(|e| unreachable(&e))
                );
            }
            link.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
                .await;
            let link = Arc::new(link);
            *held = Some(link.clone());
            return Ok(link);
        }
        Err(unreachable(&"the daemon kept draining"))
    }

    /// The `initialize` params for a new connection: the client's own, or
    /// (a client of the 2026-07-28 protocol, which sends none) the
    /// bridge's; with the hello.
    fn initialize_params(&self, client: &str) -> Value {
        let own = self
            .init
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let msg = match own {
            Some(params) => json!({ "method": "initialize", "params": params }),
            None => initialize(&self.hello, client),
        };
        with_hello(msg, &self.hello)["params"].take()
    }

    /// Connects to the daemon (starting one when none runs), and reads its
    /// messages until the connection ends.
    async fn connect(&self) -> Result<Link, ErrorData> {
        let stream = connect_or_start().await.map_err(|e| unreachable(&e))?;
        let (r, w) = transport::split(stream);
        let awaited: Awaited = Arc::new(Mutex::new(Some(HashMap::new())));
        let reader = tokio::spawn(read_daemon(r, awaited.clone(), self.listener.clone()));
        Ok(Link {
            writer: tokio::sync::Mutex::new(Box::new(w)),
            awaited,
            next_id: AtomicU64::new(1),
            reader,
        })
    }

    /// Relays one request and reads its result as `R`.
    async fn relay<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        context: &RequestContext<RoleServer>,
    ) -> Result<R, ErrorData> {
        self.relay_or_gone(method, params, context)
            .await?
            .ok_or_else(|| gone(method))
    }

    /// [`Self::relay`], with `Ok(None)` when the daemon's connection ended
    /// before the answer came.
    async fn relay_or_gone<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<R>, ErrorData> {
        *self.listener.lock().unwrap_or_else(PoisonError::into_inner) = Some(context.peer.clone());
        let client = client_name(context);
        let link = self.link(&client).await?;
        let mut params = serde_json::to_value(params).unwrap_or_else(|_| json!({}));
        // rmcp takes `_meta` out of the params it hands the handler: the
        // progress token and a 2026-07-28 client's own description go
        // back in, for the daemon's session.
        if !context.meta.0.is_empty()
            && let Some(p) = params.as_object_mut()
        {
            p.insert(
                "_meta".into(),
                serde_json::to_value(&context.meta).unwrap_or_default(),
            );
        }
        let Some(answer) = link.ask(method, params, &context.ct).await else {
            if context.ct.is_cancelled() {
                return Err(ErrorData::internal_error("cancelled by the client", None));
            }
            return Ok(None);
        };
        if let Some(error) = answer.get("error") {
            return Err(serde_json::from_value(error.clone()).unwrap_or_else(|e| unreachable(&e)));
        }
        serde_json::from_value(answer.get("result").cloned().unwrap_or(Value::Null))
            .map(Some)
            .map_err(|e| unreachable(&format!("an answer to {method} could not be read: {e}")))
    }
}

/// The error of a request whose daemon connection ended before it was
/// answered.
fn gone(method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "the sightline daemon exited during {method}; ask again (a new daemon is starting)"
        ),
        None,
    )
}

/// The client's name: from its `initialize`, or from the request's own
/// metadata (2026-07-28).
fn client_name(context: &RequestContext<RoleServer>) -> String {
    // The request's own first: rmcp gives a stateless request a peer of
    // its own making ("rmcp"), which is not the client.
    let from_meta = || {
        let info = context.meta.0.get("io.modelcontextprotocol/clientInfo")?;
        info.get("name")?.as_str().map(str::to_owned)
    };
    from_meta()
        .or_else(|| context.peer.peer_info().map(|i| i.client_info.name.clone()))
        .unwrap_or_else(|| "sightline-http".to_owned())
}

/// Hands each answer to its request and each notification to the listener,
/// until the daemon's end of the connection closes.
async fn read_daemon(r: impl tokio::io::AsyncRead + Unpin, awaited: Awaited, listener: Listener) {
    let mut lines = BufReader::new(r).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if msg.get("method").is_none() {
            let id = msg.get("id").and_then(Value::as_u64);
            let waiter = id.and_then(|id| {
                awaited
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_mut()?
                    .remove(&id)
            });
            if let Some(tx) = waiter {
                let _ = tx.send(msg);
            }
            continue;
        }
        let peer = listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(peer) = peer else { continue };
        match serde_json::from_value::<ServerNotification>(msg) {
            Ok(n) => {
                let _ = peer.send_notification(n).await;
            }
            Err(e) => tracing::debug!("mcp http: a daemon message not relayed: {e}"),
        }
    }
    // The daemon's end: every request still waiting hears it now, and none
    // is sent on this connection again.
    awaited
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
}

impl ServerHandler for DaemonRelay {
    fn get_info(&self) -> ServerConfig {
        crate::frontends::mcp::server_config()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        *self.init.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(serde_json::to_value(&request).unwrap_or_default());
        context.peer.set_peer_info(request.clone());
        *self.listener.lock().unwrap_or_else(PoisonError::into_inner) = Some(context.peer.clone());
        // A session made again replaces the last connection.
        *self.link.lock().await = None;
        let link = self.link(&request.client_info.name).await?;
        drop(link);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.relay("tools/list", request, &context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.relay("resources/list", request, &context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.relay("resources/templates/list", request, &context)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let read: ReadResourceResult = self.relay("resources/read", request, &context).await?;
        Ok(read.into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self.relay("resources/subscribe", request, &context).await?;
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self
            .relay("resources/unsubscribe", request, &context)
            .await?;
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        match self
            .relay_or_gone::<CallToolResult>("tools/call", request, &context)
            .await
        {
            Ok(Some(result)) => Ok(result.into()),
            // A call cut off by the daemon's end is a tool result, as over
            // stdio: a tool that writes says what became of its files.
            Ok(None) => {
                // The daemon's death let its journal's lock go: an edit it
                // cut off is finished or undone now.
                let recovered = crate::edit::journal::recover();
                let text = crate::frontends::daemon::bridge::cut_off_call(Some(&tool), &recovered);
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            Err(e) => Err(e),
        }
    }
}
