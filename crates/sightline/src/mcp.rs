//! `sightline mcp`: the MCP server over stdio, with `lsp_diagnostics`,
//! `lsp_definition`, `lsp_references` and the nine-operation `lsp` tool. This
//! is the only module that names `rmcp`, which is pinned exactly because it
//! breaks its API every few months.
//!
//! Tool failures (bad input, no server, not ready) are tool results with
//! `isError` and the contract's one-line text; only calls that do not match
//! the schema are protocol errors. A `notifications/cancelled` drops the call,
//! which cancels its LSP request (`$/cancelRequest`). When the client sent a
//! progress token, starting, installing and indexing are reported as progress.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::answer::ItemsKind;
use crate::error::ToolError;
use crate::progress::Progress;
use crate::render;
use crate::workspace::Workspace;

/// `lsp_diagnostics` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FileArgs {
    /// Absolute path of the file, e.g. /repo/src/app.py. The file is read from
    /// disk as it is now; save edits before asking.
    file: String,
}

/// `lsp_definition` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PositionArgs {
    /// Absolute path of the file holding the symbol.
    file: String,
    /// 1-based line number, as a `read` tool or a traceback shows it.
    #[schemars(range(min = 1))]
    line: usize,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    column: Option<usize>,
    /// The symbol's name on that line, instead of `column`; if it is not there
    /// or appears more than once, the answer lists the columns that hold
    /// symbols.
    symbol: Option<String>,
}

/// `lsp_references` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReferencesArgs {
    /// Absolute path of the file holding the symbol.
    file: String,
    /// 1-based line number, as a `read` tool or a traceback shows it.
    #[schemars(range(min = 1))]
    line: usize,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    column: Option<usize>,
    /// The symbol's name on that line, instead of `column`.
    symbol: Option<String>,
    /// Also list the declaration itself. Default false: only uses.
    include_declaration: Option<bool>,
}

/// The question the `lsp` tool asks.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

/// `lsp` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LspArgs {
    /// goToDefinition, findReferences, hover (type and docs), goToImplementation,
    /// prepareCallHierarchy, incomingCalls (who calls it) and outgoingCalls
    /// (what it calls) take `file`, `line` and `column` (or `symbol`);
    /// documentSymbol (the outline of a file) takes `file`; workspaceSymbol
    /// takes `query` and optionally `file` to choose the language and project.
    operation: Operation,
    /// Absolute path of the file.
    file: Option<String>,
    /// 1-based line number, as a `read` tool or a traceback shows it.
    #[schemars(range(min = 1))]
    line: Option<usize>,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    column: Option<usize>,
    /// The symbol's name on that line, instead of `column`.
    symbol: Option<String>,
    /// For workspaceSymbol: the name, or part of it, to search for.
    query: Option<String>,
}

/// `read` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    /// Absolute path of the file.
    file: String,
    /// The first line to show, 1-based (default 1).
    #[schemars(range(min = 1))]
    offset: Option<usize>,
    /// How many lines to show (default 2000).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

/// `write` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    /// Absolute path of the file to create or replace.
    file: String,
    /// The whole new content of the file.
    content: String,
}

/// `edit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    /// Absolute path of the file to change.
    file: String,
    /// The exact text to replace; it must occur once unless `replace_all`.
    old: String,
    /// The text to put in its place.
    new: String,
    /// Replace every occurrence of `old`.
    replace_all: Option<bool>,
    /// Format only the lines the edit touched (instead of the whole file),
    /// where the server or a formatter can.
    format_range: Option<bool>,
}

/// `apply_patch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PatchArgs {
    /// A patch from `*** Begin Patch` to `*** End Patch` with `*** Add File:`,
    /// `*** Delete File:`, `*** Update File:` (with `*** Move to:` and `@@`
    /// hunks of ` `, `-`, `+` lines). Relative paths start at the workspace.
    patch: String,
}

const READ: &str = "Print a file with numbered lines (1-based: the numbers the lsp tools take), and start its language server in the background so that the next question is fast.";
const WRITE: &str = "Create or replace a file with the given content, written atomically (permissions, byte-order mark and line endings kept), then formatted. Answers what was done and the errors the file (and up to 5 other open files of the project) now has, so you learn at once what the write broke.";
const EDIT: &str = "Replace an exact piece of text in a file (once, or every occurrence with replace_all), written atomically and formatted. Refused when the file changed on disk since you last read it. Answers the errors the file now has.";
const APPLY_PATCH: &str = "Apply a multi-file patch (add, delete, update with context hunks, move) all at once: if any part does not apply, no file changes. Changed files are formatted, and the answer lists the errors each now has.";

const DIAGNOSTICS: &str = "Errors and warnings that the project's real type checker (pyright, the TypeScript server, ...) reports for one file as it is on disk now. Use it right after editing a file, instead of running the build or the tests, to learn what the edit broke. Answers `PATH: N diagnostics`, then one `LINE:COL SEVERITY: MESSAGE [SOURCE]` line each; a `note:` line says when the server could not confirm fresh results in time.";
const DEFINITION: &str = "Where the symbol at a position is really defined, resolved by the language server through imports, aliases and re-exports. Use it instead of grep when a name is common, imported or overloaded. Answers `N definitions`, then `PATH:LINE:COL SOURCE_LINE` each.";
const REFERENCES: &str = "Every place in the workspace that uses the symbol at a position, resolved by the language server: the same word in a comment or string is not listed, a call through an import alias is. Use it instead of grep before renaming a symbol or changing its signature. Answers `N references`, then `PATH:LINE:COL SOURCE_LINE` each (at most 50; narrow the question for more).";
const LSP: &str = "Ask the language server one of nine questions: goToDefinition, findReferences, hover (the type and docs of a symbol), documentSymbol (the outline of a file), workspaceSymbol (find a class or function by name), goToImplementation (the concrete versions of an interface or abstract method), prepareCallHierarchy, incomingCalls (who calls this function) and outgoingCalls (what it calls). Use it instead of grep and reading whole files when you need what the type checker knows. Answers compact text: locations as `PATH:LINE:COL TEXT`, outlines indented with kinds and line ranges.";

/// The MCP face of a [`Workspace`].
#[derive(Clone)]
pub struct Sightline {
    ws: Arc<Workspace>,
    edit_tools: bool,
}

fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    let value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    Arc::new(match value {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    })
}

fn tools(edit_tools: bool) -> Vec<Tool> {
    let read_only = |title: &str| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    };
    let mut tools = vec![
        Tool::new("lsp_diagnostics", DIAGNOSTICS, schema::<FileArgs>())
            .annotate(read_only("Diagnostics of a file")),
        Tool::new("lsp_definition", DEFINITION, schema::<PositionArgs>())
            .annotate(read_only("Go to definition")),
        Tool::new("lsp_references", REFERENCES, schema::<ReferencesArgs>())
            .annotate(read_only("Find references")),
        Tool::new("lsp", LSP, schema::<LspArgs>()).annotate(read_only("Language server question")),
    ];
    if edit_tools {
        let writes = |title: &str, idempotent: bool| {
            ToolAnnotations::with_title(title)
                .read_only(false)
                .destructive(true)
                .idempotent(idempotent)
                .open_world(false)
        };
        tools.extend([
            Tool::new("read", READ, schema::<ReadArgs>()).annotate(read_only("Read a file")),
            Tool::new("write", WRITE, schema::<WriteArgs>()).annotate(writes("Write a file", true)),
            Tool::new("edit", EDIT, schema::<EditArgs>()).annotate(writes("Edit a file", false)),
            Tool::new("apply_patch", APPLY_PATCH, schema::<PatchArgs>())
                .annotate(writes("Apply a patch", false)),
        ]);
    }
    tools
}

fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: Option<JsonObject>,
) -> Result<T, ErrorData> {
    serde_json::from_value(Value::Object(args.unwrap_or_default()))
        .map_err(|e| ErrorData::invalid_params(format!("{tool}: {e}"), None))
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

impl Sightline {
    pub fn new(ws: Arc<Workspace>, edit_tools: bool) -> Self {
        Sightline { ws, edit_tools }
    }

    /// The position of a call: `column`, or the column of `symbol` on the line.
    fn column(
        &self,
        file: &std::path::Path,
        line: usize,
        column: Option<usize>,
        symbol: Option<&str>,
    ) -> Result<usize, ToolError> {
        match (column, symbol) {
            (Some(c), _) => Ok(c),
            (None, Some(s)) => self.ws.symbol_column(file, line, s),
            (None, None) => Err(ToolError::BadInput(
                "give `column` (1-based, on the symbol) or `symbol` (its name on the line)".into(),
            )),
        }
    }

    /// Runs one well-formed call and renders its text.
    async fn run(
        &self,
        tool: &str,
        args: Option<JsonObject>,
    ) -> Result<Result<String, ToolError>, ErrorData> {
        let ws = &self.ws;
        Ok(match tool {
            "lsp_diagnostics" => {
                let a: FileArgs = parse(tool, args)?;
                ws.diagnostics(&PathBuf::from(a.file))
                    .await
                    .map(|d| render::diagnostics_text(&d))
            }
            "lsp_definition" => {
                let a: PositionArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                match self.column(&file, a.line, a.column, a.symbol.as_deref()) {
                    Ok(col) => ws
                        .definition(&file, a.line, col)
                        .await
                        .map(|l| render::locations_text(&l)),
                    Err(e) => Err(e),
                }
            }
            "lsp_references" => {
                let a: ReferencesArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                match self.column(&file, a.line, a.column, a.symbol.as_deref()) {
                    Ok(col) => ws
                        .references(&file, a.line, col, a.include_declaration.unwrap_or(false))
                        .await
                        .map(|l| render::locations_text(&l)),
                    Err(e) => Err(e),
                }
            }
            "lsp" => {
                let a: LspArgs = parse(tool, args)?;
                self.lsp(a).await
            }
            "read" if self.edit_tools => {
                let a: ReadArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                let text = ws.read(&file, a.offset, a.limit);
                if text.is_ok() {
                    let ws = self.ws.clone();
                    tokio::spawn(async move { ws.warm(&file).await });
                }
                text
            }
            "write" if self.edit_tools => {
                let a: WriteArgs = parse(tool, args)?;
                ws.write(&PathBuf::from(a.file), &a.content)
                    .await
                    .map(|r| r.text())
            }
            "edit" if self.edit_tools => {
                let a: EditArgs = parse(tool, args)?;
                let range = a.format_range.unwrap_or(ws.config().format_range);
                ws.edit_with(
                    &PathBuf::from(a.file),
                    &a.old,
                    &a.new,
                    a.replace_all.unwrap_or(false),
                    range,
                )
                .await
                .map(|r| r.text())
            }
            "apply_patch" if self.edit_tools => {
                let a: PatchArgs = parse(tool, args)?;
                ws.apply_patch(&a.patch).await.map(|r| r.text())
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool `{other}`; the tools are lsp_diagnostics, lsp_definition, lsp_references and lsp"
                    ),
                    None,
                ));
            }
        })
    }

    async fn lsp(&self, a: LspArgs) -> Result<String, ToolError> {
        let ws = &self.ws;
        let need_file = || {
            a.file.as_ref().map(PathBuf::from).ok_or_else(|| {
                ToolError::BadInput(
                    format!("{:?} needs `file` (an absolute path)", a.operation).replace('"', ""),
                )
            })
        };
        let position = || -> Result<(PathBuf, usize, usize), ToolError> {
            let file = need_file()?;
            let line = a.line.ok_or_else(|| {
                ToolError::BadInput("this operation needs `line` (1-based)".into())
            })?;
            let col = self.column(&file, line, a.column, a.symbol.as_deref())?;
            Ok((file, line, col))
        };
        match a.operation {
            Operation::GoToDefinition => {
                let (f, l, c) = position()?;
                ws.definition(&f, l, c)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::FindReferences => {
                let (f, l, c) = position()?;
                ws.references(&f, l, c, false)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::GoToImplementation => {
                let (f, l, c) = position()?;
                ws.implementation(&f, l, c)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::Hover => {
                let (f, l, c) = position()?;
                ws.hover(&f, l, c).await.map(|h| render::hover_text(&h))
            }
            Operation::DocumentSymbol => {
                let f = need_file()?;
                ws.document_symbols(&f)
                    .await
                    .map(|i| render::items_text(&i))
            }
            Operation::WorkspaceSymbol => {
                let query = a.query.clone().ok_or_else(|| {
                    ToolError::BadInput(
                        "workspaceSymbol needs `query` (a name or part of one)".into(),
                    )
                })?;
                let file = a.file.as_ref().map(PathBuf::from);
                ws.workspace_symbols(&query, file.as_deref())
                    .await
                    .map(|i| render::items_text(&i))
            }
            op @ (Operation::PrepareCallHierarchy
            | Operation::IncomingCalls
            | Operation::OutgoingCalls) => {
                let (f, l, c) = position()?;
                let kind = match op {
                    Operation::IncomingCalls => ItemsKind::IncomingCalls,
                    Operation::OutgoingCalls => ItemsKind::OutgoingCalls,
                    _ => ItemsKind::CallItems,
                };
                ws.call_hierarchy(&f, l, c, kind)
                    .await
                    .map(|i| render::items_text(&i))
            }
        }
    }
}

impl ServerHandler for Sightline {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sightline", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Answers from real language servers about files as they are on disk now: \
                 diagnostics after an edit, definitions, references, hover, outlines and call \
                 hierarchies. Paths are absolute; lines and columns are 1-based, columns on the \
                 symbol itself (or pass `symbol` with its name).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools(self.edit_tools)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools(self.edit_tools).into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
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
        let run = async {
            match crate::error::caught(&name, async {
                Ok(self.run(&name, request.arguments).await)
            })
            .await
            {
                Ok(r) => r,
                Err(e) => Ok(Err(e)),
            }
        };
        let work = crate::progress::scoped(sink, run);
        // Dropping the work on cancellation drops its LSP request, which
        // sends `$/cancelRequest` to the server.
        let outcome = tokio::select! {
            r = work => r,
            _ = context.ct.cancelled() => {
                tracing::info!("{name}: cancelled by the client");
                Ok(Err(ToolError::Cancelled("cancelled by the client".into())))
            }
        };
        if let Some(f) = forwarder {
            // The sink is gone, so the forwarder ends once it has sent what
            // was reported: progress never arrives after the result.
            let _ = f.await;
        }
        let result = match outcome? {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(render::error_text(&e))]),
        };
        Ok(result.into())
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin, then shuts every
/// server down.
pub async fn serve(ws: Arc<Workspace>, edit_tools: bool) -> i32 {
    let status = match Sightline::new(ws.clone(), edit_tools)
        .serve(rmcp::transport::stdio())
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
    ws.shutdown().await;
    status
}
