//! The Linux watch backend: inotify, read without blocking. The kernel
//! queues an event when the write happens, so a drain before a question sees
//! every change made before it: no thread, no race, no settle delay.

use std::path::Path;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::backend::{AddError, Event, Kind};

/// One inotify instance.
pub struct Backend {
    inotify: Inotify,
    buffer: Vec<u8>,
}

/// A watched directory.
pub type Id = WatchDescriptor;

fn mask() -> WatchMask {
    WatchMask::CLOSE_WRITE
        | WatchMask::MODIFY
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
}

impl Backend {
    pub fn new() -> std::io::Result<Backend> {
        Ok(Backend {
            inotify: Inotify::init()?,
            buffer: vec![0; 16 * 1024],
        })
    }

    /// Watches the entries of `dir` (not below it).
    pub fn add(&mut self, dir: &Path) -> Result<Id, AddError> {
        self.inotify.watches().add(dir, mask()).map_err(|e| {
            // ENOSPC: the kernel's limit on watches (fs.inotify.max_user_watches).
            if e.raw_os_error() == Some(libc::ENOSPC) {
                AddError::Limit("the system's inotify watch limit")
            } else {
                AddError::Other(e)
            }
        })
    }

    pub fn remove(&mut self, id: Id) {
        let _ = self.inotify.watches().remove(id);
    }

    /// Every event queued now, without waiting.
    pub fn read(&mut self) -> Vec<Event<Id>> {
        let mut out = Vec::new();
        loop {
            let events = match self.inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                // WouldBlock: the queue is empty.
                Err(_) => break,
            };
            let mut any = false;
            for ev in events {
                any = true;
                if ev.mask.contains(EventMask::Q_OVERFLOW) {
                    out.push(Event::Overflow);
                    continue;
                }
                if ev.mask.contains(EventMask::IGNORED) {
                    out.push(Event::Gone(ev.wd));
                    continue;
                }
                let Some(name) = ev.name else { continue };
                let kind = if ev.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                    Kind::Created
                } else if ev.mask.contains(EventMask::MOVED_FROM) {
                    Kind::MovedAway
                } else if ev.mask.contains(EventMask::DELETE) {
                    Kind::Deleted
                } else {
                    Kind::Changed
                };
                out.push(Event::Entry {
                    dir: ev.wd,
                    name: name.to_owned(),
                    kind,
                    is_dir: ev.mask.contains(EventMask::ISDIR),
                });
            }
            if !any {
                break;
            }
        }
        out
    }
}
