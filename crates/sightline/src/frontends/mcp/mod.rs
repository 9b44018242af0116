//! `sightline mcp`: the MCP server over stdio, with `lsp_diagnostics`,
//! `lsp_definition`, `lsp_references` and the nine-operation `lsp` tool. This
//! the daemon's session (`frontends/daemon/serve.rs`, which wraps this
//! server) and MCP over HTTP (`frontends/mcp_http`) are the only modules
//! that name `rmcp`, which is pinned exactly because it breaks its API
//! every few months.
//!
//! Tool failures (bad input, no server, not ready) are tool results with
//! `isError` and the contract's one-line text; only calls that do not match
//! the schema are protocol errors. A `notifications/cancelled` drops the call,
//! which cancels its LSP request (`$/cancelRequest`). When the client sent a
//! progress token, starting, installing and indexing are reported as progress.
//! `tools` lists the tools and their schemas; a call is the registry's
//! (`frontends::tools`), run in this session.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::mpsc;

use crate::engine::Engine;
use crate::error::ToolError;
use crate::frontends::tools::{Answered, CallError, Session, Toolset};
use crate::progress::Progress;
use crate::render;

mod lean;
mod logs;
mod provenance;
mod resources;
mod structured;
mod tools;

use tools::tools;

/// The request `_meta` key by which a call asks for the CLI's JSON as its
/// structured content (`true`).
pub const JSON_META: &str = "sightline/json";

/// The request `_meta` key by which a client of the 2026-07-28 protocol
/// names itself in every request.
const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";

/// Set (`true`) in a result's `_meta` when a diagnostics answer lists an
/// error, for the CLI's exit status through the daemon.
pub const ERRORS_KEY: &str = "sightline/errors";

/// The MCP server of an [`Engine`].
#[derive(Clone)]
pub struct McpServer {
    /// The session its calls run in.
    session: Session,
    /// The tools it lists and serves.
    tools: Toolset,
    /// The files whose diagnostics the client subscribed to.
    subscriptions: resources::Subscriptions,
    /// A line the session's first answer begins with (served in process
    /// because the daemon has other settings), taken once.
    note: Arc<std::sync::Mutex<Option<String>>>,
}

/// Progress of one call, forwarded to the client as MCP progress
/// notifications by a task that ends when the call does.
struct CallProgress {
    tx: mpsc::UnboundedSender<String>,
}

impl Progress for CallProgress {
    fn begin(&self, _key: &str, title: &str) {
        let _ = self.tx.send(title.to_owned());
    }
    fn update(&self, _key: &str, message: &str) {
        let _ = self.tx.send(message.to_owned());
    }
    fn end(&self, _key: &str, message: &str) {
        let _ = self.tx.send(message.to_owned());
    }
}

impl McpServer {
    /// The MCP server over `engine`, serving `tools`.
    pub fn new(engine: Arc<Engine>, tools: Toolset) -> Self {
        McpServer {
            session: Session::new(engine, tools.clone()),
            tools,
            subscriptions: resources::Subscriptions::default(),
            note: Arc::default(),
        }
    }

    /// The MCP server of one CLI command's call: every tool served, as
    /// in process, and a session of one call (`Session::of_command`).
    pub fn of_command(engine: Arc<Engine>) -> Self {
        McpServer {
            session: Session::of_command(engine),
            tools: Toolset::with_edit_tools(true),
            subscriptions: resources::Subscriptions::default(),
            note: Arc::default(),
        }
    }

    /// The same server, its agents' hook calls sharing `pending` (the
    /// daemon's one value).
    pub fn sharing_checks(self, pending: Arc<crate::frontends::hooks::PendingChecks>) -> Self {
        McpServer {
            session: self.session.sharing_checks(pending),
            ..self
        }
    }

    /// Tells the session's client what happens to the servers, from now
    /// on (once per session).
    fn tell_server_events(&self, context: &RequestContext<RoleServer>) {
        let engine = self.session.engine().clone();
        let peer = context.peer.clone();
        self.subscriptions
            .once("sightline:server-events", || logs::forward(&engine, peer));
    }

    /// The same server, its first answer beginning with `note`.
    pub fn with_note(self, note: Option<String>) -> Self {
        *self
            .note
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = note;
        self
    }
}

/// What sightline says of itself in `initialize`, in process or through
/// the daemon. (Logging is deprecated from 2026-07-28, but the clients in
/// use read it: see `logs`.)
#[allow(deprecated)]
pub fn server_config() -> ServerConfig {
    ServerConfig::new(
        ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_logging()
            .build(),
    )
    .with_server_info(Implementation::new("sightline", env!("CARGO_PKG_VERSION")))
    .with_instructions(
        "Answers from real language servers about files as they are on disk now: \
             diagnostics after an edit, definitions, references, hover, outlines and call \
             hierarchies. Prefer them to grep and reading files: lsp_references lists the \
             exact uses of a symbol (no matches in comments or strings, calls through import \
             aliases included), lsp_definition resolves a name through imports and \
             re-exports, and lsp_diagnostics right after an edit says what it broke, faster \
             than a build or the tests. Paths are absolute; lines and columns are 1-based, \
             columns on the symbol itself (or pass `symbol` with its name).",
    )
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        server_config()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let structured = structured_session(&context);
        self.tell_server_events(&context);
        Ok(ListToolsResult::with_all_items(tools(
            &self.tools,
            structured,
        )))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools(&self.tools, false)
            .into_iter()
            .find(|t| t.name == name)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.tell_server_events(&context);
        Ok(ListResourcesResult::with_all_items(resources::listed(
            &self.tools,
        )))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(&self.tools),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.tell_server_events(&context);
        let text = resources::read(&self.session, &self.tools, &request.uri)
            .await
            .map_err(|e| ErrorData::invalid_params(e, None))?;
        let contents = ResourceContents::TextResourceContents {
            uri: request.uri,
            mime_type: Some("text/plain".to_owned()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    // `resources/subscribe` is the protocol's until 2026-07-28, which the
    // SDKs in use still speak.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions
            .subscribe(&request.uri, context.peer.clone())
            .map_err(|e| ErrorData::invalid_params(e, None))
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        self.tell_server_events(&context);
        // The CLI's `--json` through the daemon asks for the JSON it prints
        // as the result's structured content; agents get the text alone.
        let json = context.meta.0.0.get(JSON_META) == Some(&serde_json::Value::Bool(true));
        // Other clients get the answer's values beside its text, unless
        // their model would then read the values alone.
        let structured = !json && structured_session(&context);
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let forwarder = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                let mut n = 0u32;
                while let Some(message) = rx.recv().await {
                    n += 1;
                    let p = ProgressNotificationParam::new(token.clone(), f64::from(n))
                        .with_message(message);
                    if peer.notify_progress(p).await.is_err() {
                        break;
                    }
                }
            })
        });
        let sink: Arc<dyn Progress> = Arc::new(CallProgress { tx });
        // A panic inside the call is its answer, never a call left waiting.
        let args = request.arguments.unwrap_or_default();
        let asked = args
            .get("file")
            .and_then(serde_json::Value::as_str)
            .map(std::path::PathBuf::from);
        let run = async {
            let call = async { Ok(self.session.call(&name, args, json || structured).await) };
            match crate::error::caught(&name, call).await {
                Ok(Err(CallError::UnknownTool(m) | CallError::BadArguments(m))) => {
                    Err(ErrorData::invalid_params(m, None))
                }
                Ok(Err(CallError::Failed(e))) | Err(e) => Ok(Err(e)),
                Ok(Ok(answered)) => Ok(Ok(answered)),
            }
        };
        let work = crate::progress::scoped(sink, run);
        // Dropping the work on cancellation drops its LSP request, which
        // sends `$/cancelRequest` to the server.
        let outcome = tokio::select! {
            r = work => r,
            _ = context.ct.cancelled() => {
                tracing::info!("{name}: cancelled by the client");
                Ok(Err::<Answered, _>(ToolError::cancelled("cancelled by the client")))
            }
        };
        if let Some(f) = forwarder {
            // The sink is gone, so the forwarder ends once it has sent what
            // was reported: progress never arrives after the result.
            let _ = f.await;
        }
        let note = self
            .note
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .unwrap_or_default();
        let result = match outcome? {
            Ok(answered) => {
                let text = note + &answered.text;
                let values = match structured {
                    // The session's first line is about the session, not
                    // the answer: its notes are the answer's own.
                    true => {
                        let (servers, files) = provenance::provenance(
                            self.session.engine(),
                            asked.as_deref(),
                            answered.json.as_ref(),
                        )
                        .await;
                        let mut s = structured::structured(&text, &answered.text, answered.json);
                        s["servers"] = servers;
                        s["files"] = files;
                        Some(s)
                    }
                    false => answered.json,
                };
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = values;
                // The CLI's exit status through the daemon: the text is
                // capped and cannot tell.
                if answered.errors {
                    let mut meta = rmcp::model::MetaObject::default();
                    meta.0
                        .insert(ERRORS_KEY.into(), serde_json::Value::Bool(true));
                    r.meta = Some(meta);
                }
                r
            }
            Err(e) => {
                let text = note + &render::error_text(&e);
                let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
                r.structured_content = json.then(|| render::error_json(&e));
                r
            }
        };
        Ok(result.into())
    }
}

/// Whether the session's client gets structured answers (by the name it
/// gave in `initialize`).
fn structured_session(context: &RequestContext<RoleServer>) -> bool {
    // A client of the 2026-07-28 protocol names itself in each request's
    // metadata and may never send `initialize` (Claude Code 2.1: the
    // bridge then initializes the session under its own name); others in
    // `initialize`.
    let client = context
        .meta
        .0
        .0
        .get(CLIENT_INFO_META)
        .and_then(|info| info.get("name"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .or_else(|| context.peer.peer_info().map(|p| p.client_info.name.clone()));
    let structured = structured::structured_for(client.as_deref());
    tracing::debug!("mcp: client {client:?}: structured answers {structured}");
    structured
}

/// Serves MCP on stdin/stdout until the client closes stdin, then shuts every
/// server down.
pub async fn serve(engine: Arc<Engine>, tools: Toolset, note: Option<String>) -> i32 {
    // Non-blocking pipes when the client gave us pipes (it always does): the
    // blocking stdio handles read and write on tokio's blocking pool, a
    // thread hand-off per message.
    let status = match McpServer::new(engine.clone(), tools)
        .with_note(note)
        .serve(rmcp::transport::stdio_pipes())
        .await
    {
        Ok(running) => {
            let _ = running.waiting().await;
            tracing::info!("mcp: the client closed the connection; shutting servers down");
            0
        }
        Err(e) => {
            tracing::error!("mcp: could not start: {e}");
            2
        }
    };
    engine.shutdown().await;
    status
}
