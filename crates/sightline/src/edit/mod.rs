//! The edit tools (`read`, `write`, `edit`, `apply_patch`), built on the
//! engine: `text` keeps the byte-order mark and line endings apart from the
//! content, `commit` writes all or nothing, `patch` reads and applies the
//! patch format, `tools` are the tools themselves, `check` lists the errors
//! each change introduced (`delta` matches them before and after,
//! `declared` picks the declarations whose users are checked too,
//! `checkpoint` keeps states for `since`), and `range` formats only the
//! lines an edit touched; `dry_run` previews an edit's errors without
//! writing it. An edit of a file that changed on disk since it
//! was last read through these tools is refused (`crate::sync::LastRead`).

use std::path::{Path, PathBuf};

use crate::answer::Finding;
use crate::format::{Outcome, Report};

mod agent_edit;
pub mod agent_edits;
mod by_symbol;
mod changed_lines;
pub mod checkpoint;
pub mod commit;
mod declared;
pub mod delta;
mod dry_run;
mod editor;
mod finish;
pub(crate) mod impact;
pub mod journal;
mod kept_aliases;
mod move_path;
pub mod new_errors;
pub mod patch;
mod range;
pub mod refactor;
pub mod text;
mod tools;
mod whole_rename;
mod wire;
pub mod workspace;

pub use by_symbol::SymbolEdit;
pub(crate) use dry_run::BoxedEdit;
pub use editor::Editor;
pub use text::Text;

/// At most this many errors are listed per file.
pub const ERRORS_PER_FILE: usize = 20;
/// `write` also lists up to this many other files that now have errors.
pub const OTHER_FILES: usize = 5;

/// The errors one file has after a change.
#[derive(Debug, Clone, Default)]
pub struct FileErrors {
    /// The file.
    pub path: PathBuf,
    /// Its errors, by position: with `delta`, only those the change
    /// introduced (and, with `edit_warnings`, its new warnings).
    pub errors: Vec<Finding>,
    /// Notes of its diagnostics answer (`... still analysing`), or why the
    /// errors were not checked.
    pub notes: Vec<String>,
    /// Whether `errors` are what the change introduced (the file's errors
    /// before it were known).
    pub delta: bool,
    /// Errors the change fixed.
    pub fixed: usize,
    /// Errors there before and after.
    pub kept: usize,
    /// A file the change did not touch that uses what it altered.
    pub dependent: bool,
    /// Why `errors` are every error the file has now rather than what the
    /// change introduced, when a delta was asked for but could not be made
    /// (`no answer before the change`). They are listed all the same: a
    /// file the change may have broken is never dropped.
    pub not_compared: Option<String>,
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
    /// The errors of each changed file, then of the files using what it
    /// altered.
    pub files: Vec<FileErrors>,
    /// What the files were before the change (the checkpoint it makes).
    pub baseline: new_errors::Baseline,
    /// Dependents with new errors beyond the [`OTHER_FILES`] listed.
    pub more_dependents: usize,
    /// Dependents the budget left unchecked.
    pub not_checked: Vec<PathBuf>,
    /// Lines about what could not be followed or checked.
    pub notes: Vec<String>,
    /// A dry run: nothing was written (`Editor::preview`).
    pub preview: bool,
}

impl EditAnswer {
    /// Whether the change brought errors: a file lists errors it
    /// introduced, or errors that could not be compared with the file's
    /// before (they may be new). Errors that were there before do not
    /// count. The CLI exits 1 on this.
    pub fn brought_errors(&self) -> bool {
        self.files.iter().any(|f| {
            f.errors
                .iter()
                .any(|e| e.severity == crate::answer::Severity::Error)
        })
    }

    /// The answer as the tools give it: the changes, formatting, then each
    /// file's new errors (at most [`ERRORS_PER_FILE`] each) with what was
    /// fixed and what was already there, or `no errors`.
    pub fn text(&self) -> String {
        let root = self.root.clone().unwrap_or_default();
        let show = |p: &Path| crate::render::shown(&root, p);
        let mut out = String::new();
        if self.preview {
            out.push_str("preview: nothing was written\n");
        }
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
            if f.errors.is_empty() && f.fixed == 0 && f.kept == 0 {
                continue;
            }
            out.push_str(&format!("{}: {}\n", show(&f.path), f.summary()));
            for e in f.errors.iter().take(ERRORS_PER_FILE) {
                let severity = match e.severity {
                    crate::answer::Severity::Warning => "warning",
                    _ => "error",
                };
                out.push_str(&format!(
                    "{}:{} {severity}: {} [{}]\n",
                    e.line, e.column, e.message, e.source
                ));
            }
            if f.errors.len() > ERRORS_PER_FILE {
                out.push_str(&format!(
                    "... and {} more\n",
                    f.errors.len() - ERRORS_PER_FILE
                ));
            }
        }
        if self.more_dependents > 0 {
            out.push_str(&format!(
                "... and {} more files that use what changed have new errors\n",
                self.more_dependents
            ));
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        if !self.not_checked.is_empty() {
            let names: Vec<String> = self.not_checked.iter().map(|p| show(p)).collect();
            out.push_str(&format!(
                "note: the files using what changed were not all checked in time: {}\n",
                names.join(", ")
            ));
        }
        if self.files.iter().all(|f| f.errors.is_empty()) {
            let kept: usize = self.files.iter().map(|f| f.kept).sum();
            out.push_str(if kept > 0 {
                "no new errors\n"
            } else {
                "no errors\n"
            });
        }
        out
    }
}

impl FileErrors {
    /// `2 errors`, or with a delta `1 new error; 1 fixed; 12 were already
    /// there (lsp_diagnostics lists them)`.
    fn summary(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let errors = self
            .errors
            .iter()
            .filter(|e| e.severity == crate::answer::Severity::Error)
            .count();
        let warnings = self.errors.len() - errors;
        if !self.delta {
            let mut line = plural(errors, "error", "errors");
            if let Some(why) = &self.not_compared {
                line.push_str(&format!(", not compared: {why}"));
            }
            if self.dependent {
                line.push_str(" (it uses what changed)");
            }
            return line;
        }
        let mut parts = vec![match errors {
            0 => "no new errors".to_owned(),
            n => plural(n, "new error", "new errors"),
        }];
        if warnings > 0 {
            parts[0].push_str(&format!(
                ", {}",
                plural(warnings, "new warning", "new warnings")
            ));
        }
        if self.fixed > 0 {
            parts.push(format!("{} fixed", self.fixed));
        }
        if self.kept > 0 {
            parts.push(format!(
                "{} already there (lsp_diagnostics lists them)",
                plural(self.kept, "was", "were")
            ));
        }
        let mut line = parts.join("; ");
        if self.dependent {
            line.push_str(" (it uses what changed)");
        }
        line
    }
}
