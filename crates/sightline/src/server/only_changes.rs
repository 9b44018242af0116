//! Diagnostics of a server that publishes a file's only when they change
//! (`Publishes::OnlyChanges`, gopls): when its last publish (or none:
//! clean) stands for the version sent, and the question that tells.

use std::path::Path;
use std::time::Instant;

use sightline_lsp::Diagnostic;
use sightline_lsp::request;

use crate::server::LspServer;
use crate::server::diagnostics::PushState;
use crate::server::documents::Doc;

/// How long after a change a server that publishes only changes
/// (`Publishes::OnlyChanges`) may still publish findings of its
/// slower analyses.
const ANALYSIS_DELAY: std::time::Duration = std::time::Duration::from_millis(1100);

impl LspServer {
    /// For a server that publishes only changes (`Publishes::OnlyChanges`):
    /// `last` (the file's last publish, or none) once the server has had
    /// its time since `doc` was sent: it has gone quiet, a question that
    /// needs the file checked has been answered since (`confirmed`), and it
    /// has stayed quiet after that too.
    pub(super) fn unchanged_since(
        &self,
        doc: &Doc,
        last: Vec<Diagnostic>,
        confirmed: Option<Instant>,
    ) -> PushState {
        if self.spec.quirks.diagnostics.publishes != crate::catalog::Publishes::OnlyChanges {
            return PushState::NotYet;
        }
        let now = Instant::now();
        let (quiet_from, busy) = self.state.with(|s| {
            (
                s.last_message_at
                    .unwrap_or(doc.changed_at)
                    .max(doc.changed_at),
                !s.progress.running.is_empty(),
            )
        });
        let quiet_from = confirmed.map_or(quiet_from, |c| quiet_from.max(c));
        // Newer gopls publishes its analyses' findings a second after its
        // type errors (`diagnosticsDelay`), after the hover is answered.
        let at = (quiet_from + self.budgets.push_quiet).max(doc.changed_at + ANALYSIS_DELAY);
        if busy {
            PushState::NotYet
        } else if now < at {
            PushState::QuietUntil(at)
        } else if confirmed.is_none_or(|c| c < doc.changed_at) {
            PushState::Confirm
        } else {
            PushState::Fresh(last)
        }
    }

    /// Asks a question that the server answers only once it has checked
    /// `path` as sent (a hover at its start: gopls type-checks the package
    /// first), so that its publish, if any, comes before the quiet after.
    pub(super) async fn confirm(
        &self,
        path: &Path,
        deadline: tokio::time::Instant,
        ceiling: tokio::time::Instant,
    ) {
        let uri = sightline_lsp::path_to_uri_string(path).unwrap_or_default();
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let params = serde_json::json!({
            "textDocument": { "uri": uri },
            "position": { "line": 0, "character": 0 },
        });
        let pushes = |s: &crate::server::heard::ServerReports| s.pushes.get(path).map(|p| p.seq);
        let before = self.state.with(|s| pushes(s));
        let _ = self.client.request_of::<request::Hover>(params, left).await;
        // The publish that follows the check may come well after the
        // hover's answer on a busy machine (gopls computes diagnostics in a
        // goroutine of its own): the quiet that makes the last publish
        // stand is counted from when the server shows no work, not from a
        // clock that starts at the answer (under six busy loops a cold
        // gopls' type error was answered "no diagnostics").
        // Within the caller's ceiling; a publish for the file ends it.
        let mut patience = self.patience(self.budgets.push_quiet);
        loop {
            tokio::time::sleep_until(patience.deadline().min(ceiling)).await;
            let published = self.state.with(|s| pushes(s)) != before;
            if published
                || tokio::time::Instant::now() >= ceiling
                || !self.keeps_working(&mut patience)
            {
                break;
            }
        }
    }
}
