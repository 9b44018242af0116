//! `didSave` for a server that checks on save (rust-analyzer's `cargo
//! check`, see `DiagnosticsQuirks::save_check`): sent after each change of
//! content, never for a dry run's text, which is not on disk.

use std::path::Path;

use serde_json::json;
use sightline_lsp::notification;
use sightline_lsp::path_to_uri_string;

use crate::error::ToolError;
use crate::server::LspServer;

impl LspServer {
    /// Sends `didSave` for `path` to a server that checks on save (see
    /// `DiagnosticsQuirks::save_check`); nothing to others.
    /// A dry run sends none (its callers ask this only outside one, see
    /// `LspServer::sync_unasked`): its text is not on disk, where the
    /// check would read it.
    pub(crate) fn save(&self, path: &Path) -> Result<(), ToolError> {
        if !self.check_on_save {
            return Ok(());
        }
        let uri = path_to_uri_string(path).unwrap_or_default();
        self.state.with(|s| {
            s.save_check.saved_at = s.seq;
            s.save_check.saved = true;
        });
        self.client.notify_of::<notification::DidSaveTextDocument>(
            json!({ "textDocument": { "uri": uri } }),
        )?;
        Ok(())
    }

    /// Saves `path` when nothing has been saved since the server started,
    /// so that a diagnostics answer has a check to wait for.
    pub(crate) fn save_once(&self, path: &Path) -> Result<(), ToolError> {
        if self.state.with(|s| s.save_check.saved) {
            return Ok(());
        }
        self.save(path)
    }
}
