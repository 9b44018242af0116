//! A multi-file edit's journal, so that the edit is whole under any death
//! (a SIGKILL of the daemon or the CLI between two files' writes): every
//! new text is written beside its file and synced, the journal in the data
//! directory names them (`prepared`), then says `committed`, then the
//! texts are moved into place, and the journal goes last. The next
//! sightline that starts (`recover`) finishes a committed journal whose
//! owner died (the rest of its moves) and undoes a prepared one (its
//! written texts go), so the files are all old or all new, and no
//! temporary file is left.
//!
//! An owner holds a lock on its journal's lock file while it works, so a
//! sightline starting meanwhile leaves a live edit alone.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Where a journal is in its commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum State {
    /// New texts are being written beside their files; nothing is moved.
    Prepared,
    /// Every new text is written and synced; they are being moved.
    Committed,
}

/// One file of an edit: its new text's temporary file, or `None` when the
/// file is deleted.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Step {
    path: PathBuf,
    tmp: Option<PathBuf>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    state: State,
    steps: Vec<Step>,
}

/// What a start found of an edit cut off by a death.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The edit's files.
    pub files: Vec<PathBuf>,
    /// Whether it was finished (all new); else it was undone (all old).
    pub finished: bool,
}

/// The extension of a journal's file (JSON; its lock file is `.lock`).
const JOURNAL_EXTENSION: &str = "journal";

/// The directory of the journals.
fn dir() -> PathBuf {
    crate::files::data_dir().join("journal")
}

/// A journal being written by this process: dropped (the lock let go, the
/// files removed) when the edit is whole.
pub(crate) struct Journal {
    path: PathBuf,
    lock_path: PathBuf,
    _lock: File,
    record: Record,
}

impl Journal {
    /// Opens a journal for an edit of `files` (each with whether it gets a
    /// new text, else it is deleted), `prepared`: nothing is written beside
    /// the files yet. Each new text's temporary file is named here, beside
    /// its file ([`Journal::tmp`]).
    pub(crate) fn prepare(files: &[(PathBuf, bool)]) -> std::io::Result<Journal> {
        let dir = dir();
        std::fs::create_dir_all(&dir)?;
        let id = format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let lock_path = dir.join(format!("{id}.lock"));
        let lock = File::create(&lock_path)?;
        lock.lock()?;
        let steps = files
            .iter()
            .enumerate()
            .map(|(i, (path, written))| Step {
                path: path.clone(),
                tmp: written.then(|| {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default();
                    nearest_dir(path).join(format!(".{name}.{id}-{i}.sightline-tmp"))
                }),
            })
            .collect();
        let journal = Journal {
            path: dir.join(format!("{id}.{JOURNAL_EXTENSION}")),
            lock_path,
            _lock: lock,
            record: Record {
                state: State::Prepared,
                steps,
            },
        };
        journal.save()?;
        Ok(journal)
    }

    /// The temporary file of the `i`th file's new text (`None`: deleted).
    pub(crate) fn tmp(&self, i: usize) -> Option<&Path> {
        self.record.steps.get(i)?.tmp.as_deref()
    }

    /// Says the new texts are all written and synced: from here a death
    /// is finished by the next start, not undone.
    pub(crate) fn commit(&mut self) -> std::io::Result<()> {
        self.record.state = State::Committed;
        self.save()
    }

    fn save(&self) -> std::io::Result<()> {
        let text = serde_json::to_vec(&self.record).map_err(std::io::Error::other)?;
        crate::files::write_file(&self.path, &text)?;
        sync_dir(&dir())
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = sync_dir(&dir());
        let _ = std::fs::remove_file(&self.lock_path);
    }
}

/// The directory a new text of `path` is written in before its move: its
/// own when it exists, else the nearest that does (a patch that deletes
/// `q.txt` and adds `q.txt/inner.txt` makes the directory only when it
/// moves the text), on the same file system, so that the move is a rename.
fn nearest_dir(path: &Path) -> PathBuf {
    path.ancestors()
        .skip(1)
        .find(|d| d.is_dir())
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// Syncs a directory, so that a rename or removal in it survives a crash.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Finishes or undoes every edit whose owner died mid-commit; what it did.
pub fn recover() -> Vec<Recovered> {
    let Ok(entries) = std::fs::read_dir(dir()) else {
        return Vec::new();
    };
    let mut done = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension() != Some(JOURNAL_EXTENSION.as_ref()) {
            continue;
        }
        let lock_path = path.with_extension("lock");
        // A live owner holds the lock; a dead one's lock is free (or its
        // file is gone, if it died after removing it).
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path);
        let Ok(lock) = lock else { continue };
        if lock.try_lock().is_err() {
            continue;
        }
        if let Some(r) = recover_one(&path) {
            done.push(r);
        }
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&lock_path);
    }
    let _ = sync_dir(&dir());
    done
}

fn recover_one(path: &Path) -> Option<Recovered> {
    let text = crate::files::read_capped(path, 16 * 1024 * 1024).ok()?;
    let record: Record = serde_json::from_str(&text).ok()?;
    let files = record.steps.iter().map(|s| s.path.clone()).collect();
    let finished = record.state == State::Committed;
    for step in &record.steps {
        match (&step.tmp, finished) {
            // Not yet moved: moved now, or removed when undoing.
            (Some(tmp), true) if tmp.exists() => {
                if let Some(parent) = step.path.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                if let Err(e) = std::fs::rename(tmp, &step.path) {
                    tracing::error!("journal: could not finish {}: {e}", step.path.display());
                }
            }
            (Some(tmp), false) => {
                let _ = std::fs::remove_file(tmp);
            }
            (None, true) => {
                let _ = std::fs::remove_file(&step.path);
            }
            _ => {}
        }
        if let Some(parent) = step.path.parent() {
            let _ = sync_dir(parent);
        }
    }
    tracing::warn!(
        "journal: an edit cut off by a death was {} ({} files)",
        if finished { "finished" } else { "undone" },
        record.steps.len()
    );
    Some(Recovered { files, finished })
}
