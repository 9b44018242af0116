//! The impact of a diff (`sightline impact`, the `impact` tool): the
//! declarations it adds, removes and changes, the places that use each
//! changed or removed one (by file and enclosing symbol, tests marked), and
//! the errors it introduces now.
//!
//! It is the agent-edit check run over a diff: each changed file's text
//! at the revision is held in memory (`Engine::hold_in_memory`), and in
//! that world the files are asked for their errors and the declarations
//! the diff touches are followed to their users by references
//! (`Engine::baseline_within`); then, with the servers told the disk's
//! text again, the same files and users are asked again and compared
//! (`Engine::check_errors_within`). The diff itself comes from git
//! ([`git`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::answer::Item;
use crate::edit::new_errors::Followed;
use crate::edit::text::Text;
use crate::edit::{EditAnswer, FileErrors};
use crate::engine::Engine;
use crate::error::ToolError;

mod git;
mod tests_of;

pub(crate) use git::Against;

/// At most this many uses of one declaration are listed in the text.
const USES_SHOWN: usize = 20;

/// What a diff does to a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// It is new.
    Added,
    /// It is gone.
    Removed,
    /// Its declaration changed (a signature, a type, a member added or
    /// removed).
    Changed,
}

/// A place that uses a changed or removed declaration.
#[derive(Debug, Clone, Serialize)]
pub struct Use {
    /// The file.
    pub path: PathBuf,
    /// Its line (before the diff, in a file the diff changes).
    pub line: usize,
    /// Its column.
    pub column: usize,
    /// The name path of the symbol it sits in.
    pub symbol: Option<String>,
    /// Whether it is in a test.
    pub test: bool,
}

/// One declaration the diff touches.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedSymbol {
    /// What the diff does to it.
    pub change: Change,
    /// Its kind (`function`, `class`, ...).
    pub kind: String,
    /// Its name path (`Session.request`).
    pub name: String,
    /// The file declaring it.
    pub path: PathBuf,
    /// Its line: now, or before the diff for a removed one.
    pub line: usize,
    /// The places that used it before the diff (none asked for an added
    /// one).
    pub uses: Vec<Use>,
}

/// The answer of `impact`.
#[derive(Debug, Clone)]
pub struct Impact {
    /// The repository's top, which paths are shown relative to.
    pub root: PathBuf,
    /// What was compared (`the working tree against HEAD`).
    pub label: String,
    /// The changed files looked at.
    pub files: Vec<PathBuf>,
    /// The declarations touched, changed and removed first.
    pub symbols: Vec<ChangedSymbol>,
    /// The errors the diff introduced, as an edit's answer lists them.
    pub check: EditAnswer,
    /// What was left out, and why.
    pub notes: Vec<String>,
}

/// The changed files' texts on each side, as the check takes them.
struct Sides {
    /// Each file's text at the revision (`None`: the diff adds it).
    olds: Vec<(PathBuf, Option<String>)>,
    /// Each file's text after (`None`: the diff deletes it).
    news: Vec<(PathBuf, Option<Text>)>,
    /// The files whose text after is not the disk's (`--staged`, a file
    /// changed again since it was staged): held in memory for the check.
    not_on_disk: Vec<(PathBuf, Option<String>)>,
}

impl Engine {
    /// The impact of the diff of the repository holding `dir` (default:
    /// the workspace, else the current directory) `against` a revision.
    pub(crate) async fn impact(
        &self,
        dir: Option<&Path>,
        against: &Against,
    ) -> Result<Impact, ToolError> {
        let dir = match dir.or(self.workspace_root()) {
            Some(d) => d.to_owned(),
            None => std::env::current_dir()
                .map_err(|e| ToolError::bad_input(format!("no directory to look in: {e}")))?,
        };
        let diff = git::Diff::read(&dir, against, |p| self.handles(p)).await?;
        let mut notes = diff.notes;
        let sides = sides(diff.files, &mut notes);
        let changed: Vec<PathBuf> = sides.olds.iter().map(|(p, _)| p.clone()).collect();
        let budget = self.dependents_budget();

        // Before: the revision's texts held in memory.
        let held = self.hold_in_memory(sides.olds.clone()).await;
        let baseline = held.view.baseline_within(&sides.news, budget).await?;
        let old_outlines = outlines(&held.view, &changed).await;
        let places: Vec<(PathBuf, usize)> = baseline
            .followed
            .iter()
            .flat_map(|f| f.uses.iter().map(|u| (u.path.clone(), u.line)))
            .collect();
        let enclosing = held.view.enclosing_symbols(&places).await;
        drop(held);

        // After: the disk's texts (or the index's, held).
        let mut check = EditAnswer {
            root: Some(diff.top.clone()),
            baseline,
            ..EditAnswer::default()
        };
        let followed = check.baseline.followed.clone();
        let present: Vec<PathBuf> = sides
            .news
            .iter()
            .filter(|(_, t)| t.is_some())
            .map(|(p, _)| p.clone())
            .collect();
        let new_outlines = if sides.not_on_disk.is_empty() {
            let _turn = crate::sync::file_view::shared_turn().await;
            self.check_errors_within(&mut check, &present, budget).await;
            outlines(self, &changed).await
        } else {
            let held = self.hold_in_memory(sides.not_on_disk.clone()).await;
            held.view
                .check_errors_within(&mut check, &present, budget)
                .await;
            outlines(&held.view, &changed).await
        };
        check.root = Some(diff.top.clone());
        let texts = Texts {
            old: &sides.olds,
            new: &sides.news,
        };
        let symbols = changed_symbols(&followed, &enclosing, &old_outlines, &new_outlines, &texts);
        if symbols.iter().any(|s| {
            s.uses
                .iter()
                .any(|u| changed.contains(&u.path) && s.change != Change::Added)
        }) {
            notes
                .push("a use in a file the diff changes is at its line before the diff".to_owned());
        }
        Ok(Impact {
            root: diff.top,
            label: diff.label,
            files: changed,
            symbols,
            check,
            notes,
        })
    }
}

/// Each file's two texts, for the check; a file that is not UTF-8 text is
/// left out with a note.
fn sides(files: Vec<git::ChangedFile>, notes: &mut Vec<String>) -> Sides {
    let mut s = Sides {
        olds: Vec::new(),
        news: Vec::new(),
        not_on_disk: Vec::new(),
    };
    let mut not_text = Vec::new();
    for f in files {
        let text = |b: Option<Vec<u8>>| match b {
            None => Ok(None),
            Some(b) => match String::from_utf8(b) {
                Ok(t) if !t.contains('\0') => Ok(Some(t)),
                _ => Err(()),
            },
        };
        let (Ok(old), Ok(new)) = (text(f.old), text(f.new)) else {
            not_text.push(f.path.display().to_string());
            continue;
        };
        let disk = std::fs::read(&f.path).ok();
        if disk.as_deref() != new.as_deref().map(str::as_bytes) {
            s.not_on_disk.push((f.path.clone(), new.clone()));
        }
        let new = match new {
            Some(t) => match Text::decode(t.as_bytes(), &f.path) {
                Ok(t) => Some(t),
                Err(_) => {
                    not_text.push(f.path.display().to_string());
                    continue;
                }
            },
            // A deleted file's declarations are all removed: its text
            // after is taken as empty, so each is followed to its users.
            None => Some(Text::default()),
        };
        s.olds.push((f.path.clone(), old));
        s.news.push((f.path, new));
    }
    if !not_text.is_empty() {
        notes.push(format!("left out, not UTF-8 text: {}", not_text.join(", ")));
    }
    s
}

/// Each file's outline, flattened: (name path, item), or none when it
/// cannot be had (a file that is not there).
async fn outlines(engine: &Engine, files: &[PathBuf]) -> Vec<(PathBuf, Vec<(String, Item)>)> {
    let mut out = Vec::new();
    for file in files {
        let items = match engine.document_symbols(file).await {
            Ok(o) => o.items,
            Err(_) => Vec::new(),
        };
        let mut flat = Vec::new();
        flatten(&items, "", &mut flat);
        out.push((file.clone(), flat));
    }
    out
}

/// Every item of an outline with its name path (`Outer.inner`), depth
/// first; a function's locals (which pyright outlines) left out.
fn flatten(items: &[Item], parent: &str, out: &mut Vec<(String, Item)>) {
    for item in items {
        let path = if parent.is_empty() {
            item.name.clone()
        } else {
            format!("{parent}.{}", item.name)
        };
        out.push((path.clone(), item.clone()));
        if !matches!(
            item.kind.as_str(),
            "function" | "method" | "constructor" | "operator"
        ) {
            flatten(&item.children, &path, out);
        }
    }
}

/// The changed files' texts on each side, to tell a declaration the diff
/// changed from one it only moved.
struct Texts<'a> {
    old: &'a [(PathBuf, Option<String>)],
    new: &'a [(PathBuf, Option<Text>)],
}

impl Texts<'_> {
    /// The lines `first..=last` (1-based) of `path` before the diff, or
    /// after it.
    fn lines(&self, path: &Path, after: bool, first: usize, last: usize) -> Option<String> {
        let text = if after {
            self.new
                .iter()
                .find(|(p, _)| p == path)
                .and_then(|(_, t)| t.as_ref().map(|t| t.body.as_str()))
        } else {
            self.old
                .iter()
                .find(|(p, _)| p == path)
                .and_then(|(_, t)| t.as_deref())
        }?;
        let lines: Vec<&str> = text
            .lines()
            .skip(first.saturating_sub(1))
            .take(last.saturating_sub(first) + 1)
            .collect();
        Some(lines.join("\n"))
    }

    /// Whether the diff left `before` (its item before) as it was in
    /// `after`: the same text, only moved.
    fn unchanged(&self, path: &Path, before: &Item, after: &Item) -> bool {
        let old = self.lines(path, false, before.start_line, before.end_line);
        let new = self.lines(path, true, after.start_line, after.end_line);
        old.is_some() && old == new
    }
}

/// The declarations the diff touched (`followed`, before it) as changed
/// or removed, with their uses; then those the outlines after it add. A
/// declaration whose text the diff left as it was (it only moved, as the
/// lines after a removed one do) is not listed.
fn changed_symbols(
    followed: &[Followed],
    enclosing: &[Option<String>],
    old: &[(PathBuf, Vec<(String, Item)>)],
    new: &[(PathBuf, Vec<(String, Item)>)],
    texts: &Texts,
) -> Vec<ChangedSymbol> {
    let of = |all: &'_ [(PathBuf, Vec<(String, Item)>)], path: &Path| {
        all.iter()
            .find(|(p, _)| p == path)
            .map(|(_, items)| items.clone())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    let mut places = enclosing.iter();
    for f in followed {
        let before = of(old, &f.path);
        let after = of(new, &f.path);
        let found = before
            .iter()
            .find(|(_, i)| i.loc.line == f.line && i.loc.column == f.column);
        let (name, kind) = found.map_or((f.name.clone(), String::new()), |(n, i)| {
            (n.clone(), i.kind.clone())
        });
        let now = after.iter().find(|(n, _)| *n == name);
        // Each use has its enclosing symbol, in order: they are taken
        // whether or not this declaration is listed.
        let mut symbols: Vec<Option<String>> = Vec::new();
        for _ in &f.uses {
            symbols.push(places.next().cloned().flatten());
        }
        if let (Some((_, was)), Some((_, is))) = (found, now)
            && texts.unchanged(&f.path, was, is)
        {
            continue;
        }
        let uses = f
            .uses
            .iter()
            .zip(symbols)
            .map(|(u, symbol)| Use {
                test: tests_of::is_test(&u.path, symbol.as_deref()),
                path: u.path.clone(),
                line: u.line,
                column: u.column,
                symbol,
            })
            .collect();
        out.push(ChangedSymbol {
            change: if now.is_some() {
                Change::Changed
            } else {
                Change::Removed
            },
            kind,
            line: now.map_or(f.line, |(_, i)| i.loc.line),
            name,
            path: f.path.clone(),
            uses,
        });
    }
    for (path, after) in new {
        let before: HashSet<String> = of(old, path).into_iter().map(|(n, _)| n).collect();
        let mut added: Vec<&str> = Vec::new();
        for (name, item) in after {
            // A member of an added type is the type's, not news of its own.
            let inside_added = added
                .iter()
                .any(|a| name.strip_prefix(a).is_some_and(|r| r.starts_with('.')));
            if before.contains(name) || inside_added {
                continue;
            }
            added.push(name);
            out.push(ChangedSymbol {
                change: Change::Added,
                kind: item.kind.clone(),
                name: name.clone(),
                path: path.clone(),
                line: item.loc.line,
                uses: Vec::new(),
            });
        }
    }
    out
}

impl Impact {
    /// Whether the diff brought errors (the CLI exits 1).
    pub fn brought_errors(&self) -> bool {
        self.check.brought_errors()
    }

    /// The answer's text: a line on what was compared, each declaration
    /// with its uses, then the errors as an edit's answer lists them.
    pub fn text(&self) -> String {
        let show = |p: &Path| crate::render::shown(&self.root, p);
        let mut out = format!(
            "impact of {}: {} changed {} a server reads\n",
            self.label,
            self.files.len(),
            if self.files.len() == 1 {
                "file"
            } else {
                "files"
            }
        );
        for s in &self.symbols {
            let change = match s.change {
                Change::Added => "added",
                Change::Removed => "removed",
                Change::Changed => "changed",
            };
            let kind = if s.kind.is_empty() {
                String::new()
            } else {
                format!("{} ", s.kind)
            };
            let at = format!("{}:{}", show(&s.path), s.line);
            let at = if s.change == Change::Removed {
                format!("was {at}")
            } else {
                at
            };
            out.push_str(&format!("{change} {kind}{} ({at})", s.name));
            if s.change == Change::Added {
                out.push('\n');
                continue;
            }
            let files: HashSet<&PathBuf> = s.uses.iter().map(|u| &u.path).collect();
            let tests = s.uses.iter().filter(|u| u.test).count();
            out.push_str(&match s.uses.len() {
                0 => ": no uses\n".to_owned(),
                n => format!(
                    ": {n} {} in {} {}{}\n",
                    if n == 1 { "use" } else { "uses" },
                    files.len(),
                    if files.len() == 1 { "file" } else { "files" },
                    if tests > 0 {
                        format!(", {tests} in tests")
                    } else {
                        String::new()
                    }
                ),
            });
            for u in s.uses.iter().take(USES_SHOWN) {
                out.push_str(&format!("  {}:{}", show(&u.path), u.line));
                if let Some(symbol) = &u.symbol {
                    out.push_str(&format!(" in {symbol}"));
                }
                if u.test {
                    out.push_str(" (test)");
                }
                out.push('\n');
            }
            if s.uses.len() > USES_SHOWN {
                out.push_str(&format!("  ... and {} more\n", s.uses.len() - USES_SHOWN));
            }
        }
        if self.symbols.is_empty() && !self.files.is_empty() {
            out.push_str("no declaration changed\n");
        }
        out.push_str(&self.check.text());
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }

    /// The answer as the CLI's `--json` prints it.
    pub fn json(&self) -> serde_json::Value {
        let errors: Vec<serde_json::Value> = self
            .check
            .files
            .iter()
            .map(|f: &FileErrors| {
                serde_json::json!({
                    "path": f.path,
                    "errors": f.errors,
                    "compared": f.delta,
                    "fixed": f.fixed,
                    "kept": f.kept,
                    "uses_what_changed": f.dependent,
                    "notes": f.notes,
                })
            })
            .collect();
        let mut notes = self.check.notes.clone();
        notes.extend(self.notes.iter().cloned());
        serde_json::json!({
            "root": self.root,
            "against": self.label,
            "files": self.files,
            "symbols": self.symbols,
            "errors": errors,
            "notes": notes,
        })
    }
}
