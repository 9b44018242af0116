//! The edit tools' answers on MCP: the checkpoints a session keeps, what
//! changed since one, and an edit's or a refactoring's text with whether it
//! brought errors.

use crate::error::ToolError;
use crate::frontends::mcp::{Answered, McpServer};

/// A refactoring's answer as a tool answer: `errors` when a changed file
/// has errors.
impl McpServer {
    /// Keeps a checkpoint for this session and returns its name.
    pub(super) fn keep(&self, cp: crate::edit::checkpoint::Checkpoint) -> String {
        self.checkpoints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .add(cp)
    }

    /// What changed since the checkpoint `name`, in `path` (a file, or a
    /// directory, or every file the checkpoint holds).
    pub(super) async fn since(
        &self,
        name: &str,
        path: Option<&std::path::Path>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let cp = self
            .checkpoints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)?;
        let file = path.filter(|p| !p.is_dir());
        let dir = path.filter(|p| p.is_dir());
        let since = self.engine.since(name, &cp, file, dir).await?;
        let mut a = Answered::text(since.text(), json);
        a.errors = since.new_errors() > 0;
        Ok(a)
    }

    /// An edit's text, ending with the checkpoint of the files as they
    /// were before it.
    pub(super) fn edited(&self, answer: crate::edit::EditAnswer) -> String {
        let mut text = answer.text();
        if !answer.preview && !answer.baseline.states.is_empty() {
            let name = self.keep(crate::edit::checkpoint::Checkpoint {
                dir: None,
                files: answer.baseline.states,
            });
            text.push_str(&format!("checkpoint: {name} (before this edit)\n"));
        }
        text
    }

    pub(super) fn refactored(
        &self,
        r: Result<crate::edit::refactor::Refactored, ToolError>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        r.map(|r| {
            let mut text = r.text;
            if !r.before.is_empty() {
                let name = self.keep(crate::edit::checkpoint::Checkpoint {
                    dir: None,
                    files: r.before,
                });
                text.push_str(&format!("checkpoint: {name} (before this change)\n"));
            }
            let mut a = Answered::text(text, json);
            a.errors = r.errors;
            a
        })
    }
}
