//! The last step of every refactoring: a staged plan previewed (recording
//! what the preview showed), or written all or nothing once the files are
//! still as the preview found them, then the errors the changed files have.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use crate::edit::EditAnswer;
use crate::edit::refactor::Refactored;
use crate::edit::workspace::Plan;
use crate::error::ToolError;
use crate::server::LspServer;

impl Editor<'_> {
    /// Previews `plan` (`dry_run`), or checks and writes it, syncs the
    /// servers and lists the errors the changed files have.
    pub(super) async fn finish_plan(
        &self,
        server: &LspServer,
        plan: Plan,
        preview_head: &str,
        applied_head: &str,
        dry_run: bool,
        confirm: bool,
    ) -> Result<Refactored, ToolError> {
        let root = self
            .engine
            .workspace_root()
            .map(Path::to_owned)
            .unwrap_or_else(|| server.root.clone());
        let staged = plan.staged();
        if staged.is_empty() {
            return Ok(format!("{preview_head}\nnothing to change\n").into());
        }
        if dry_run {
            // What the preview showed is what an apply must still find.
            for (path, before) in plan.before() {
                if let Some(b) = before {
                    self.engine.last_read().record(&path, &b);
                }
            }
            return Ok(format!("{preview_head}\n{}", plan.preview(&root)).into());
        }
        if !plan.confirm.is_empty() && !confirm {
            return Err(ToolError::refused(format!(
                "the server marks changes as needing confirmation ({}); preview them with dry_run, then apply with confirm; nothing was changed",
                plan.confirm.join("; ")
            )));
        }
        for (path, before) in plan.before() {
            self.engine
                .last_read()
                .check(&path, before.as_deref())
                .map_err(|_| {
                    ToolError::refused(format!(
                        "{} changed on disk since the preview; nothing was changed, preview again",
                        path.display()
                    ))
                })?;
            if before.is_some()
                && std::fs::metadata(&path).is_ok_and(|m| m.permissions().readonly())
            {
                return Err(ToolError::refused(format!(
                    "{} is read-only; nothing was changed",
                    path.display()
                )));
            }
        }
        let written: Vec<PathBuf> = staged
            .iter()
            .filter(|(_, t)| t.is_some())
            .map(|(p, _)| p.clone())
            .collect();
        let mut answer: EditAnswer = self.commit(staged).await?;
        answer.root = Some(root);
        answer.changes = std::iter::once(applied_head.to_owned())
            .chain(plan.operations.iter().cloned())
            .collect();
        if !written.is_empty() {
            self.check_errors(&mut answer, &written).await;
        }
        Ok(Refactored {
            text: answer.text(),
            errors: answer.brought_errors(),
            before: answer.baseline.states,
        })
    }
}
