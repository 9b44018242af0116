//! The files a diff changes and their texts on each side, read from git
//! (`sightline impact`): the working tree (or the index) against a
//! revision.
//!
//! Only git's plumbing runs (`rev-parse`, `hash-object`, `diff-index`,
//! `ls-files`, `cat-file`), none of which reads a diff driver, a text
//! conversion or a pager from the repository's configuration. Where
//! `diff-index` must hash a working-tree file (its stat data is racy) it
//! would run the clean filter the repository's `.gitattributes` names, so
//! it reads its attributes from the empty tree instead; the file system
//! monitor hook is turned off, and no call may fetch (a partial clone's
//! lazy fetch, any transport). Each call has a ceiling, a bound on what it
//! prints and an allow-listed environment, and a blob larger than
//! [`LARGEST`] is not read.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::error::ToolError;

/// A file larger than this on either side is left out (with a note).
pub(super) const LARGEST: u64 = 2 << 20;
/// At most this many changed files are read.
pub(super) const MOST_FILES: usize = 200;
/// At most this many listed files are compared to find them (a file only
/// touched is listed by `diff-index` and then found equal).
const MOST_COMPARED: usize = 4 * MOST_FILES;
/// How long one git call may take: long enough for `diff-index` over a
/// large monorepo on a busy machine, short enough that a wedged file
/// system (a FIFO, a hung mount) ends the question with a reason.
const CEILING: Duration = Duration::from_secs(60);
/// The most a listing may print (its paths, NUL-separated).
const LISTING: u64 = 16 << 20;

/// Why git could not say what changed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    /// There is no git on `PATH`.
    #[error("git was not found on PATH; impact reads the diff from git")]
    Missing,
    /// The directory is in no git repository.
    #[error("{0} is not in a git repository")]
    NotARepository(PathBuf),
    /// The revision names no commit.
    #[error("`{0}` names no commit here")]
    UnknownRevision(String),
    /// git took longer than its ceiling.
    #[error("git {0} did not finish within {1} s")]
    TimedOut(String, u64),
    /// git printed more than a listing may hold.
    #[error("git {0} printed more than {1} MiB")]
    TooLarge(String, u64),
    /// git failed.
    #[error("git {0} failed: {1}")]
    Failed(String, String),
}

impl From<GitError> for ToolError {
    fn from(e: GitError) -> Self {
        match e {
            GitError::Missing => ToolError::unavailable(e.to_string()),
            GitError::TimedOut(..) => ToolError::timeout(e.to_string()),
            GitError::NotARepository(_)
            | GitError::UnknownRevision(_)
            | GitError::TooLarge(..)
            | GitError::Failed(..) => ToolError::bad_input(e.to_string()),
        }
    }
}

/// What the diff compares the old side with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Against {
    /// The working tree (staged or not, and files git does not track yet)
    /// against a revision (`HEAD` by default).
    WorkingTree(String),
    /// The index against `HEAD` (`--staged`).
    Index,
}

/// One file the diff changes: its text before and after (`None`: not
/// there on that side).
#[derive(Debug, Clone)]
pub(crate) struct ChangedFile {
    /// Absolute path in the working tree.
    pub(crate) path: PathBuf,
    /// Its bytes at the revision.
    pub(crate) old: Option<Vec<u8>>,
    /// Its bytes in the working tree, or in the index with `--staged`.
    pub(crate) new: Option<Vec<u8>>,
}

/// A diff read from git.
#[derive(Debug, Clone)]
pub(crate) struct Diff {
    /// The repository's top directory.
    pub(crate) top: PathBuf,
    /// What the answer calls the comparison (`the working tree against
    /// HEAD`).
    pub(crate) label: String,
    /// The files it changes that `keep` kept, by path.
    pub(crate) files: Vec<ChangedFile>,
    /// What was left out, one line each.
    pub(crate) notes: Vec<String>,
}

impl Diff {
    /// The diff of the repository holding `dir`, for the files `keep`
    /// takes (those a language server handles).
    pub(crate) async fn read(
        dir: &Path,
        against: &Against,
        keep: impl Fn(&Path) -> bool,
    ) -> Result<Diff, GitError> {
        let top = git(dir, &["rev-parse", "--show-toplevel"], None)
            .await
            .map_err(|e| match e {
                GitError::Failed(..) => GitError::NotARepository(dir.to_owned()),
                e => e,
            })?;
        let top = PathBuf::from(String::from_utf8_lossy(&top).trim_end_matches('\n'));
        let (rev, label) = match against {
            Against::WorkingTree(rev) => (rev.as_str(), format!("the working tree against {rev}")),
            Against::Index => ("HEAD", "the staged changes against HEAD".to_owned()),
        };
        if rev.starts_with('-') {
            return Err(GitError::UnknownRevision(rev.to_owned()));
        }
        let commit = format!("{rev}^{{commit}}");
        let sha = git(&top, &["rev-parse", "--verify", "--quiet", &commit], None)
            .await
            .map_err(|e| match e {
                GitError::Failed(..) => GitError::UnknownRevision(rev.to_owned()),
                e => e,
            })?;
        // The revision is named by its commit from here on: a branch that
        // moves while the question runs does not change the answer.
        let sha = String::from_utf8_lossy(&sha).trim().to_owned();
        let mut listed = changed_paths(&top, &sha, against).await?;
        listed.sort();
        listed.dedup();
        let mut diff = Diff {
            top: top.clone(),
            label,
            files: Vec::new(),
            notes: Vec::new(),
        };
        let mut too_large = Vec::new();
        let kept: Vec<PathBuf> = listed.into_iter().filter(|p| keep(&top.join(p))).collect();
        let (mut compared, mut not_looked_at) = (0, 0);
        for relative in kept {
            if diff.files.len() >= MOST_FILES || compared >= MOST_COMPARED {
                not_looked_at += 1;
                continue;
            }
            compared += 1;
            let path = top.join(&relative);
            let name = relative.to_string_lossy().into_owned();
            let old = blob(&top, &format!("{sha}:{name}")).await?;
            let new = match against {
                Against::WorkingTree(_) => disk(&top, &path),
                Against::Index => blob(&top, &format!(":{name}")).await?,
            };
            match (&old, &new) {
                (Side::Large, _) | (_, Side::Large) => too_large.push(name),
                (Side::Text(a), Side::Text(b)) if a == b => {}
                (Side::Absent, Side::Absent) => {}
                _ => diff.files.push(ChangedFile {
                    path,
                    old: old.bytes(),
                    new: new.bytes(),
                }),
            }
        }
        if not_looked_at > 0 {
            diff.notes.push(format!(
                "{not_looked_at} more files a server reads were listed by git and not looked at \
                 (at most {MOST_FILES} changed files are read, by path)"
            ));
        }
        if !too_large.is_empty() {
            diff.notes.push(format!(
                "left out, larger than {} MiB: {}",
                LARGEST >> 20,
                too_large.join(", ")
            ));
        }
        Ok(diff)
    }
}

/// One side of a file.
enum Side {
    /// Not there.
    Absent,
    /// Too large to read.
    Large,
    /// Its bytes.
    Text(Vec<u8>),
}

impl Side {
    fn bytes(self) -> Option<Vec<u8>> {
        match self {
            Side::Text(b) => Some(b),
            Side::Absent | Side::Large => None,
        }
    }
}

/// The working tree's file at `path` under `top`, read up to [`LARGEST`];
/// a FIFO, a device or a symbolic link is not read (it counts as absent),
/// nor a file whose folder leads out of `top` through a link: a committed
/// link to `~/.ssh/id_rsa`, or a folder linked to `~/.docker`, must not
/// become text a server is given and an answer echoes.
fn disk(top: &Path, path: &Path) -> Side {
    let inside = |dir: &Path| {
        let (Ok(dir), Ok(top)) = (std::fs::canonicalize(dir), std::fs::canonicalize(top)) else {
            return false;
        };
        dir.starts_with(top)
    };
    if !path.parent().is_some_and(inside) {
        return Side::Absent;
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && m.len() > LARGEST => Side::Large,
        Ok(m) if m.is_file() => std::fs::read(path).map_or(Side::Absent, Side::Text),
        _ => Side::Absent,
    }
}

/// The paths (relative to `top`) the diff changes: `diff-index`'s (by stat
/// data against the working tree: a file only touched is listed and then
/// found equal) and, against the working tree, those git does not track
/// and does not ignore.
async fn changed_paths(top: &Path, rev: &str, against: &Against) -> Result<Vec<PathBuf>, GitError> {
    let mut args = vec!["diff-index", "-z", "--name-only", "--no-renames"];
    if *against == Against::Index {
        args.push("--cached");
    }
    args.extend([rev, "--"]);
    // An empty tree's attributes name no filter; git names the empty
    // tree in the repository's own hash (SHA-1 or SHA-256).
    let empty = git(
        top,
        &["hash-object", "--no-filters", "-t", "tree", "/dev/null"],
        None,
    )
    .await?;
    let empty = String::from_utf8_lossy(&empty).trim().to_owned();
    let mut out = split_nul(&git(top, &args, Some(&empty)).await?);
    if let Against::WorkingTree(_) = against {
        let others = git(
            top,
            &["ls-files", "-z", "--others", "--exclude-standard"],
            None,
        )
        .await?;
        out.extend(split_nul(&others));
    }
    Ok(out)
}

fn split_nul(bytes: &[u8]) -> Vec<PathBuf> {
    bytes
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| PathBuf::from(String::from_utf8_lossy(s).into_owned()))
        .collect()
}

/// The blob `spec` names (`REV:path`, `:path` for the index), or absent.
async fn blob(top: &Path, spec: &str) -> Result<Side, GitError> {
    let size = match git(top, &["cat-file", "-s", spec], None).await {
        Ok(out) => String::from_utf8_lossy(&out).trim().parse::<u64>().ok(),
        Err(GitError::Failed(..)) => return Ok(Side::Absent),
        Err(e) => return Err(e),
    };
    match size {
        None => Ok(Side::Absent),
        Some(n) if n > LARGEST => Ok(Side::Large),
        Some(_) => match git(top, &["cat-file", "blob", spec], None).await {
            Ok(bytes) => Ok(Side::Text(bytes)),
            Err(GitError::Failed(..)) => Ok(Side::Absent),
            Err(e) => Err(e),
        },
    }
}

/// Runs `git ARGS` in `dir`, its attributes read from the tree
/// `attributes` when given: its standard output (at most [`LISTING`]
/// bytes), or why not.
async fn git(dir: &Path, args: &[&str], attributes: Option<&str>) -> Result<Vec<u8>, GitError> {
    let mut std_cmd = std::process::Command::new("git");
    // The repository's own file system monitor is a command it names:
    // never run (`core.fsmonitor`). Optional locks would let a question
    // write the index. No transport may run: a partial clone would fetch
    // a missing blob from its remote (through a command its configuration
    // may name), and a question never goes to the network.
    std_cmd.args(["-c", "core.fsmonitor=false", "--no-optional-locks"]);
    // The attributes from the empty tree, on the command line: a git too
    // old to know the option (before 2.41) fails on it, rather than
    // ignoring `GIT_ATTR_SOURCE` and running the filter.
    if let Some(tree) = attributes {
        std_cmd.arg(format!("--attr-source={tree}"));
    }
    std_cmd
        .args(["-c", "protocol.allow=never"])
        .args(["-c", "core.attributesFile=/dev/null"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::sandbox::child_env::restrict(&mut std_cmd);
    std_cmd.env("GIT_TERMINAL_PROMPT", "0");
    std_cmd.env("GIT_NO_LAZY_FETCH", "1");
    let mut cmd = tokio::process::Command::from(std_cmd);
    cmd.kill_on_drop(true);
    let what = args.first().copied().unwrap_or_default().to_owned();
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => GitError::Missing,
        _ => GitError::Failed(what.clone(), e.to_string()),
    })?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(GitError::Failed(what, "no output pipe".to_owned()));
    };
    // Its errors are read on their own (the first 64 KiB kept, the rest
    // drained), so that a full stderr pipe never stops it.
    let errors = tokio::spawn(async move {
        let mut err = Vec::new();
        let mut stderr = stderr;
        let _ = (&mut stderr).take(64 << 10).read_to_end(&mut err).await;
        let _ = tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await;
        err
    });
    let run = async {
        let mut out = Vec::new();
        let read_out = stdout.take(LISTING + 1).read_to_end(&mut out).await;
        // Past the bound git would block on a full pipe until the
        // ceiling: it is stopped now instead.
        if out.len() as u64 > LISTING {
            let _ = child.start_kill();
        }
        let status = child.wait().await;
        (read_out.and(status), out)
    };
    let (done, out) = tokio::time::timeout(CEILING, run)
        .await
        .map_err(|_| GitError::TimedOut(what.clone(), CEILING.as_secs()))?;
    let err = errors.await.unwrap_or_default();
    if out.len() as u64 > LISTING {
        return Err(GitError::TooLarge(what, LISTING >> 20));
    }
    match done {
        Ok(status) if status.success() => Ok(out),
        Ok(_) => {
            let said = String::from_utf8_lossy(&err);
            let line = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if attributes.is_some() && line.contains("attr-source") {
                return Err(GitError::Failed(
                    what,
                    "impact needs git 2.41 or later, which can keep a repository's attributes from running a filter".to_owned(),
                ));
            }
            Err(GitError::Failed(what, line.trim().to_owned()))
        }
        Err(e) => Err(GitError::Failed(what, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_listing_splits_at_each_nul_and_keeps_spaces() {
        assert_eq!(
            split_nul(b"a b.py\0src/c.ts\0\0"),
            vec![PathBuf::from("a b.py"), PathBuf::from("src/c.ts")]
        );
    }

    fn run_git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    }

    #[test]
    fn a_clean_filter_the_repository_names_never_runs() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        run_git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        // A modification time after the index's makes the entry racy: git
        // must hash the file's content to compare it, which is where a
        // clean filter would run.
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join("a.py"))
            .unwrap();
        file.set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
            .unwrap();
        drop(file);
        run_git(dir.path(), &["add", "a.py"]);
        run_git(dir.path(), &["commit", "-qm", "one"]);
        // The filter is named by the tree's attributes and defined in the
        // repository's configuration, as a hostile checkout would have it.
        std::fs::write(dir.path().join(".gitattributes"), "* filter=evil\n").unwrap();
        let clean = format!("touch {}; cat", marker.display());
        run_git(dir.path(), &["config", "filter.evil.clean", &clean]);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let diff = rt
            .block_on(Diff::read(
                dir.path(),
                &Against::WorkingTree("HEAD".to_owned()),
                |_| true,
            ))
            .unwrap();
        assert!(!marker.exists(), "the clean filter ran");
        // The file only touched is found equal; the attributes file is new.
        let names: Vec<String> = diff
            .files
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![".gitattributes".to_owned()]);
    }

    #[test]
    fn a_listing_past_its_bound_stops_git_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        run_git(dir.path(), &["init", "-q"]);
        // A blob larger than a listing may be, printed whole.
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; (LISTING + (1 << 20)) as usize]).unwrap();
        let out = std::process::Command::new("git")
            .args(["hash-object", "-w", "big"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let sha = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let started = std::time::Instant::now();
        let read = rt.block_on(git(dir.path(), &["cat-file", "blob", &sha], None));
        assert!(
            matches!(read, Err(GitError::TooLarge(..))),
            "{:?}",
            read.err()
        );
        // Stopped, not left to its ceiling.
        assert!(started.elapsed() < CEILING, "{:?}", started.elapsed());
    }

    #[test]
    fn a_file_behind_a_linked_folder_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        let top = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), top.path().join("x")).unwrap();
        std::fs::create_dir(top.path().join("y")).unwrap();
        std::fs::write(top.path().join("y/ok.json"), "{}").unwrap();
        assert!(matches!(
            disk(top.path(), &top.path().join("x/secret.json")),
            Side::Absent
        ));
        assert!(matches!(
            disk(top.path(), &top.path().join("y/ok.json")),
            Side::Text(_)
        ));
    }

    #[test]
    fn a_revision_that_looks_like_an_option_is_no_commit() {
        let dir = tempfile::tempdir().unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(init.success());
        let written = dir.path().join("x");
        let rt = tokio::runtime::Runtime::new().unwrap();
        let read = rt.block_on(Diff::read(
            dir.path(),
            &Against::WorkingTree(format!("--output={}", written.display())),
            |_| true,
        ));
        // Inside a repository the revision is refused before git sees it,
        // so no option of git's is ever taken from it.
        assert!(
            matches!(read, Err(GitError::UnknownRevision(_))),
            "{:?}",
            read.err()
        );
        assert!(!written.exists());
    }
}
