//! The server's copy of each file, kept equal to disk: before a question, every
//! file it touches is compared by content hash with what the server holds; a
//! changed file gets `didChange` with the full text and the next version, an
//! unseen one `didOpen`. Few documents stay open, because servers re-check every
//! open document after each change.

use std::path::Path;
use std::sync::Arc;

use sightline_lsp::LineIndex;

use crate::error::ToolError;
use crate::server::LspServer;
use crate::sync::FileView;

mod table;

pub(crate) use table::Asking;
pub use table::{Doc, Documents, Synced};

impl LspServer {
    /// Marks `path` as asked about until the guard is dropped.
    pub(crate) fn asking(&self, path: &Path) -> Asking<'_> {
        *self.docs().asked.entry(path.to_owned()).or_default() += 1;
        Asking {
            server: self,
            path: path.to_owned(),
        }
    }

    /// How many documents this server keeps open at once.
    pub fn open_limit(&self) -> usize {
        // Three at least: a loose file's references open other files in
        // groups beside it, which needs room for the asked file and one more.
        self.budgets
            .open_documents
            .unwrap_or(self.spec.open_documents)
            .max(3)
    }

    /// Makes the server's copy of `path` equal to `text` (read by the caller
    /// as `files` sees it: the disk's, or a dry run's staged text), and
    /// re-checks every other open document against disk so that edits made
    /// by anything else are seen.
    pub fn sync(
        &self,
        path: &Path,
        text: &Arc<LineIndex>,
        files: &FileView,
    ) -> Result<Doc, ToolError> {
        self.tell(path, text, files, !files.is_dry_run())
    }

    /// [`Self::sync`] of the disk's text of a file no question named (one an
    /// answer or a request points to): with no save while the server holds
    /// a dry run's text, whose calls this may come from, since a check on
    /// save would read the disk, not what the server holds.
    pub(crate) fn sync_unasked(
        &self,
        path: &Path,
        text: &Arc<LineIndex>,
    ) -> Result<Doc, ToolError> {
        let saves = !self.docs().holds_any_dry_run_text();
        self.tell(path, text, &FileView::default(), saves)
    }

    /// Tells the server the disk's text of `path` again after a dry run,
    /// with no save: the last check on save already read the disk.
    pub(crate) fn restore(&self, path: &Path, text: &Arc<LineIndex>) -> Result<Doc, ToolError> {
        self.tell(path, text, &FileView::default(), false)
    }

    /// Tells `text` of `path`, the other open documents changed on disk read
    /// as `files` sees them; `saves`: a server that checks on save is sent
    /// `didSave` after a change (never in a dry run, whose texts are not on
    /// disk where the check reads).
    fn tell(
        &self,
        path: &Path,
        text: &Arc<LineIndex>,
        files: &FileView,
        saves: bool,
    ) -> Result<Doc, ToolError> {
        let staged = files.staged(path).is_some();
        let (seq, pushes) = self
            .state
            .with(|s| (s.seq, s.pushes.get(path).map_or(0, |p| p.count)));
        let (all_changed, changed) = self.send_disk_changes()?;
        let mut docs = self.docs();
        let push_only = self.pull_identifiers().is_empty();
        if push_only && !changed.is_empty() {
            for other in docs.open_paths() {
                if !changed.contains(&other) {
                    docs.stale.insert(other);
                }
            }
        }
        // An open document is re-read only when the watch reported it changed,
        // or when the watch cannot see its directory at all.
        for other in docs.open_paths() {
            let unseen = self.watch.as_ref().is_none_or(|w| !w.covers(&other));
            if other == path
                || !(unseen || all_changed.contains(&other))
                || docs.holds_dry_run_text(&other)
            {
                continue;
            }
            // A dry run's staged file reads as staged: the agent-edit check
            // holds a file's text before the edit while the disk has the
            // edit's, and its open copy must not take the disk's meanwhile.
            match files.read(&other) {
                Ok(t) => {
                    let other_staged = files.staged(&other).is_some();
                    let other_pushes = self
                        .state
                        .with(|s| s.pushes.get(&other).map_or(0, |p| p.count));
                    docs.sync(
                        &self.client,
                        &other,
                        (&t.index, other_staged),
                        (seq, other_pushes),
                        self.open_limit(),
                        || self.opening_counts(&other),
                    )?;
                }
                Err(_) => docs.close(&self.client, &other)?,
            }
        }
        docs.close_idle(&self.client, self.budgets.idle_document)?;
        // A file first opened with a dry run's held text, not the disk's:
        // it is opened with the disk's text and then changed. pyright
        // 1.1.414 answered a pull of a file importing it with `unchanged`
        // after such an open, its result still the one computed with the
        // disk's text (an agent's edit heard as old); a change makes it
        // check the importers again, and marks the others stale here.
        if staged
            && !docs.open_paths().iter().any(|p| p == path)
            && let Ok(disk) = std::fs::read_to_string(path)
            && disk != text.text()
        {
            docs.sync(
                &self.client,
                path,
                (&Arc::new(LineIndex::new(disk)), false),
                (seq, pushes),
                self.open_limit(),
                || self.opening_counts(path),
            )?;
        }
        let (mut doc, how) = docs.sync(
            &self.client,
            path,
            (text, staged),
            (seq, pushes),
            self.open_limit(),
            || self.opening_counts(path),
        )?;
        // Another open document's last publish came before this change,
        // which may alter its findings too (pyright checks open files
        // against the open text of what they import): only a publish after
        // it counts. A change on disk is marked above; this is one made in
        // memory (a dry run's, or the disk's text told again after it).
        if how == Synced::Changed && push_only {
            for other in docs.open_paths() {
                if other != path {
                    docs.stale.insert(other);
                }
            }
        }
        // Opened with text the watch could not have seen change (a path it
        // does not cover): what the server sees may have changed, so no
        // kept definition counts (`answer_cache`), even where opening alone would
        // change nothing.
        if how == Synced::Opened && self.watch.as_ref().is_none_or(|w| !w.covers(path)) {
            docs.generation += 1;
        }
        // Another file changed on disk: a push server's last publish for this
        // unchanged version may predate it (gopls kept a fixed dependency's
        // error), so the same text goes again as a new version and only a
        // publish for that one counts. A pull is computed when asked.
        let stale = docs.stale.remove(path);
        if how == Synced::Unchanged
            && stale
            && push_only
            && let Some(touched) = docs.touch(&self.client, path, seq, pushes)?
        {
            doc = touched;
        }
        // A check on save runs when content changed: this file, or any file
        // on disk (rust-analyzer re-reads those through the watch, but its
        // last `cargo check` saw the old ones). Opening an unchanged file is
        // no save: the first diagnostics question saves when nothing has
        // (`save_once`). Saving at the first open started a `cargo check`
        // beside rust-analyzer's loading of the workspace, and a first
        // definition waited for the two sharing the cores.
        if saves && (how == Synced::Changed || !changed.is_empty()) {
            self.save(path)?;
        }
        if how != Synced::Unchanged {
            tracing::debug!(
                "{}: {how:?} {} (version {})",
                self.spec.id,
                path.display(),
                doc.version
            );
        }
        Ok(doc)
    }

    /// Whether opening or closing `path` can change what this server
    /// answers about other files (`ReferencesQuirks::open_changes_answers`): not for a
    /// file of a project whose server reads the project from disk
    /// (`OutsideProject::project_ignores_opens`).
    fn opening_counts(&self, path: &Path) -> bool {
        let quirks = self.spec.quirks;
        quirks.references.open_changes_answers
            && !quirks.references.outside_project.is_some_and(|l| {
                l.project_ignores_opens && crate::project::in_project(path, &self.root, l.project)
            })
    }

    /// Closes `path`, a file no longer on disk (or never written, after a
    /// dry run that created it).
    pub(crate) fn close(&self, path: &Path) -> Result<(), ToolError> {
        self.docs().close(&self.client, path)?;
        Ok(())
    }

    /// Whether the server holds `path` open (without copying its text, as
    /// [`Self::held`] does).
    pub(crate) fn holds(&self, path: &Path) -> bool {
        self.docs().get(path).is_some()
    }

    /// The version and text of `path` as the server holds it, if open.
    pub(crate) fn held(&self, path: &Path) -> Option<(i32, String)> {
        self.docs()
            .get(path)
            .map(|d| (d.version, d.index.text().to_owned()))
    }
}
