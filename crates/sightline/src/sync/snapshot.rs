//! Snapshots of files as a question reads them from disk, each read once
//! while it stays the same on disk.
//!
//! A question's file is read again only when its stat stamp (size, times,
//! inode) differs from the last read's. Reading and indexing a 3,000-line
//! file on every question cost more than the server's answer in the replay
//! benchmark (README, "Replay"). A file's times have the kernel clock's
//! coarse grain, so a second write of the same size within one tick keeps the
//! stamp: a read is reused only when the file had not changed for
//! [`SETTLED`] when it was read, after which any later write shows in the
//! stamp.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sightline_lsp::LineIndex;

use crate::error::ToolError;
use crate::files::AbsPath;

/// How long a file must have been unchanged when read for the read to be
/// reused; far above any file system's timestamp grain.
const SETTLED: Duration = Duration::from_millis(100);

/// Text kept for reuse, in bytes; past this the cache starts over. The
/// open documents share their text with it, so this bounds what sightline
/// holds beyond them (its own memory stays small: README, "Replay").
const KEPT_BYTES: usize = 4 << 20;

/// A file as it was on disk when a question read it: its normalized path
/// and its text with a line index, checked to be an absolute path to UTF-8
/// text.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The file's path, absolute and canonical.
    pub path: AbsPath,
    /// Its whole text, indexed by line; shared with the open document and
    /// the cache, never copied.
    pub index: Arc<LineIndex>,
}

/// What stat says of a file; equal stamps mean an unchanged file, given
/// [`SETTLED`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    ino: u64,
    dev: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            ino: meta.ino(),
            dev: meta.dev(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

#[derive(Default)]
struct Cache {
    reads: HashMap<PathBuf, (Stamp, Arc<LineIndex>)>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cached(path: &Path, stamp: Stamp) -> Option<Arc<LineIndex>> {
    let cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (kept, index) = cache.as_ref()?.reads.get(path)?;
    (*kept == stamp).then(|| index.clone())
}

fn keep(path: &Path, stamp: Stamp, modified: Option<SystemTime>, index: &Arc<LineIndex>) {
    let settled = modified
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .is_some_and(|age| age >= SETTLED);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let cache = cache.get_or_insert_with(Cache::default);
    if let Some((_, old)) = cache.reads.remove(path) {
        cache.bytes -= old.text().len();
    }
    let size = index.text().len();
    if !settled || size > KEPT_BYTES / 4 {
        return;
    }
    if cache.bytes + size > KEPT_BYTES {
        cache.reads.clear();
        cache.bytes = 0;
    }
    cache.bytes += size;
    cache.reads.insert(path.to_owned(), (stamp, index.clone()));
}

impl Snapshot {
    /// Reads `file`, or says in one `error:` line why it cannot be a
    /// question's subject: a relative path, missing, a directory, binary, or
    /// not UTF-8.
    pub fn read(file: &Path) -> Result<Snapshot, ToolError> {
        let given = AbsPath::new(file)?;
        let shown = file.display();
        let meta = std::fs::metadata(file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::BadInput(format!("file not found: {shown}")),
            _ => ToolError::BadInput(format!("cannot read {shown}: {e}")),
        })?;
        if meta.is_dir() {
            return Err(ToolError::BadInput(format!(
                "{shown} is a directory, not a file"
            )));
        }
        let path = given.canonical();
        let stamp = Stamp::of(&meta);
        if let Some(index) = cached(path.as_path(), stamp) {
            return Ok(Snapshot { path, index });
        }
        let bytes = std::fs::read(file)
            .map_err(|e| ToolError::BadInput(format!("cannot read {shown}: {e}")))?;
        let head = &bytes[..bytes.len().min(8192)];
        if head.contains(&0) {
            return Err(ToolError::BadInput(format!(
                "{shown} is a binary file, not source text"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| ToolError::BadInput(format!("{shown} is not valid UTF-8 text")))?;
        let index = Arc::new(LineIndex::new(text));
        // The stamp taken before the read describes what was read only if
        // nothing wrote in between; a write then changes the stamp seen by
        // the next question, which reads again.
        keep(path.as_path(), stamp, meta.modified().ok(), &index);
        Ok(Snapshot { path, index })
    }

    /// The file's whole text.
    pub fn text(&self) -> &str {
        self.index.text()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn age(path: &Path, by: Duration) {
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - by).unwrap();
    }

    #[test]
    fn a_settled_file_is_read_once_and_any_write_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.py");
        std::fs::write(&p, "x = 1\n").unwrap();
        age(&p, Duration::from_secs(5));
        let first = Snapshot::read(&p).unwrap();
        let again = Snapshot::read(&p).unwrap();
        assert!(
            Arc::ptr_eq(&first.index, &again.index),
            "a settled file was read again"
        );
        // Same size, in place: the stamp's times change.
        std::fs::write(&p, "x = 2\n").unwrap();
        assert_eq!(Snapshot::read(&p).unwrap().text(), "x = 2\n");
    }

    #[test]
    fn a_file_written_just_now_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.py");
        std::fs::write(&p, "x = 1\n").unwrap();
        let read = Snapshot::read(&p).unwrap();
        // A second write of the same size within the clock's grain could
        // leave this very stamp; so nothing is kept for it.
        let stamp = Stamp::of(&std::fs::metadata(&p).unwrap());
        assert!(cached(read.path.as_path(), stamp).is_none());
        age(&p, Duration::from_secs(5));
        let settled = Snapshot::read(&p).unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&p).unwrap());
        let kept = cached(settled.path.as_path(), stamp).unwrap();
        assert!(Arc::ptr_eq(&kept, &settled.index));
    }
}
