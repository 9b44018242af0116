//! The errors an edit left. Before a change is written, each file it
//! changes is asked for its diagnostics (`baseline`); when the change alters
//! what a file declares (a signature, a name, a member, a field's type), the
//! files that use those symbols are found by references and asked too,
//! for as long as their servers work (`dependents_budget`). After the write, every one of them is
//! asked again (the dependents within a budget of their own), and the answer
//! lists what the change introduced (`delta`).

use crate::edit::editor::Editor;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use crate::answer::{Finding, Severity};
use crate::edit::declared::declared;
use crate::edit::delta::{self, State};
use crate::edit::text::Text;
use crate::edit::{EditAnswer, FileErrors, OTHER_FILES};
use crate::error::{ErrorKind, ToolError};
use crate::sync::FileView;

/// At most this many changed declarations are followed to their users.
const SYMBOLS_FOLLOWED: usize = 12;
/// A file larger than this is not asked before the change (its errors are
/// then listed, not a delta).
const LARGEST: u64 = 2 << 20;
/// Files asked at once before a change.
const AT_ONCE: usize = 4;
/// How many times a file the change writes is asked for its diagnostics
/// before the change, while the answers are incomplete.
const CHANGED_ASKS: usize = 3;
/// The least time the after-change check of the files using what changed
/// gets, whatever `dependents_ms` says (but 0, which turns it off).
const AFTER_AT_LEAST: Duration = Duration::from_secs(10);
/// Why a file's errors are listed whole: its diagnostics could not be had
/// (in time, or complete) before the change was written.
const NO_BEFORE: &str = "no answer before the change";

/// What the after-edit check learned before the change was written.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Each changed file and each dependent, as it was (a file the change
    /// creates, as empty).
    pub states: HashMap<PathBuf, State>,
    /// Files that use what the change alters, in the order found.
    pub dependents: Vec<PathBuf>,
    /// Lines about what could not be followed or asked in time.
    pub notes: Vec<String>,
    /// Changed files whose users could not all be looked for before the
    /// change, with their old text: they are looked for after it.
    pub unfollowed: Vec<(PathBuf, String)>,
    /// Time spent asking the changed files before the write.
    pub spent_files: Duration,
    /// Time spent finding the dependents (outline, references).
    pub spent_finding: Duration,
    /// Time spent asking the dependents before the write.
    pub spent_dependents: Duration,
    /// Each changed declaration, with the places that used it before the
    /// change where they were looked for.
    pub followed: Vec<Followed>,
}

/// A declaration the change touched, as it was, and its users then.
#[derive(Debug, Clone)]
pub struct Followed {
    /// The file declaring it.
    pub path: PathBuf,
    /// Its name's line and column, before the change.
    pub line: usize,
    /// Its name's column.
    pub column: usize,
    /// Its name.
    pub name: String,
    /// The places that use it, before the change (its declaration left
    /// out); `None` when they were not looked for (past the cap, no
    /// answer in time, or the server's error).
    pub uses: Option<Vec<crate::answer::Loc>>,
}

impl Editor<'_> {
    /// Asks each file about to change (and, for a change to what a file
    /// declares, the files using it) for its diagnostics as they are now.
    /// Fails when a file changed on disk meanwhile: nothing is written then.
    pub(super) async fn baseline(
        &self,
        staged: &[(PathBuf, Option<Text>)],
    ) -> Result<Baseline, ToolError> {
        self.baseline_within(staged, self.dependents_budget()).await
    }

    /// How long a check may find and ask the files using what changed,
    /// before the change and after: as long as their servers work on them
    /// (each question ends when its server shows no work past its own
    /// budget), up to the ceiling of a server's waits, and at least
    /// `dependents_ms`. A clock of its own (`dependents_ms` alone, 5 s)
    /// left a consumer's errors before the change unasked on a busy
    /// machine, and listed them whole as "not compared" while the server
    /// was visibly working. 0 still turns the dependents off.
    pub(super) fn dependents_budget(&self) -> Duration {
        let configured = Duration::from_millis(self.engine.config().dependents_ms);
        if configured.is_zero() {
            return configured;
        }
        configured.max(crate::catalog::Budgets::default().ceiling)
    }

    /// [`Self::baseline`], the dependents asked within `budget`.
    #[allow(
        clippy::too_many_lines,
        reason = "the baseline is one pass over the files to change and their dependents, whose steps share the staged texts and the budget left"
    )]
    pub(super) async fn baseline_within(
        &self,
        staged: &[(PathBuf, Option<Text>)],
        budget: Duration,
    ) -> Result<Baseline, ToolError> {
        let mut base = Baseline::default();
        let config = self.engine.config();
        if !config.edit_delta && budget.is_zero() {
            return Ok(base);
        }
        let started = Instant::now();
        let mut olds: Vec<(PathBuf, Option<String>, Option<&Text>)> = Vec::new();
        for (path, new) in staged {
            if !self.engine.handles(path) {
                continue;
            }
            // The old text of each file a server handles: not one too
            // large to ask, or not text (its errors are listed whole).
            let large = std::fs::metadata(path).is_ok_and(|m| m.len() > LARGEST);
            let old = current_text(self.engine.files(), path);
            if large || old.as_ref().is_some_and(|t| t.contains('\0')) {
                continue;
            }
            olds.push((path.clone(), old, new.as_ref()));
        }
        let jobs: Vec<(PathBuf, Option<String>)> = olds
            .iter()
            .map(|(p, o, _)| (p.clone(), o.clone()))
            .collect();
        let asked: Vec<(PathBuf, Option<State>)> = futures_util::stream::iter(jobs)
            .map(|(path, old)| async move {
                let state = match old {
                    // A file the change creates had nothing.
                    None => Some(State::default()),
                    Some(text) => self.state_of_changed(&path, text).await,
                };
                (path, state)
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        for (path, state) in asked {
            if let Some(s) = state {
                base.states.insert(path, s);
            }
        }
        base.spent_files = started.elapsed();
        if budget.is_zero() {
            return still_as_read(self.engine.files(), &olds, base);
        }
        let deadline = Instant::now() + budget;
        let left = || deadline.saturating_duration_since(Instant::now());
        let t = Instant::now();
        let mut symbols = Vec::new();
        for (path, old, new) in &olds {
            let (Some(old), Some(new)) = (old, new) else {
                continue;
            };
            // The text after is held without its byte order mark; the
            // text before may still have it, which is no change.
            let hunks = delta::hunks(old.strip_prefix('\u{feff}').unwrap_or(old), &new.body);
            if hunks.is_empty() {
                continue;
            }
            match tokio::time::timeout(left(), self.engine.document_symbols(path)).await {
                Ok(Ok(outline)) => {
                    declared(&outline.items, (old, &new.body), &hunks, &mut symbols);
                }
                Ok(Err(e)) => base.notes.push(format!(
                    "the users of {} were not looked for: {e}",
                    path.display()
                )),
                Err(_) => base.unfollowed.push((path.clone(), old.clone())),
            }
        }
        if symbols.len() > SYMBOLS_FOLLOWED {
            base.notes.push(format!(
                "the change touches {} declarations; the users of the first {SYMBOLS_FOLLOWED} were looked for",
                symbols.len()
            ));
        }
        let changed: Vec<&PathBuf> = staged.iter().map(|(p, _)| p).collect();
        let mut users = BTreeSet::new();
        for (n, (path, line, column, name)) in symbols.into_iter().enumerate() {
            let mut followed = Followed {
                path: path.clone(),
                line,
                column,
                name: name.clone(),
                uses: None,
            };
            if n >= SYMBOLS_FOLLOWED {
                base.followed.push(followed);
                continue;
            }
            let refs =
                tokio::time::timeout(left(), self.engine.references(&path, line, column, false));
            match refs.await {
                Ok(Ok(found)) => {
                    // A package left unsearched is said, not passed over.
                    base.notes.extend(found.notes);
                    for l in &found.locations {
                        if !changed.contains(&&l.path) && users.insert(l.path.clone()) {
                            base.dependents.push(l.path.clone());
                        }
                    }
                    followed.uses = Some(found.locations);
                }
                // A key of a data file (JSON, YAML, TOML) has no users in
                // code, and its outline place may take no references
                // question (vscode-json-languageserver gives a key at its
                // opening quote): it is listed as not looked for, without
                // a note. Any other declaration's failure is said.
                Ok(Err(e))
                    if matches!(e.kind, ErrorKind::BadInput | ErrorKind::Unsupported)
                        && is_data_file(&path) => {}
                Ok(Err(e)) => base
                    .notes
                    .push(format!("the users of `{name}` were not looked for: {e}")),
                Err(_) => {
                    if !base.unfollowed.iter().any(|(p, _)| *p == path)
                        && let Some((_, Some(old), _)) = olds.iter().find(|(p, _, _)| *p == path)
                    {
                        base.unfollowed.push((path.clone(), old.clone()));
                    }
                }
            }
            base.followed.push(followed);
        }
        base.spent_finding = t.elapsed();
        let t = Instant::now();
        for user in base.dependents.clone() {
            let text = std::fs::read(&user)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            // A dependent with no answer in time stays a dependent: it is
            // checked after the change all the same, its errors listed as
            // not compared (`check_errors`).
            if let Ok(Some(state)) = tokio::time::timeout(left(), self.state_of(&user, text)).await
            {
                base.states.insert(user, state);
            }
        }
        base.spent_dependents = t.elapsed();
        still_as_read(self.engine.files(), &olds, base)
    }

    /// Looks for the users of what the change altered in `path` (whose old
    /// text is `old`) after the change, when it could not be done before:
    /// the declarations the change touched, in the new outline, and their
    /// references. Adds them to `dependents`, which have no before.
    async fn users_after(
        &self,
        path: &Path,
        old: &str,
        changed: &[PathBuf],
        deadline: Instant,
        dependents: &mut Vec<PathBuf>,
        notes: &mut Vec<String>,
    ) {
        let left = || deadline.saturating_duration_since(Instant::now());
        let late = || {
            format!(
                "the users of {} were not looked for in time, before or after the change",
                path.display()
            )
        };
        let new = self.engine.files().read_text(path);
        // The hunks of the old text against the new one are in the new
        // text's lines, as the outline of the file now is.
        let hunks = delta::hunks(&new, old);
        let mut symbols = Vec::new();
        match tokio::time::timeout(left(), self.engine.document_symbols(path)).await {
            Ok(Ok(outline)) => declared(&outline.items, (&new, old), &hunks, &mut symbols),
            Ok(Err(e)) => {
                notes.push(format!(
                    "the users of {} were not looked for: {e}",
                    path.display()
                ));
                return;
            }
            Err(_) => {
                notes.push(late());
                return;
            }
        }
        for (file, line, column, name) in symbols.into_iter().take(SYMBOLS_FOLLOWED) {
            let asked =
                tokio::time::timeout(left(), self.engine.references(&file, line, column, false))
                    .await;
            match asked {
                Ok(Ok(found)) => {
                    notes.extend(found.notes);
                    for l in found.locations {
                        if !changed.contains(&l.path) && !dependents.contains(&l.path) {
                            dependents.push(l.path);
                        }
                    }
                }
                Ok(Err(e)) => notes.push(format!("the users of `{name}` were not looked for: {e}")),
                Err(_) => {
                    notes.push(late());
                    return;
                }
            }
        }
    }

    /// [`Self::state_of`] for a file the change writes, asked again while
    /// its answer is incomplete (a cold server still analysing a large
    /// file), up to [`CHANGED_ASKS`] times: without it, every error the
    /// file has is listed as not compared, and the CLI exits 1 on errors
    /// that were there before.
    async fn state_of_changed(&self, path: &Path, text: String) -> Option<State> {
        for _ in 1..CHANGED_ASKS {
            if let Some(state) = self.state_of(path, text.clone()).await {
                return Some(state);
            }
        }
        self.state_of(path, text).await
    }

    /// The diagnostics of `path` now, with its text; `None` when the
    /// answer is not complete (a note), so no delta is made against it.
    async fn state_of(&self, path: &Path, text: String) -> Option<State> {
        let d = self.engine.diagnostics(path).await.ok()?;
        // The note of an untrusted project's ignored keys comes with every
        // answer and says nothing of this one's completeness.
        let untrusted = self.engine.config().untrusted_note();
        let incomplete = d.notes.iter().any(|n| Some(n) != untrusted.as_ref());
        (!incomplete).then_some(State {
            text,
            findings: d.diagnostics,
        })
    }

    /// Adds what the change did to the errors of `files` and of the
    /// dependents the baseline found to the answer.
    pub(super) async fn check_errors(&self, answer: &mut EditAnswer, files: &[PathBuf]) {
        self.check_errors_within(answer, files, self.dependents_budget())
            .await;
    }

    /// [`Self::check_errors`], the dependents asked within `budget`.
    #[allow(
        clippy::too_many_lines,
        reason = "one pass over the changed files and their dependents, whose steps share the budget left and the answer being built"
    )]
    pub(super) async fn check_errors_within(
        &self,
        answer: &mut EditAnswer,
        files: &[PathBuf],
        budget: Duration,
    ) {
        let config = self.engine.config();
        let (use_delta, warnings) = (config.edit_delta, config.edit_warnings);
        // Warnings are listed only as news.
        let shown = |f: &Finding, delta: bool| {
            f.severity == Severity::Error || (delta && warnings && f.severity == Severity::Warning)
        };
        let base = std::mem::take(&mut answer.baseline);
        for file in files {
            match self.engine.diagnostics(file).await {
                Ok(d) => {
                    answer.root.get_or_insert(d.root.clone());
                    let before = base.states.get(file).filter(|_| use_delta);
                    let after: Vec<Finding> = d
                        .diagnostics
                        .into_iter()
                        .filter(|f| shown(f, before.is_some()))
                        .collect();
                    let mut entry = FileErrors {
                        path: file.clone(),
                        errors: after.clone(),
                        notes: d.notes,
                        not_compared: (use_delta && before.is_none()).then(|| NO_BEFORE.to_owned()),
                        ..FileErrors::default()
                    };
                    if let Some(before) = before {
                        let text = self.engine.files().read_text(file);
                        apply(&mut entry, before, &after, &text, |f| shown(f, true));
                    }
                    answer.files.push(entry);
                }
                // No server for this kind of file: nothing to check.
                Err(ToolError {
                    kind: ErrorKind::Unsupported,
                    ..
                })
                | Err(ToolError {
                    kind: ErrorKind::BadInput,
                    ..
                }) => {}
                Err(e) => answer.files.push(FileErrors {
                    path: file.clone(),
                    notes: vec![format!("errors not checked: {e}")],
                    ..FileErrors::default()
                }),
            }
        }
        // The dependents, within a budget of their own from here: only
        // what the change broke in them is news. Work the budget before the
        // change left undone is done now, and that budget is at least
        // `AFTER_AT_LEAST`: the edit is written already, so a few seconds
        // more cost less than a file it broke going unlisted.
        let deadline = Instant::now() + budget.max(AFTER_AT_LEAST);
        let mut dependents = base.dependents.clone();
        if !budget.is_zero() {
            for (path, old) in &base.unfollowed {
                self.users_after(
                    path,
                    old,
                    files,
                    deadline,
                    &mut dependents,
                    &mut answer.notes,
                )
                .await;
            }
        }
        let mut listed = 0;
        for user in &dependents {
            let before = base.states.get(user);
            let left = deadline.saturating_duration_since(Instant::now());
            let d = match tokio::time::timeout(left, self.engine.diagnostics(user)).await {
                Ok(Ok(d)) => d,
                Ok(Err(e)) => {
                    answer
                        .notes
                        .push(format!("{} was not checked: {e}", user.display()));
                    continue;
                }
                Err(_) => {
                    answer.not_checked.push(user.clone());
                    continue;
                }
            };
            let after: Vec<Finding> = d
                .diagnostics
                .into_iter()
                .filter(|f| shown(f, before.is_some()))
                .collect();
            let mut entry = FileErrors {
                path: user.clone(),
                errors: after.clone(),
                notes: d.notes,
                dependent: true,
                not_compared: before.is_none().then(|| NO_BEFORE.to_owned()),
                ..FileErrors::default()
            };
            if let Some(before) = before {
                apply(
                    &mut entry,
                    before,
                    &after,
                    &self.engine.files().read_text(user),
                    |f| shown(f, true),
                );
            }
            if entry.errors.is_empty() && entry.notes.is_empty() {
                continue;
            }
            if listed == OTHER_FILES {
                answer.more_dependents += 1;
                continue;
            }
            listed += 1;
            answer.files.push(entry);
        }
        answer.notes.extend(base.notes.iter().cloned());
        answer.baseline = base;
    }
}

/// Refuses the change when a file it changes is no longer what the
/// baseline read (an edit made meanwhile would be overwritten).
fn still_as_read(
    files: &FileView,
    olds: &[(PathBuf, Option<String>, Option<&Text>)],
    base: Baseline,
) -> Result<Baseline, ToolError> {
    for (path, old, _) in olds {
        if current_text(files, path) != *old {
            return Err(ToolError::refused(format!(
                "{} changed on disk while the edit was being checked; nothing was changed, read it again",
                path.display()
            )));
        }
    }
    Ok(base)
}

/// `path`'s text before the change as `files` sees it: held in memory
/// when the change is on disk already (`Editor::after_agent_edit`), else
/// the disk's.
fn current_text(files: &FileView, path: &Path) -> Option<String> {
    match files.staged(path) {
        Some(held) => held.map(|i| i.text().to_owned()),
        None => Some(files.read_text(path)).filter(|_| path.exists()),
    }
}

/// Narrows `entry` to what changed against `before`.
fn apply(
    entry: &mut FileErrors,
    before: &State,
    after: &[Finding],
    text: &str,
    shown: impl Fn(&Finding) -> bool,
) {
    let before = State {
        text: before.text.clone(),
        findings: before
            .findings
            .iter()
            .filter(|f| shown(f))
            .cloned()
            .collect(),
    };
    let d = delta::split(&before, after, text);
    let errors = |v: &[Finding]| v.iter().filter(|f| f.severity == Severity::Error).count();
    entry.fixed = errors(&d.fixed);
    entry.kept = errors(&d.kept);
    entry.errors = d.new;
    entry.delta = true;
}

/// Whether `path` is a data file (JSON, YAML, TOML), whose keys no code
/// uses by name.
pub(crate) fn is_data_file(path: &Path) -> bool {
    let ending = crate::files::extension_of(path).unwrap_or_default();
    matches!(
        ending.as_str(),
        ".json" | ".jsonc" | ".json5" | ".yaml" | ".yml" | ".toml"
    )
}
