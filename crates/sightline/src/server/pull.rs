//! Pulled diagnostics: every provider (static or registered, by
//! identifier) is asked in parallel; the first answer for this file ends the
//! wait, and slower ones keep filling the cache in the background.
//! `resultId`s are tracked and `unchanged` reports reuse the cached items.
//! `workspace/diagnostic` checks a whole workspace the same way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sightline_lsp::ErrorCode;
use sightline_lsp::path_to_uri_string;
use sightline_lsp::request;
use sightline_lsp::{Client, ClientError};
use sightline_lsp::{Diagnostic, DocumentDiagnosticReport, DocumentDiagnosticRequest};
use tokio::sync::mpsc;

use crate::answer::Finding;
use crate::error::ToolError;
use crate::server::LspServer;
use crate::server::documents::Doc;
use crate::server::inbox::Inbox;

/// How long a cancelled pull waits for news from the server before it is
/// asked again.
const ASK_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

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

/// The items of every provider's last pull for `path`, as the server sent
/// them (a code action's context).
pub(crate) fn pulled_items(cache: &PullCache, path: &std::path::Path) -> Vec<serde_json::Value> {
    let map = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    map.iter()
        .filter(|((p, _), _)| p == path)
        .flat_map(|(_, e)| e.items.iter())
        .filter_map(|d| serde_json::to_value(d).ok())
        .collect()
}

fn cache_lock(
    cache: &PullCache,
) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, Option<String>), PullEntry>> {
    match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

impl LspServer {
    /// Identifiers of every pull provider, static first.
    pub(crate) fn pull_identifiers(&self) -> Vec<Option<String>> {
        let mut ids: Vec<Option<String>> = self.static_pull.iter().cloned().collect();
        self.state.with(|s| {
            let mut registered: Vec<&Option<String>> = s.registered.pulls.values().collect();
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
    pub(super) async fn pull(
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
        // While the server works on the workspace the pull waits, past
        // `full_ms`, up to the ceiling.
        let budget = self.budgets.full;
        let asked = self
            .client
            .request_of::<request::WorkspaceDiagnostic>(params, self.request_ceiling(budget));
        let answer = self.patiently("workspace/diagnostic", budget, asked).await;
        let answer = match answer {
            Ok(v) => v,
            Err(ClientError::Timeout { after, .. }) => {
                return Err(ToolError::not_ready(format!(
                    "{} was still checking the workspace after {:.1} s; ask again shortly",
                    self.spec.id,
                    after.as_secs_f64()
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
                .and_then(|u| sightline_lsp::uri_to_path(u).ok())
                .map(|p| sightline_lsp::normalize(&p))
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
}

/// One provider's pull for one file, owned so that it can outlive the call
/// that started it and still fill the cache.
struct Puller {
    client: Client,
    cache: PullCache,
    state: Arc<Inbox>,
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
            let refreshes = self.state.with(|s| s.load.refreshes);
            let r = self
                .client
                .send::<DocumentDiagnosticRequest>(params, left.min(self.pull_budget))
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
                    if error.is(ErrorCode::ServerCancelled)
                        || error.is(ErrorCode::ContentModified) =>
                {
                    tracing::debug!(
                        "{}: pull cancelled by the server ({}); asking again",
                        self.client.name(),
                        error.message
                    );
                    // Asked again when the server says anything more, or
                    // soon anyway: rust-analyzer cancels a pull when a
                    // reload begins and may then say nothing until asked,
                    // and the pull waited out the whole budget.
                    let mut rx = self.state.subscribe();
                    let soon = tokio::time::Instant::now() + ASK_AGAIN_AFTER;
                    let _ = tokio::time::timeout_at(soon.min(deadline), rx.changed()).await;
                    None
                }
                Err(ClientError::Timeout { .. }) => None,
                Err(e) => return Err(e),
            };
            let Some(entry) = entry else { continue };
            cache_lock(&self.cache).insert(key.clone(), entry);
            if self.state.with(|s| s.load.refreshes) == refreshes {
                return Ok(true);
            }
            tracing::debug!("{}: refresh requested; pulling again", self.client.name());
        }
    }
}
