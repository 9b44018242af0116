//! Checkpoints: the errors of some files at one moment, kept in memory per
//! client session, so that a later question can ask what changed since.
//! Every edit answer makes one (the files as they were before it), and the
//! `checkpoint` tool makes one of a file or of a whole project.

use crate::edit::editor::Editor;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use crate::answer::{Finding, Severity};
use crate::edit::delta::{self, State};
use crate::error::ToolError;

/// At most this many checkpoints are kept per session; the oldest go first.
pub const KEPT: usize = 32;
/// At most this many bytes of file text are kept in a session's
/// checkpoints; the oldest go first.
pub const KEPT_BYTES: usize = 64 << 20;
/// At most this many files are listed in a delta.
const FILES_SHOWN: usize = 20;

/// The errors of some files at one moment.
#[derive(Debug, Clone, Default)]
pub struct Checkpoint {
    /// The directory a project checkpoint covers: a file with errors now
    /// and none in the checkpoint is new there.
    pub dir: Option<PathBuf>,
    /// Each file with its text and findings then.
    pub files: HashMap<PathBuf, State>,
}

/// A session's checkpoints, `cp1`, `cp2`, ...
#[derive(Debug, Default)]
pub struct Checkpoints {
    next: u64,
    kept: VecDeque<(String, Checkpoint)>,
}

impl Checkpoints {
    /// Keeps `cp` and returns its name.
    pub fn add(&mut self, cp: Checkpoint) -> String {
        self.next += 1;
        let name = format!("cp{}", self.next);
        self.kept.push_back((name.clone(), cp));
        let size = |cp: &Checkpoint| cp.files.values().map(|s| s.text.len()).sum::<usize>();
        while self.kept.len() > KEPT
            || (self.kept.len() > 1
                && self.kept.iter().map(|(_, c)| size(c)).sum::<usize>() > KEPT_BYTES)
        {
            self.kept.pop_front();
        }
        name
    }

    /// The checkpoint called `name`.
    pub fn get(&self, name: &str) -> Result<Checkpoint, ToolError> {
        self.kept
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, cp)| cp.clone())
            .ok_or_else(|| {
                let known: Vec<&str> = self.kept.iter().map(|(n, _)| n.as_str()).collect();
                ToolError::bad_input(if known.is_empty() {
                    format!("no checkpoint `{name}`: this session has made none yet (the `checkpoint` tool and every edit make one)")
                } else {
                    format!(
                        "no checkpoint `{name}`; this session keeps its last {KEPT}: {}",
                        known.join(", ")
                    )
                })
            })
    }
}

/// What changed in each file since a checkpoint.
#[derive(Debug, Clone, Default)]
pub struct Since {
    /// The checkpoint's name.
    pub name: String,
    /// The directory paths are shown relative to.
    pub root: PathBuf,
    /// Each file with new errors or fixed ones: (file, new, fixed, kept).
    pub files: Vec<(PathBuf, Vec<Finding>, usize, usize)>,
    /// Files the checkpoint held that could not be asked now, and why.
    pub notes: Vec<String>,
}

impl Since {
    /// New errors in all.
    pub fn new_errors(&self) -> usize {
        self.files.iter().map(|f| f.1.len()).sum()
    }

    /// `since cp2: 3 new errors in 2 files; 1 fixed; 12 were already
    /// there`, then each file's new errors.
    pub fn text(&self) -> String {
        let new = self.new_errors();
        let with_new = self.files.iter().filter(|f| !f.1.is_empty()).count();
        let fixed: usize = self.files.iter().map(|f| f.2).sum();
        let kept: usize = self.files.iter().map(|f| f.3).sum();
        let s = |n: usize| if n == 1 { "" } else { "s" };
        let mut out = format!(
            "since {}: {new} new error{} in {with_new} file{}; {fixed} fixed; {kept} {} already there\n",
            self.name,
            s(new),
            s(with_new),
            if kept == 1 { "was" } else { "were" }
        );
        for note in &self.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        let mut shown = 0;
        for (path, errors, fixed, _) in &self.files {
            if errors.is_empty() && *fixed == 0 {
                continue;
            }
            shown += 1;
            if shown > FILES_SHOWN {
                continue;
            }
            let mut head = format!(
                "{}: {} new error{}",
                crate::render::shown(&self.root, path),
                errors.len(),
                s(errors.len())
            );
            if *fixed > 0 {
                head.push_str(&format!("; {fixed} fixed"));
            }
            out.push_str(&head);
            out.push('\n');
            crate::engine::project_errors::push_errors(&mut out, errors);
        }
        if shown > FILES_SHOWN {
            out.push_str(&format!("... and {} more files\n", shown - FILES_SHOWN));
        }
        out
    }
}

impl Editor<'_> {
    /// A checkpoint of `path`: a file's diagnostics, or the whole-project
    /// check of a directory (default: the workspace). Returns it with the
    /// line the tool answers.
    pub async fn checkpoint(&self, path: Option<&Path>) -> Result<(Checkpoint, String), ToolError> {
        if let Some(file) = path.filter(|p| p.is_file()) {
            let d = self.engine.diagnostics(file).await?;
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let errors = d
                .diagnostics
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            let cp = Checkpoint {
                dir: None,
                files: HashMap::from([(
                    d.file.clone(),
                    State {
                        text,
                        findings: d.diagnostics,
                    },
                )]),
            };
            let s = if errors == 1 { "" } else { "s" };
            return Ok((cp, format!("{errors} error{s} in {}", file.display())));
        }
        let checked = self.engine.check(path).await?;
        let mut cp = Checkpoint {
            dir: Some(checked.dir.clone()),
            files: HashMap::new(),
        };
        for (file, findings) in &checked.files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            cp.files.insert(
                file.clone(),
                State {
                    text,
                    findings: findings.clone(),
                },
            );
        }
        let summary = checked.text();
        let first = summary.lines().next().unwrap_or_default().to_owned();
        Ok((cp, first))
    }

    /// What changed since `cp` in `file`, or, without one, in every file
    /// the checkpoint holds (for a project checkpoint, every file of its
    /// directory, or of `dir` within it).
    pub async fn since(
        &self,
        name: &str,
        cp: &Checkpoint,
        file: Option<&Path>,
        dir: Option<&Path>,
    ) -> Result<Since, ToolError> {
        let root = cp
            .dir
            .clone()
            .or_else(|| self.engine.workspace_root().map(Path::to_owned))
            .unwrap_or_default();
        let mut since = Since {
            name: name.to_owned(),
            root,
            ..Since::default()
        };
        // The errors now, by file, of the files compared.
        let mut now: BTreeMap<PathBuf, Vec<Finding>> = BTreeMap::new();
        if let Some(f) = file {
            let d = self.engine.diagnostics(f).await?;
            since.root = d.root.clone();
            let held = cp.files.contains_key(&d.file)
                || cp.dir.as_deref().is_some_and(|dir| d.file.starts_with(dir));
            if !held {
                since.notes.push(format!(
                    "{name} did not hold {}; every error is counted new",
                    f.display()
                ));
            }
            now.insert(d.file.clone(), errors_of(d.diagnostics));
        } else if let Some(cp_dir) = &cp.dir {
            let dir = dir
                .map(sightline_lsp::normalize)
                .unwrap_or_else(|| cp_dir.clone());
            let checked = self.engine.check(Some(&dir)).await?;
            since.notes.extend(checked.notes.iter().cloned());
            let seen: std::collections::HashSet<&PathBuf> = checked.seen.iter().collect();
            for f in &checked.seen {
                now.insert(f.clone(), Vec::new());
            }
            for (f, errors) in &checked.files {
                now.insert(f.clone(), errors.clone());
            }
            let missed = cp
                .files
                .keys()
                .filter(|f| f.starts_with(&dir) && !seen.contains(f))
                .count();
            if missed > 0 {
                since.notes.push(format!(
                    "{missed} files with errors in {name} were not checked now; they are left out"
                ));
            }
        } else {
            let n = cp.files.len();
            since.notes.push(format!(
                "{name} holds {n} file{}, not the whole project; make one of the project with `checkpoint` to compare it all",
                if n == 1 { "" } else { "s" }
            ));
            for f in cp.files.keys() {
                match self.engine.diagnostics(f).await {
                    Ok(d) => {
                        now.insert(f.clone(), errors_of(d.diagnostics));
                    }
                    Err(e) => since.notes.push(format!("{}: {e}", f.display())),
                }
            }
        }
        for (path, after) in now {
            let before = cp
                .files
                .get(&path)
                .map(|s| State {
                    text: s.text.clone(),
                    findings: errors_of(s.findings.clone()),
                })
                .unwrap_or_default();
            let text = std::fs::read(&path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let d = delta::split(&before, &after, &text);
            if d.new.is_empty() && d.fixed.is_empty() && d.kept.is_empty() {
                continue;
            }
            since.files.push((path, d.new, d.fixed.len(), d.kept.len()));
        }
        since
            .files
            .sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        Ok(since)
    }
}

fn errors_of(findings: Vec<Finding>) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_checkpoints_go_first() {
        let mut cps = Checkpoints::default();
        for _ in 0..KEPT + 2 {
            cps.add(Checkpoint::default());
        }
        assert!(cps.get("cp1").is_err());
        assert!(cps.get("cp3").is_ok());
        let e = cps
            .get("cp99")
            .expect_err("cp99 was never made")
            .to_string();
        assert!(e.contains("keeps its last 32: cp3, cp4"), "{e}");
    }
}
