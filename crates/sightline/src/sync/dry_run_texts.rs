//! What a dry run's edit would write, held in memory for the task that
//! previews it: while [`scope`] runs, every read of a question's file in that
//! task ([`crate::sync::Snapshot::read`], the edit check's own reads) sees
//! the staged text instead of the disk's, so the servers are told it with
//! `didChange` and answer for it. Other tasks (another session's
//! questions) read the disk as always, and wait for a dry run's turn to end
//! (`own_turn`), since the servers are shared. Nothing here writes a file.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sightline_lsp::LineIndex;

/// The staged files of one dry run: a text, or `None` for a file the edit
/// deletes.
type TextsInMemory = HashMap<PathBuf, Option<Arc<LineIndex>>>;

/// One dry run's staged files, shared between the task that previews and
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

tokio::task_local! {
    static PREVIEW: DryRunFiles;
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

/// Runs `work` as a dry run: [`stage`] inside it holds text in `held`
/// instead of writing it.
pub async fn scope<T>(held: &DryRunFiles, work: impl Future<Output = T>) -> T {
    PREVIEW.scope(held.clone(), work).await
}

fn lock(p: &Mutex<TextsInMemory>) -> std::sync::MutexGuard<'_, TextsInMemory> {
    p.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether this task runs a dry run.
pub fn active() -> bool {
    PREVIEW.try_with(|_| ()).is_ok()
}

/// Holds `text` (or a deletion) for `path` in this task's dry run; false
/// when no dry run runs here (the caller writes the disk then).
pub fn stage(path: &Path, text: Option<String>) -> bool {
    // Keyed as `Snapshot::read` looks it up: a patch's path is as the
    // agent wrote it (`..`, a link).
    let path = sightline_lsp::normalize(path);
    PREVIEW
        .try_with(|p| {
            lock(&p.0).insert(path, text.map(|t| Arc::new(LineIndex::new(t))));
        })
        .is_ok()
}

/// Runs `f` as a dry run's task does, but staging nothing: no `didSave`
/// is sent (the disk's text told again after a preview is what the last
/// check on save already saw).
pub fn without_saves<T>(f: impl FnOnce() -> T) -> T {
    PREVIEW.sync_scope(DryRunFiles::default(), f)
}

/// The staged text of `path` in this task's dry run: `Some(Some(text))`,
/// `Some(None)` for a file it deletes, `None` when it stages nothing there
/// (the disk answers).
pub fn staged(path: &Path) -> Option<Option<Arc<LineIndex>>> {
    PREVIEW
        .try_with(|p| {
            let staged = lock(&p.0);
            if staged.is_empty() {
                return None;
            }
            staged
                .get(path)
                .or_else(|| staged.get(&sightline_lsp::normalize(path)))
                .cloned()
        })
        .ok()
        .flatten()
}

/// `path`'s text as this task's questions see it: a dry run's staged text,
/// or the disk's (empty when unreadable).
pub fn read_text(path: &Path) -> String {
    if let Some(staged) = staged(path) {
        return staged.map(|i| i.text().to_owned()).unwrap_or_default();
    }
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn staged_text_is_seen_only_inside_the_dry_run() {
        let path = Path::new("/p/a.py");
        assert!(!stage(path, Some("x".into())), "no dry run outside a scope");
        let held = DryRunFiles::default();
        scope(&held, async {
            assert!(active());
            assert!(stage(path, Some("new\n".into())));
            assert!(stage(Path::new("/p/gone.py"), None));
            assert_eq!(staged(path).unwrap().unwrap().text(), "new\n");
            assert!(staged(Path::new("/p/gone.py")).unwrap().is_none());
            assert!(staged(Path::new("/p/other.py")).is_none());
            // Another task does not see it.
            let other = tokio::spawn(async { staged(Path::new("/p/a.py")).is_none() && !active() });
            assert!(other.await.unwrap());
        })
        .await;
        let mut paths = held.paths();
        paths.sort();
        assert_eq!(
            paths,
            [PathBuf::from("/p/a.py"), PathBuf::from("/p/gone.py")]
        );
        assert!(!active());
        assert!(staged(path).is_none());
    }
}
