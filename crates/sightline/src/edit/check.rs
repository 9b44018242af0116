//! The errors an edit left. Before a change is written, each file it
//! changes is asked for its diagnostics (`baseline`); when the change alters
//! what a file declares (a signature, a name, a field's type), the files
//! that use those symbols are found by references and asked too, within the
//! `dependents_ms` budget. After the write, every one of them is asked again,
//! and the answer lists what the change introduced (`delta`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::answer::{Finding, Item, Severity};
use crate::edit::delta::{self, State};
use crate::edit::text::Text;
use crate::edit::{EditAnswer, FileErrors, OTHER_FILES};
use crate::engine::Engine;
use crate::error::ToolError;

/// At most this many changed symbols are followed to their users.
const SYMBOLS_FOLLOWED: usize = 12;

/// What the after-edit check learned before the change was written.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Each changed file and each dependent, as it was.
    pub states: HashMap<PathBuf, State>,
    /// Files that use what the change alters, in the order found.
    pub dependents: Vec<PathBuf>,
    /// Dependents found but not asked in time.
    pub unchecked: Vec<PathBuf>,
    /// When the dependents' budget ends.
    pub deadline: Option<Instant>,
    /// Time spent asking the changed files before the write.
    pub spent_files: Duration,
    /// Time spent finding the dependents (outline, references).
    pub spent_finding: Duration,
    /// Time spent asking the dependents before the write.
    pub spent_dependents: Duration,
}

impl Engine {
    /// Asks each file about to change (and, for a change to what a file
    /// declares, the files using it) for its diagnostics as they are now.
    pub(super) async fn baseline(&self, staged: &[(PathBuf, Option<Text>)]) -> Baseline {
        let mut base = Baseline::default();
        let config = self.config();
        let budget = Duration::from_millis(config.dependents_ms);
        let changed: Vec<PathBuf> = staged.iter().map(|(p, _)| p.clone()).collect();
        let mut symbols = Vec::new();
        let started = Instant::now();
        let mut finding = Duration::ZERO;
        for (path, new) in staged {
            let Ok(old) = std::fs::read(path) else {
                continue;
            };
            let old = String::from_utf8_lossy(&old).replace("\r\n", "\n");
            let old = old.strip_prefix('\u{feff}').unwrap_or(&old).to_owned();
            if let Some(state) = self.state_of(path, old.clone()).await {
                base.states.insert(path.clone(), state);
            }
            if budget.is_zero() {
                continue;
            }
            let new = new.as_ref().map(|t| t.body.as_str()).unwrap_or("");
            let Some(lines) = changed_lines(&old, new) else {
                continue;
            };
            let t = Instant::now();
            if let Ok(outline) = self.document_symbols(path).await {
                declared(&outline.items, &old, lines, &mut symbols);
            }
            finding += t.elapsed();
        }
        base.spent_files = started.elapsed() - finding;
        if symbols.is_empty() {
            base.spent_finding = finding;
            return base;
        }
        let t = Instant::now();
        let deadline = Instant::now() + budget;
        base.deadline = Some(deadline);
        let mut users = BTreeSet::new();
        for (path, line, column) in symbols.into_iter().take(SYMBOLS_FOLLOWED) {
            let left = deadline.saturating_duration_since(Instant::now());
            let refs = tokio::time::timeout(left, self.references(&path, line, column, false));
            let Ok(Ok(found)) = refs.await else { break };
            for l in found.locations {
                if !changed.contains(&l.path) && users.insert(l.path.clone()) {
                    base.dependents.push(l.path);
                }
            }
        }
        base.spent_finding = finding + t.elapsed();
        let t = Instant::now();
        for user in base.dependents.clone() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(text) = std::fs::read_to_string(&user) else {
                continue;
            };
            match tokio::time::timeout(left, self.state_of(&user, text)).await {
                Ok(Some(state)) => {
                    base.states.insert(user, state);
                }
                Ok(None) => {}
                Err(_) => base.unchecked.push(user),
            }
        }
        base.dependents.retain(|d| base.states.contains_key(d));
        base.spent_dependents = t.elapsed();
        base
    }

    async fn state_of(&self, path: &Path, text: String) -> Option<State> {
        let d = self.diagnostics(path).await.ok()?;
        Some(State {
            text,
            findings: d.diagnostics,
        })
    }

    /// Adds what the change did to the errors of `files` (and of the
    /// dependents the baseline found; and, for `write`, of up to five other
    /// files the same server has open) to the answer.
    pub(super) async fn check_errors(
        &self,
        answer: &mut EditAnswer,
        files: &[PathBuf],
        others: bool,
    ) {
        let config = self.config();
        let (use_delta, warnings) = (config.edit_delta, config.edit_warnings);
        let shown = |f: &Finding| {
            f.severity == Severity::Error || (warnings && f.severity == Severity::Warning)
        };
        let base = answer.baseline.clone();
        for file in files {
            match self.diagnostics(file).await {
                Ok(d) => {
                    answer.root.get_or_insert(d.root.clone());
                    let after: Vec<Finding> = d.diagnostics.into_iter().filter(shown).collect();
                    let mut entry = FileErrors {
                        path: file.clone(),
                        errors: after.clone(),
                        notes: d.notes,
                        ..FileErrors::default()
                    };
                    if let Some(before) = base.states.get(file).filter(|_| use_delta) {
                        let text = std::fs::read_to_string(file).unwrap_or_default();
                        apply(&mut entry, before, &after, &text, shown);
                    }
                    answer.files.push(entry);
                }
                // No server for this kind of file: nothing to check.
                Err(ToolError::Unsupported(_)) | Err(ToolError::BadInput(_)) => {}
                Err(e) => answer.files.push(FileErrors {
                    path: file.clone(),
                    notes: vec![format!("errors not checked: {e}")],
                    ..FileErrors::default()
                }),
            }
        }
        // The dependents: only what the change broke in them is news.
        let mut listed = 0;
        let mut more = 0;
        for user in &base.dependents {
            let late = base.deadline.is_some_and(|d| Instant::now() > d);
            let Some(before) = base.states.get(user) else {
                continue;
            };
            if late {
                answer.not_checked.push(user.clone());
                continue;
            }
            let Ok(d) = self.diagnostics(user).await else {
                continue;
            };
            let after: Vec<Finding> = d.diagnostics.into_iter().filter(shown).collect();
            let text = std::fs::read_to_string(user).unwrap_or_default();
            let mut entry = FileErrors {
                path: user.clone(),
                errors: after.clone(),
                dependent: true,
                ..FileErrors::default()
            };
            apply(&mut entry, before, &after, &text, shown);
            if entry.errors.is_empty() {
                continue;
            }
            if listed == OTHER_FILES {
                more += 1;
                continue;
            }
            listed += 1;
            answer.files.push(entry);
        }
        answer.more_dependents = more;
        answer.not_checked.extend(base.unchecked.iter().cloned());
        if !others {
            return;
        }
        let mut extra = 0;
        for other in self.open_files_beside(&files[0]) {
            if extra == OTHER_FILES
                || files.contains(&other)
                || base.dependents.contains(&other)
                || answer.not_checked.contains(&other)
            {
                continue;
            }
            if let Ok(d) = self.diagnostics(&other).await {
                let errors: Vec<Finding> = d
                    .diagnostics
                    .into_iter()
                    .filter(|f| f.severity == Severity::Error)
                    .collect();
                if !errors.is_empty() {
                    extra += 1;
                    answer.files.push(FileErrors {
                        path: other,
                        errors,
                        notes: d.notes,
                        ..FileErrors::default()
                    });
                }
            }
        }
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

/// The lines of `old` (1-based, inclusive) a change to `new` touches: the
/// span between the first and the last line that differ. An insertion
/// between two lines is the empty span `(n + 1, n)` after line `n`. `None`
/// when nothing changed.
pub fn changed_lines(old: &str, new: &str) -> Option<(usize, usize)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if prefix == a.len() && prefix == b.len() {
        return None;
    }
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    Some((prefix + 1, a.len() - suffix))
}

/// Collects the symbols of `items` whose declaration the changed `lines`
/// of `text` touch, as (file, line, column) of their names: a function's
/// header (its name to the parenthesis that closes its parameters, with
/// what follows on that line), a type's header line and its members, a
/// variable's or field's whole range. A function's body is not its
/// declaration.
fn declared(
    items: &[Item],
    text: &str,
    lines: (usize, usize),
    out: &mut Vec<(PathBuf, usize, usize)>,
) {
    let (first, last) = lines;
    let touches = |from: usize, to: usize| {
        if first > last {
            // An insertion after line `last`: inside the span only.
            from <= last && first <= to && from < first
        } else {
            from <= last && first <= to
        }
    };
    for item in items {
        let (from, to) = (item.loc.line, item.end_line.max(item.loc.line));
        let header_to = match item.kind.as_str() {
            "function" | "method" | "constructor" | "operator" => {
                header_end(text, item.loc.line, item.loc.column).min(to)
            }
            "class" | "interface" | "struct" | "enum" | "module" | "namespace" | "package"
            | "object" => {
                declared(&item.children, text, lines, out);
                from
            }
            _ => to,
        };
        if touches(from, header_to) {
            out.push((item.loc.path.clone(), item.loc.line, item.loc.column));
        }
    }
}

/// The line on which the parameter list that follows a function's name
/// (at `line`, `column`, 1-based) closes: where the parentheses opened
/// from there balance. The name's line when none opens on it.
fn header_end(text: &str, line: usize, column: usize) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    for (i, l) in text.lines().enumerate().skip(line.saturating_sub(1)) {
        let skip = if i + 1 == line {
            column.saturating_sub(1)
        } else {
            0
        };
        for c in l.chars().skip(skip) {
            match c {
                '(' => {
                    depth += 1;
                    opened = true;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        if !opened || depth <= 0 {
            return i + 1;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Loc;

    fn item(kind: &str, line: usize, end_line: usize, children: Vec<Item>) -> Item {
        Item {
            name: "x".into(),
            kind: kind.into(),
            loc: Loc {
                path: PathBuf::from("/p/lib.py"),
                line,
                column: 5,
                text: String::new(),
            },
            end_line,
            children,
        }
    }

    #[test]
    fn changed_lines_are_the_span_between_the_first_and_last_difference() {
        assert_eq!(changed_lines("a\nb\nc\n", "a\nb\nc\n"), None);
        assert_eq!(changed_lines("a\nb\nc\n", "a\nB\nc\n"), Some((2, 2)));
        assert_eq!(changed_lines("a\nb\nc\n", "a\nx\nb\nc\n"), Some((2, 1)));
        assert_eq!(changed_lines("a\nb\nc\n", "A\nb\nC\n"), Some((1, 3)));
        assert_eq!(changed_lines("a\nb\n", "a\n"), Some((2, 2)));
    }

    #[test]
    fn a_functions_body_is_not_its_declaration() {
        let text = "def add(a,\n        b):\n    return a + b\n\nx = 1\n";
        let items = [
            item("function", 1, 3, vec![]),
            item("variable", 5, 5, vec![]),
        ];
        let found = |lines| {
            let mut out = Vec::new();
            declared(&items, text, lines, &mut out);
            out.into_iter().map(|(_, l, _)| l).collect::<Vec<_>>()
        };
        assert_eq!(found((3, 3)), Vec::<usize>::new());
        assert_eq!(found((2, 2)), vec![1]);
        assert_eq!(found((1, 1)), vec![1]);
        assert_eq!(found((5, 5)), vec![5]);
        // A line inserted above the function does not touch it; one
        // inserted inside its parameter list does.
        assert_eq!(found((1, 0)), Vec::<usize>::new());
        assert_eq!(found((2, 1)), vec![1]);
    }

    #[test]
    fn a_types_members_are_followed_not_the_whole_type() {
        let text = "interface Shape {\n  width: number;\n  height: number;\n}\n";
        let items = [item(
            "interface",
            1,
            4,
            vec![
                item("property", 2, 2, vec![]),
                item("property", 3, 3, vec![]),
            ],
        )];
        let mut out = Vec::new();
        declared(&items, text, (3, 3), &mut out);
        assert_eq!(
            out.into_iter().map(|(_, l, _)| l).collect::<Vec<_>>(),
            vec![3]
        );
    }
}
