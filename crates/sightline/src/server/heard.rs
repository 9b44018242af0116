//! What a server has said on its own initiative, as of its last message
//! (`ServerReports`), in named parts: its publishes, whether it has loaded, its
//! work-done progress, its check on save, and what it registered. The inbox
//! (`inbox`) writes it; the waits (`readiness`, `diagnostics`) read it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;
use sightline_lsp::Diagnostic;

/// One push for a file, with the order it arrived in.
#[derive(Debug, Clone)]
pub struct Push {
    /// The document version the publish was for, if it said.
    pub version: Option<i32>,
    /// The value of [`ServerReports::seq`] when it arrived.
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

/// What the server has said, as of the last message, in named parts.
#[derive(Debug, Default)]
pub struct ServerReports {
    /// Counts every message from the server, so that "after our change" can be
    /// told by arrival order when a server sends no versions.
    pub seq: u64,
    /// When the last message of any kind came.
    pub last_message_at: Option<Instant>,
    /// Files changed on disk were told since the last `barrier`.
    pub told_changes: bool,
    /// The last publish for each file.
    pub pushes: HashMap<PathBuf, Push>,
    /// While a command runs (`LspServer::run_command`): the edits the
    /// server asks to apply, gathered to be applied with the change.
    pub gathered_edits: Option<Vec<Value>>,
    /// Whether it has loaded its project, and what it says it is busy with.
    pub load: LoadSignals,
    /// Its work-done progress.
    pub progress: WorkDone,
    /// The check it runs on save, and our saves.
    pub save_check: SaveChecks,
    /// What it registered after `initialize`.
    pub registered: Registrations,
    /// Its requests another server is answering now (`Quirks::relay`):
    /// vue-language-server waits on tsserver's work, which is its own.
    pub relaying: usize,
}

/// What shows whether a server has loaded its project.
#[derive(Debug, Default)]
pub struct LoadSignals {
    /// The server logged that it has enumerated the workspace
    /// (`Readiness::AfterLog`).
    pub indexed: bool,
    /// What a server's own status notification says it is busy with
    /// (rust-analyzer's `experimental/serverStatus`, jdtls's `language/status`).
    pub busy: Option<String>,
    /// When rust-analyzer's `experimental/serverStatus` last said it was
    /// quiescent after being busy (it restarts its check on save then).
    pub idle_at: Option<std::time::Instant>,
    /// The server's status notification has said it is ready at least once
    /// (rust-analyzer quiescent, jdtls `ServiceReady`), or the progress of
    /// `Readiness::AfterProgress` ended.
    pub loaded: bool,
    /// The first line of the status message when the server says its health
    /// is `error` (rust-analyzer: "Failed to discover workspace.").
    pub failing: Option<String>,
    /// The whole status message while the server says its health is not
    /// ok (rust-analyzer's `warning` when `cargo metadata` failed).
    pub unhealthy: Option<String>,
    /// Bumped by `workspace/diagnostic/refresh`.
    pub refreshes: u64,
    /// The progress of the server's background index (`Quirks::index`) has
    /// ended at least once.
    pub index_done: bool,
}

/// A server's work-done progress, apart from its checks on save.
#[derive(Debug, Default)]
pub struct WorkDone {
    /// Progress that has begun and not ended: token → title.
    pub running: HashMap<String, String>,
    /// How many of those have begun in all.
    pub begun: u64,
    /// Tokens whose `end` came before their `begin` (a server may handle its
    /// `window/workDoneProgress/create` and its notifications on different
    /// paths): a late `begin` for one of them is not work still running.
    pub ended_early: std::collections::VecDeque<String>,
    /// Tokens of background progress that began (pyright's checking): their
    /// `end` is expected, not early.
    pub background: std::collections::HashSet<String>,
}

/// The check a server runs on save (`DiagnosticsQuirks::save_check`), by
/// message count, and the saves sightline sent.
#[derive(Debug, Default)]
pub struct SaveChecks {
    /// Message count at which the last check began.
    pub began: u64,
    /// Message count at which it ended.
    pub ended: u64,
    /// When it ended (see `SaveCheck::restart_ms`).
    pub ended_at: Option<std::time::Instant>,
    /// Tokens of checks in progress (not counted in `WorkDone::running`).
    pub running: std::collections::HashSet<String>,
    /// Message count when sightline last sent `didSave`: only a check that
    /// began after it covers the files as they are on disk.
    pub saved_at: u64,
    /// Whether sightline has sent `didSave` at all (`saved_at` is 0 both
    /// before the first save and after one sent before any message came).
    pub saved: bool,
}

/// What a server registered after `initialize`.
#[derive(Debug, Default)]
pub struct Registrations {
    /// Pull providers: registration id → identifier.
    pub pulls: HashMap<String, Option<String>>,
    /// Every registration still in force: registration id → method
    /// (`textDocument/hover`), for the capabilities a server adds after
    /// `initialize`.
    pub methods: HashMap<String, String>,
    /// The file watchers for `workspace/didChangeWatchedFiles`, by
    /// registration id.
    pub watchers: HashMap<String, Vec<crate::server::watchers::Watcher>>,
    /// Bumped when a watcher registration arrives, so that the directories
    /// it names are watched at the next question.
    pub watchers_added: u64,
}
