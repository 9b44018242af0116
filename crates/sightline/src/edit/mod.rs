//! The edit tools (`read`, `write`, `edit`, `apply_patch`), built on the
//! engine: `text` keeps the byte-order mark and line endings apart from the
//! content, `commit` writes all or nothing, `patch` reads and applies the
//! patch format, `tools` are the tools themselves, `check` lists the errors
//! each changed file now has, and `range` formats only the lines an edit
//! touched. An edit of a file that changed on disk since it was last read
//! through these tools is refused (`crate::sync::Seen`).

use std::path::{Path, PathBuf};

use crate::answer::Finding;
use crate::format::{Outcome, Report};

mod check;
pub mod commit;
pub mod patch;
mod range;
pub mod refactor;
pub mod text;
mod tools;
pub mod workspace;

pub use text::{ReplaceError, Replaced, Text, replace};

/// At most this many errors are listed per file.
pub const ERRORS_PER_FILE: usize = 20;
/// `write` also lists up to this many other files that now have errors.
pub const OTHER_FILES: usize = 5;

/// The errors one file has after a change.
#[derive(Debug, Clone)]
pub struct FileErrors {
    /// The file.
    pub path: PathBuf,
    /// Its errors, by position.
    pub errors: Vec<Finding>,
    /// Notes of its diagnostics answer (`... still analysing`), or why the
    /// errors were not checked.
    pub notes: Vec<String>,
}

/// The answer of `write`, `edit` and `apply_patch`.
#[derive(Debug, Clone, Default)]
pub struct EditAnswer {
    /// The workspace root paths are shown relative to.
    pub root: Option<PathBuf>,
    /// What was done, one line each (`wrote a.py`).
    pub changes: Vec<String>,
    /// What each formatter did, by file.
    pub formatting: Vec<(PathBuf, Report)>,
    /// The errors of each changed file (and, for `write`, of other open files).
    pub files: Vec<FileErrors>,
}

impl EditAnswer {
    /// The answer as the tools give it: the changes, formatting, then each
    /// file's errors (at most [`ERRORS_PER_FILE`] each), or `no errors`.
    pub fn text(&self) -> String {
        let root = self.root.clone().unwrap_or_default();
        let show = |p: &Path| crate::render::shown(&root, p);
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(c);
            out.push('\n');
        }
        for (path, r) in &self.formatting {
            if r.outcome != Outcome::Unchanged {
                out.push_str(&format!("{}: {}\n", show(path), r.line()));
            }
        }
        for f in &self.files {
            for n in &f.notes {
                out.push_str(&format!("{}: note: {n}\n", show(&f.path)));
            }
            if f.errors.is_empty() {
                continue;
            }
            let n = f.errors.len();
            out.push_str(&format!(
                "{}: {n} error{}\n",
                show(&f.path),
                if n == 1 { "" } else { "s" }
            ));
            for e in f.errors.iter().take(ERRORS_PER_FILE) {
                out.push_str(&format!(
                    "{}:{} error: {} [{}]\n",
                    e.line, e.column, e.message, e.source
                ));
            }
            if n > ERRORS_PER_FILE {
                out.push_str(&format!("... and {} more\n", n - ERRORS_PER_FILE));
            }
        }
        if self.files.iter().all(|f| f.errors.is_empty()) {
            out.push_str("no errors\n");
        }
        out
    }
}
