//! The diagnostics question: every server attached to a file is asked, and
//! their findings merged; or one server's whole-workspace check.

use std::path::Path;

use crate::answer::{Diagnostics, Finding};
use crate::engine::Engine;
use crate::error::ToolError;

impl Engine {
    /// The diagnostics of `file` as it is on disk now, from every server
    /// attached to it, merged.
    pub async fn diagnostics(&self, file: &Path) -> Result<Diagnostics, ToolError> {
        let checked = self.snapshot(file)?;
        let routes = self.route_all(&checked)?;
        let answers = futures_util::future::join_all(routes.iter().map(|(spec, root)| async {
            let server = self.shared.pool.get(spec, root).await?;
            let restarted = server.take_note();
            let doc = server.sync(&checked.path, &checked.index, self.files())?;
            let (findings, note) = server
                .diagnostics(&checked.path, &doc, self.files())
                .await?;
            Ok::<_, ToolError>((
                server.root.clone(),
                findings,
                restarted.into_iter().chain(note),
            ))
        }))
        .await;
        let mut findings = Vec::new();
        let mut notes = Vec::new();
        let mut root = None;
        let mut first_error = None;
        let many = answers.len() > 1;
        for (answer, (spec, _)) in answers.into_iter().zip(&routes) {
            match answer {
                Ok((r, mut f, note)) => {
                    root.get_or_insert(r);
                    findings.append(&mut f);
                    notes.extend(note);
                }
                // With several servers, one that fails is a note, not the answer.
                Err(e) if many => {
                    notes.push(format!("{}: {e}", spec.id));
                    first_error.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        let Some(root) = root else {
            return Err(first_error.unwrap_or_else(|| ToolError::server("no server answered")));
        };
        tidy(&mut findings);
        // Until the project is trusted, say which of its keys were ignored.
        notes.extend(self.config().untrusted_note());
        Ok(Diagnostics {
            file: file.to_owned(),
            root,
            diagnostics: findings,
            notes,
            enclosing: Vec::new(),
        })
    }

    /// The diagnostics of every file in the workspace of `file`, from its
    /// first server's `workspace/diagnostic` (a full check, within that
    /// budget). A server without it answers for `file` alone.
    pub async fn workspace_diagnostics(&self, file: &Path) -> Result<Vec<Diagnostics>, ToolError> {
        let checked = self.snapshot(file)?;
        let (spec, root) = self.route(&checked)?;
        let server = self.shared.pool.get(spec, &root).await?;
        server.sync(&checked.path, &checked.index, self.files())?;
        let Some(files) = server.workspace_diagnostics().await? else {
            return Ok(vec![self.diagnostics(file).await?]);
        };
        Ok(files
            .into_iter()
            .map(|(path, mut findings)| {
                tidy(&mut findings);
                Diagnostics {
                    file: path,
                    root: server.root.clone(),
                    diagnostics: findings,
                    notes: Vec::new(),
                    enclosing: Vec::new(),
                }
            })
            .collect())
    }
}

/// Sorts findings by position and removes duplicates: the same finding
/// pushed and pulled, or reported by two servers, shows once.
fn tidy(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (a.line, a.column, a.severity, &a.message, &a.source)
            .cmp(&(b.line, b.column, b.severity, &b.message, &b.source))
    });
    findings.dedup_by(|a, b| {
        a.line == b.line
            && a.column == b.column
            && a.message == b.message
            && a.severity == b.severity
    });
}
