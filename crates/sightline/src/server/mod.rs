//! One running language server for one workspace root: its process
//! (`start`), its documents kept in step with disk (`documents`), what it
//! sends unasked (`inbox`), when its answers can be trusted (`readiness`),
//! its diagnostics (`diagnostics`, and `tsserver` for the server that needs
//! asking its TypeScript service directly), and the requests of every other
//! question (`requests`, `symbols`), answered in agent coordinates (`locs`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline_lsp::notification;
use sightline_lsp::{Client, Encoding};

use crate::catalog::{Budgets, ServerSpec};
use crate::error::ToolError;
use crate::server::documents::Documents;
use crate::server::inbox::Inbox;
use crate::server::pull::PullCache;

mod answer_cache;
mod background_index;
pub mod diagnostics;
mod disk;
pub mod documents;
mod heard;
#[cfg(test)]
mod in_memory_tests;
mod inbox;
mod incoming;
mod launcher_errors;
mod locs;
mod only_changes;
mod pull;
mod readiness;
mod refactor;
pub mod relay;
mod requests;
mod save;
mod settings;
mod start;
mod symbols;
mod type_hierarchy;
mod typescript_ext;
pub(crate) mod watchers;
mod working;

pub(crate) use documents::Asking;
pub use requests::without_declarations;
pub use start::{Launch, initialize_params};

/// What a server says of itself in `initialize` (`serverInfo`), where it
/// says anything: pyright and typescript-language-server give no version,
/// rust-analyzer and clangd do.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ServerInfo {
    /// Its name for itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// One running language server for one root.
pub struct LspServer {
    /// Which server it is.
    pub spec: &'static ServerSpec,
    /// The root it serves.
    pub root: PathBuf,
    pub(crate) client: Client,
    pub(crate) state: Arc<Inbox>,
    pub(crate) encoding: Encoding,
    /// `Some(identifier)` when the server declared pull diagnostics statically.
    pub(crate) static_pull: Option<Option<String>>,
    /// The server offers `workspace/diagnostic`.
    pub(crate) workspace_pull: bool,
    /// The name and version the server gave in `initialize`
    /// (`serverInfo`), which structured answers name.
    pub(crate) info: ServerInfo,
    /// The capabilities the server declared in `initialize`.
    pub(crate) capabilities: Value,
    /// Its budgets.
    pub budgets: Budgets,
    /// The server checks files when told they were saved (rust-analyzer's
    /// `cargo check`), and that is not turned off in its options.
    pub(crate) check_on_save: bool,
    docs: Mutex<Documents>,
    /// External edits to files the server may have read from disk.
    watch: Option<crate::sync::watch::DiskWatch>,
    /// Changes drained from the watch, not yet told to the server.
    disk: Mutex<disk::UntoldChanges>,
    /// A line for the next diagnostics answer (why the server was restarted).
    note: Mutex<Option<String>>,
    /// Why the pool should replace this server at the next question.
    restart_wanted: Mutex<Option<String>>,
    /// Pull results by (file, identifier), for `previousResultId`.
    pub(crate) pulled: PullCache,
    /// When a call last used this server, for idle shutdown.
    last_used: Mutex<Instant>,
    /// Questions the pool handed it out for (`sightline daemon status`).
    served: std::sync::atomic::AtomicU64,
    tmp: Option<PathBuf>,
    /// Location answers of the current generation.
    answer_cache: answer_cache::AnswerCache,
    /// The server that answers this one's relayed requests (`Quirks::relay`).
    relay_target: relay::RelayTarget,
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

impl LspServer {
    /// Whether its process is still running.
    pub fn is_alive(&self) -> bool {
        self.client.is_alive()
    }

    /// Its process id.
    pub fn pid(&self) -> Option<u32> {
        self.client.pid()
    }

    /// Shuts it down: `shutdown`, `exit`, then its process group.
    pub async fn shutdown(&self) {
        self.client.shutdown(Duration::from_secs(2)).await;
    }

    /// Why the server is no longer running: exit status and stderr tail.
    pub fn exit_reason(&self) -> String {
        with_denial_hint(self.client.exited_error().to_string(), &self.client)
    }

    /// Leaves `note` for the next diagnostics answer.
    pub(crate) fn set_note(&self, note: String) {
        *self
            .note
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(note);
    }

    /// Asks the pool to replace the server at the next question, saying why.
    pub(crate) fn want_restart(&self, why: String) {
        *self
            .restart_wanted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(why);
    }

    /// The configured settings changed: they answer the server's next
    /// `workspace/configuration`, and it is told to ask.
    pub(crate) fn set_settings(&self, settings: serde_json::Value) -> Result<(), ToolError> {
        *self
            .state
            .user_settings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = settings;
        self.client
            .notify_of::<notification::DidChangeConfiguration>(
                serde_json::json!({ "settings": self.state.configuration(None) }),
            )?;
        // Diagnostics kept from before are the old settings' answers.
        self.docs().generation += 1;
        Ok(())
    }

    /// The note left for the next diagnostics answer, once.
    pub(crate) fn take_note(&self) -> Option<String> {
        self.note
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// How many directories its watch polls past the watch limit.
    pub fn polled_dirs(&self) -> usize {
        self.watch.as_ref().map_or(0, |w| w.polled())
    }

    /// Marks the server as used now.
    pub fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
        self.served
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many questions the pool handed it out for.
    pub fn served(&self) -> u64 {
        self.served.load(std::sync::atomic::Ordering::Relaxed)
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

    /// The count of changes to what the server sees that can change a
    /// definition: content (`Documents::generation`), and documents opened
    /// and closed where that can (`Documents::opens`, counted only for
    /// them).
    pub(crate) fn generation(&self) -> u64 {
        let docs = self.docs();
        docs.generation + docs.opens
    }

    fn docs(&self) -> std::sync::MutexGuard<'_, Documents> {
        match self.docs.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}
