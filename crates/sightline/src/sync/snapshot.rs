//! Snapshots of files as a question reads them from disk, each read once
//! while it stays the same on disk.
//!
//! A question's file is read again only when its stat stamp (size, times,
//! inode) differs from the last read's. Reading and indexing a 3,000-line
//! file on every question cost more than the server's answer in the replay
//! benchmark (docs/benchmarks.md, "Replay"). A file's times have the kernel clock's
//! coarse grain, so a second write of the same size within one tick keeps the
//! stamp: a read is reused only when the file had not changed for
//! [`SETTLED`] when it was read, after which any later write shows in the
//! stamp.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sightline_lsp::LineIndex;

use crate::error::ToolError;
use crate::files::AbsPath;

/// How long a file must have been unchanged when read for the read to be
/// reused, on a file system with fine timestamps.
const SETTLED: Duration = Duration::from_millis(100);
/// The same, when the file's times have no nanoseconds: a file system
/// (FAT, old ext4 inodes, some NFS) that rounds times down to seconds.
const SETTLED_COARSE: Duration = Duration::from_secs(3);

/// Text kept for reuse, in bytes; past this the cache starts over. The
/// open documents share their text with it, so this bounds what sightline
/// holds beyond them (its own memory stays small: docs/benchmarks.md, "Replay").
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
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            ino: meta.ino(),
            dev: meta.dev(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Windows has no inode or change time in std's metadata: the length,
    /// the write time and the creation time (a file replaced by a rename
    /// is a new file with its own creation time) stand for them.
    #[cfg(windows)]
    fn of(meta: &std::fs::Metadata) -> Stamp {
        // Seconds and nanoseconds since the Unix epoch, as `settled` reads them.
        let split = |t: std::io::Result<std::time::SystemTime>| {
            let d = t
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            (d.as_secs() as i64, i64::from(d.subsec_nanos()))
        };
        Stamp {
            len: meta.len(),
            ino: 0,
            dev: 0,
            mtime: split(meta.modified()),
            ctime: split(meta.created()),
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

/// Whether a file with `stamp`, statted at `at`, had been unchanged long
/// enough then: the later of its modification and change times (a copy
/// that keeps an old mtime still has a new ctime) is older than the grain.
fn settled(stamp: Stamp, at: SystemTime) -> bool {
    let last = stamp.mtime.max(stamp.ctime);
    let Ok(secs) = u64::try_from(last.0) else {
        return false;
    };
    let nanos = u32::try_from(last.1).unwrap_or(0);
    let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
    let grain = if stamp.mtime.1 == 0 && stamp.ctime.1 == 0 {
        SETTLED_COARSE
    } else {
        SETTLED
    };
    at.duration_since(changed).is_ok_and(|age| age >= grain)
}

fn keep(path: &Path, stamp: Stamp, statted: SystemTime, index: &Arc<LineIndex>) {
    let settled = settled(stamp, statted);
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
    /// A text held in memory for `path`: a dry run's staged one
    /// ([`crate::sync::FileView::read`]).
    pub(crate) fn in_memory(path: AbsPath, index: Arc<LineIndex>) -> Snapshot {
        Snapshot { path, index }
    }

    /// Reads `file` from disk, or says in one `error:` line why it cannot be a
    /// question's subject: a relative path, missing, a directory, binary, or
    /// not UTF-8.
    pub fn read(file: &Path) -> Result<Snapshot, ToolError> {
        let given = AbsPath::new(file)?;
        let shown = file.display();
        let statted = SystemTime::now();
        let meta = std::fs::metadata(file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                ToolError::bad_input(format!("file not found: {shown}"))
            }
            _ => ToolError::bad_input(format!("cannot read {shown}: {e}")),
        })?;
        if meta.is_dir() {
            return Err(ToolError::bad_input(format!(
                "{shown} is a directory, not a file"
            )));
        }
        let path = given.canonical();
        let stamp = Stamp::of(&meta);
        if let Some(index) = cached(path.as_path(), stamp) {
            return Ok(Snapshot { path, index });
        }
        let bytes = std::fs::read(file)
            .map_err(|e| ToolError::bad_input(format!("cannot read {shown}: {e}")))?;
        let head = &bytes[..bytes.len().min(8192)];
        if head.contains(&0) {
            return Err(ToolError::bad_input(format!(
                "{shown} is a binary file, not source text"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| ToolError::bad_input(format!("{shown} is not valid UTF-8 text")))?;
        let index = Arc::new(LineIndex::new(text));
        // The stamp taken before the read describes what was read only if
        // nothing wrote in between; a write then changes the stamp seen by
        // the next question, which reads again.
        keep(path.as_path(), stamp, statted, &index);
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

    /// Sets the file's mtime back, as `cp -p` or `touch -d` do; its ctime
    /// becomes now.
    fn age(path: &Path, by: Duration) {
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - by).unwrap();
    }

    #[test]
    fn a_settled_file_is_read_once_and_any_write_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.py");
        std::fs::write(&p, "x = 1\n").unwrap();
        // Its ctime is now; wait until it is settled (tmpfs and ext4 keep
        // nanoseconds, so 100 ms).
        std::thread::sleep(SETTLED + Duration::from_millis(50));
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
        // An old mtime (`cp -p`, `touch -d`) does not make it settled: its
        // ctime is new.
        age(&p, Duration::from_secs(5));
        let copied = Snapshot::read(&p).unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&p).unwrap());
        assert!(cached(copied.path.as_path(), stamp).is_none());
    }

    #[test]
    fn settled_means_both_times_older_than_the_grain() {
        let now = SystemTime::now();
        let secs = |t: SystemTime| {
            let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap();
            (
                i64::try_from(d.as_secs()).unwrap(),
                i64::from(d.subsec_nanos()) | 1,
            )
        };
        let old = secs(now - Duration::from_secs(10));
        let fresh = secs(now - Duration::from_millis(10));
        let stamp = |mtime, ctime| Stamp {
            len: 1,
            ino: 1,
            dev: 1,
            mtime,
            ctime,
        };
        assert!(settled(stamp(old, old), now));
        assert!(!settled(stamp(old, fresh), now));
        assert!(!settled(stamp(fresh, old), now));
        // Whole seconds only: a coarse file system, which needs 3 s.
        let coarse = |ago: u64| (secs(now - Duration::from_secs(ago)).0, 0);
        assert!(!settled(stamp(coarse(1), coarse(1)), now));
        assert!(settled(stamp(coarse(5), coarse(5)), now));
    }
}
