//! The watch backend outside Linux: the `notify` crate (FSEvents on macOS,
//! ReadDirectoryChangesW on Windows). A directory is watched recursively
//! unless one above it already is, and only the entries of the directories
//! asked for are reported, so the ignore rules hold as with inotify. (One
//! watch per directory would restart FSEvents' stream at each, and hold a
//! handle on every directory on Windows, which blocks renaming them.) Its
//! events come from a thread of its own, so an edit made just before a
//! question may reach only the next drain: the kernel-queue guarantee of
//! inotify does not hold here.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use notify::event::{CreateKind, ModifyKind, RemoveKind, RenameMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::backend::{AddError, Event, Kind};

/// A watched directory: its path.
pub type Id = PathBuf;

pub struct Backend {
    watcher: RecommendedWatcher,
    events: mpsc::Receiver<notify::Result<notify::Event>>,
    /// The directories whose entries are reported.
    watched: HashSet<PathBuf>,
    /// The directories watched recursively.
    roots: HashSet<PathBuf>,
}

impl Backend {
    pub fn new() -> std::io::Result<Backend> {
        let (tx, events) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .map_err(std::io::Error::other)?;
        Ok(Backend {
            watcher,
            events,
            watched: HashSet::new(),
            roots: HashSet::new(),
        })
    }

    /// Watches the entries of `dir` (not below it).
    pub fn add(&mut self, dir: &Path) -> Result<Id, AddError> {
        let covered = dir.ancestors().any(|a| self.roots.contains(a));
        if !covered {
            if let Err(e) = self.watcher.watch(dir, RecursiveMode::Recursive) {
                return Err(match e.kind {
                    notify::ErrorKind::MaxFilesWatch => {
                        AddError::Limit("the system's file watch limit")
                    }
                    _ => AddError::Other(std::io::Error::other(e)),
                });
            }
            self.roots.insert(dir.to_owned());
        }
        self.watched.insert(dir.to_owned());
        Ok(dir.to_owned())
    }

    pub fn remove(&mut self, id: Id) {
        if self.roots.remove(&id) {
            let _ = self.watcher.unwatch(&id);
        }
        self.watched.remove(&id);
    }

    /// Every event received now, without waiting.
    pub fn read(&mut self) -> Vec<Event<Id>> {
        let mut out = Vec::new();
        while let Ok(e) = self.events.try_recv() {
            match e {
                Ok(e) if e.need_rescan() => out.push(Event::Overflow),
                Ok(e) => self.convert(e, &mut out),
                Err(e) => {
                    tracing::debug!("file watch error: {e}");
                    out.push(Event::Overflow);
                }
            }
        }
        out
    }

    fn convert(&mut self, e: notify::Event, out: &mut Vec<Event<Id>>) {
        let renamed_both = matches!(
            e.kind,
            EventKind::Modify(ModifyKind::Name(RenameMode::Both))
        );
        for (i, path) in e.paths.iter().enumerate() {
            let was_dir = self.watched.contains(path);
            let (kind, is_dir) = match e.kind {
                EventKind::Create(k) => (Kind::Created, k == CreateKind::Folder || path.is_dir()),
                EventKind::Remove(k) => (Kind::Deleted, k == RemoveKind::Folder || was_dir),
                EventKind::Modify(ModifyKind::Name(mode)) => {
                    let away = match mode {
                        RenameMode::From => true,
                        RenameMode::To => false,
                        RenameMode::Both => i == 0,
                        // FSEvents says only that the name changed.
                        _ => !path.exists(),
                    };
                    if away {
                        (Kind::MovedAway, was_dir)
                    } else {
                        (Kind::Created, path.is_dir())
                    }
                }
                EventKind::Modify(_) | EventKind::Any => (Kind::Changed, path.is_dir()),
                EventKind::Access(_) | EventKind::Other => continue,
            };
            if was_dir && matches!(kind, Kind::Deleted) && !renamed_both {
                self.watched.remove(path);
                out.push(Event::Gone(path.clone()));
            }
            let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
                continue;
            };
            if self.watched.contains(dir) {
                out.push(Event::Entry {
                    dir: dir.to_owned(),
                    name: name.to_owned(),
                    kind,
                    is_dir,
                });
            }
        }
    }
}
