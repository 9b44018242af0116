//! Polling a directory the watch limit left out: what it held at the last
//! drain, compared with what it holds now.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::Change;

/// Whether an entry is a directory, its modification time and its length.
type Stamp = (bool, Option<SystemTime>, u64);

/// A directory's entries as last seen.
#[derive(Debug, Default)]
pub(super) struct Listing(BTreeMap<OsString, Stamp>);

impl Listing {
    /// What `dir` holds now (nothing when it cannot be read).
    pub(super) fn of(dir: &Path) -> Listing {
        let mut out = BTreeMap::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let Ok(meta) = e.metadata() else {
                    continue;
                };
                out.insert(
                    e.file_name(),
                    (meta.is_dir(), meta.modified().ok(), meta.len()),
                );
            }
        }
        Listing(out)
    }

    /// What changed in `dir` from `self` to `now`: each path, its change,
    /// and whether it is a directory. A directory's own time is no change.
    pub(super) fn diff(&self, dir: &Path, now: &Listing) -> Vec<(PathBuf, Change, bool)> {
        let mut out = Vec::new();
        for (name, stamp) in &now.0 {
            match self.0.get(name) {
                None => out.push((dir.join(name), Change::Created, stamp.0)),
                Some(old) if !stamp.0 && old != stamp => {
                    out.push((dir.join(name), Change::Changed, false));
                }
                Some(_) => {}
            }
        }
        for (name, stamp) in &self.0 {
            if !now.0.contains_key(name) {
                out.push((dir.join(name), Change::Deleted, stamp.0));
            }
        }
        out
    }
}
