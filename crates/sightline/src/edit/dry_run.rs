//! An edit's impact without writing it (`dry_run`): the edit runs as it
//! would, but its files are held in memory (`sync::FileView`), the servers
//! are told their new text with `didChange` and asked for the errors, and
//! then told the disk's text again. The answer is the delta the real edit
//! would give, headed `preview: nothing was written`.

use crate::edit::editor::Editor;
use std::future::Future;
use std::path::PathBuf;

use crate::edit::EditAnswer;
use crate::engine::Engine;
use crate::error::ToolError;

/// Puts every server's copy of the previewed files back to the disk's when
/// dropped: after the preview, or when it is dropped half-way (a cancelled
/// call).
struct Restore<'a> {
    engine: &'a Engine,
    held: crate::sync::DryRunFiles,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        self.engine.editor().restore_disk_text(&self.held.paths());
    }
}

/// A dry run's view of an engine ([`Editor::hold_in_memory`]), which runs
/// alone until dropped; then every server is told the disk's text again.
pub(super) struct InMemory<'a> {
    // Dropped first: the servers hold the disk's text again before the
    // turn ends.
    restore: Restore<'a>,
    _turn: tokio::sync::RwLockWriteGuard<'static, ()>,
    /// The view: its reads see the staged texts, its writes stage.
    pub(super) view: Engine,
}

/// An edit's work, boxed ([`Editor::edit_or_preview`]).
pub type BoxedEdit<'a> =
    std::pin::Pin<Box<dyn Future<Output = Result<EditAnswer, ToolError>> + Send + 'a>>;

impl Editor<'_> {
    /// Runs `edit` (one of `write`, `edit`, `apply_patch` or the symbol
    /// edits) as a dry run: the same checks, refusals and error delta,
    /// nothing written, and the servers left holding the disk's text. The
    /// edit is given a view of this engine whose reads see what it stages
    /// and whose writes stage (`Engine::dry_run_view`).
    pub(crate) async fn preview(
        &self,
        edit: impl for<'e> FnOnce(Editor<'e>) -> BoxedEdit<'e>,
    ) -> Result<EditAnswer, ToolError> {
        let held = self.hold_in_memory(Vec::new()).await;
        let answer = edit(held.view.editor()).await;
        let staged = held.restore.held.paths();
        let deletes = held.restore.held.deletes();
        // The servers whose check on save was left out of the answer.
        let on_save: Vec<&str> = self
            .engine
            .running_servers()
            .iter()
            .filter(|s| s.check_on_save && staged.iter().any(|p| s.holds(p)))
            .map(|s| s.spec.id)
            .collect();
        drop(held);
        let mut answer = answer?;
        answer.preview = true;
        for id in on_save {
            answer.notes.push(format!(
                "{id} checks on save, which reads the disk: this preview holds {id}'s own analysis, not its check's errors"
            ));
        }
        if deletes {
            answer.notes.push(
                "a file the edit deletes or moves is still on disk for the servers: what its removal breaks in the files importing it is not in this preview".to_owned(),
            );
        }
        Ok(answer)
    }

    /// A dry run's view of this engine with `texts` staged (`None`: the
    /// file deleted), once the calls before it have ended: alone, since
    /// another call's question would be answered for the staged text, or
    /// would tell a server the disk's text in the middle.
    pub(super) async fn hold_in_memory(
        &self,
        texts: Vec<(PathBuf, Option<String>)>,
    ) -> InMemory<'_> {
        let turn = crate::sync::file_view::own_turn().await;
        let restore = Restore {
            engine: self.engine,
            held: crate::sync::DryRunFiles::default(),
        };
        let view = self.engine.dry_run_view(&restore.held);
        for (path, text) in texts {
            view.files().stage(&path, text);
        }
        view.editor().tell_held_files();
        InMemory {
            restore,
            _turn: turn,
            view,
        }
    }

    /// `edit` run on this engine, or with `dry_run` its preview
    /// ([`Editor::preview`]) run on a dry run's view of it.
    ///
    /// The edit comes boxed: an edit's future is large, and the MCP
    /// dispatch's, holding it beside its preview, overflowed a worker
    /// thread's stack.
    pub(crate) async fn edit_or_preview(
        &self,
        dry_run: bool,
        edit: impl for<'e> FnOnce(Editor<'e>) -> BoxedEdit<'e>,
    ) -> Result<EditAnswer, ToolError> {
        if dry_run {
            self.preview(edit).await
        } else {
            edit(*self).await
        }
    }

    /// Tells every running server that holds a file this view stages open
    /// its staged text, so that no answer in the dry run comes from the
    /// server's older copy: a question about another file reads only those
    /// that changed on disk since the server last looked, and the
    /// agent-edit check holds a text the disk no longer has.
    fn tell_held_files(&self) {
        let held = self.engine.files().paths();
        for server in self.engine.running_servers() {
            for path in held.iter().filter(|p| server.holds(p)) {
                let told = match self.engine.snapshot(path) {
                    Ok(staged) => server
                        .sync(path, &staged.index, self.engine.files())
                        .map(drop),
                    // A file the edit deletes stays as the disk has it (the
                    // preview says so).
                    Err(_) => Ok(()),
                };
                if let Err(e) = told {
                    tracing::warn!(
                        "{}: could not tell {} its dry run's text: {e}",
                        server.spec.id,
                        path.display()
                    );
                }
            }
        }
    }

    /// Tells every running server that holds one of `paths` open its text on
    /// disk again (or closes it, for a file that is not there): a later
    /// question, about that file or any other, is answered for the disk.
    pub(crate) fn restore_disk_text(&self, paths: &[PathBuf]) {
        for server in self.engine.running_servers() {
            for path in paths {
                if !server.holds(path) {
                    continue;
                }
                let restored = match crate::sync::Snapshot::read(path) {
                    Ok(disk) => server.restore(path, &disk.index).map(drop),
                    Err(_) => server.close(path),
                };
                if let Err(e) = restored {
                    tracing::warn!(
                        "{}: could not restore {} after a dry run: {e}",
                        server.spec.id,
                        path.display()
                    );
                }
            }
        }
    }
}
