//! The files as one call reads them ([`FileView`]): the disk's, or with a
//! dry run the texts its edit staged in memory over the disk's. The view is
//! a value that travels with the call (an engine carries one, see
//! `Engine::dry_run_view`); a staged text is seen by that call's reads
//! alone, and the servers are told it with `didChange` and answer for it.
//! Another session's calls read the disk as always, and wait for a dry
//! run's turn to end ([`own_turn`]), since the servers are shared. Nothing
//! here writes a file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sightline_lsp::LineIndex;

use crate::error::ToolError;
use crate::sync::Snapshot;

/// The staged files of one dry run: a text, or `None` for a file the edit
/// deletes.
type TextsInMemory = HashMap<PathBuf, Option<Arc<LineIndex>>>;

/// One dry run's staged files, shared between the call that previews and
/// the caller that puts the servers back afterwards (also when the preview
/// is dropped half-way).
#[derive(Clone, Default)]
pub struct DryRunFiles(Arc<Mutex<TextsInMemory>>);

impl DryRunFiles {
    /// The paths staged so far.
    pub fn paths(&self) -> Vec<PathBuf> {
        lock(&self.0).keys().cloned().collect()
    }

    /// Whether a file is staged as deleted.
    pub fn deletes(&self) -> bool {
        lock(&self.0).values().any(Option::is_none)
    }
}

fn lock(p: &Mutex<TextsInMemory>) -> std::sync::MutexGuard<'_, TextsInMemory> {
    p.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The files as one call reads them: the disk's, or a dry run's staged
/// texts over it.
#[derive(Clone, Default)]
pub struct FileView {
    dry_run: Option<DryRunFiles>,
}

impl FileView {
    /// The view of a dry run whose edit stages its files in `files`.
    pub fn dry_run(files: &DryRunFiles) -> FileView {
        FileView {
            dry_run: Some(files.clone()),
        }
    }

    /// The paths this view's dry run stages (none for the disk's view).
    pub fn paths(&self) -> Vec<PathBuf> {
        self.dry_run
            .as_ref()
            .map(DryRunFiles::paths)
            .unwrap_or_default()
    }

    /// Whether this view is a dry run's: its edit writes nothing.
    pub fn is_dry_run(&self) -> bool {
        self.dry_run.is_some()
    }

    /// Holds `text` (or a deletion) for `path` in this view's dry run; false
    /// for the disk's view (the caller writes the disk then).
    pub fn stage(&self, path: &Path, text: Option<String>) -> bool {
        let Some(files) = &self.dry_run else {
            return false;
        };
        // Keyed as `read` looks it up: a patch's path is as the agent wrote
        // it (`..`, a link).
        let path = sightline_lsp::normalize(path);
        lock(&files.0).insert(path, text.map(|t| Arc::new(LineIndex::new(t))));
        true
    }

    /// The staged text of `path`: `Some(Some(text))`, `Some(None)` for a
    /// file the dry run deletes, `None` when it stages nothing there (the
    /// disk answers).
    pub fn staged(&self, path: &Path) -> Option<Option<Arc<LineIndex>>> {
        let staged = lock(&self.dry_run.as_ref()?.0);
        staged
            .get(path)
            .or_else(|| staged.get(&sightline_lsp::normalize(path)))
            .cloned()
    }

    /// Reads `file` as this view sees it: staged, or the disk's
    /// ([`Snapshot::read`]).
    pub fn read(&self, file: &Path) -> Result<Snapshot, ToolError> {
        // Every question reads through here: the disk's view resolves the
        // path once, in `Snapshot::read`, not once more for a lookup.
        if self.dry_run.is_none() {
            return Snapshot::read(file);
        }
        let given = crate::files::AbsPath::new(file)?;
        match self.staged(given.canonical().as_path()) {
            Some(Some(index)) => Ok(Snapshot::in_memory(given.canonical(), index)),
            Some(None) => Err(ToolError::bad_input(format!(
                "file not found: {}",
                file.display()
            ))),
            None => Snapshot::read(file),
        }
    }

    /// `path`'s text as this view sees it: staged, or the disk's (empty
    /// when unreadable).
    pub fn read_text(&self, path: &Path) -> String {
        if let Some(staged) = self.staged(path) {
            return staged.map(|i| i.text().to_owned()).unwrap_or_default();
        }
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }
}

/// The order of dry runs and other calls in this process (the daemon's
/// sessions share their servers): a dry run holds it alone, other calls
/// together.
static TURNS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// A call's turn beside the other calls, after any dry run asked before it.
pub async fn shared_turn() -> tokio::sync::RwLockReadGuard<'static, ()> {
    TURNS.read().await
}

/// A dry run's turn: once the calls before it have ended; those after it
/// wait until it has.
pub async fn own_turn() -> tokio::sync::RwLockWriteGuard<'static, ()> {
    TURNS.write().await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Staged texts and deletions are what the dry run's view reads, over
    /// files that are on disk; the disk's view (another call's) reads the
    /// disk.
    #[test]
    fn staged_text_is_seen_only_through_the_dry_run_s_view() {
        let dir = tempfile::tempdir().unwrap();
        let root = sightline_lsp::normalize(dir.path());
        let (kept, gone) = (root.join("a.py"), root.join("gone.py"));
        std::fs::write(&kept, "disk\n").unwrap();
        std::fs::write(&gone, "still here\n").unwrap();
        let disk = FileView::default();
        assert!(
            !disk.stage(&kept, Some("x".into())),
            "the disk's view stages nothing"
        );
        let files = DryRunFiles::default();
        let view = FileView::dry_run(&files);
        assert!(view.is_dry_run() && !disk.is_dry_run());
        assert!(view.stage(&kept, Some("new\n".into())));
        assert!(view.stage(&gone, None));
        assert_eq!(view.read(&kept).unwrap().index.text(), "new\n");
        assert_eq!(view.read_text(&kept), "new\n");
        let deleted = view.read(&gone).err().unwrap();
        assert!(deleted.message.starts_with("file not found"), "{deleted}");
        assert_eq!(view.read_text(&gone), "");
        assert_eq!(disk.read(&kept).unwrap().index.text(), "disk\n");
        assert_eq!(disk.read_text(&gone), "still here\n");
        let mut paths = files.paths();
        paths.sort();
        assert_eq!(paths, [kept, gone]);
        assert_eq!(view.paths().len(), 2);
        assert!(files.deletes());
    }
}
