//! Changes made on disk by anything else, for files a server has read but not
//! opened (pyright caches such files and relies on the client to say they
//! changed). An inotify instance watches every directory of the root; before
//! each question its queue is drained without blocking. The kernel queues an
//! event when the write happens, so every change made before the question is
//! seen by it: no watcher thread, no race, no settle delay.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

/// Directories never watched: dependencies, build output, VCS data, caches.
pub const SKIPPED: &[&str] = &[
    "node_modules",
    ".git",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".tox",
    "dist",
    "build",
];

/// LSP `FileChangeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A file appeared.
    Created = 1,
    /// A file's content changed.
    Changed = 2,
    /// A file went away.
    Deleted = 3,
}

/// A watch on every directory of a root (but the `SKIPPED` ones).
pub struct DiskWatch {
    inner: Mutex<Inner>,
}

struct Inner {
    inotify: Inotify,
    dirs: HashMap<WatchDescriptor, PathBuf>,
    /// The same directories, for `covers` on every question.
    watched: HashSet<PathBuf>,
}

fn mask() -> WatchMask {
    WatchMask::CLOSE_WRITE
        | WatchMask::MODIFY
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
}

impl Inner {
    fn add_tree(&mut self, dir: &Path) {
        let mut stack = vec![dir.to_owned()];
        while let Some(d) = stack.pop() {
            match self.inotify.watches().add(&d, mask()) {
                Ok(wd) => {
                    self.dirs.insert(wd, d.clone());
                    self.watched.insert(d.clone());
                }
                Err(e) => {
                    tracing::debug!("cannot watch {}: {e}", d.display());
                    continue;
                }
            }
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                let name = e.file_name();
                if is_dir && !SKIPPED.iter().any(|s| name == *s) {
                    stack.push(e.path());
                }
            }
        }
    }
}

impl DiskWatch {
    /// Watches every directory under `root`.
    pub fn new(root: &Path) -> std::io::Result<DiskWatch> {
        let mut inner = Inner {
            inotify: Inotify::init()?,
            dirs: HashMap::new(),
            watched: HashSet::new(),
        };
        inner.add_tree(root);
        Ok(DiskWatch {
            inner: Mutex::new(inner),
        })
    }

    /// Whether changes to `path` reach [`DiskWatch::drain`]: its directory is
    /// watched (not skipped, not past the watch limit).
    pub fn covers(&self, path: &Path) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        self.inner
            .lock()
            .is_ok_and(|inner| inner.dirs.values().any(|d| d == dir))
    }

    /// Every change queued since the last call, oldest first, one per path.
    pub fn drain(&self) -> Vec<(PathBuf, Change)> {
        let Ok(mut inner) = self.inner.lock() else {
            return Vec::new();
        };
        let mut buffer = [0u8; 16 * 1024];
        let mut out: Vec<(PathBuf, Change)> = Vec::new();
        let mut new_dirs = Vec::new();
        loop {
            let events = match inner.inotify.read_events(&mut buffer) {
                Ok(events) => events,
                // WouldBlock: the queue is empty.
                Err(_) => break,
            };
            let mut any = false;
            for ev in events {
                any = true;
                if ev.mask.contains(EventMask::Q_OVERFLOW) {
                    tracing::warn!(
                        "file watch queue overflowed; some external edits may be missed"
                    );
                    continue;
                }
                let (Some(dir), Some(name)) = (inner.dirs.get(&ev.wd), ev.name) else {
                    continue;
                };
                let path = dir.join(name);
                if ev.mask.contains(EventMask::ISDIR) {
                    if ev.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
                        && !SKIPPED.iter().any(|s| name == *s)
                    {
                        new_dirs.push(path);
                    }
                    continue;
                }
                let change = if ev.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                    Change::Created
                } else if ev
                    .mask
                    .intersects(EventMask::DELETE | EventMask::MOVED_FROM)
                {
                    Change::Deleted
                } else {
                    Change::Changed
                };
                match out.iter_mut().find(|(p, _)| *p == path) {
                    // A file created then written is still a creation.
                    Some((_, c)) if *c == Change::Created && change == Change::Changed => {}
                    Some((_, c)) => *c = change,
                    None => out.push((path, change)),
                }
            }
            if !any {
                break;
            }
        }
        for d in new_dirs {
            inner.add_tree(&d);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sees_every_change_made_before_the_drain() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "1").unwrap();
        let w = DiskWatch::new(&root).unwrap();
        assert!(w.drain().is_empty());
        assert!(w.covers(&root.join("pkg/a.py")));
        assert!(!w.covers(&root.join("node_modules/x/ignored.js")));
        std::fs::write(root.join("pkg/a.py"), "2").unwrap();
        std::fs::write(root.join("b.py"), "new").unwrap();
        std::fs::write(root.join("node_modules/x/ignored.js"), "").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let got = w.drain();
        assert_eq!(
            got,
            vec![
                (root.join("pkg/a.py"), Change::Changed),
                (root.join("b.py"), Change::Created)
            ]
        );
        // The new directory is watched from the drain that saw it.
        std::fs::write(root.join("sub/c.py"), "").unwrap();
        std::fs::remove_file(root.join("b.py")).unwrap();
        assert_eq!(
            w.drain(),
            vec![
                (root.join("sub/c.py"), Change::Created),
                (root.join("b.py"), Change::Deleted)
            ]
        );
    }
}
