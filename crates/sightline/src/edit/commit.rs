//! Writing an edit's files all or nothing: every new text is written
//! beside its file and synced first, under a journal
//! (`edit::journal`) that the next sightline finishes or undoes should this
//! process die; then each is moved into place. When a move fails, the
//! files moved before it get their old bytes back and the directories made
//! for them go.

use std::path::{Path, PathBuf};

use crate::edit::journal::{Journal, sync_dir};
use crate::edit::text::Text;
use crate::error::ToolError;
use crate::files::write_file;

/// The bytes of `path`, or `None` when there is no such file; a directory
/// or an unreadable file is an error.
pub fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, ToolError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        // Under a file (`a.txt/b.txt`): there is no such file either.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) if path.is_dir() => Err(ToolError::bad_input(format!(
            "{} is a directory: {e}",
            path.display()
        ))),
        Err(e) => Err(ToolError::bad_input(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// The directories above `path` that do not exist yet, outermost first:
/// what writing it creates, and what undoing that write removes.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = path
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .map(Path::to_owned)
        .collect();
    out.reverse();
    out
}

/// One step of a commit, with what undoing it needs.
struct Step {
    path: PathBuf,
    /// `None` when the step left the file as it was (it failed); else the
    /// bytes to put back, or `Some(None)` when the file was new.
    original: Option<Option<Vec<u8>>>,
    /// The directories the step's write created, outermost first.
    made: Vec<PathBuf>,
}

/// Undoes the steps of a commit that failed with `failure`: newest first,
/// each file gets its original bytes back (or goes, if it was new), then the
/// directories its write created go. A step that cannot be undone is added
/// to the error and logged, never dropped: the caller must learn that the
/// all-or-nothing promise was broken, and where.
fn roll_back(failure: ToolError, steps: &[Step]) -> ToolError {
    let mut unrestored = Vec::new();
    for step in steps.iter().rev() {
        let undone = match &step.original {
            None => Ok(()),
            Some(Some(bytes)) => write_file(&step.path, bytes),
            Some(None) => match std::fs::remove_file(&step.path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                r => r,
            },
        };
        if let Err(e) = undone {
            unrestored.push(format!("{}: {e}", step.path.display()));
        }
        for dir in step.made.iter().rev() {
            match std::fs::remove_dir(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    unrestored.push(format!("{}: {e}", dir.display()));
                }
                _ => {}
            }
        }
    }
    if unrestored.is_empty() {
        return failure;
    }
    let failure = failure.append(&format!(
        ", and could not restore {}",
        unrestored.join(", nor ")
    ));
    tracing::error!("{failure}");
    failure
}

/// Writes every staged file (`Some` text) or deletes it (`None`), all or
/// nothing, whatever happens to this process (`edit::journal`): when one
/// step fails, the steps before it are undone.
pub fn write_all(staged: &[(PathBuf, Option<Text>)]) -> Result<(), ToolError> {
    let originals: Vec<Option<Vec<u8>>> = staged
        .iter()
        .map(|(p, _)| read_bytes(p))
        .collect::<Result<_, _>>()?;
    let journaled: Vec<(PathBuf, bool)> = staged
        .iter()
        .map(|(p, t)| (p.clone(), t.is_some()))
        .collect();
    let journal_error =
        |e: std::io::Error| ToolError::bad_input(format!("cannot keep the edit's journal: {e}"));
    let mut journal = Journal::prepare(&journaled).map_err(journal_error)?;
    // Every new text beside its file (or in the nearest directory there
    // is), synced; nothing moved yet.
    for (i, (path, text)) in staged.iter().enumerate() {
        let (Some(text), Some(tmp)) = (text, journal.tmp(i)) else {
            continue;
        };
        if let Err(e) = write_beside(path, tmp, &text.encode()) {
            discard(&journal, staged.len());
            return Err(ToolError::bad_input(format!(
                "cannot write {}: {e}",
                path.display()
            )));
        }
    }
    if let Err(e) = journal.commit() {
        discard(&journal, staged.len());
        return Err(journal_error(e));
    }
    // Each step taken so far, with what undoing it needs.
    let mut steps = Vec::new();
    for (i, ((path, text), original)) in staged.iter().zip(originals).enumerate() {
        // The directories this step makes, as the steps before it left
        // the tree (a file deleted a step before may become a directory).
        let made = if text.is_some() {
            missing_dirs(path)
        } else {
            Vec::new()
        };
        let r = match (text, journal.tmp(i)) {
            (Some(_), Some(tmp)) => path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::rename(tmp, path))
                .map_err(|e| ToolError::bad_input(format!("cannot write {}: {e}", path.display()))),
            _ => std::fs::remove_file(path).map_err(|e| {
                ToolError::bad_input(format!("cannot delete {}: {e}", path.display()))
            }),
        };
        let failed = r.is_err();
        steps.push(Step {
            path: path.clone(),
            // A failed move or delete left the file as it was, though it
            // may have made directories.
            original: (!failed).then_some(original),
            made,
        });
        if let Err(e) = r {
            // The texts not moved go; the moved ones get their old bytes.
            for j in i..staged.len() {
                if let Some(tmp) = journal.tmp(j) {
                    let _ = std::fs::remove_file(tmp);
                }
            }
            return Err(roll_back(e, &steps));
        }
    }
    for (path, _) in staged {
        if let Some(parent) = path.parent() {
            let _ = sync_dir(parent);
        }
    }
    drop(journal);
    Ok(())
}

/// Writes `bytes` to `tmp` (beside `path`, or in the nearest directory
/// there is) with `path`'s permissions (a new file's the usual 0644),
/// synced.
fn write_beside(path: &Path, tmp: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let perms = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    if let Some(p) = perms {
        std::fs::set_permissions(tmp, p)?;
    } else {
        // A new file gets the usual 0644 (Windows has no mode bits: it
        // inherits its directory's ACL).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o644))?;
        }
    }
    Ok(())
}

/// Removes what a prepared edit wrote (its temporary files) when it
/// cannot go on.
fn discard(journal: &Journal, files: usize) {
    for i in 0..files {
        if let Some(tmp) = journal.tmp(i) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_step_that_cannot_be_undone_is_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Someone put a directory where `a.txt` was rewritten, and a file in
        // a directory the commit created: neither can be undone.
        let blocked = root.join("a.txt");
        std::fs::create_dir(&blocked).unwrap();
        let made = root.join("new");
        std::fs::create_dir(&made).unwrap();
        std::fs::write(made.join("theirs.txt"), "").unwrap();
        let b = root.join("b.txt");
        std::fs::write(&b, "new b\n").unwrap();
        let steps = [
            Step {
                path: blocked.clone(),
                original: Some(Some(b"old a\n".to_vec())),
                made: Vec::new(),
            },
            Step {
                path: made.join("c.txt"),
                original: Some(None),
                made: vec![made.clone()],
            },
            Step {
                path: b.clone(),
                original: Some(Some(b"old b\n".to_vec())),
                made: Vec::new(),
            },
            Step {
                path: root.join("d.txt"),
                original: None,
                made: Vec::new(),
            },
        ];
        let e = roll_back(ToolError::bad_input("cannot write d.txt: boom"), &steps);
        assert_eq!(
            e.to_string(),
            format!(
                "error: cannot write d.txt: boom, and could not restore {}: Directory not empty (os error 39), nor {}: Is a directory (os error 21)",
                made.display(),
                blocked.display()
            )
        );
        // What could be undone was.
        assert_eq!(std::fs::read(&b).unwrap(), b"old b\n");
        assert!(!root.join("d.txt").exists());
    }
}
