//! What a watch backend reports: the one interface between the platform's
//! file watching (`inotify` on Linux, `notify` elsewhere) and the walking,
//! ignoring and polling in `watch`.

use std::ffi::OsString;

/// Why a directory could not be watched.
#[derive(Debug)]
pub enum AddError {
    /// A limit on watches was reached (named): the directory is polled.
    Limit(&'static str),
    /// Anything else: the directory is left out.
    Other(std::io::Error),
}

impl std::fmt::Display for AddError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddError::Limit(what) => write!(f, "{what} is reached"),
            AddError::Other(e) => e.fmt(f),
        }
    }
}

/// What happened to an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Created,
    Changed,
    Deleted,
    /// Moved out of its directory (its watches, for a directory, are stale).
    MovedAway,
}

/// One event of a backend.
#[derive(Debug)]
pub enum Event<I> {
    /// An entry of a watched directory changed.
    Entry {
        dir: I,
        name: OsString,
        kind: Kind,
        is_dir: bool,
    },
    /// A watched directory is gone; its watch is over.
    Gone(I),
    /// Events were lost.
    Overflow,
}
