//! What a server tells us on its own initiative, kept for the engine: pushed
//! diagnostics, dynamically registered pull providers, readiness signals. It is
//! also the [`Handler`] that answers every server-to-client request. Each
//! message is parsed once (`incoming`) and handled by a function of its own.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};
use sightline_lsp::PublishDiagnosticsParams;
use sightline_lsp::{Handler, ResponseError};
use sightline_lsp::{normalize, path_to_uri_string, uri_to_path};
use tokio::sync::watch;

use crate::catalog::ServerSpec;
use crate::server::incoming::{
    ApplyEditParams, ConfigurationParams, LanguageStatusParams, LogMessageParams, ProgressKind,
    ProgressParams, RegistrationParams, ServerNotification, ServerRequest, ServerStatusParams,
    UnregistrationParams,
};

pub use crate::server::heard::{Push, ServerReports};

/// The prefix of the work-done tokens sightline puts in its own requests. The
/// progress a server reports under one belongs to that request (pyright's
/// "Finding references"), and is never indexing.
pub const OWN_TOKEN_PREFIX: &str = "sightline/";

/// How many early-ended tokens are remembered.
const ENDED_EARLY_KEPT: usize = 64;

/// What a server sends unasked, kept for the questions to wait on; it
/// answers the server's own requests too.
pub struct Inbox {
    /// The server.
    pub spec: &'static ServerSpec,
    /// Its root.
    pub root: PathBuf,
    inner: Mutex<ServerReports>,
    changed: watch::Sender<u64>,
    next_token: std::sync::atomic::AtomicU64,
    /// The user's virtualenv (`settings`).
    pub(crate) virtual_env: Option<PathBuf>,
    /// The configured settings (`lsp.ID.settings`), by section.
    pub(crate) user_settings: Mutex<Value>,
    /// Where the requests it relays to another server go (`Quirks::relay`).
    relay: Option<crate::server::relay::RelayQueue>,
}

impl Inbox {
    /// The state of `spec` started for `root`, before any message.
    pub fn new(spec: &'static ServerSpec, root: PathBuf) -> Self {
        Inbox {
            spec,
            root,
            inner: Mutex::new(ServerReports::default()),
            changed: watch::channel(0).0,
            next_token: std::sync::atomic::AtomicU64::new(1),
            virtual_env: None,
            user_settings: Mutex::new(Value::Null),
            relay: None,
        }
    }

    /// The same state, queueing the requests the server relays.
    pub fn with_relay(mut self, relay: Option<crate::server::relay::RelayQueue>) -> Self {
        self.relay = relay;
        self
    }

    /// The same state, answering `settings` over the built-in configuration.
    pub fn with_settings(mut self, settings: Value) -> Self {
        self.user_settings = Mutex::new(settings);
        self
    }

    /// The same state, for a user working in `virtual_env`.
    pub fn with_virtual_env(mut self, virtual_env: Option<PathBuf>) -> Self {
        self.virtual_env = virtual_env;
        self
    }

    /// Puts a fresh work-done token of sightline's own into a request's
    /// params, so that the progress the server reports for the request is
    /// told apart from indexing.
    pub fn own_token(&self, params: &mut Value) {
        if let Value::Object(map) = params {
            let n = self
                .next_token
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            map.insert(
                "workDoneToken".into(),
                Value::String(format!("{OWN_TOKEN_PREFIX}{n}")),
            );
        }
    }

    /// Runs `f` on the state under its lock.
    pub fn with<T>(&self, f: impl FnOnce(&mut ServerReports) -> T) -> T {
        match self.inner.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// A receiver that wakes on every change of state.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }
}

impl Handler for Inbox {
    fn request(&self, method: &str, params: Value) -> Result<Value, ResponseError> {
        self.with(|s| {
            s.seq += 1;
            s.last_message_at = Some(Instant::now());
        });
        let result = match ServerRequest::parse(method, params) {
            ServerRequest::Configuration(p) => Ok(self.on_configuration(&p)),
            ServerRequest::RegisterCapability(p) => {
                self.on_register(p);
                // vscode-languageserver-node servers treat an error here as fatal.
                Ok(Value::Null)
            }
            ServerRequest::UnregisterCapability(p) => {
                self.on_unregister(&p);
                Ok(Value::Null)
            }
            ServerRequest::DiagnosticRefresh => {
                self.with(|s| s.load.refreshes += 1);
                Ok(Value::Null)
            }
            ServerRequest::WorkspaceFolders => Ok(self.workspace_folders()),
            ServerRequest::ApplyEdit(p) => Ok(self.on_apply_edit(p)),
            ServerRequest::Acknowledged => Ok(Value::Null),
            ServerRequest::Unknown(other) => Err(ResponseError::method_not_found(&other)),
        };
        self.bump();
        result
    }

    fn notification(&self, method: &str, params: Value) {
        self.with(|s| s.last_message_at = Some(Instant::now()));
        match ServerNotification::parse(self.spec, method, params) {
            ServerNotification::PublishDiagnostics(Some(p)) => self.on_publish(p),
            ServerNotification::PublishDiagnostics(None) => {
                tracing::warn!("{}: malformed publishDiagnostics", self.spec.id);
                return;
            }
            ServerNotification::Relayed(params) => {
                if let Some(queue) = &self.relay {
                    let _ = queue.send(params);
                }
            }
            ServerNotification::LogMessage(p) => self.on_log(&p),
            ServerNotification::Progress(p) => self.on_progress(p),
            ServerNotification::ServerStatus(p) => self.on_server_status(p),
            ServerNotification::LanguageStatus(p) => self.on_language_status(p),
            ServerNotification::Other => self.with(|s| s.seq += 1),
        }
        self.bump();
    }
}

/// The handlers of the server's requests.
impl Inbox {
    fn on_configuration(&self, p: &ConfigurationParams) -> Value {
        Value::Array(
            p.items
                .iter()
                .map(|i| self.configuration(i.section.as_deref()))
                .collect(),
        )
    }

    fn on_register(&self, p: RegistrationParams) {
        self.with(|s| {
            for r in p.registrations {
                let id = r.id.unwrap_or_default();
                let method = r.method.unwrap_or_default();
                s.registered.methods.insert(id.clone(), method.clone());
                if method == "workspace/didChangeWatchedFiles" {
                    s.registered.watchers.insert(
                        id.clone(),
                        crate::server::watchers::parse(&r.register_options),
                    );
                    s.registered.watchers_added += 1;
                }
                if method == "textDocument/diagnostic" {
                    let identifier = r
                        .register_options
                        .get("identifier")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    s.registered.pulls.insert(id, identifier);
                }
            }
        });
    }

    fn on_unregister(&self, p: &UnregistrationParams) {
        self.with(|s| {
            for id in p.unregisterations.iter().filter_map(|u| u.id.as_deref()) {
                s.registered.pulls.remove(id);
                s.registered.methods.remove(id);
                s.registered.watchers.remove(id);
            }
        });
    }

    fn workspace_folders(&self) -> Value {
        let uri = path_to_uri_string(&self.root).unwrap_or_default();
        let name = self
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        json!([{ "uri": uri, "name": name }])
    }

    /// Taken only while sightline runs a command of the server's, whose
    /// edits it applies with the rest of the change (all or nothing, after
    /// this answer); any other time nothing asked for one.
    fn on_apply_edit(&self, p: ApplyEditParams) -> Value {
        let taken = self.with(|s| match &mut s.gathered_edits {
            Some(list) => {
                list.push(p.edit);
                true
            }
            None => false,
        });
        if taken {
            json!({ "applied": true })
        } else {
            json!({ "applied": false, "failureReason": "sightline applies server edits only for a command it runs" })
        }
    }
}

/// The handlers of the server's notifications.
impl Inbox {
    fn on_publish(&self, p: PublishDiagnosticsParams) {
        let Ok(path) = uri_to_path(p.uri.as_str()) else {
            return;
        };
        let path = normalize(&path);
        self.with(|s| {
            s.seq += 1;
            let last = s.pushes.get(&path);
            let count = last.map_or(0, |p| p.count) + 1;
            let same_version = match last {
                Some(l) if p.version.is_some() && l.version == p.version => l.same_version + 1,
                _ => 1,
            };
            let push = Push {
                version: p.version,
                seq: s.seq,
                at: Instant::now(),
                items: p.diagnostics,
                count,
                same_version,
            };
            s.pushes.insert(path, push);
        });
    }

    fn on_log(&self, p: &LogMessageParams) {
        let text = p.message.as_deref().unwrap_or_default();
        tracing::debug!(target: "sightline::server_log", "{}: {text}", self.spec.id);
        let indexed = self
            .spec
            .quirks
            .readiness
            .log_text()
            .is_some_and(|needle| text.contains(needle));
        self.with(|s| {
            s.seq += 1;
            s.load.indexed |= indexed;
        });
    }

    fn on_progress(&self, p: ProgressParams) {
        let quirks = self.spec.quirks;
        let ours = p.token.starts_with(OWN_TOKEN_PREFIX);
        // A check is not indexing: the server answers questions while it
        // runs, so it is kept apart.
        let is_check = quirks
            .diagnostics
            .save_check
            .is_some_and(|c| p.title.starts_with(c.title));
        // Progress of one of our own requests, or work the server does in
        // the background that no question waits for.
        let not_indexing = ours || quirks.background_progress.contains(&p.title.as_str());
        self.with(|s| {
            s.seq += 1;
            match p.kind {
                ProgressKind::Begin if s.progress.ended_early.contains(&p.token) => {
                    s.progress.ended_early.retain(|t| *t != p.token);
                }
                ProgressKind::Begin if is_check => {
                    s.save_check.began = s.seq;
                    s.save_check.running.insert(p.token);
                }
                ProgressKind::Begin if not_indexing && !ours => {
                    s.progress.background.insert(p.token);
                }
                ProgressKind::Begin if not_indexing => {}
                ProgressKind::Begin => {
                    s.progress.running.insert(p.token, p.title);
                    s.progress.begun += 1;
                }
                ProgressKind::End => progress_ended(s, &quirks, p.token),
                ProgressKind::Report => {}
            }
        });
    }

    /// rust-analyzer: `quiescent` is false while it loads or indexes.
    fn on_server_status(&self, p: ServerStatusParams) {
        let message = p
            .message
            .unwrap_or_else(|| "loading the workspace".to_owned());
        let health = p.health.as_deref();
        let failing = (health == Some("error"))
            .then(|| message.lines().next().unwrap_or_default().to_owned());
        let unhealthy = (health.is_some_and(|h| h != "ok")).then(|| message.clone());
        self.with(|s| {
            s.seq += 1;
            if p.quiescent && s.load.busy.is_some() {
                s.load.idle_at = Some(Instant::now());
            }
            s.load.busy = (!p.quiescent).then_some(message);
            s.load.loaded |= p.quiescent;
            s.load.failing = failing;
            s.load.unhealthy = unhealthy;
        });
    }

    /// jdtls: `Starting` until `ServiceReady` (or `Started`).
    fn on_language_status(&self, p: LanguageStatusParams) {
        let kind = p.kind.unwrap_or_default();
        let message = p.message.unwrap_or_else(|| "starting".to_owned());
        self.with(|s| {
            s.seq += 1;
            s.load.busy = (kind == "Starting").then_some(message);
            s.load.loaded |= matches!(kind.as_str(), "ServiceReady" | "Started");
        });
    }
}

/// A work-done progress ended: a check on save, background work, the
/// loading or indexing a question waits for, or one whose begin is still
/// to come (kept, so that its begin is not taken for work that never ends).
fn progress_ended(s: &mut ServerReports, quirks: &crate::catalog::Quirks, token: String) {
    let was_check = s.save_check.running.remove(&token);
    if was_check {
        s.save_check.ended = s.seq;
        s.save_check.ended_at = Some(Instant::now());
    }
    let known = was_check || s.progress.background.remove(&token);
    match s.progress.running.remove(&token) {
        Some(title)
            if quirks
                .readiness
                .progress_title()
                .is_some_and(|p| title.starts_with(p)) =>
        {
            s.load.loaded = true;
        }
        Some(title) if quirks.index.is_some_and(|i| title == i.title) => {
            s.load.index_done = true;
        }
        Some(_) => {}
        None if !known && !token.starts_with(OWN_TOKEN_PREFIX) => {
            if s.progress.ended_early.len() >= ENDED_EARLY_KEPT {
                s.progress.ended_early.pop_front();
            }
            s.progress.ended_early.push_back(token);
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;
    use sightline_lsp::Handler;

    use super::*;

    fn progress(s: &Inbox, token: &str, value: Value) {
        s.notification("$/progress", json!({ "token": token, "value": value }));
    }

    /// The three ways a progress was taken for indexing that never ended,
    /// each seen with pyright on a real package.
    #[test]
    fn only_unfinished_indexing_counts_as_indexing() {
        let s = Inbox::new(&crate::catalog::table::PYRIGHT, PathBuf::from("/w"));
        let running = || s.with(|i| i.progress.running.len());
        // Progress of our own request ("Finding references").
        let mut params = json!({});
        s.own_token(&mut params);
        let ours = params["workDoneToken"].as_str().unwrap().to_owned();
        progress(
            &s,
            &ours,
            json!({ "kind": "begin", "title": "Finding references" }),
        );
        assert_eq!(running(), 0);
        // pyright's checking of open files, titled "", which it may never end.
        progress(&s, "a", json!({ "kind": "begin", "title": "" }));
        progress(
            &s,
            "a",
            json!({ "kind": "report", "message": "7 files to analyze" }),
        );
        assert_eq!(running(), 0);
        // An end that arrives before its begin.
        progress(&s, "b", json!({ "kind": "end" }));
        progress(&s, "b", json!({ "kind": "begin", "title": "Indexing" }));
        assert_eq!(running(), 0);
        // Real indexing counts until it ends.
        progress(&s, "c", json!({ "kind": "begin", "title": "Indexing" }));
        assert_eq!(running(), 1);
        progress(&s, "c", json!({ "kind": "end" }));
        assert_eq!(running(), 0);
        // The end of background work is expected: it takes no slot among
        // the tokens that ended early.
        progress(&s, "a", json!({ "kind": "end" }));
        assert!(s.with(|i| i.progress.ended_early.is_empty() && i.progress.background.is_empty()));
    }
}
