//! What a server tells us on its own initiative, kept for the engine: pushed
//! diagnostics, dynamically registered pull providers, readiness signals. It is
//! also the [`Handler`] that answers every server-to-client request.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};
use sightline_lsp::protocol::{Diagnostic, PublishDiagnosticsParams};
use sightline_lsp::uri::{normalize, path_to_uri_string, uri_to_path};
use sightline_lsp::{Handler, ResponseError};
use tokio::sync::watch;

use crate::catalog::ServerSpec;

/// One push for a file, with the order it arrived in.
#[derive(Debug, Clone)]
pub struct Push {
    /// The document version the publish was for, if it said.
    pub version: Option<i32>,
    /// The value of [`Inner::seq`] when it arrived.
    pub seq: u64,
    /// When it arrived.
    pub at: Instant,
    /// The diagnostics published.
    pub items: Vec<Diagnostic>,
    /// How many pushes this file has had in all, this one included.
    pub count: u64,
    /// How many of the last pushes in a row carried this one's version.
    pub same_version: u64,
}

/// What the server has said, as of the last message.
#[derive(Debug, Default)]
pub struct Inner {
    /// Counts every message from the server, so that "after our change" can be
    /// told by arrival order when a server sends no versions.
    pub seq: u64,
    /// When the last message of any kind came.
    pub last_message_at: Option<Instant>,
    /// Files changed on disk were told since the last `barrier`.
    pub told_changes: bool,
    /// The last publish for each file.
    pub pushes: HashMap<PathBuf, Push>,
    /// Dynamically registered pull providers: registration id → identifier.
    pub pull_registrations: HashMap<String, Option<String>>,
    /// Every dynamic registration still in force: registration id → method
    /// (`textDocument/hover`), for the capabilities a server adds after
    /// `initialize`.
    pub registrations: HashMap<String, String>,
    /// The file watchers registered for `workspace/didChangeWatchedFiles`,
    /// by registration id.
    pub watchers: HashMap<String, Vec<crate::server::watchers::Watcher>>,
    /// While a command runs (`LspServer::run_command`): the edits the
    /// server asks to apply, gathered to be applied with the change.
    pub gathered_edits: Option<Vec<Value>>,
    /// Bumped when a watcher registration arrives, so that the directories
    /// it names are watched at the next question.
    pub watchers_added: u64,
    /// The server logged that it has enumerated the workspace.
    pub indexed: bool,
    /// Work-done progress that has begun and not ended: token → title.
    pub progress: HashMap<String, String>,
    /// How many of those have begun in all.
    pub progress_begun: u64,
    /// What a server's own status notification says it is busy with
    /// (rust-analyzer's `experimental/serverStatus`, jdtls's `language/status`).
    pub busy: Option<String>,
    /// The server's status notification has said it is ready at least once
    /// (rust-analyzer quiescent, jdtls `ServiceReady`).
    pub loaded: bool,
    /// The first line of the status message when the server says its health
    /// is `error` (rust-analyzer: "Failed to discover workspace.").
    pub failing: Option<String>,
    /// Message count at which the last check run on save (rust-analyzer's
    /// `cargo check`) began.
    pub check_began: u64,
    /// Message count at which it ended.
    pub check_ended: u64,
    /// When it ended (see `SaveCheck::restart_ms`).
    pub check_ended_at: Option<std::time::Instant>,
    /// Message count when sightline last sent `didSave`: only a check that
    /// began after it covers the files as they are on disk.
    pub saved_at: u64,
    /// Whether sightline has sent `didSave` at all (`saved_at` is 0 both
    /// before the first save and after one sent before any message came).
    pub saved: bool,
    /// Tokens of check runs in progress (not counted in `progress`).
    pub checks: std::collections::HashSet<String>,
    /// Bumped by `workspace/diagnostic/refresh`.
    pub refreshes: u64,
    /// Tokens whose `end` came before their `begin` (a server may handle its
    /// `window/workDoneProgress/create` and its notifications on different
    /// paths): a late `begin` for one of them is not work still running.
    pub ended_early: std::collections::VecDeque<String>,
    /// Tokens of background progress that began (pyright's checking): their
    /// `end` is expected, not early.
    pub background: std::collections::HashSet<String>,
}

/// The prefix of the work-done tokens sightline puts in its own requests. The
/// progress a server reports under one belongs to that request (pyright's
/// "Finding references"), and is never indexing.
pub const OWN_TOKEN_PREFIX: &str = "sightline/";

/// How many early-ended tokens are remembered.
const ENDED_EARLY_KEPT: usize = 64;

/// What a server sends unasked, kept for the questions to wait on; it
/// answers the server's own requests too.
pub struct ServerState {
    /// The server.
    pub spec: &'static ServerSpec,
    /// Its root.
    pub root: PathBuf,
    inner: Mutex<Inner>,
    changed: watch::Sender<u64>,
    next_token: std::sync::atomic::AtomicU64,
    /// The user's virtualenv (`settings`).
    pub(crate) virtual_env: Option<PathBuf>,
    /// The configured settings (`lsp.ID.settings`), by section.
    pub(crate) user_settings: Mutex<Value>,
    /// Where the requests it relays to another server go (`Quirks::relay`).
    relay: Option<crate::server::relay::RelayQueue>,
}

impl ServerState {
    /// The state of `spec` started for `root`, before any message.
    pub fn new(spec: &'static ServerSpec, root: PathBuf) -> Self {
        ServerState {
            spec,
            root,
            inner: Mutex::new(Inner::default()),
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
    pub fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
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

impl Handler for ServerState {
    fn request(&self, method: &str, params: Value) -> Result<Value, ResponseError> {
        self.with(|s| {
            s.seq += 1;
            s.last_message_at = Some(Instant::now());
        });
        let result = match method {
            "workspace/configuration" => {
                let items = params
                    .get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|i| self.configuration(i.get("section").and_then(Value::as_str)))
                        .collect(),
                ))
            }
            "client/registerCapability" => {
                let regs = params
                    .get("registrations")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                self.with(|s| {
                    for r in regs {
                        let id = r.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                        let method = r.get("method").and_then(Value::as_str).unwrap_or("");
                        s.registrations.insert(id.clone(), method.to_owned());
                        if method == "workspace/didChangeWatchedFiles" {
                            let options = r.get("registerOptions").cloned().unwrap_or_default();
                            s.watchers
                                .insert(id.clone(), crate::server::watchers::parse(&options));
                            s.watchers_added += 1;
                        }
                        if method == "textDocument/diagnostic" {
                            let identifier = r
                                .pointer("/registerOptions/identifier")
                                .and_then(Value::as_str)
                                .map(str::to_owned);
                            s.pull_registrations.insert(id, identifier);
                        }
                    }
                });
                // vscode-languageserver-node servers treat an error here as fatal.
                Ok(Value::Null)
            }
            "client/unregisterCapability" => {
                let regs = params
                    .get("unregisterations")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                self.with(|s| {
                    for r in regs {
                        if let Some(id) = r.get("id").and_then(Value::as_str) {
                            s.pull_registrations.remove(id);
                            s.registrations.remove(id);
                            s.watchers.remove(id);
                        }
                    }
                });
                Ok(Value::Null)
            }
            "workspace/diagnostic/refresh" => {
                self.with(|s| s.refreshes += 1);
                Ok(Value::Null)
            }
            "window/workDoneProgress/create"
            | "window/showMessageRequest"
            | "window/showDocument" => Ok(Value::Null),
            "workspace/workspaceFolders" => {
                let uri = path_to_uri_string(&self.root).unwrap_or_default();
                let name = self
                    .root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Ok(json!([{ "uri": uri, "name": name }]))
            }
            // Only while sightline runs a command of the server's, whose
            // edits it applies with the rest of the change (all or nothing,
            // after this answer); any other time nothing asked for one.
            "workspace/applyEdit" => {
                let edit = params.get("edit").cloned().unwrap_or(Value::Null);
                let taken = self.with(|s| match &mut s.gathered_edits {
                    Some(list) => {
                        list.push(edit);
                        true
                    }
                    None => false,
                });
                Ok(if taken {
                    json!({ "applied": true })
                } else {
                    json!({ "applied": false, "failureReason": "sightline applies server edits only for a command it runs" })
                })
            }
            "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Ok(Value::Null),
            other => Err(ResponseError::method_not_found(other)),
        };
        self.bump();
        result
    }

    fn notification(&self, method: &str, params: Value) {
        self.with(|s| s.last_message_at = Some(Instant::now()));
        match method {
            "textDocument/publishDiagnostics" => {
                let Ok(p) = serde_json::from_value::<PublishDiagnosticsParams>(params) else {
                    tracing::warn!("{}: malformed publishDiagnostics", self.spec.id);
                    return;
                };
                let Ok(path) = uri_to_path(p.uri.as_str()) else {
                    return;
                };
                let path = normalize(&path);
                self.with(|s| {
                    s.seq += 1;
                    let last = s.pushes.get(&path);
                    let count = last.map_or(0, |p| p.count) + 1;
                    let same_version = match last {
                        Some(l) if p.version.is_some() && l.version == p.version => {
                            l.same_version + 1
                        }
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
            m if self.spec.quirks.relay.is_some_and(|r| r.notification == m) => {
                if let Some(queue) = &self.relay {
                    let _ = queue.send(params);
                }
            }
            "window/logMessage" => {
                let text = params.get("message").and_then(Value::as_str).unwrap_or("");
                tracing::debug!(target: "sightline::server_log", "{}: {text}", self.spec.id);
                let indexed = self
                    .spec
                    .quirks
                    .readiness
                    .log_text()
                    .is_some_and(|needle| text.contains(needle));
                self.with(|s| {
                    s.seq += 1;
                    s.indexed |= indexed;
                });
            }
            "$/progress" => {
                let token = match params.get("token") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                let kind = params
                    .pointer("/value/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let title = params
                    .pointer("/value/title")
                    .and_then(Value::as_str)
                    .unwrap_or("working")
                    .to_owned();
                let quirks = self.spec.quirks;
                let is_check = |t: &str| {
                    quirks
                        .diagnostics
                        .save_check
                        .is_some_and(|c| t.starts_with(c.title))
                };
                // Progress of one of our own requests, or work the server
                // does in the background that no question waits for.
                let not_indexing = token.starts_with(OWN_TOKEN_PREFIX)
                    || quirks.background_progress.contains(&title.as_str());
                self.with(|s| {
                    s.seq += 1;
                    match kind {
                        "begin" if s.ended_early.contains(&token) => {
                            s.ended_early.retain(|t| *t != token);
                        }
                        // A check is not indexing: the server answers
                        // questions while it runs, so it is kept apart.
                        "begin" if is_check(&title) => {
                            s.check_began = s.seq;
                            s.checks.insert(token);
                        }
                        "begin" if not_indexing && !token.starts_with(OWN_TOKEN_PREFIX) => {
                            s.background.insert(token);
                        }
                        "begin" if not_indexing => {}
                        "begin" => {
                            s.progress.insert(token, title);
                            s.progress_begun += 1;
                        }
                        "end" => {
                            let was_check = s.checks.remove(&token);
                            if was_check {
                                s.check_ended = s.seq;
                                s.check_ended_at = Some(std::time::Instant::now());
                            }
                            let known = was_check || s.background.remove(&token);
                            match s.progress.remove(&token) {
                                Some(title)
                                    if quirks
                                        .readiness
                                        .progress_title()
                                        .is_some_and(|p| title.starts_with(p)) =>
                                {
                                    s.loaded = true;
                                }
                                Some(_) => {}
                                None if !known && !token.starts_with(OWN_TOKEN_PREFIX) => {
                                    if s.ended_early.len() >= ENDED_EARLY_KEPT {
                                        s.ended_early.pop_front();
                                    }
                                    s.ended_early.push_back(token);
                                }
                                None => {}
                            }
                        }
                        _ => {}
                    }
                });
            }
            // rust-analyzer: `quiescent` is false while it loads or indexes.
            "experimental/serverStatus" => {
                let quiescent = params
                    .get("quiescent")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("loading the workspace")
                    .to_owned();
                let failing = (params.get("health").and_then(Value::as_str) == Some("error"))
                    .then(|| message.lines().next().unwrap_or_default().to_owned());
                self.with(|s| {
                    s.seq += 1;
                    s.busy = (!quiescent).then_some(message);
                    s.loaded |= quiescent;
                    s.failing = failing;
                });
            }
            // jdtls: `Starting` until `ServiceReady` (or `Started`).
            "language/status" => {
                let kind = params.get("type").and_then(Value::as_str).unwrap_or("");
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("starting")
                    .to_owned();
                self.with(|s| {
                    s.seq += 1;
                    s.busy = match kind {
                        "Starting" => Some(message),
                        _ => None,
                    };
                    s.loaded |= matches!(kind, "ServiceReady" | "Started");
                });
            }
            _ => self.with(|s| s.seq += 1),
        }
        self.bump();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;
    use sightline_lsp::Handler;

    use super::*;

    fn progress(s: &ServerState, token: &str, value: Value) {
        s.notification("$/progress", json!({ "token": token, "value": value }));
    }

    /// The three ways a progress was taken for indexing that never ended,
    /// each seen with pyright on a real package.
    #[test]
    fn only_unfinished_indexing_counts_as_indexing() {
        let s = ServerState::new(&crate::catalog::table::PYRIGHT, PathBuf::from("/w"));
        let running = || s.with(|i| i.progress.len());
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
        assert!(s.with(|i| i.ended_early.is_empty() && i.background.is_empty()));
    }
}
