//! The diagnostics engine. Pushed and pulled results are cached apart and
//! merged on read; an answer holds only results computed for the content now
//! on disk, or says in a note that this could not be confirmed in time.
//!
//! - Pull: every provider (static or registered, by identifier) is asked in
//!   parallel; the first answer for this file ends the wait, and slower ones
//!   keep filling the cache in the background. `resultId`s are tracked and
//!   `unchanged` reports reuse the cached items.
//! - Versioned push: the first publish carrying the current version is fresh.
//! - Unversioned push: a publish after the change, once the server has been
//!   quiet for the debounce. tsserver's first publish after opening is
//!   syntax-only and not taken as final.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};
use sightline_lsp::protocol::{
    Diagnostic, DiagnosticSeverity, DocumentDiagnosticReport, Position, message_text,
};
use sightline_lsp::uri::path_to_uri_string;
use sightline_lsp::{Client, ClientError, Encoding, LineIndex};
use tokio::sync::mpsc;

use crate::answer::{Finding, Severity};
use crate::documents::Doc;
use crate::error::ToolError;
use crate::server::LspServer;
use crate::state::ServerState;

/// tsserver's own encoding: 1-based lines and 1-based utf-16 offsets.
const TSSERVER_ENCODING: Encoding = Encoding::Utf16;

/// JSON-RPC codes a pull may fail with that mean "ask again".
const SERVER_CANCELLED: i64 = -32802;
const CONTENT_MODIFIED: i64 = -32801;

/// One provider's last full answer for one file.
#[derive(Debug, Clone)]
pub struct PullEntry {
    result_id: Option<String>,
    items: Vec<Diagnostic>,
    /// The document version the answer was computed for.
    version: i32,
}

/// Pull answers by (file, provider identifier).
pub type PullCache = Arc<Mutex<HashMap<(PathBuf, Option<String>), PullEntry>>>;

fn cache_lock(
    cache: &PullCache,
) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, Option<String>), PullEntry>> {
    match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Whether the pushed results for a file can be shown.
enum PushState {
    Fresh(Vec<Diagnostic>),
    /// Fresh once the server stays quiet until then.
    QuietUntil(Instant),
    NotYet,
}

impl LspServer {
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
        self.wait_loaded().await?;
        let deadline = tokio::time::Instant::now() + self.budgets.document;
        let mut rx = self.state.subscribe();
        loop {
            let providers = self.pull_identifiers();
            if !providers.is_empty() {
                // The check first, then the pull: rust-analyzer may send the
                // check's end before the publish of its findings (both come
                // out of one turn of its main loop), but it answers the pull
                // in a later turn, after that publish.
                let checked = !self.check_on_save || self.wait_check(deadline).await;
                let (mut items, mut note) = self.pull(path, doc, providers, deadline).await?;
                // A server that failed to load the project runs no check, and
                // its answers are empty for want of a project, not of errors.
                if let Some(failing) = self.state.with(|s| s.failing.clone()) {
                    note.get_or_insert_with(|| {
                        format!("{} could not load the project: {failing}", self.spec.id)
                    });
                } else if !checked {
                    note.get_or_insert_with(|| self.check_note());
                }
                if let PushState::Fresh(mut pushed) = self.push_state(path, doc) {
                    items.append(&mut pushed);
                }
                return Ok((self.findings(&items, &doc.index), note));
            }
            let mut wake_at = deadline;
            match self.push_state(path, doc) {
                PushState::Fresh(items) => return Ok((self.findings(&items, &doc.index), None)),
                PushState::QuietUntil(t) => {
                    wake_at = wake_at.min(tokio::time::Instant::from_std(t));
                }
                PushState::NotYet => {}
            }
            if !self.is_alive() {
                return Err(self.exited());
            }
            if tokio::time::Instant::now() >= deadline {
                // Only results computed after our change may be shown.
                let items = self
                    .state
                    .with(|s| s.pushes.get(path).cloned())
                    .filter(|p| {
                        p.version == Some(doc.version)
                            || (p.version.is_none() && p.seq > doc.changed_seq)
                    })
                    .map(|p| p.items)
                    .unwrap_or_default();
                return Ok((self.findings(&items, &doc.index), Some(self.budget_note())));
            }
            let _ = tokio::time::timeout_at(wake_at, rx.changed()).await;
        }
    }

    pub(crate) fn exited(&self) -> ToolError {
        ToolError::Exited(self.exit_reason())
    }

    fn push_state(&self, path: &Path, doc: &Doc) -> PushState {
        let Some(p) = self.state.with(|s| s.pushes.get(path).cloned()) else {
            return PushState::NotYet;
        };
        match p.version {
            Some(v) if v == doc.version => PushState::Fresh(p.items),
            // A publish for another version, such as one computed before our
            // latest change, is never shown.
            Some(_) => PushState::NotYet,
            // A check's findings for a file opened after it ran came before
            // the open; they hold while no file changed since (a change is
            // saved, and the check that follows publishes anew).
            None if p.seq <= doc.changed_seq && !self.published_by_last_check(&p) => {
                PushState::NotYet
            }
            None => {
                let first_after_open =
                    doc.opened_seq == doc.changed_seq && p.count <= doc.pushes_at_change + 1;
                if self.spec.quirks.first_publish_is_partial && first_after_open {
                    return PushState::NotYet;
                }
                let quiet_until = p.at + self.budgets.push_quiet;
                if Instant::now() >= quiet_until {
                    PushState::Fresh(p.items)
                } else {
                    PushState::QuietUntil(quiet_until)
                }
            }
        }
    }

    /// Waits until a check run on save (rust-analyzer's `cargo check`) that
    /// began after sightline's last `didSave` has ended, or the server says
    /// it failed to load the project (then no check runs). Every change of
    /// content is followed by a save, so that check saw the files as they
    /// are now.
    async fn wait_check(&self, deadline: tokio::time::Instant) -> bool {
        let done = |s: &crate::state::Inner| {
            (s.check_began > s.saved_at && s.check_ended > s.check_began) || s.failing.is_some()
        };
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        self.wait_until(left, done).await
    }

    /// Whether `p` was published by the last check run on save, which began
    /// after the last `didSave` and has ended: it saw the files as they are.
    fn published_by_last_check(&self, p: &crate::state::Push) -> bool {
        self.check_on_save
            && self.state.with(|s| {
                s.check_began > s.saved_at && s.check_ended > s.check_began && p.seq > s.check_began
            })
    }

    fn check_note(&self) -> String {
        format!(
            "{} was still running cargo check after {:.1} s; errors only rustc reports may be missing",
            self.spec.id,
            self.budgets.document.as_secs_f64()
        )
    }

    fn budget_note(&self) -> String {
        format!(
            "{} was still analysing after {:.1} s; results may be incomplete",
            self.spec.id,
            self.budgets.document.as_secs_f64()
        )
    }

    /// Identifiers of every pull provider, static first.
    pub(crate) fn pull_identifiers(&self) -> Vec<Option<String>> {
        let mut ids: Vec<Option<String>> = self.static_pull.iter().cloned().collect();
        self.state.with(|s| {
            let mut registered: Vec<&Option<String>> = s.pull_registrations.values().collect();
            registered.sort();
            for id in registered {
                if !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
        });
        ids
    }

    /// Pulls from every provider in parallel and answers once the first one
    /// has answered for this version; the rest merge into the cache later.
    async fn pull(
        &self,
        path: &Path,
        doc: &Doc,
        identifiers: Vec<Option<String>>,
        deadline: tokio::time::Instant,
    ) -> Result<(Vec<Diagnostic>, Option<String>), ToolError> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for identifier in identifiers {
            let puller = Puller {
                client: self.client.clone(),
                cache: self.pulled.clone(),
                state: self.state.clone(),
                path: path.to_owned(),
                identifier,
                version: doc.version,
                pull_budget: self.budgets.pull,
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(puller.run(deadline).await);
            });
        }
        drop(tx);
        let mut error = None;
        while let Some(outcome) = rx.recv().await {
            match outcome {
                Ok(true) => return Ok((self.pulled_items(path, doc.version), None)),
                Ok(false) => {}
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        match error {
            Some(ClientError::ServerExited { .. }) => Err(self.exited()),
            Some(e) if !self.is_alive() => Err(e.into()),
            Some(e) => Err(e.into()),
            None => Ok((
                self.pulled_items(path, doc.version),
                Some(self.budget_note()),
            )),
        }
    }

    /// The diagnostics of every file the server reports for its workspace,
    /// through `workspace/diagnostic` within the full-check budget, with
    /// `previousResultId`s so that unchanged files cost nothing. `None` when
    /// the server does not offer it.
    pub async fn workspace_diagnostics(
        &self,
    ) -> Result<Option<Vec<(PathBuf, Vec<Finding>)>>, ToolError> {
        if !self.workspace_pull {
            return Ok(None);
        }
        let identifier = self.static_pull.clone().flatten();
        let previous: Vec<Value> = cache_lock(&self.pulled)
            .iter()
            .filter(|((_, id), _)| *id == identifier)
            .filter_map(|((path, _), e)| {
                Some(
                    json!({ "uri": path_to_uri_string(path).ok()?, "value": e.result_id.clone()? }),
                )
            })
            .collect();
        let mut params = json!({ "previousResultIds": previous });
        if let Some(id) = &identifier {
            params["identifier"] = json!(id);
        }
        let answer = self
            .client
            .request_value("workspace/diagnostic", params, self.budgets.full)
            .await;
        let answer = match answer {
            Ok(v) => v,
            Err(ClientError::Timeout { .. }) => {
                return Err(ToolError::NotReady(format!(
                    "{} was still checking the workspace after {:.1} s; ask again shortly",
                    self.spec.id,
                    self.budgets.full.as_secs_f64()
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let reports = answer
            .get("items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut texts = HashMap::new();
        let mut out = Vec::new();
        for report in reports {
            let Some(path) = report
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|u| sightline_lsp::uri::uri_to_path(u).ok())
                .map(|p| sightline_lsp::uri::normalize(&p))
            else {
                continue;
            };
            let key = (path.clone(), identifier.clone());
            let version = report
                .get("version")
                .and_then(Value::as_i64)
                .map_or(-1, |v| v as i32);
            let result_id = report
                .get("resultId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let items: Vec<Diagnostic> = match report.get("kind").and_then(Value::as_str) {
                Some("full") => report
                    .get("items")
                    .cloned()
                    .and_then(|i| serde_json::from_value(i).ok())
                    .unwrap_or_default(),
                _ => cache_lock(&self.pulled)
                    .get(&key)
                    .map(|e| e.items.clone())
                    .unwrap_or_default(),
            };
            cache_lock(&self.pulled).insert(
                key,
                PullEntry {
                    result_id,
                    items: items.clone(),
                    version,
                },
            );
            let Some(index) = self.index_for(&path, &mut texts) else {
                continue;
            };
            out.push((path, self.findings(&items, &index)));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Some(out))
    }

    /// Every provider's cached items for `path` at `version`.
    fn pulled_items(&self, path: &Path, version: i32) -> Vec<Diagnostic> {
        cache_lock(&self.pulled)
            .iter()
            .filter(|((p, _), e)| p == path && e.version == version)
            .flat_map(|(_, e)| e.items.iter().cloned())
            .collect()
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
            // The first check of a project includes loading it (the lib
            // files, every source), so it gets the ready budget too.
            let budget = self.budgets.document.max(self.budgets.ready);
            let v = self
                .client
                .request_value("workspace/executeCommand", params, budget)
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

/// One provider's pull for one file, owned so that it can outlive the call
/// that started it and still fill the cache.
struct Puller {
    client: Client,
    cache: PullCache,
    state: Arc<ServerState>,
    path: PathBuf,
    identifier: Option<String>,
    version: i32,
    pull_budget: std::time::Duration,
}

impl Puller {
    /// Pulls until an answer for this version is cached (`true`) or the
    /// deadline passes (`false`). A pull the server cancels for being busy,
    /// or one that overran its own budget, is asked again; so is one answered
    /// while the server asked for a refresh.
    async fn run(self, deadline: tokio::time::Instant) -> Result<bool, ClientError> {
        let uri = path_to_uri_string(&self.path).unwrap_or_default();
        let key = (self.path.clone(), self.identifier.clone());
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let previous = cache_lock(&self.cache)
                .get(&key)
                .and_then(|e| e.result_id.clone());
            let mut params = json!({ "textDocument": { "uri": uri } });
            if let Some(id) = &self.identifier {
                params["identifier"] = json!(id);
            }
            if let Some(prev) = &previous {
                params["previousResultId"] = json!(prev);
            }
            let refreshes = self.state.with(|s| s.refreshes);
            let r = self
                .client
                .request::<DocumentDiagnosticReport>(
                    "textDocument/diagnostic",
                    params,
                    left.min(self.pull_budget),
                )
                .await;
            let entry = match r {
                Ok(DocumentDiagnosticReport::RelatedFullDocumentDiagnosticReport(full)) => {
                    let report = full.full_document_diagnostic_report;
                    Some(PullEntry {
                        result_id: report.result_id,
                        items: report.items,
                        version: self.version,
                    })
                }
                Ok(DocumentDiagnosticReport::RelatedUnchangedDocumentDiagnosticReport(un)) => {
                    let cached = cache_lock(&self.cache).get(&key).cloned();
                    Some(PullEntry {
                        result_id: Some(un.unchanged_document_diagnostic_report.result_id),
                        items: cached.map(|c| c.items).unwrap_or_default(),
                        version: self.version,
                    })
                }
                Err(ClientError::Response { error, .. })
                    if error.code == SERVER_CANCELLED || error.code == CONTENT_MODIFIED =>
                {
                    tracing::debug!(
                        "{}: pull cancelled by the server ({}); asking again",
                        self.client.name(),
                        error.message
                    );
                    let mut rx = self.state.subscribe();
                    let _ = tokio::time::timeout_at(deadline, rx.changed()).await;
                    None
                }
                Err(ClientError::Timeout { .. }) => None,
                Err(e) => return Err(e),
            };
            let Some(entry) = entry else { continue };
            cache_lock(&self.cache).insert(key.clone(), entry);
            if self.state.with(|s| s.refreshes) == refreshes {
                return Ok(true);
            }
            tracing::debug!("{}: refresh requested; pulling again", self.client.name());
        }
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
