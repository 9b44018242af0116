//! Changes made on disk by anything else, for files a server has read but not
//! opened (pyright caches such files and relies on the client to say they
//! changed). The platform's backend (`backend`: inotify on Linux, `notify`
//! elsewhere) watches every directory of the root that `.gitignore` and the
//! fixed skip list leave, plus the top level of the directories packages are
//! installed into; before each question its queue is drained without
//! blocking. On Linux the kernel queues an event when the write happens, so
//! every change made before the question is seen by it: no watcher thread,
//! no race, no settle delay. A burst (a branch switch) is drained as one
//! batch, one change per path.
//!
//! Past the watch limit (the kernel's, or `SIGHTLINE_WATCH_LIMIT`), the rest
//! of the directories are polled at each drain instead: slower, never
//! blind, and said once in the log and in `sightline servers`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use backend::{AddError, Event, Kind};
#[cfg(target_os = "linux")]
use inotify::{Backend, Id};
#[cfg(not(target_os = "linux"))]
use notify::{Backend, Id};

mod backend;
#[cfg(target_os = "linux")]
mod inotify;
#[cfg(not(target_os = "linux"))]
mod notify;
mod poll;

/// Directories never walked: dependencies, build output, VCS data, caches
/// (whether or not a `.gitignore` names them).
pub const SKIPPED: &[&str] = &[
    "node_modules",
    ".git",
    ".hg",
    ".svn",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".tox",
    "dist",
    "build",
];

/// Where installs land, relative to the root; `*` is one path component.
/// Only their top level is watched, so that `pip install x` or `npm install
/// @types/x` is seen (a package directory appears) without watching every
/// file of every dependency.
pub const INSTALL_DIRS: &[&str] = &[
    ".venv/lib/*/site-packages",
    "venv/lib/*/site-packages",
    "node_modules",
    "node_modules/@types",
];

/// The environment variable that caps how many directories are watched.
pub const LIMIT_ENV: &str = "SIGHTLINE_WATCH_LIMIT";

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

/// A watch on the directories of a root.
pub struct DiskWatch {
    inner: Mutex<Inner>,
}

struct Inner {
    root: PathBuf,
    backend: Backend,
    dirs: HashMap<Id, PathBuf>,
    /// The directories the backend watches (for `covers` on every question).
    watched: HashSet<PathBuf>,
    /// Install directories: a directory appearing in one is a change.
    shallow: HashSet<PathBuf>,
    /// Directories past the watch limit, with what they held last.
    polled: BTreeMap<PathBuf, poll::Listing>,
    limit: usize,
    /// Install roots (`.venv`) seen without their package directory yet.
    pending_installs: bool,
}

/// The watch limit `SIGHTLINE_WATCH_LIMIT` sets, if any.
pub fn limit_from_env() -> usize {
    std::env::var(LIMIT_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX)
}

fn skipped(name: &std::ffi::OsStr) -> bool {
    SKIPPED.iter().any(|s| name == *s)
}

impl Inner {
    /// Watches `dir` and every directory below it that is neither skipped
    /// nor ignored by a `.gitignore` (or `.ignore`) file.
    fn add_tree(&mut self, dir: &Path) {
        let walker = ignore::WalkBuilder::new(dir)
            .hidden(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .parents(true)
            .follow_links(false)
            .sort_by_file_name(std::ffi::OsStr::cmp)
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir()) && skipped(e.file_name()))
            })
            .build();
        for entry in walker.flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                self.watch_dir(entry.path());
            }
        }
    }

    /// Watches one directory, or polls it past the limit.
    fn watch_dir(&mut self, d: &Path) {
        if self.watched.contains(d) || self.polled.contains_key(d) {
            return;
        }
        if self.watched.len() >= self.limit {
            self.poll_instead(d, "sightline's watch limit");
            return;
        }
        match self.backend.add(d) {
            Ok(id) => {
                self.dirs.insert(id, d.to_owned());
                self.watched.insert(d.to_owned());
            }
            Err(AddError::Limit(why)) => self.poll_instead(d, why),
            Err(e) => tracing::debug!("cannot watch {}: {e}", d.display()),
        }
    }

    fn poll_instead(&mut self, d: &Path, why: &str) {
        if self.polled.is_empty() {
            tracing::warn!(
                "{why} is reached under {}; the directories past it are polled at each question instead",
                self.root.display()
            );
        }
        self.polled.insert(d.to_owned(), poll::Listing::of(d));
    }

    /// Watches the top level of every install directory that exists now;
    /// whether an install root is there without its package directory yet.
    fn add_install_dirs(&mut self) {
        self.pending_installs = false;
        for pattern in INSTALL_DIRS {
            let found = expand(&self.root, pattern);
            if found.is_empty() {
                let first = pattern.split('/').next().unwrap_or_default();
                self.pending_installs |= self.root.join(first).is_dir();
            }
            for d in found {
                if !self.shallow.contains(&d) {
                    self.watch_dir(&d);
                    self.shallow.insert(d);
                }
            }
        }
    }
}

/// The directories under `root` that `pattern` names (`*` is any one name).
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![root.to_owned()];
    for part in pattern.split('/') {
        let mut next = Vec::new();
        for dir in found {
            if part == "*" {
                if let Ok(entries) = std::fs::read_dir(&dir) {
                    next.extend(
                        entries
                            .flatten()
                            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                            .map(|e| e.path()),
                    );
                }
            } else if dir.join(part).is_dir() {
                next.push(dir.join(part));
            }
        }
        found = next;
    }
    found
}

/// Changes in the order first seen, one per path (a branch switch brings
/// thousands at once, so the path is looked up, not searched for).
#[derive(Debug, Default)]
pub struct Changes {
    list: Vec<(PathBuf, Change)>,
    at: HashMap<PathBuf, usize>,
}

impl Changes {
    /// Folds `change` of `path` in.
    pub fn record(&mut self, path: PathBuf, change: Change) {
        match self.at.get(&path) {
            Some(&i) => {
                let c = &mut self.list[i].1;
                // A file created then written is still a creation.
                if !(*c == Change::Created && change == Change::Changed) {
                    *c = change;
                }
            }
            None => {
                self.at.insert(path.clone(), self.list.len());
                self.list.push((path, change));
            }
        }
    }

    /// Each change folded in.
    pub fn iter(&self) -> impl Iterator<Item = &(PathBuf, Change)> {
        self.list.iter()
    }

    /// The changes, oldest first.
    pub fn into_vec(self) -> Vec<(PathBuf, Change)> {
        self.list
    }
}

impl DiskWatch {
    /// Watches `root` as the module says, capped by `SIGHTLINE_WATCH_LIMIT`.
    pub fn new(root: &Path) -> std::io::Result<DiskWatch> {
        DiskWatch::with_limit(root, limit_from_env())
    }

    /// Watches `root`, at most `limit` directories with the backend.
    pub fn with_limit(root: &Path, limit: usize) -> std::io::Result<DiskWatch> {
        let mut inner = Inner {
            root: root.to_owned(),
            backend: Backend::new()?,
            dirs: HashMap::new(),
            watched: HashSet::new(),
            shallow: HashSet::new(),
            polled: BTreeMap::new(),
            limit,
            pending_installs: false,
        };
        // Install directories first: past the watch limit, they are the
        // ones that must keep a watch (polling has no install
        // handling).
        inner.add_install_dirs();
        inner.add_tree(root);
        Ok(DiskWatch {
            inner: Mutex::new(inner),
        })
    }

    /// Whether changes to `path` reach [`DiskWatch::drain`]: its directory is
    /// watched or polled (not skipped, not ignored).
    pub fn covers(&self, path: &Path) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        self.inner
            .lock()
            .is_ok_and(|inner| inner.watched.contains(dir) || inner.polled.contains_key(dir))
    }

    /// How many directories are polled because the watch limit was reached.
    pub fn polled(&self) -> usize {
        self.inner.lock().map_or(0, |inner| inner.polled.len())
    }

    /// Watches `dir` and what is below it as well, even where the skip list
    /// or a `.gitignore` would leave it out: a server asked for it.
    pub fn add(&self, dir: &Path) {
        if let Ok(mut inner) = self.inner.lock() {
            let mut stack = vec![dir.to_owned()];
            while let Some(d) = stack.pop() {
                inner.watch_dir(&d);
                if let Ok(entries) = std::fs::read_dir(&d) {
                    stack.extend(
                        entries
                            .flatten()
                            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                            .map(|e| e.path()),
                    );
                }
            }
        }
    }

    /// Every change queued since the last call, oldest first, one per path.
    /// A directory that appears in or leaves an install directory, or an
    /// install root (`.venv`) that appears or goes, counts as a change of
    /// that directory.
    #[allow(
        clippy::too_many_lines,
        reason = "one pass over the queued events under the lock, whose cases (install directories, install roots, renames) share the result being built"
    )]
    pub fn drain(&self) -> Vec<(PathBuf, Change)> {
        let Ok(mut inner) = self.inner.lock() else {
            return Vec::new();
        };
        let mut out = Changes::default();
        let mut new_dirs = Vec::new();
        let mut installs_moved = false;
        let mut moved_away: Vec<PathBuf> = Vec::new();
        for ev in inner.backend.read() {
            let (dir, name, kind, is_dir) = match ev {
                // The directory is gone (deleted, or its file system
                // unmounted): forget it, so that one made again at its path
                // is watched anew.
                Event::Gone(id) => {
                    if let Some(d) = inner.dirs.remove(&id) {
                        inner.watched.remove(&d);
                        inner.shallow.remove(&d);
                    }
                    continue;
                }
                Event::Overflow => {
                    tracing::warn!(
                        "file watch queue overflowed; some external edits may be missed"
                    );
                    continue;
                }
                Event::Entry {
                    dir,
                    name,
                    kind,
                    is_dir,
                } => (dir, name, kind, is_dir),
            };
            let Some(dir) = inner.dirs.get(&dir) else {
                continue;
            };
            let path = dir.join(&name);
            let change = match kind {
                Kind::Created => Change::Created,
                Kind::Deleted | Kind::MovedAway => Change::Deleted,
                Kind::Changed => Change::Changed,
            };
            if is_dir {
                // A directory moved away keeps its watches under its old
                // path: drop them (a move back in is a new directory).
                if kind == Kind::MovedAway {
                    moved_away.push(path.clone());
                }
                let in_install = inner.shallow.contains(dir);
                let install_root = *dir == inner.root
                    && INSTALL_DIRS
                        .iter()
                        .any(|p| p.split('/').next() == Some(&*name.to_string_lossy()));
                if in_install || install_root {
                    out.record(path.clone(), change);
                    installs_moved |= install_root;
                }
                if change == Change::Created && !in_install && !skipped(&name) {
                    new_dirs.push(path);
                }
                continue;
            }
            out.record(path, change);
        }
        for gone in moved_away {
            let stale: Vec<(Id, PathBuf)> = inner
                .dirs
                .iter()
                .filter(|(_, d)| d.starts_with(&gone))
                .map(|(w, d)| (w.clone(), d.clone()))
                .collect();
            for (wd, d) in stale {
                inner.backend.remove(wd.clone());
                inner.dirs.remove(&wd);
                inner.watched.remove(&d);
                inner.shallow.remove(&d);
            }
            inner.polled.retain(|d, _| !d.starts_with(&gone));
        }
        for d in new_dirs {
            inner.add_tree(&d);
        }
        if !inner.polled.is_empty() {
            let mut appeared = Vec::new();
            let polled = std::mem::take(&mut inner.polled);
            let mut kept = BTreeMap::new();
            for (dir, before) in polled {
                if !dir.is_dir() {
                    // Gone with its files.
                    for (path, change, is_dir) in before.diff(&dir, &poll::Listing::default()) {
                        if !is_dir {
                            out.record(path, change);
                        }
                    }
                    continue;
                }
                let now = poll::Listing::of(&dir);
                for (path, change, is_dir) in before.diff(&dir, &now) {
                    if is_dir {
                        if change == Change::Created && !path.file_name().is_some_and(skipped) {
                            appeared.push(path);
                        }
                    } else {
                        out.record(path, change);
                    }
                }
                kept.insert(dir, now);
            }
            inner.polled = kept;
            for d in appeared {
                inner.add_tree(&d);
            }
        }
        if installs_moved || inner.pending_installs {
            inner.add_install_dirs();
        }
        out.into_vec()
    }
}

#[cfg(test)]
mod tests;
