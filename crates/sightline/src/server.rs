//! One running language server for one workspace root: starting it, keeping
//! its documents in step with disk, and asking it questions whose answers are
//! fresh and complete.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_lsp::protocol::{
    DefinitionResponse, Diagnostic, DiagnosticSeverity, DocumentDiagnosticReport, Location,
    Position, definition_locations, message_text,
};
use sightline_lsp::uri::{normalize, path_to_uri_string, uri_to_path};
use sightline_lsp::{Client, ClientError, Encoding, LineIndex, SpawnConfig};

use crate::answer::{Finding, Loc, Severity};
use crate::documents::{Doc, Documents, Synced};
use crate::error::ToolError;
use crate::registry::{Budgets, ServerSpec};
use crate::state::ServerState;

/// tsserver's own encoding: 1-based lines and 1-based utf-16 offsets.
const TSSERVER_ENCODING: Encoding = Encoding::Utf16;

/// JSON-RPC codes a pull may fail with that mean "ask again".
const SERVER_CANCELLED: i64 = -32802;
const CONTENT_MODIFIED: i64 = -32801;

/// A pull provider's last answer for one file: (file, identifier) → (resultId, items).
type PullKey = (PathBuf, Option<String>);
type PullResult = (Option<String>, Vec<Diagnostic>);

pub struct LspServer {
    pub spec: &'static ServerSpec,
    pub root: PathBuf,
    client: Client,
    state: Arc<ServerState>,
    encoding: Encoding,
    /// `Some(identifier)` when the server declared pull diagnostics statically.
    static_pull: Option<Option<String>>,
    budgets: Budgets,
    docs: Mutex<Documents>,
    /// External edits to files the server may have read from disk.
    watch: Option<crate::watch::DiskWatch>,
    /// Pull results by (file, identifier), for `previousResultId`.
    pulled: Mutex<HashMap<PullKey, PullResult>>,
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
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": true },
                "diagnostics": { "refreshSupport": true },
                "executeCommand": { "dynamicRegistration": false },
            },
            "textDocument": {
                "synchronization": { "dynamicRegistration": true, "didSave": true },
                "publishDiagnostics": { "versionSupport": true, "relatedInformation": false, "tagSupport": { "valueSet": [1, 2] } },
                "diagnostic": { "dynamicRegistration": true, "relatedDocumentSupport": false },
                "definition": { "linkSupport": true },
                "references": {},
                "hover": { "contentFormat": ["markdown", "plaintext"] },
                "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
            },
        },
    })
}

impl LspServer {
    /// Spawns and initializes the server.
    pub async fn start(
        spec: &'static ServerSpec,
        root: PathBuf,
        program: PathBuf,
        initialization_options: Value,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let state = Arc::new(ServerState::new(spec, root.clone()));
        let mut config = SpawnConfig::new(spec.id, program, root.clone());
        config.args = spec.args.iter().map(|a| a.to_string()).collect();
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
                return Err(match e {
                    ClientError::Timeout { .. } => ToolError::Server(format!(
                        "{} did not finish initializing within {:.0} s",
                        spec.id,
                        budgets.initialize.as_secs_f64()
                    )),
                    other => {
                        ToolError::Server(format!("{} failed to initialize: {other}", spec.id))
                    }
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
        Ok(Arc::new(LspServer {
            spec,
            root,
            client,
            state,
            encoding,
            static_pull,
            budgets,
            docs: Mutex::new(Documents::default()),
            watch,
            pulled: Mutex::new(HashMap::new()),
        }))
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
        let (doc, how) = docs.sync(&self.client, path, text, seq, pushes)?;
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

    /// Tells the server about files changed on disk since the last question.
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
        let changes: Vec<Value> = drained
            .iter()
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

    // ----- readiness -----------------------------------------------------

    /// Waits until `ready` holds on the server state, or the budget runs out.
    async fn wait_until(
        &self,
        budget: Duration,
        ready: impl Fn(&crate::state::Inner) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + budget;
        let mut rx = self.state.subscribe();
        loop {
            if self.state.with(|s| ready(s)) {
                return true;
            }
            if !self.is_alive() {
                return false;
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                _ => return self.state.with(|s| ready(s)),
            }
        }
    }

    /// Waits until answers about `path` are complete, within the ready budget.
    /// `cross_file` questions also need the whole workspace enumerated.
    pub async fn wait_ready(
        &self,
        path: &Path,
        doc: &Doc,
        cross_file: bool,
    ) -> Result<(), ToolError> {
        let quirks = self.spec.quirks;
        if quirks.ready_on_first_publish {
            let opened = doc.opened_seq;
            let ok = self
                .wait_until(self.budgets.ready, |s| {
                    s.pushes.get(path).is_some_and(|p| p.seq > opened)
                })
                .await;
            if !ok {
                return Err(self.not_ready("loading its project"));
            }
        }
        if cross_file
            && quirks.ready_log.is_some()
            && !self.wait_until(self.budgets.ready, |s| s.indexed).await
        {
            return Err(self.not_ready("enumerating the workspace"));
        }
        Ok(())
    }

    fn not_ready(&self, what: &str) -> ToolError {
        if !self.is_alive() {
            return ToolError::Server(format!(
                "{} exited; stderr: {}",
                self.spec.id,
                self.client.stderr_tail(8)
            ));
        }
        ToolError::NotReady(format!(
            "{} was still {what} after {:.1} s; ask again shortly",
            self.spec.id,
            self.budgets.ready.as_secs_f64()
        ))
    }

    // ----- navigation ----------------------------------------------------

    pub async fn definition(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({ "textDocument": { "uri": uri }, "position": pos });
        let r: Option<DefinitionResponse> = self
            .client
            .request("textDocument/definition", params, self.budgets.request)
            .await?;
        Ok(definition_locations(r))
    }

    pub async fn references(
        &self,
        path: &Path,
        pos: Position,
        include_declaration: bool,
    ) -> Result<Vec<Location>, ToolError> {
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({
            "textDocument": { "uri": uri },
            "position": pos,
            "context": { "includeDeclaration": include_declaration },
        });
        let r: Option<Vec<Location>> = self
            .client
            .request("textDocument/references", params, self.budgets.request)
            .await?;
        Ok(r.unwrap_or_default())
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

    // ----- diagnostics ---------------------------------------------------

    /// Diagnostics for the content of `doc`, which `sync` has just sent. Returns
    /// the findings and, when freshness could not be confirmed, a note.
    pub async fn diagnostics(
        &self,
        path: &Path,
        doc: &Doc,
    ) -> Result<(Vec<Finding>, Option<String>), ToolError> {
        if self.spec.quirks.first_publish_is_partial {
            // typescript-language-server publishes no versions, skips a publish
            // when a kind of diagnostics stays empty, and publishes syntax
            // results before semantic ones. Its `typescript.tsserverRequest`
            // command asks tsserver directly for the diagnostics of the
            // content it holds now, which is exact.
            match self.tsserver_diagnostics(path, doc).await {
                Ok(f) => return Ok((f, None)),
                Err(e) => tracing::debug!(
                    "{}: sync diagnostics unavailable ({e}); waiting for pushes",
                    self.spec.id
                ),
            }
        }
        let deadline = tokio::time::Instant::now() + self.budgets.document;
        let mut rx = self.state.subscribe();
        loop {
            let providers = self.pull_identifiers();
            if !providers.is_empty() {
                return self.pull(path, doc, providers, deadline).await;
            }
            // Push: fresh when it carries our version, or, without versions,
            // when it arrived after our change and the server has gone quiet.
            let push = self.state.with(|s| s.pushes.get(path).cloned());
            let mut wake_at = deadline;
            if let Some(p) = &push {
                let after_change = p.seq > doc.changed_seq;
                match p.version {
                    Some(v) if v == doc.version => {
                        return Ok((self.findings(&p.items, &doc.index), None));
                    }
                    Some(_) => {}
                    None if after_change => {
                        let quiet_until = p.at + self.budgets.push_quiet;
                        if Instant::now() >= quiet_until {
                            return Ok((self.findings(&p.items, &doc.index), None));
                        }
                        wake_at = wake_at.min(tokio::time::Instant::from_std(quiet_until));
                    }
                    None => {}
                }
            }
            if !self.is_alive() {
                return Err(ToolError::Server(format!(
                    "{} exited; stderr: {}",
                    self.spec.id,
                    self.client.stderr_tail(8)
                )));
            }
            if tokio::time::Instant::now() >= deadline {
                let note = self.budget_note();
                // Only results computed after our change may be shown.
                let items = push.filter(|p| {
                    p.version == Some(doc.version)
                        || (p.version.is_none() && p.seq > doc.changed_seq)
                });
                let findings = items
                    .map(|p| self.findings(&p.items, &doc.index))
                    .unwrap_or_default();
                return Ok((findings, Some(note)));
            }
            let _ = tokio::time::timeout_at(wake_at, rx.changed()).await;
        }
    }

    fn budget_note(&self) -> String {
        format!(
            "{} was still analysing after {:.1} s; results may be incomplete",
            self.spec.id,
            self.budgets.document.as_secs_f64()
        )
    }

    fn pull_identifiers(&self) -> Vec<Option<String>> {
        let mut ids: Vec<Option<String>> = self.static_pull.iter().cloned().collect();
        self.state.with(|s| {
            for id in s.pull_registrations.values() {
                if !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
        });
        ids
    }

    async fn pull(
        &self,
        path: &Path,
        doc: &Doc,
        identifiers: Vec<Option<String>>,
        deadline: tokio::time::Instant,
    ) -> Result<(Vec<Finding>, Option<String>), ToolError> {
        let pulls = identifiers
            .into_iter()
            .map(|id| self.pull_one(path, id, deadline));
        let results = futures_util::future::join_all(pulls).await;
        let mut items = Vec::new();
        let mut note = None;
        for r in results {
            match r {
                Ok(Some(mut v)) => items.append(&mut v),
                Ok(None) => note = Some(self.budget_note()),
                Err(e) => return Err(e),
            }
        }
        Ok((self.findings(&items, &doc.index), note))
    }

    /// One pull, retried while the server cancels it for being busy. `None`
    /// means the budget ran out.
    async fn pull_one(
        &self,
        path: &Path,
        identifier: Option<String>,
        deadline: tokio::time::Instant,
    ) -> Result<Option<Vec<Diagnostic>>, ToolError> {
        let uri = path_to_uri_string(path).unwrap_or_default();
        let key = (path.to_owned(), identifier.clone());
        loop {
            let previous = self
                .pulled
                .lock()
                .ok()
                .and_then(|p| p.get(&key).and_then(|(r, _)| r.clone()));
            let mut params = json!({ "textDocument": { "uri": uri } });
            if let Some(id) = &identifier {
                params["identifier"] = json!(id);
            }
            if let Some(prev) = &previous {
                params["previousResultId"] = json!(prev);
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            // The first pull blocks until analysis is done (pyright), so it
            // gets the rest of the document budget, not just the pull budget.
            let timeout = left;
            let r = self
                .client
                .request::<DocumentDiagnosticReport>("textDocument/diagnostic", params, timeout)
                .await;
            match r {
                Ok(DocumentDiagnosticReport::RelatedFullDocumentDiagnosticReport(full)) => {
                    let report = full.full_document_diagnostic_report;
                    if let Ok(mut p) = self.pulled.lock() {
                        p.insert(key, (report.result_id, report.items.clone()));
                    }
                    return Ok(Some(report.items));
                }
                Ok(DocumentDiagnosticReport::RelatedUnchangedDocumentDiagnosticReport(un)) => {
                    let cached = self.pulled.lock().ok().and_then(|mut p| {
                        let entry = p.get_mut(&key)?;
                        entry.0 = Some(un.unchanged_document_diagnostic_report.result_id);
                        Some(entry.1.clone())
                    });
                    return Ok(Some(cached.unwrap_or_default()));
                }
                Err(ClientError::Response { error, .. })
                    if error.code == SERVER_CANCELLED || error.code == CONTENT_MODIFIED =>
                {
                    tracing::debug!(
                        "{}: pull cancelled by the server ({}); retrying",
                        self.spec.id,
                        error.message
                    );
                    let mut rx = self.state.subscribe();
                    let _ = tokio::time::timeout_at(deadline, rx.changed()).await;
                }
                Err(ClientError::Timeout { .. }) => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        }
    }

    async fn tsserver_diagnostics(
        &self,
        path: &Path,
        doc: &Doc,
    ) -> Result<Vec<Finding>, ToolError> {
        let mut findings = Vec::new();
        for command in [
            "syntacticDiagnosticsSync",
            "semanticDiagnosticsSync",
            "suggestionDiagnosticsSync",
        ] {
            let params = json!({
                "command": "typescript.tsserverRequest",
                "arguments": [command, { "file": path, "includeLinePosition": false }],
            });
            let v = self
                .client
                .request_value("workspace/executeCommand", params, self.budgets.document)
                .await?;
            let items = v.get("body").cloned().unwrap_or(v);
            let Some(items) = items.as_array() else {
                return Err(ToolError::Server(format!(
                    "tsserver answered {command} with {items}"
                )));
            };
            for d in items {
                if let Some(f) = tsserver_finding(d, &doc.index) {
                    findings.push(f);
                }
            }
        }
        Ok(findings)
    }

    fn findings(&self, items: &[Diagnostic], index: &LineIndex) -> Vec<Finding> {
        items
            .iter()
            .map(|d| {
                let (l, c) = index.from_lsp(d.range.start, self.encoding);
                let (el, ec) = index.from_lsp(d.range.end, self.encoding);
                Finding {
                    line: l + 1,
                    column: c + 1,
                    end_line: el + 1,
                    end_column: ec + 1,
                    severity: match d.severity {
                        Some(DiagnosticSeverity::Warning) => Severity::Warning,
                        Some(DiagnosticSeverity::Information) => Severity::Info,
                        Some(DiagnosticSeverity::Hint) => Severity::Hint,
                        _ => Severity::Error,
                    },
                    message: fold(message_text(&d.message)),
                    source: d.source.clone().unwrap_or_else(|| self.spec.id.to_owned()),
                    code: d.code.as_ref().map(|c| match c {
                        sightline_lsp::protocol::Code::Int(i) => i.to_string(),
                        sightline_lsp::protocol::Code::String(s) => s.clone(),
                    }),
                }
            })
            .collect()
    }
}

/// Folds a multi-line message onto one line.
pub fn fold(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Converts one tsserver diagnostic (`start`/`end` as 1-based line and utf-16
/// offset, `category` as a word) into a finding, the way
/// typescript-language-server maps them when it publishes.
fn tsserver_finding(d: &Value, index: &LineIndex) -> Option<Finding> {
    let pos = |key: &str| -> Option<(usize, usize)> {
        let p = d.get(key)?;
        let line = p.get("line")?.as_u64()?.saturating_sub(1) as u32;
        let character = p.get("offset")?.as_u64()?.saturating_sub(1) as u32;
        Some(index.from_lsp(Position { line, character }, TSSERVER_ENCODING))
    };
    let (l, c) = pos("start")?;
    let (el, ec) = pos("end").unwrap_or((l, c));
    let severity = match d.get("category").and_then(Value::as_str) {
        Some("warning") => Severity::Warning,
        Some("suggestion") => Severity::Hint,
        Some("message") => Severity::Info,
        _ => Severity::Error,
    };
    Some(Finding {
        line: l + 1,
        column: c + 1,
        end_line: el + 1,
        end_column: ec + 1,
        severity,
        message: fold(d.get("text").and_then(Value::as_str).unwrap_or("")),
        source: d
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or("typescript")
            .to_owned(),
        code: d.get("code").map(|c| {
            c.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| c.to_string())
        }),
    })
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
