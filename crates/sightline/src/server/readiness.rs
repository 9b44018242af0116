//! When a server's answers can be trusted: it has loaded its project, built
//! an opened file, and finished indexing, each within a budget, or the
//! question ends as `not ready: ...`.

use std::path::Path;
use std::time::Duration;

use sightline_lsp::Location;

use crate::error::ToolError;
use crate::server::LspServer;
use crate::server::documents::Doc;
use crate::server::working::Patience;

/// How long a barrier request may take (an unknown method is answered at
/// once with an error).
const BARRIER: std::time::Duration = std::time::Duration::from_secs(2);

impl LspServer {
    /// Waits until `ready` holds on the server state, or the budget runs
    /// out while the server shows no work (past it, the wait goes on while
    /// it works, up to its ceiling: `server::working`).
    pub(crate) async fn wait_until(
        &self,
        budget: Duration,
        ready: impl Fn(&crate::server::heard::ServerReports) -> bool,
    ) -> bool {
        self.wait_patiently(budget, ready).await.0
    }

    /// [`Self::wait_until`], with how the wait went.
    async fn wait_patiently(
        &self,
        budget: Duration,
        ready: impl Fn(&crate::server::heard::ServerReports) -> bool,
    ) -> (bool, Patience) {
        let mut patience = self.patience(budget);
        let mut rx = self.state.subscribe();
        loop {
            if self.state.with(|s| ready(s)) {
                return (true, patience);
            }
            if !self.is_alive() {
                return (false, patience);
            }
            match tokio::time::timeout_at(patience.deadline(), rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return (self.state.with(|s| ready(s)), patience),
                Err(_) if self.keeps_working(&mut patience) => {}
                Err(_) => return (self.state.with(|s| ready(s)), patience),
            }
        }
    }

    /// For a server that answers empty until it has loaded its project and
    /// says so in a status notification (rust-analyzer), waits for that,
    /// within the ready budget. Other servers are taken as loaded at once.
    pub async fn wait_loaded(&self) -> Result<(), ToolError> {
        self.barrier().await;
        self.offline_gap()?;
        if !self.spec.quirks.readiness.waits_for_status() || self.state.with(|s| s.load.loaded) {
            return Ok(());
        }
        let waiting = crate::progress::call();
        let key = format!("load {}", self.spec.id);
        if let Some(p) = &waiting {
            p.begin(
                &key,
                &format!("waiting for {} to load the project", self.spec.id),
            );
        }
        let offline = self.spec.quirks.launch.offline;
        let (loaded, waited) = self
            .wait_patiently(self.budgets.ready, |s| {
                s.load.loaded || missing_offline(offline, s).is_some()
            })
            .await;
        if let Some(p) = &waiting {
            p.end(&key, if loaded { "loaded" } else { "still loading" });
        }
        self.offline_gap()?;
        if loaded {
            return Ok(());
        }
        Err(self.still_loading(&waited))
    }

    /// The answer for a server whose build tool, run without the network,
    /// said its cache lacks a dependency (`LaunchQuirks::offline`): the one
    /// command that fills the cache, at once. Asking again would never help.
    fn offline_gap(&self) -> Result<(), ToolError> {
        let offline = self.spec.quirks.launch.offline;
        let Some(why) = self.state.with(|s| missing_offline(offline, s)) else {
            return Ok(());
        };
        let (id, root) = (self.spec.id, self.root.display());
        let fetch = offline.map_or("", |o| o.fetch);
        Err(ToolError::unavailable(format!(
            "{id} cannot load {root}: it runs without the network and its build tool's cache lacks a dependency ({why}); run `{fetch}` in {root} once, or let it download with `lsp.{id}.network: true` in sightline.json"
        )))
    }

    /// `not ready: ...` for a server that has not loaded its project after
    /// `waited`, with what it says it is doing.
    fn still_loading(&self, waited: &Patience) -> ToolError {
        let what = self.state.with(|s| {
            s.load
                .busy
                .clone()
                .or_else(|| s.progress.running.values().next().cloned())
                .map_or_else(
                    || "loading its project".to_owned(),
                    |b| format!("loading its project ({b})"),
                )
        });
        self.not_ready(what, waited)
    }

    /// For a server that says when it is loaded (`ready_on_status`), after
    /// files changed on disk were told: a request it can only answer after
    /// the notification, so that a status it sends on taking the change in
    /// (rust-analyzer: not quiescent, reloading the workspace for a changed
    /// `Cargo.toml`) has come first. A server busy then is loading again:
    /// questions wait for it as for the first load, instead of getting
    /// answers from the project as it was.
    async fn barrier(&self) {
        if !self.spec.quirks.readiness.waits_for_status() || !self.state.with(|s| s.told_changes) {
            return;
        }
        let _ = self
            .client
            .request_value("sightline/barrier", serde_json::Value::Null, BARRIER)
            .await;
        // Cleared only once answered: a question cancelled meanwhile
        // leaves it for the next.
        self.state.with(|s| {
            s.told_changes = false;
            if s.load.busy.is_some() {
                s.load.loaded = false;
                // Its last load's failure was of the project before these
                // changes (`cargo fetch` since): the reload says anew.
                s.load.unhealthy = None;
            }
        });
    }

    /// Asks `ask` without waiting for the whole load. A server that
    /// answers empty until it has loaded (rust-analyzer, `ready_on_status`)
    /// can answer a definition seconds before it says it has loaded, while
    /// it fills its caches (`answers_while`). The question is asked each
    /// time the server settles into such a state (no other progress
    /// running), once per time; a non-empty answer is taken then. After the
    /// load it is asked once more and that answer stands. An error before
    /// the load (rust-analyzer's "content modified") counts as empty.
    /// Within the ready budget.
    pub async fn while_loading<F, Fut>(&self, ask: F) -> Result<Vec<Location>, ToolError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Location>, ToolError>>,
    {
        self.barrier().await;
        self.offline_gap()?;
        if !self.spec.quirks.readiness.waits_for_status() || self.state.with(|s| s.load.loaded) {
            return ask().await;
        }
        let answers_while = self.spec.quirks.readiness.answers_while();
        let settled = |s: &crate::server::heard::ServerReports| {
            s.progress
                .running
                .values()
                .all(|title| answers_while.iter().any(|a| title.starts_with(a)))
        };
        let mut patience = self.patience(self.budgets.ready);
        let mut rx = self.state.subscribe();
        let key = format!("load {}", self.spec.id);
        let waiting = crate::progress::call();
        if let Some(p) = &waiting {
            p.begin(
                &key,
                &format!("waiting for {} to load the project", self.spec.id),
            );
        }
        let mut asked_while_settled = false;
        let result = loop {
            if let Err(e) = self.offline_gap() {
                break Err(e);
            }
            let (loaded, settled) = self.state.with(|s| (s.load.loaded, settled(s)));
            if loaded {
                break tokio::time::timeout_at(patience.ceiling(), ask())
                    .await
                    .unwrap_or_else(|_| Err(self.still_loading(&patience)));
            }
            if settled && !asked_while_settled {
                asked_while_settled = true;
                let begun = self.state.with(|s| s.progress.begun);
                if let Ok(Ok(found)) = tokio::time::timeout_at(patience.ceiling(), ask()).await
                    && !found.is_empty()
                {
                    break Ok(found);
                }
                // Loading went on while it answered (rust-analyzer fetched
                // the workspace again, built its crate graph and loaded proc
                // macros, then failed the request with "content modified"):
                // the next settled moment gets another question, not the
                // end of its indexing, seconds later.
                if self.state.with(|s| s.progress.begun) != begun {
                    asked_while_settled = false;
                }
            }
            asked_while_settled &= settled;
            if !self.is_alive() {
                break Err(self.exited());
            }
            match tokio::time::timeout_at(patience.deadline(), rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => break Err(self.exited()),
                Err(_) if self.keeps_working(&mut patience) => {}
                Err(_) => break Err(self.still_loading(&patience)),
            }
        };
        if let Some(p) = &waiting {
            p.end(
                &key,
                if result.is_ok() {
                    "answered"
                } else {
                    "still loading"
                },
            );
        }
        result
    }

    /// Waits for the server's first publish for `path` since it was opened
    /// (it has built the file), within the ready budget.
    pub async fn wait_built(&self, path: &Path, doc: &Doc) -> Result<(), ToolError> {
        let opened = doc.opened_seq;
        let (built, waited) = self
            .wait_patiently(self.budgets.ready, |s| {
                s.pushes.get(path).is_some_and(|p| p.seq > opened)
            })
            .await;
        if built {
            Ok(())
        } else {
            Err(self.not_ready(format!("building {}", path.display()), &waited))
        }
    }

    /// Waits until answers about the server's open files are complete, within
    /// the ready budget: the project loaded. `cross_file` questions also need
    /// the whole workspace indexed: no work-done progress running, no busy
    /// status, and (pyright) the workspace enumerated.
    pub async fn wait_ready(&self, cross_file: bool) -> Result<(), ToolError> {
        self.wait_loaded().await?;
        if !cross_file {
            return Ok(());
        }
        self.wait_indexed(false).await
    }

    /// [`Self::wait_ready`] for a cross-file question whose answer may be
    /// given partial, with a note (`index_note`): when the budget runs out
    /// while only the server's background index (`Quirks::index`) is still
    /// to come or running, the question is asked anyway.
    pub async fn wait_ready_or_partial(&self) -> Result<(), ToolError> {
        self.wait_loaded().await?;
        self.wait_indexed(true).await
    }

    async fn wait_indexed(&self, partial_ok: bool) -> Result<(), ToolError> {
        let quirks = self.spec.quirks;
        // clangd begins its index only after the first `didOpen`: a
        // question asked at once must not find it not yet begun and take
        // the answer for complete.
        let index_pending = self.index_pending();
        let index_title = quirks.index.map(|i| i.title);
        let only_index_left = |s: &crate::server::heard::ServerReports| {
            s.load.busy.is_none()
                && (quirks.readiness.log_text().is_none() || s.load.indexed)
                && s.progress
                    .running
                    .values()
                    .all(|t| Some(t.as_str()) == index_title)
        };
        let indexed = |s: &crate::server::heard::ServerReports| {
            s.progress.running.is_empty()
                && s.load.busy.is_none()
                && (quirks.readiness.log_text().is_none() || s.load.indexed)
                && (!index_pending || s.load.index_done)
        };
        // Tell the caller why this takes a while, when it does.
        let waiting = (!self.state.with(|s| indexed(s)))
            .then(crate::progress::call)
            .flatten();
        let key = format!("index {}", self.spec.id);
        if let Some(p) = &waiting {
            p.begin(
                &key,
                &format!("waiting for {} to finish indexing", self.spec.id),
            );
        }
        let (ready, waited) = self.wait_patiently(self.budgets.ready, indexed).await;
        if let Some(p) = &waiting {
            p.end(&key, if ready { "indexed" } else { "still indexing" });
        }
        if !ready && partial_ok && index_title.is_some() && self.state.with(|s| only_index_left(s))
        {
            return Ok(());
        }
        if !ready {
            let what = self.state.with(|s| {
                if let Some(title) = s.progress.running.values().next() {
                    format!("indexing ({title})")
                } else if let Some(busy) = &s.load.busy {
                    format!("indexing ({busy})")
                } else {
                    "enumerating the workspace".to_owned()
                }
            });
            return Err(self.not_ready(what, &waited));
        }
        Ok(())
    }

    /// Whether the server reports indexing work in progress right now.
    pub fn indexing(&self) -> bool {
        self.state
            .with(|s| !s.progress.running.is_empty() || s.load.busy.is_some())
    }

    /// `not ready: ...` for a server still doing `what` after `waited`:
    /// at its ceiling, how long it worked (asking again soon would find it
    /// working still); at its budget, showing no work, to ask again.
    fn not_ready(&self, what: String, waited: &Patience) -> ToolError {
        if !self.is_alive() {
            return self.exited();
        }
        let id = self.spec.id;
        let secs = waited.waited().as_secs_f64();
        let budget = waited.budget().as_secs_f64();
        // Children run without network unless their entry asks for it, so
        // a project whose loading downloads (rust-analyzer's `cargo
        // metadata` on a cold cargo cache) never loads.
        if what.contains("Could not resolve host") {
            return ToolError::not_ready(format!(
                "{id} was still {what} after {budget:.1} s; it could not download: fetch once outside sightline (`cargo fetch`), or give it the network with `lsp.{id}.network: true`"
            ));
        }
        if waited.at_ceiling() {
            return ToolError::not_ready(format!(
                "{id} was still {what} after {secs:.1} s of visible work, the ceiling of its waits (`lsp.{id}.diagnostics.ceiling_ms` raises it)"
            ));
        }
        if waited.within_budget() {
            return ToolError::not_ready(format!(
                "{id} was still {what} after {:.1} s; ask again shortly",
                waited.budget().as_secs_f64()
            ));
        }
        ToolError::not_ready(format!(
            "{id} was still {what} after {secs:.1} s of work, then showed none; ask again shortly"
        ))
    }
}

/// What the server's unhealthy status says is missing from its build
/// tool's cache, when it matches the server's `offline` quirk: the first
/// error line.
fn missing_offline(
    offline: Option<crate::catalog::quirks::Offline>,
    s: &crate::server::heard::ServerReports,
) -> Option<String> {
    let offline = offline?;
    let status = s.load.unhealthy.as_deref()?;
    // rust-analyzer joins its failures as paragraphs, the project's and
    // the standard library's.
    let failure = status.split("\n\n").find(|p| {
        offline.missing.iter().any(|m| p.contains(m))
            && !offline.not_the_project.iter().any(|n| p.contains(n))
    })?;
    let line = failure
        .lines()
        .find(|l| l.contains("error:"))
        .or_else(|| failure.lines().next())
        .unwrap_or_default();
    // cargo's own words, after rust-analyzer's "... exited with an error: ".
    Some(
        line.rsplit("error: ")
            .next()
            .unwrap_or(line)
            .trim()
            .to_owned(),
    )
}
