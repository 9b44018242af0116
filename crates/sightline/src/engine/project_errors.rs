//! `sightline check [DIR]` and `lsp_check`: the errors of a whole project
//! or subtree. The files a server handles are found by a walk that honours
//! `.gitignore` (and the watch's skip list), at most [`MAX_FILES`] of them.
//! A server that offers `workspace/diagnostic` is asked that once for all
//! its files; every other file is asked for its diagnostics as the
//! diagnostics tool does, so a file unchanged since the last check answers
//! from what the server already published, at once. Within a budget; a note
//! names what was not checked.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::answer::{Finding, Severity};
use crate::engine::Engine;
use crate::error::{ErrorKind, ToolError};

/// At most this many files are checked.
pub const MAX_FILES: usize = 2000;
/// The whole check stops after this long.
const BUDGET: Duration = Duration::from_secs(120);
/// At most this many files are listed with their errors.
const FILES_SHOWN: usize = 20;
/// At most this many errors are listed per file (as the edit tools list).
const ERRORS_PER_FILE: usize = 20;

/// A check's answer.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// The directory checked.
    pub dir: PathBuf,
    /// Each file with errors, most errors first.
    pub files: Vec<(PathBuf, Vec<Finding>)>,
    /// How many files were checked.
    pub checked: usize,
    /// The files checked, errors or not.
    pub seen: Vec<PathBuf>,
    /// Lines such as what was not checked, and why.
    pub notes: Vec<String>,
}

impl Checked {
    /// The errors in all.
    pub fn errors(&self) -> usize {
        self.files.iter().map(|(_, e)| e.len()).sum()
    }

    /// The answer as the tool gives it: the summary first, then the files
    /// by error count, each with its errors.
    pub fn text(&self) -> String {
        let n = self.errors();
        let mut out = format!(
            "{n} error{} in {} file{} ({} checked)\n",
            if n == 1 { "" } else { "s" },
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" },
            self.checked
        );
        for note in &self.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        for (path, errors) in self.files.iter().take(FILES_SHOWN) {
            let shown = crate::render::shown(&self.dir, path);
            out.push_str(&format!(
                "{shown}: {} error{}\n",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            ));
            push_errors(&mut out, errors);
        }
        if self.files.len() > FILES_SHOWN {
            out.push_str(&format!(
                "... and {} more files with errors\n",
                self.files.len() - FILES_SHOWN
            ));
        }
        out
    }
}

/// Lists `errors` indented, at most [`ERRORS_PER_FILE`], then how many more.
pub(crate) fn push_errors(out: &mut String, errors: &[Finding]) {
    for e in errors.iter().take(ERRORS_PER_FILE) {
        out.push_str(&format!(
            "  {}:{} {} [{}]\n",
            e.line, e.column, e.message, e.source
        ));
    }
    if errors.len() > ERRORS_PER_FILE {
        out.push_str(&format!(
            "  ... and {} more\n",
            errors.len() - ERRORS_PER_FILE
        ));
    }
}

impl Engine {
    /// The files under `dir` that a server handles, as `.gitignore` (and
    /// the watch's skip list) leaves them, sorted, at most `max`; and
    /// whether there were more.
    pub(crate) fn served_files(&self, dir: &Path, max: usize) -> (Vec<PathBuf>, bool) {
        let mut files = Vec::new();
        let walker = ignore::WalkBuilder::new(dir)
            .hidden(false)
            .require_git(false)
            .sort_by_file_name(std::ffi::OsStr::cmp)
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && crate::sync::watch::SKIPPED
                        .iter()
                        .any(|s| e.file_name() == *s))
            })
            .build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            if crate::catalog::servers_for(path, &self.shared.servers).is_empty() {
                continue;
            }
            if files.len() == max {
                return (files, true);
            }
            files.push(path.to_owned());
        }
        (files, false)
    }

    /// The errors of every file under `dir` (default: the workspace, else
    /// the current directory) that a server handles.
    pub async fn check(&self, dir: Option<&Path>) -> Result<Checked, ToolError> {
        let dir = match dir {
            Some(d) => d.to_owned(),
            None => match self.workspace_root() {
                Some(r) => r.to_owned(),
                None => std::env::current_dir()
                    .map_err(|e| ToolError::bad_input(format!("no directory to check: {e}")))?,
            },
        };
        if !dir.is_dir() {
            return Err(ToolError::bad_input(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        let dir = sightline_lsp::normalize(&dir);
        let (files, more) = self.served_files(&dir, MAX_FILES);
        let mut answer = Checked {
            dir: dir.clone(),
            ..Checked::default()
        };
        if more {
            answer.notes.push(format!(
                "only the first {MAX_FILES} files were checked; check a subdirectory for the rest"
            ));
        }
        let started = Instant::now();
        let mut known = self.workspace_pulls(&files, &dir).await;
        for (i, file) in files.iter().enumerate() {
            if let Some(errors) = known.remove(file) {
                answer.checked += 1;
                answer.seen.push(file.clone());
                if !errors.is_empty() {
                    answer.files.push((file.clone(), errors));
                }
                continue;
            }
            if started.elapsed() > BUDGET {
                answer.notes.push(format!(
                    "the check stopped after {:.0} s; {} files were not checked, from {}",
                    BUDGET.as_secs_f64(),
                    files.len() - i,
                    crate::render::shown(&dir, file)
                ));
                break;
            }
            match self.diagnostics(file).await {
                Ok(d) => {
                    answer.checked += 1;
                    answer.seen.push(file.clone());
                    let errors: Vec<Finding> = d
                        .diagnostics
                        .into_iter()
                        .filter(|f| f.severity == Severity::Error)
                        .collect();
                    if !errors.is_empty() {
                        answer.files.push((file.clone(), errors));
                    }
                }
                // No server that runs here for it, or a file outside every
                // project: not an error of the project.
                Err(
                    ToolError {
                        kind: ErrorKind::Unavailable,
                        ..
                    }
                    | ToolError {
                        kind: ErrorKind::Unsupported,
                        ..
                    }
                    | ToolError {
                        kind: ErrorKind::BadInput,
                        ..
                    },
                ) => {}
                Err(e) => answer
                    .notes
                    .push(format!("{}: {e}", crate::render::shown(&dir, file))),
            }
        }
        answer
            .files
            .sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        Ok(answer)
    }

    /// The errors of `files` whose one server offers `workspace/diagnostic`,
    /// asked once per server and root; the rest are asked file by file.
    async fn workspace_pulls(
        &self,
        files: &[PathBuf],
        dir: &Path,
    ) -> HashMap<PathBuf, Vec<Finding>> {
        let mut known = HashMap::new();
        let mut tried = HashSet::new();
        for file in files {
            let Ok(snapshot) = self.snapshot(file) else {
                continue;
            };
            // A file several servers check has its findings merged per
            // file, by the diagnostics question.
            let Ok(routes) = self.route_all(&snapshot) else {
                continue;
            };
            let [(spec, root)] = routes.as_slice() else {
                continue;
            };
            if !tried.insert((spec.id, root.clone())) {
                continue;
            }
            let Ok(server) = self.shared.pool.get(spec, root).await else {
                continue;
            };
            if !server.workspace_pull {
                continue;
            }
            // Syncing one file brings every open document and the changes
            // on disk to the server first, so its report is of the disk.
            if server
                .sync(&snapshot.path, &snapshot.index, self.files())
                .is_err()
            {
                continue;
            }
            match server.workspace_diagnostics().await {
                Ok(Some(reports)) => {
                    for (path, findings) in reports {
                        if path.starts_with(dir) {
                            let errors = findings
                                .into_iter()
                                .filter(|f| f.severity == Severity::Error)
                                .collect();
                            known.insert(path, errors);
                        }
                    }
                }
                Ok(None) => {}
                Err(e) => tracing::debug!("{}: workspace diagnostics failed: {e}", spec.id),
            }
        }
        known
    }
}
