//! The table of documents a server holds open: their versions, what was
//! sent, and the guard that keeps a document asked about open.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use sightline_lsp::notification;
use sightline_lsp::path_to_uri_string;
use sightline_lsp::{Client, LineIndex};

use crate::catalog::language_id;
use crate::server::LspServer;

/// One document as the server holds it.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The version last sent.
    pub version: i32,
    /// Its text, indexed by line.
    pub index: Arc<LineIndex>,
    /// Server message count when the document was opened.
    pub opened_seq: u64,
    /// Server message count when the latest content was sent.
    pub changed_seq: u64,
    /// Pushes the file had had when the latest content was sent.
    pub pushes_at_change: u64,
    /// When the latest content was sent.
    pub changed_at: Instant,
    last_used: Instant,
    /// Its opening and closing count in `Documents::opens`.
    opening_counts: bool,
    /// Its text is a dry run's, held in memory (`FileView`), not the
    /// disk's: it stays open, as told, until the disk's text is told again
    /// (closed, the server would fall back to its disk text, and the files
    /// checked after would be answered for that).
    dry_run_text: bool,
}

/// The documents a server holds open, and the versions sent.
#[derive(Debug, Default)]
pub struct Documents {
    docs: HashMap<PathBuf, Doc>,
    /// The last version sent for each path, kept after `didClose` so that a
    /// reopened document never reuses a version an old publish may carry.
    versions: HashMap<PathBuf, i32>,
    /// Counts changes of content the server sees: a document changed or
    /// deleted, or files changed on disk (`answer_cache`).
    pub generation: u64,
    /// Counts documents opened, and closed while their file still exists,
    /// with the disk's text, where that can change an answer
    /// (`ReferencesQuirks::open_changes_answers`, `OutsideProject::project_ignores_opens`).
    pub opens: u64,
    /// Open documents of a push server whose last publish may predate a
    /// change on disk of another file: each is sent again (`touch`) when
    /// next asked about, though the question that saw the change was about
    /// another file.
    pub stale: std::collections::HashSet<PathBuf>,
    /// Documents with a request in flight, and how many: the open-document
    /// limit never closes one (clangd fails a request whose document is
    /// closed before it answers).
    pub(super) asked: HashMap<PathBuf, usize>,
}

/// What a sync did.
#[derive(Debug, PartialEq, Eq)]
pub enum Synced {
    /// The server already held this text.
    Unchanged,
    /// It was opened (`didOpen`).
    Opened,
    /// Its text was sent anew (`didChange`).
    Changed,
}

impl Documents {
    /// The open document of `path`.
    pub fn get(&self, path: &Path) -> Option<&Doc> {
        self.docs.get(path)
    }

    /// Whether any document has been opened since the server started.
    pub fn ever_opened(&self) -> bool {
        !self.versions.is_empty()
    }

    /// The paths of the open documents.
    pub fn open_paths(&self) -> Vec<PathBuf> {
        self.docs.keys().cloned().collect()
    }

    /// Whether any open document holds a dry run's text: one runs.
    pub fn holds_any_dry_run_text(&self) -> bool {
        self.docs.values().any(|d| d.dry_run_text)
    }

    /// Whether the open document of `path` holds a dry run's text.
    pub fn holds_dry_run_text(&self, path: &Path) -> bool {
        self.docs.get(path).is_some_and(|d| d.dry_run_text)
    }

    /// Makes the server's copy of `path` equal to `text` (`staged`: a dry
    /// run's), keeping at most `max_open` documents open. `seq` and `pushes`
    /// are the server's message count and the file's push count right now;
    /// `opening_counts` says, when it is opened, whether opening or closing
    /// it can change the server's answers (asked only then: it stats the
    /// file's directories).
    pub fn sync(
        &mut self,
        client: &Client,
        path: &Path,
        (text, staged): (&Arc<LineIndex>, bool),
        (seq, pushes): (u64, u64),
        max_open: usize,
        opening_counts: impl FnOnce() -> bool,
    ) -> Result<(Doc, Synced), sightline_lsp::ClientError> {
        let uri = path_to_uri_string(path).unwrap_or_default();
        if let Some(doc) = self.docs.get_mut(path) {
            doc.last_used = Instant::now();
            doc.dry_run_text = staged;
            // The same snapshot (a file unchanged on disk) is the same
            // index; other text is compared only when its length matches.
            if Arc::ptr_eq(&doc.index, text) || doc.index.text() == text.text() {
                doc.index = text.clone();
                return Ok((doc.clone(), Synced::Unchanged));
            }
            doc.index = text.clone();
            self.generation += 1;
            let doc = change(doc, &mut self.versions, client, path, seq, pushes)?;
            return Ok((doc, Synced::Changed));
        }
        self.evict(client, max_open.saturating_sub(1))?;
        let opening_counts = opening_counts();
        self.opens += u64::from(opening_counts);
        let version = self.versions.get(path).map_or(1, |v| v + 1);
        self.versions.insert(path.to_owned(), version);
        client.notify_of::<notification::DidOpenTextDocument>(json!({
                "textDocument": { "uri": uri, "languageId": language_id(path), "version": version, "text": text.text() },
            }),
        )?;
        let doc = Doc {
            version,
            index: text.clone(),
            opened_seq: seq,
            changed_seq: seq,
            pushes_at_change: pushes,
            changed_at: Instant::now(),
            last_used: Instant::now(),
            opening_counts,
            dry_run_text: staged,
        };
        self.docs.insert(path.to_owned(), doc.clone());
        Ok((doc, Synced::Opened))
    }

    /// Sends an open document's current text again as a new version, so
    /// that only results computed from now on count for it: a file it
    /// depends on changed on disk, and a push server would otherwise be
    /// taken at its word for the unchanged version.
    pub fn touch(
        &mut self,
        client: &Client,
        path: &Path,
        seq: u64,
        pushes: u64,
    ) -> Result<Option<Doc>, sightline_lsp::ClientError> {
        let Some(doc) = self.docs.get_mut(path) else {
            return Ok(None);
        };
        self.generation += 1;
        change(doc, &mut self.versions, client, path, seq, pushes).map(Some)
    }

    /// Closes a document that no longer exists on disk.
    pub fn close(
        &mut self,
        client: &Client,
        path: &Path,
    ) -> Result<(), sightline_lsp::ClientError> {
        self.close_as(client, path, true)
    }

    /// Closes a document; `deleted` when its file is gone, so what the
    /// server sees of it changes.
    fn close_as(
        &mut self,
        client: &Client,
        path: &Path,
        deleted: bool,
    ) -> Result<(), sightline_lsp::ClientError> {
        self.stale.remove(path);
        if let Some(doc) = self.docs.remove(path) {
            if deleted {
                self.generation += 1;
            } else {
                self.opens += u64::from(doc.opening_counts);
            }
            let uri = path_to_uri_string(path).unwrap_or_default();
            client.notify_of::<notification::DidCloseTextDocument>(
                json!({ "textDocument": { "uri": uri } }),
            )?;
        }
        Ok(())
    }

    /// Closes documents not used for `idle`.
    pub fn close_idle(
        &mut self,
        client: &Client,
        idle: std::time::Duration,
    ) -> Result<(), sightline_lsp::ClientError> {
        let stale: Vec<PathBuf> = self
            .docs
            .iter()
            .filter(|(_, d)| d.last_used.elapsed() >= idle && !d.dry_run_text)
            .map(|(p, _)| p.clone())
            .collect();
        for path in stale {
            tracing::debug!("closing idle document {}", path.display());
            self.close_as(client, &path, false)?;
        }
        Ok(())
    }

    /// Closes the least recently used documents until at most `keep` are
    /// open, passing over those being asked about: while every one is,
    /// the limit is exceeded until their answers are in.
    fn evict(&mut self, client: &Client, keep: usize) -> Result<(), sightline_lsp::ClientError> {
        while self.docs.len() > keep {
            let Some(oldest) = self
                .docs
                .iter()
                // A dry run's staged file stays open until it ends.
                .filter(|(p, d)| !self.asked.contains_key(*p) && !d.dry_run_text)
                .min_by_key(|(_, d)| d.last_used)
                .map(|(p, _)| p.clone())
            else {
                break;
            };
            self.close_as(client, &oldest, false)?;
        }
        Ok(())
    }
}

/// A request in flight about a document (`LspServer::asking`): until it
/// is dropped, the open-document limit does not close the document.
pub(crate) struct Asking<'a> {
    pub(super) server: &'a LspServer,
    pub(super) path: PathBuf,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let limit = self.server.open_limit();
        let mut docs = self.server.docs();
        if let Some(n) = docs.asked.get_mut(&self.path) {
            *n -= 1;
            if *n == 0 {
                docs.asked.remove(&self.path);
            }
        }
        // Back under the limit once nothing passed over is being asked
        // about; a server gone meanwhile has nothing to close.
        let _ = docs.evict(&self.server.client, limit);
    }
}

/// Sends `didChange` with the document's text (already updated) under the
/// next version.
fn change(
    doc: &mut Doc,
    versions: &mut HashMap<PathBuf, i32>,
    client: &Client,
    path: &Path,
    seq: u64,
    pushes: u64,
) -> Result<Doc, sightline_lsp::ClientError> {
    doc.version += 1;
    versions.insert(path.to_owned(), doc.version);
    let uri = path_to_uri_string(path).unwrap_or_default();
    client.notify_of::<notification::DidChangeTextDocument>(json!({
        "textDocument": { "uri": uri, "version": doc.version },
        "contentChanges": [{ "text": doc.index.text() }],
    }))?;
    doc.changed_seq = seq;
    doc.pushes_at_change = pushes;
    doc.changed_at = Instant::now();
    Ok(doc.clone())
}
