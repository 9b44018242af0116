//! The diagnostics engine. Pushed and pulled results are cached apart and
//! merged on read; an answer holds only results computed for the content now
//! on disk, or says in a note that this could not be confirmed in time.
//!
//! - Pull (`pull`): every provider is asked in parallel, and the first
//!   answer for this file ends the wait.
//! - Versioned push: the first publish carrying the current version is fresh.
//! - Unversioned push: a publish after the change, once the server has been
//!   quiet for the debounce. A server whose first publish after opening is
//!   partial (`Publishes::PartialFirstAfterOpen`) does not have it taken as
//!   final.
//! - A server whose quirks say so is asked directly instead (`tsserver`).

use std::path::Path;
use std::time::Instant;

use sightline_lsp::LineIndex;
use sightline_lsp::{Diagnostic, DiagnosticSeverity, message_text};

use crate::answer::{Finding, Severity, fold};
use crate::error::ToolError;
use crate::server::LspServer;
use crate::server::documents::Doc;

/// How long a server that publishes each version twice
/// (`Publishes::TwicePerVersion`) must stay quiet after the first for it to
/// count alone.
const PUBLISHED_ONCE_QUIET: std::time::Duration = std::time::Duration::from_secs(3);

/// How long a save may go without a check beginning before it is sent
/// again (see `wait_check`). rust-analyzer begins its `cargo check` 80 to
/// 100 ms after a save it acts on, but drops the save of a file when the
/// change told just before (`didChangeWatchedFiles`, which it reads from
/// disk on another thread) lands while it works out which crates to check:
/// the change cancels that work, and no check runs until the next save. At
/// 5 s, the document budget, a cross-file revert was answered with the
/// last check's errors, or none, in 3 of 6 tries; a save sent again once
/// the server is idle costs at most a check restarted.
const SAVE_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(1000);

/// Whether the pushed results for a file can be shown.
pub(super) enum PushState {
    Fresh(Vec<Diagnostic>),
    /// Fresh once the server stays quiet until then.
    QuietUntil(Instant),
    NotYet,
    /// The server publishes only changes and has gone quiet: a question
    /// that needs the file checked (`confirm`) tells whether it is done.
    Confirm,
}

impl LspServer {
    /// tsserver's own answer for the content it holds now, which is exact
    /// (its pushes cannot say when an answer is complete); `None` when it
    /// has none and the pushes are waited for.
    async fn tsserver_answer(
        &self,
        path: &Path,
        doc: &Doc,
    ) -> Option<(Vec<Finding>, Option<String>)> {
        match self.tsserver_diagnostics(path, doc).await {
            Ok(f) => Some((f, None)),
            // tsserver threw while checking this file: its pushes come
            // from the same check and fail alike, so waiting for them
            // only spends the budget. Seen with `.vue` files in a
            // project without a tsconfig (primevue's components): "Debug
            // Failure. False expression: getScriptInfo".
            Err(e) if let Some(why) = super::typescript_ext::failure(&e.to_string()) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default();
                let note = format!(
                    "{} could not check {name}: tsserver failed ({why})",
                    self.spec.id
                );
                Some((Vec::new(), Some(note)))
            }
            Err(e) => {
                tracing::debug!(
                    "{}: sync diagnostics unavailable ({e}); waiting for pushes",
                    self.spec.id
                );
                None
            }
        }
    }

    /// Diagnostics for the content of `doc`, which `sync` has just sent with
    /// `files`' text. Returns the findings and, when freshness could not be
    /// confirmed, a note.
    pub async fn diagnostics(
        &self,
        path: &Path,
        doc: &Doc,
        files: &crate::sync::FileView,
    ) -> Result<(Vec<Finding>, Option<String>), ToolError> {
        if self.spec.quirks.diagnostics.ask_tsserver
            && let Some(answer) = self.tsserver_answer(path, doc).await
        {
            return Ok(answer);
        }
        // A dry run's text is not on disk, where a check on save reads.
        if !files.is_dry_run() {
            self.save_once(path)?;
        }
        self.wait_loaded().await?;
        // While the server visibly works, the wait goes on past the
        // document budget, up to its ceiling.
        let mut patience = self.patience(self.budgets.document);
        let mut deadline = patience.deadline();
        let mut rx = self.state.subscribe();
        let mut confirmed = None;
        loop {
            let providers = self.pull_identifiers();
            if !providers.is_empty() {
                // The check first, then the pull: rust-analyzer may send the
                // check's end before the publish of its findings (both come
                // out of one turn of its main loop), but it answers the pull
                // in a later turn, after that publish.
                // A dry run's text is in memory only, and a check on save
                // (rust-analyzer's `cargo check`) reads the disk: none is
                // started or waited for, and its findings are not shown,
                // before the change or after (`Editor::preview` says so).
                let previewing = self.check_on_save && files.is_dry_run();
                let checked =
                    !self.check_on_save || (!previewing && self.wait_check(path, deadline).await);
                let (mut items, mut note) = self.pull(path, doc, providers, deadline).await?;
                // The pull ran out of time while the server works on: it is
                // asked again, within the server's cap.
                if note.is_some() && tokio::time::Instant::now() >= deadline {
                    // A pull gets a whole pull budget more: one cut short
                    // each second would be cancelled before it could end.
                    if self.keeps_working(&mut patience) {
                        deadline = patience
                            .ceiling()
                            .min(tokio::time::Instant::now() + self.budgets.pull);
                        continue;
                    }
                    note = Some(self.waited_note(&patience));
                }
                // A server that failed to load the project runs no check, and
                // its answers are empty for want of a project, not of errors.
                if let Some(failing) = self.state.with(|s| s.load.failing.clone()) {
                    note.get_or_insert_with(|| {
                        format!("{} could not load the project: {failing}", self.spec.id)
                    });
                } else if !checked && !previewing {
                    // The check's findings come as pushes, and rust-analyzer
                    // publishes the last check's again, stamped with each new
                    // version, until the next check ends: after a revert they
                    // are errors the change removed. They are not shown.
                    note = Some(self.check_note(path));
                }
                if checked
                    && let PushState::Fresh(mut pushed) = self.push_state(path, doc, confirmed)
                {
                    items.append(&mut pushed);
                }
                return Ok((self.findings(&items, &doc.index), note));
            }
            let mut quiet_until = None;
            match self.push_state(path, doc, confirmed) {
                PushState::Fresh(items) => return Ok((self.findings(&items, &doc.index), None)),
                PushState::QuietUntil(t) => quiet_until = Some(tokio::time::Instant::from_std(t)),
                PushState::NotYet => {}
                PushState::Confirm => {
                    self.confirm(path, deadline, patience.ceiling()).await;
                    confirmed = Some(Instant::now());
                    continue;
                }
            }
            if !self.is_alive() {
                return Err(self.exited());
            }
            // Past the deadline only a look that sees no work ends the wait:
            // a daemon starved of the processor may wake a second after a
            // look that moved the deadline on, already past the new one.
            let past_deadline = tokio::time::Instant::now() >= deadline;
            if past_deadline && self.keeps_working(&mut patience) {
                deadline = deadline.max(patience.deadline());
            } else if past_deadline {
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
                return Ok((
                    self.findings(&items, &doc.index),
                    Some(self.waited_note(&patience)),
                ));
            }
            let wake_at = quiet_until.map_or(deadline, |q| q.min(deadline));
            let _ = tokio::time::timeout_at(wake_at, rx.changed()).await;
        }
    }

    pub(crate) fn exited(&self) -> ToolError {
        ToolError::exited(self.exit_reason())
    }

    fn push_state(&self, path: &Path, doc: &Doc, confirmed: Option<Instant>) -> PushState {
        let Some(p) = self.state.with(|s| s.pushes.get(path).cloned()) else {
            return self.unchanged_since(doc, Vec::new(), confirmed);
        };
        let twice =
            self.spec.quirks.diagnostics.publishes == crate::catalog::Publishes::TwicePerVersion;
        match p.version {
            // The first of the two publishes for this version: final once
            // the second has come, or after a longer quiet (Volar skips the
            // first when it has nothing new to say).
            Some(v) if v == doc.version && twice && p.same_version < 2 => {
                let quiet_until = p.at + PUBLISHED_ONCE_QUIET;
                if Instant::now() >= quiet_until {
                    PushState::Fresh(p.items)
                } else {
                    PushState::QuietUntil(quiet_until)
                }
            }
            Some(v) if v == doc.version => PushState::Fresh(p.items),
            // Volar clears a file's findings with an unversioned publish
            // when the project changes, then publishes them again.
            None if twice => PushState::NotYet,
            // A publish for another version, such as one computed before our
            // latest change, is never shown, unless the server publishes
            // only what changed and has had its time.
            Some(_) => self.unchanged_since(doc, p.items, confirmed),
            // A check's findings for a file opened after it ran came before
            // the open; they hold while no file changed since (a change is
            // saved, and the check that follows publishes anew).
            None if p.seq <= doc.changed_seq && !self.published_by_last_check(&p) => {
                PushState::NotYet
            }
            None => {
                let first_after_open =
                    doc.opened_seq == doc.changed_seq && p.count <= doc.pushes_at_change + 1;
                if self.spec.quirks.diagnostics.publishes
                    == crate::catalog::Publishes::PartialFirstAfterOpen
                    && first_after_open
                {
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
    async fn wait_check(&self, path: &Path, deadline: tokio::time::Instant) -> bool {
        let done = |s: &crate::server::heard::ServerReports| {
            (s.save_check.began > s.save_check.saved_at && s.save_check.ended > s.save_check.began)
                || s.load.failing.is_some()
        };
        let began = |s: &crate::server::heard::ServerReports| {
            s.save_check.began > s.save_check.saved_at || s.load.failing.is_some()
        };
        let settle = std::time::Duration::from_millis(
            self.spec
                .quirks
                .diagnostics
                .save_check
                .map_or(0, |c| c.restart_ms),
        );
        loop {
            if !self.is_alive() {
                return false;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            // A save that starts no check is sent again once the server is
            // idle: rust-analyzer drops one that comes while it reloads the
            // workspace (a `Cargo.toml` changed with the file), and would
            // then run no check until the next save.
            if !self.state.with(|s| began(s)) {
                if self.wait_until(left.min(SAVE_AGAIN_AFTER), began).await {
                    continue;
                }
                if tokio::time::Instant::now() >= deadline {
                    return false;
                }
                let idle = self.state.with(|s| {
                    s.load.busy.is_none()
                        && s.progress.running.is_empty()
                        && s.save_check.running.is_empty()
                });
                if idle && self.save(path).is_err() {
                    return false;
                }
                continue;
            }
            if !self.wait_until(left, done).await {
                return false;
            }
            // An end is final once the server is idle and no other check has
            // begun in its place for the settle time, counted from the end
            // or from when the server last became idle, whichever is later.
            // rust-analyzer ends a cancelled check as it ends a finished one,
            // and it cancels the check when a workspace reload begins (as
            // when the first check writes `Cargo.lock`), then begins it
            // again once it is quiescent: on CI's loaded machine the new
            // check began more than the settle time after the cancelled one
            // ended, and the answer after an edit was empty.
            let (began_at, busy, settled_at) = self.state.with(|s| {
                let from = s.save_check.ended_at.max(s.load.idle_at);
                let ok = s.load.failing.is_none();
                (
                    s.save_check.began,
                    ok && s.load.busy.is_some(),
                    from.map(|t| t + settle).filter(|_| ok),
                )
            });
            if busy {
                let restarted_or_idle = |s: &crate::server::heard::ServerReports| {
                    s.save_check.began != began_at
                        || s.load.busy.is_none()
                        || s.load.failing.is_some()
                };
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                if !self.wait_until(left, restarted_or_idle).await {
                    // Still busy when the budget ran out: the check that
                    // ended was most likely cancelled by the reload, so it
                    // is not taken as the change's (the answer says so).
                    return false;
                }
                continue;
            }
            let Some(settled_at) = settled_at.filter(|t| *t > std::time::Instant::now()) else {
                return true;
            };
            let wake = tokio::time::Instant::from_std(settled_at).min(deadline);
            // A reload that begins within the settle time is waited out too.
            let restarted = |s: &crate::server::heard::ServerReports| {
                s.save_check.began != began_at
                    || (s.load.busy.is_some() && s.load.failing.is_none())
            };
            let left = wake.saturating_duration_since(tokio::time::Instant::now());
            if !self.wait_until(left, restarted).await {
                // No check began again (or the budget ran out first, and
                // the ended check is the best there is): this end stands.
                return true;
            }
        }
    }

    /// Whether `p` was published by the last check run on save, which began
    /// after the last `didSave` and has ended: it saw the files as they are.
    fn published_by_last_check(&self, p: &crate::server::inbox::Push) -> bool {
        self.check_on_save
            && self.state.with(|s| {
                s.save_check.began > s.save_check.saved_at
                    && s.save_check.ended > s.save_check.began
                    && p.seq > s.save_check.began
            })
    }

    fn check_note(&self, path: &Path) -> String {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        format!(
            "{} has not re-checked {name} since the change within {:.1} s; its last check's errors are not shown",
            self.spec.id,
            self.budgets.document.as_secs_f64()
        )
    }

    pub(super) fn budget_note(&self) -> String {
        format!(
            "{} was still analysing after {:.1} s; results may be incomplete",
            self.spec.id,
            self.budgets.document.as_secs_f64()
        )
    }

    pub(super) fn findings(&self, items: &[Diagnostic], index: &LineIndex) -> Vec<Finding> {
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
                        sightline_lsp::Code::Int(i) => i.to_string(),
                        sightline_lsp::Code::String(s) => s.clone(),
                    }),
                }
            })
            .collect()
    }
}
