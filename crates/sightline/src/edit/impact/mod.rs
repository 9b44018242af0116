//! The impact of a diff (`sightline impact`, the `impact` tool): the
//! declarations it adds, removes and changes, the places that use each
//! changed or removed one (by file and enclosing symbol, tests marked), and
//! the errors it introduces now.
//!
//! It is the agent-edit check run over a diff: each changed file's text
//! at the revision is held in memory (`Editor::hold_in_memory`), and in
//! that world the files are asked for their errors and the declarations
//! the diff touches are followed to their users by references
//! (`Editor::baseline_within`); then, with the servers told the disk's
//! text again, the same files and users are asked again and compared
//! (`Editor::check_errors_within`). The diff itself comes from git
//! ([`git`]).

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::edit::EditAnswer;
use crate::edit::text::Text;
use crate::error::ToolError;

mod answer;
mod git;
mod symbols;
mod tests_of;

pub(crate) use git::Against;

/// At most this many uses of one declaration are listed in the text.
pub(super) const USES_SHOWN: usize = 20;

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
    /// Whether its uses were looked for (false past the cap or with no
    /// answer in time: `uses` is then empty, not "no uses").
    pub uses_looked_for: bool,
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

impl Editor<'_> {
    /// The impact of the diff of the repository holding `dir` (default:
    /// the workspace, else the current directory) `against` a revision.
    pub(crate) async fn impact(
        &self,
        dir: Option<&Path>,
        against: &Against,
    ) -> Result<Impact, ToolError> {
        let dir = match dir.or(self.engine.workspace_root()) {
            Some(d) => d.to_owned(),
            None => std::env::current_dir()
                .map_err(|e| ToolError::bad_input(format!("no directory to look in: {e}")))?,
        };
        let diff = git::Diff::read(&dir, against, |p| self.engine.handles(p)).await?;
        let mut notes = diff.notes;
        let sides = sides(diff.files, &mut notes);
        let changed: Vec<PathBuf> = sides.olds.iter().map(|(p, _)| p.clone()).collect();
        let budget = self.dependents_budget();

        // Before: the revision's texts held in memory.
        let held = self.hold_in_memory(sides.olds.clone()).await;
        let baseline = held
            .view
            .editor()
            .baseline_within(&sides.news, budget)
            .await?;
        let old_outlines = symbols::outlines(&held.view, &changed).await;
        let places: Vec<(PathBuf, usize)> = baseline
            .followed
            .iter()
            .flat_map(|f| f.uses.iter().flatten().map(|u| (u.path.clone(), u.line)))
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
            symbols::outlines(self.engine, &changed).await
        } else {
            let held = self.hold_in_memory(sides.not_on_disk.clone()).await;
            held.view
                .editor()
                .check_errors_within(&mut check, &present, budget)
                .await;
            symbols::outlines(&held.view, &changed).await
        };
        check.root = Some(diff.top.clone());
        let texts = symbols::Texts {
            old: &sides.olds,
            new: &sides.news,
        };
        let symbols =
            symbols::changed_symbols(&followed, &enclosing, &old_outlines, &new_outlines, &texts);
        let unlooked: Vec<&str> = symbols
            .iter()
            .filter(|s| {
                s.change != Change::Added
                    && !s.uses_looked_for
                    && !crate::edit::new_errors::is_data_file(&s.path)
            })
            .map(|s| s.name.as_str())
            .collect();
        if !unlooked.is_empty() {
            notes.push(format!(
                "the uses of {} were not looked for: {}",
                if unlooked.len() == 1 {
                    "1 declaration".to_owned()
                } else {
                    format!("{} declarations", unlooked.len())
                },
                unlooked.join(", ")
            ));
        }
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
        let disk = bounded_read(&f.path);
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

/// The bytes of `path` when it is a regular file (not followed through a
/// link, never a pipe) of at most [`git::LARGEST`] bytes; else none, so
/// that it counts as not the diff's text and is held in memory instead.
fn bounded_read(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > git::LARGEST {
        return None;
    }
    let mut out = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(git::LARGEST + 1)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}
