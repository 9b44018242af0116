//! One running language server for one workspace root: starting it, keeping
//! its documents in step with disk, and asking it questions whose answers are
//! fresh and complete.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_lsp::protocol::{DefinitionResponse, Location, Position, definition_locations};
use sightline_lsp::uri::{normalize, path_to_uri_string, uri_to_path};
use sightline_lsp::{Client, ClientError, Encoding, LineIndex, SpawnConfig};

use crate::answer::Loc;
use crate::diagnostics::PullCache;
use crate::documents::{Doc, Documents, Synced};
use crate::error::ToolError;
use crate::registry::{Budgets, ServerSpec};
use crate::state::ServerState;

/// How to start a server: its program, arguments, environment and
/// `initializationOptions`, after configuration.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub init: Value,
    /// The server's private temporary directory, removed when it stops.
    pub tmp: Option<PathBuf>,
}

pub struct LspServer {
    pub spec: &'static ServerSpec,
    pub root: PathBuf,
    pub(crate) client: Client,
    pub(crate) state: Arc<ServerState>,
    pub(crate) encoding: Encoding,
    /// `Some(identifier)` when the server declared pull diagnostics statically.
    pub(crate) static_pull: Option<Option<String>>,
    /// The server offers `workspace/diagnostic`.
    pub(crate) workspace_pull: bool,
    /// The capabilities the server declared in `initialize`.
    pub(crate) capabilities: Value,
    pub budgets: Budgets,
    /// The server checks files when told they were saved (rust-analyzer's
    /// `cargo check`), and that is not turned off in its options.
    pub(crate) check_on_save: bool,
    docs: Mutex<Documents>,
    /// External edits to files the server may have read from disk.
    watch: Option<crate::watch::DiskWatch>,
    /// Pull results by (file, identifier), for `previousResultId`.
    pub(crate) pulled: PullCache,
    /// When a call last used this server, for idle shutdown.
    last_used: Mutex<Instant>,
    tmp: Option<PathBuf>,
}

impl Drop for LspServer {
    /// The private temporary directory goes with the server (shut down,
    /// crashed and replaced, or idle).
    fn drop(&mut self) {
        if let Some(tmp) = &self.tmp {
            let _ = std::fs::remove_dir_all(tmp);
        }
    }
}

impl std::fmt::Debug for LspServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspServer")
            .field("id", &self.spec.id)
            .field("root", &self.root)
            .finish()
    }
}

fn initialize_params(root: &Path, initialization_options: Value) -> Value {
    let uri = path_to_uri_string(root).unwrap_or_default();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({
        "processId": std::process::id(),
        "clientInfo": { "name": "sightline", "version": env!("CARGO_PKG_VERSION") },
        "rootUri": uri,
        "rootPath": root,
        "workspaceFolders": [{ "uri": uri, "name": name }],
        "initializationOptions": initialization_options,
        "capabilities": {
            "general": { "positionEncodings": ["utf-8", "utf-16", "utf-32"] },
            "window": { "workDoneProgress": true },
            // rust-analyzer sends `experimental/serverStatus` only when asked.
            "experimental": { "serverStatusNotification": true },
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": true },
                "diagnostics": { "refreshSupport": true },
                "executeCommand": { "dynamicRegistration": false },
                "symbol": {},
            },
            "textDocument": {
                "synchronization": { "dynamicRegistration": true, "didSave": true },
                "publishDiagnostics": { "versionSupport": true, "relatedInformation": false, "tagSupport": { "valueSet": [1, 2] } },
                "diagnostic": { "dynamicRegistration": true, "relatedDocumentSupport": false },
                "definition": { "linkSupport": true },
                "references": {},
                "implementation": { "linkSupport": true },
                "hover": { "contentFormat": ["markdown", "plaintext"] },
                "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
                "callHierarchy": {},
            },
        },
    })
}

/// `reason` with the sandbox hint when the server's stderr, all of it that is
/// kept and not only the tail in `reason`, shows a denied write: Biome prints
/// its `Permission denied` above a long backtrace.
fn with_denial_hint(reason: String, client: &Client) -> String {
    let stderr = client.stderr_tail(usize::MAX);
    match crate::sandbox::explain_denial(&reason)
        .or_else(|| crate::sandbox::explain_denial(&stderr))
    {
        Some(hint) => format!("{reason} ({hint})"),
        None => reason,
    }
}

/// Whether rust-analyzer's options turn its check on save off: `checkOnSave`
/// is `false`, or (before 2023) `checkOnSave.enable` is.
fn check_turned_off(init: &Value) -> bool {
    init.get("checkOnSave") == Some(&Value::Bool(false))
        || init.pointer("/checkOnSave/enable") == Some(&Value::Bool(false))
}

impl LspServer {
    /// Spawns and initializes the server.
    pub async fn start(
        spec: &'static ServerSpec,
        root: PathBuf,
        launch: Launch,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let state = Arc::new(ServerState::new(spec, root.clone()));
        let mut config = SpawnConfig::new(spec.id, launch.program, root.clone());
        config.args = launch.args;
        config.env = launch.env;
        let initialization_options = launch.init;
        let check_on_save =
            spec.quirks.check_on_save.is_some() && !check_turned_off(&initialization_options);
        let tmp = launch.tmp;
        let client = Client::spawn(config, state.clone())
            .await
            .map_err(|e| ToolError::Unavailable(e.to_string()))?;
        let init = client
            .request_value(
                "initialize",
                initialize_params(&root, initialization_options),
                budgets.initialize,
            )
            .await;
        let init = match init {
            Ok(v) => v,
            Err(e) => {
                client.kill();
                if let Some(t) = &tmp {
                    let _ = std::fs::remove_dir_all(t);
                }
                return Err(match e {
                    ClientError::Timeout { .. } => ToolError::Server(format!(
                        "{} did not finish initializing within {:.0} s",
                        spec.id,
                        budgets.initialize.as_secs_f64()
                    )),
                    other => ToolError::Server(with_denial_hint(
                        format!("{} failed to initialize: {other}", spec.id),
                        &client,
                    )),
                });
            }
        };
        let caps = init.get("capabilities").cloned().unwrap_or(Value::Null);
        let encoding = Encoding::from_server(caps.get("positionEncoding").and_then(Value::as_str));
        let static_pull = caps
            .get("diagnosticProvider")
            .filter(|d| d.is_object())
            .map(|d| {
                d.get("identifier")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        let workspace_pull = caps
            .pointer("/diagnosticProvider/workspaceDiagnostics")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        client.notify("initialized", json!({}))?;
        let watch = crate::watch::DiskWatch::new(&root)
            .map_err(|e| tracing::warn!("cannot watch {} for external edits: {e}", root.display()))
            .ok();
        tracing::info!(
            "{} started for {} (pid {:?}, {encoding:?})",
            spec.id,
            root.display(),
            client.pid()
        );
        let server = Arc::new(LspServer {
            spec,
            root,
            client,
            state,
            encoding,
            static_pull,
            workspace_pull,
            capabilities: caps,
            budgets,
            check_on_save,
            docs: Mutex::new(Documents::default()),
            watch,
            pulled: PullCache::default(),
            last_used: Mutex::new(Instant::now()),
            tmp,
        });
        if spec.quirks.ready_after_progress.is_some()
            && !server.wait_until(budgets.ready, |s| s.loaded).await
        {
            tracing::warn!(
                "{} did not finish scanning its project within {:.0} s",
                spec.id,
                budgets.ready.as_secs_f64()
            );
        }
        Ok(server)
    }

    pub fn is_alive(&self) -> bool {
        self.client.is_alive()
    }

    pub fn pid(&self) -> Option<u32> {
        self.client.pid()
    }

    pub async fn shutdown(&self) {
        self.client.shutdown(Duration::from_secs(2)).await;
    }

    /// The documents the server holds open.
    pub fn open_documents(&self) -> Vec<PathBuf> {
        self.docs().open_paths()
    }

    /// Why the server is no longer running: exit status and stderr tail.
    pub fn exit_reason(&self) -> String {
        with_denial_hint(self.client.exited_error().to_string(), &self.client)
    }

    /// Marks the server as used now.
    pub fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
    }

    /// How long no call has used the server.
    pub fn idle_for(&self) -> Duration {
        self.last_used
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// Closes documents no question has touched within the idle budget.
    pub fn close_idle_documents(&self) -> Result<(), ToolError> {
        let mut docs = self.docs();
        docs.close_idle(&self.client, self.budgets.idle_document)?;
        Ok(())
    }

    fn docs(&self) -> std::sync::MutexGuard<'_, Documents> {
        match self.docs.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Makes the server's copy of `path` equal to `text` (read from disk by
    /// the caller), and re-checks every other open document against disk so
    /// that edits made by anything else are seen.
    pub fn sync(&self, path: &Path, text: String) -> Result<Doc, ToolError> {
        let (seq, pushes) = self
            .state
            .with(|s| (s.seq, s.pushes.get(path).map_or(0, |p| p.count)));
        let changed = self.send_disk_changes()?;
        let mut docs = self.docs();
        // An open document is re-read only when the watch reported it changed,
        // or when the watch cannot see its directory at all.
        for other in docs.open_paths() {
            let unseen = self.watch.as_ref().is_none_or(|w| !w.covers(&other));
            if other == path || !(unseen || changed.contains(&other)) {
                continue;
            }
            match std::fs::read_to_string(&other) {
                Ok(t) => {
                    let other_pushes = self
                        .state
                        .with(|s| s.pushes.get(&other).map_or(0, |p| p.count));
                    docs.sync(&self.client, &other, t, seq, other_pushes)?;
                }
                Err(_) => docs.close(&self.client, &other)?,
            }
        }
        docs.close_idle(&self.client, self.budgets.idle_document)?;
        let (mut doc, how) = docs.sync(&self.client, path, text, seq, pushes)?;
        // Another file changed on disk: a push server's last publish for this
        // unchanged version may predate it (gopls kept a fixed dependency's
        // error), so the same text goes again as a new version and only a
        // publish for that one counts. A pull is computed when asked.
        if how == Synced::Unchanged
            && changed.iter().any(|p| p != path)
            && self.pull_identifiers().is_empty()
            && let Some(touched) = docs.touch(&self.client, path, seq, pushes)?
        {
            doc = touched;
        }
        // A check on save runs when content changed: this file, or any file
        // on disk (rust-analyzer re-reads those through the watch, but its
        // last `cargo check` saw the old ones). Opening an unchanged file is
        // no save, except the first time, so that some check has run.
        let save = match how {
            Synced::Changed => true,
            Synced::Opened => self.state.with(|s| !s.saved),
            Synced::Unchanged => false,
        } || !changed.is_empty();
        if self.check_on_save && save {
            let uri = path_to_uri_string(path).unwrap_or_default();
            self.state.with(|s| {
                s.saved_at = s.seq;
                s.saved = true;
            });
            self.client.notify(
                "textDocument/didSave",
                json!({ "textDocument": { "uri": uri } }),
            )?;
        }
        if how != Synced::Unchanged {
            tracing::debug!(
                "{}: {how:?} {} (version {})",
                self.spec.id,
                path.display(),
                doc.version
            );
        }
        Ok(doc)
    }

    /// Tells the server about files changed on disk since the last question,
    /// and returns them.
    fn send_disk_changes(&self) -> Result<Vec<PathBuf>, ToolError> {
        let Some(watch) = &self.watch else {
            return Ok(Vec::new());
        };
        let drained: Vec<(PathBuf, crate::watch::Change)> = watch
            .drain()
            .into_iter()
            .filter(|(p, _)| self.spec.handles(p))
            .collect();
        if drained.is_empty() {
            // The common case on the hot path: nothing changed on disk.
            return Ok(Vec::new());
        }
        // Open documents are the server's to hold: their content comes from
        // `didChange`, and telling pyright that one changed on disk as well
        // makes it re-read and re-check it for nothing.
        let open = self.docs().open_paths();
        let changes: Vec<Value> = drained
            .iter()
            .filter(|(p, c)| *c == crate::watch::Change::Deleted || !open.contains(p))
            .filter_map(|(p, c)| {
                Some(json!({ "uri": path_to_uri_string(p).ok()?, "type": *c as u8 }))
            })
            .collect();
        if !changes.is_empty() {
            tracing::debug!("{}: {} files changed on disk", self.spec.id, changes.len());
            self.client.notify(
                "workspace/didChangeWatchedFiles",
                json!({ "changes": changes }),
            )?;
        }
        Ok(drained.into_iter().map(|(p, _)| p).collect())
    }

    /// The server position of a 1-based line and character column.
    pub fn position(&self, doc: &Doc, line: usize, column: usize) -> Option<Position> {
        doc.index.to_lsp(line - 1, column - 1, self.encoding)
    }

    // ----- navigation ----------------------------------------------------

    pub async fn definition(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        self.require("definitionProvider", "goToDefinition")?;
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({ "textDocument": { "uri": uri }, "position": pos });
        let r: Option<DefinitionResponse> = self.ask_as("textDocument/definition", params).await?;
        Ok(definition_locations(r))
    }

    /// Every reference to the symbol at `pos`, its declaration included.
    /// Servers differ in what `includeDeclaration: false` drops (pyright
    /// also drops the use under the cursor; the VS Code CSS and HTML servers
    /// drop nothing), so they are always asked for everything, and the
    /// caller takes the declaration out (see [`LspServer::without_declarations`]).
    pub async fn references(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        self.require("referencesProvider", "findReferences")?;
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({
            "textDocument": { "uri": uri },
            "position": pos,
            "context": { "includeDeclaration": true },
        });
        let r: Option<Vec<Location>> = self.ask_as("textDocument/references", params).await?;
        Ok(r.unwrap_or_default())
    }

    /// The places in `path` that `textDocument/documentHighlight` marks for
    /// the symbol at `pos`, as locations; none from a server without it.
    pub async fn highlights(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        if !self.offers("documentHighlightProvider") {
            return Ok(Vec::new());
        }
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({ "textDocument": { "uri": uri }, "position": pos });
        let found: Option<Vec<Value>> = self
            .ask_as("textDocument/documentHighlight", params)
            .await?;
        let Ok(uri) = uri.parse() else {
            return Ok(Vec::new());
        };
        Ok(found
            .unwrap_or_default()
            .into_iter()
            .filter_map(|h| serde_json::from_value(h.get("range")?.clone()).ok())
            .map(|range| Location {
                uri: Clone::clone(&uri),
                range,
            })
            .collect())
    }

    /// `found` without the declarations of the symbol at `pos`: its
    /// definitions and, where the server tells them apart, its declarations,
    /// asked from `pos` and from each definition (clangd answers a header's
    /// prototype as the declaration of the definition, and the definition
    /// as the "declaration" of the prototype). A server that answers
    /// neither keeps everything.
    pub async fn without_declarations(
        &self,
        path: &Path,
        pos: Position,
        mut found: Vec<Location>,
    ) -> Result<Vec<Location>, ToolError> {
        let mut declarations = Vec::new();
        if self.offers("definitionProvider") {
            declarations.extend(self.definition(path, pos).await?);
        }
        if self.offers("declarationProvider") {
            let uri = path_to_uri_string(path).unwrap_or_default();
            let mut from = vec![(uri, pos)];
            from.extend(
                declarations
                    .iter()
                    .take(4)
                    .map(|d| (d.uri.to_string(), d.range.start)),
            );
            for (uri, at) in from {
                let params = json!({ "textDocument": { "uri": uri }, "position": at });
                let r: Option<DefinitionResponse> =
                    self.ask_as("textDocument/declaration", params).await?;
                declarations.extend(definition_locations(r));
            }
        }
        found.retain(|l| !declarations.iter().any(|d| is_declaration(d, l)));
        Ok(found)
    }

    /// Converts server locations into agent coordinates, reading each target
    /// file once. Locations in files that cannot be read are dropped.
    pub fn to_locs(
        &self,
        locations: &[Location],
        texts: &mut HashMap<PathBuf, Arc<LineIndex>>,
    ) -> Vec<Loc> {
        let mut out = Vec::new();
        for l in locations {
            let Ok(path) = uri_to_path(l.uri.as_str()) else {
                continue;
            };
            let path = normalize(&path);
            let Some(index) = self.index_for(&path, texts) else {
                continue;
            };
            let (line, col) = index.from_lsp(l.range.start, self.encoding);
            let text = index.line(line).unwrap_or("").trim().to_owned();
            out.push(Loc {
                path,
                line: line + 1,
                column: col + 1,
                text,
            });
        }
        out
    }

    pub fn index_for(
        &self,
        path: &Path,
        texts: &mut HashMap<PathBuf, Arc<LineIndex>>,
    ) -> Option<Arc<LineIndex>> {
        if let Some(i) = texts.get(path) {
            return Some(i.clone());
        }
        let index = match self.docs().get(path) {
            Some(doc) => doc.index.clone(),
            None => Arc::new(LineIndex::new(std::fs::read_to_string(path).ok()?)),
        };
        texts.insert(path.to_owned(), index.clone());
        Some(index)
    }
}

impl LspServer {
    /// The 0-based line and character column of a server position in `index`.
    pub fn char_position(&self, index: &LineIndex, pos: Position) -> (usize, usize) {
        index.from_lsp(pos, self.encoding)
    }

    /// The server position of a 0-based line and character column of `index`.
    pub fn position_at(&self, index: &LineIndex, line: usize, column: usize) -> Option<Position> {
        index.to_lsp(line, column, self.encoding)
    }
}

/// Whether reference `r` is the declaration `d`: the same start, or (for a
/// server that answers a definition with the whole declaration's range) a
/// name inside that range on its first line.
fn is_declaration(d: &Location, r: &Location) -> bool {
    if d.uri != r.uri {
        return false;
    }
    let (d, r) = (d.range, r.range);
    d.start == r.start
        || (r.start.line == d.start.line
            && d.start <= r.start
            && r.end <= d.end
            && d.start != d.end)
}
