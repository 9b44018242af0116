//! The edit tools themselves: `read`, `write`, `edit` and `apply_patch`.
//! Each judges every path against the sandbox mode first, refuses a file
//! that changed on disk since it was last read, writes all or nothing,
//! formats what it wrote (keeping the byte-order mark the content should
//! have), and answers with the errors the change left.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use crate::edit::EditAnswer;
use crate::edit::commit::{read_bytes, write_all};
use crate::edit::patch::{self, Op};
use crate::edit::text::{ReplaceError, Replaced, Text, replace};
use crate::error::ToolError;
use crate::files::{AbsPath, atomic_write};

/// Staged files and what each change did, one line each.
pub(super) type StagedEdit = (Vec<(PathBuf, Option<Text>)>, Vec<String>);

impl Editor<'_> {
    /// Numbered lines of `file` (1-based, the numbers the LSP tools take).
    pub fn read(
        &self,
        file: &Path,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ToolError> {
        let path = AbsPath::new(file)?.canonical().into_path_buf();
        let bytes = read_bytes(&path)?
            .ok_or_else(|| ToolError::bad_input(format!("file not found: {}", path.display())))?;
        let text = Text::decode(&bytes, &path)?;
        self.engine.last_read().record(&path, &bytes);
        let start = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(2000);
        let total = text.body.lines().count();
        let mut out = String::new();
        for (i, line) in text.body.lines().enumerate().skip(start - 1).take(limit) {
            out.push_str(&format!("{:>6}\t{line}\n", i + 1));
        }
        if start - 1 + limit < total {
            out.push_str(&format!(
                "... {} more lines; read on with offset {}\n",
                total - (start - 1 + limit),
                start + limit
            ));
        }
        if total == 0 {
            out.push_str("(empty file)\n");
        }
        Ok(out)
    }

    /// Refuses the write of any of `paths` the sandbox mode does not allow:
    /// all of them are judged before anything is read or written, so a
    /// refused call changes nothing.
    fn confine<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) -> Result<(), ToolError> {
        paths
            .into_iter()
            .try_for_each(|p| self.engine.sandbox().check_write(p))
    }

    /// Replaces (or creates) `file` with `content`.
    pub async fn write(&self, file: &Path, content: &str) -> Result<EditAnswer, ToolError> {
        // Judged as given, before `canonical` follows a link to its target,
        // so that a refusal names the path the caller wrote.
        let given = AbsPath::new(file)?;
        self.confine([given.as_path()])?;
        let path = given.canonical().into_path_buf();
        let before = read_bytes(&path)?;
        self.engine.last_read().check(&path, before.as_deref())?;
        let old = before
            .as_deref()
            .map(|b| Text::decode(b, &path))
            .transpose()?;
        let new = Text::decode(content.as_bytes(), &path)?;
        let text = Text {
            // The BOM state the content should have: the file's or the new text's.
            bom: old.as_ref().is_some_and(|o| o.bom) || new.bom,
            // The file's line endings are kept.
            crlf: old.as_ref().map_or(new.crlf, |o| o.crlf),
            body: new.body,
        };
        let verb = if before.is_some() { "wrote" } else { "created" };
        let mut answer = self.commit(vec![(path.clone(), Some(text))]).await?;
        answer.changes = vec![format!("{verb} {}", path.display())];
        self.check_errors(&mut answer, std::slice::from_ref(&path))
            .await;
        Ok(answer)
    }

    /// Replaces `old` with `new` in `file`: once, or everywhere with
    /// `replace_all`.
    pub async fn edit(
        &self,
        file: &Path,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditAnswer, ToolError> {
        let range = self.engine.config().format_range;
        self.edit_with(file, old, new, replace_all, range).await
    }

    /// [`Editor::edit`], formatting only the lines the edit touched when
    /// `format_range` is set (through the server's range formatting, or a
    /// formatter that takes line ranges).
    pub async fn edit_with(
        &self,
        file: &Path,
        old: &str,
        new: &str,
        replace_all: bool,
        format_range: bool,
    ) -> Result<EditAnswer, ToolError> {
        let given = AbsPath::new(file)?;
        self.confine([given.as_path()])?;
        let path = given.canonical().into_path_buf();
        let before = read_bytes(&path)?
            .ok_or_else(|| ToolError::bad_input(format!("file not found: {}", path.display())))?;
        self.engine.last_read().check(&path, Some(&before))?;
        let mut text = Text::decode(&before, &path)?;
        let Replaced {
            body,
            count: n,
            lines,
        } = replace_in(&path, &text.body, old, new, replace_all)?;
        text.body = body;
        let range = format_range.then_some(lines);
        let mut answer = self
            .commit_with(vec![(path.clone(), Some(text))], range)
            .await?;
        answer.changes = vec![format!(
            "edited {} ({n} replacement{})",
            path.display(),
            if n == 1 { "" } else { "s" }
        )];
        self.check_errors(&mut answer, std::slice::from_ref(&path))
            .await;
        Ok(answer)
    }

    /// A chain of replacements (`file`, `old`, `new`, `replace_all`), each
    /// made on the text the ones before it left, across files: one change,
    /// written all or nothing (or, in a dry run, held in memory), whose
    /// errors are those of all of them together.
    pub async fn edit_chain(
        &self,
        edits: &[(PathBuf, String, String, bool)],
    ) -> Result<EditAnswer, ToolError> {
        let mut texts: Vec<(PathBuf, Text, usize)> = Vec::new();
        for (file, old, new, all) in edits {
            let given = AbsPath::new(file)?;
            self.confine([given.as_path()])?;
            let path = given.canonical().into_path_buf();
            let (mut text, count) = match texts.iter().position(|(p, _, _)| *p == path) {
                Some(i) => {
                    let (_, text, count) = texts.remove(i);
                    (text, count)
                }
                None => {
                    let before = read_bytes(&path)?.ok_or_else(|| {
                        ToolError::bad_input(format!("file not found: {}", path.display()))
                    })?;
                    self.engine.last_read().check(&path, Some(&before))?;
                    (Text::decode(&before, &path)?, 0)
                }
            };
            let replaced = replace_in(&path, &text.body, old, new, *all)?;
            text.body = replaced.body;
            texts.push((path, text, count + replaced.count));
        }
        let paths: Vec<PathBuf> = texts.iter().map(|(p, _, _)| p.clone()).collect();
        let changes: Vec<String> = texts
            .iter()
            .map(|(p, _, n)| {
                format!(
                    "edited {} ({n} replacement{})",
                    p.display(),
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        let staged = texts.into_iter().map(|(p, t, _)| (p, Some(t))).collect();
        let mut answer = self.commit(staged).await?;
        answer.changes = changes;
        self.check_errors(&mut answer, &paths).await;
        Ok(answer)
    }

    /// Applies a `*** Begin Patch` patch: every change, or none.
    pub async fn apply_patch(&self, patch_text: &str) -> Result<EditAnswer, ToolError> {
        let base = self.base_dir()?;
        // `read-only` refuses the tool whatever the patch holds.
        if self.engine.sandbox().mode == crate::sandbox::Mode::ReadOnly {
            self.confine([base.as_path()])?;
        }
        let ops =
            patch::parse(patch_text, &base).map_err(|e| ToolError::bad_input(e.to_string()))?;
        // Every path the patch touches, a move's source and destination
        // too, before the first file is read.
        self.confine(ops.iter().flat_map(|op| {
            match op {
                Op::Add { path, .. } | Op::Delete { path } => vec![path.as_path()],
                Op::Update { path, move_to, .. } => std::iter::once(path.as_path())
                    .chain(move_to.as_deref())
                    .collect(),
            }
        }))?;
        let (staged, changes) = self.stage_patch(ops, true)?;
        let written: Vec<PathBuf> = staged
            .iter()
            .filter(|(_, t)| t.is_some())
            .map(|(p, _)| p.clone())
            .collect();
        let mut answer = self.commit(staged).await?;
        answer.changes = changes;
        self.check_errors(&mut answer, &written).await;
        Ok(answer)
    }

    /// The files a patch's operations leave, staged in memory, and a line
    /// for each change. With `guard`, a file that changed on disk since the
    /// edit tools last read it is refused.
    pub(super) fn stage_patch(&self, ops: Vec<Op>, guard: bool) -> Result<StagedEdit, ToolError> {
        let mut staged: Vec<(PathBuf, Option<Text>)> = Vec::new();
        let mut changes = Vec::new();
        for op in ops {
            match op {
                Op::Add { path, text } => {
                    if path.exists() {
                        return Err(ToolError::bad_input(format!(
                            "cannot add {}: it exists",
                            path.display()
                        )));
                    }
                    changes.push(format!("added {}", path.display()));
                    staged.push((
                        path,
                        Some(Text {
                            bom: false,
                            crlf: false,
                            body: text,
                        }),
                    ));
                }
                Op::Delete { path } => {
                    let bytes = read_bytes(&path)?.ok_or_else(|| {
                        ToolError::bad_input(format!("cannot delete {}: not found", path.display()))
                    })?;
                    if guard {
                        self.engine.last_read().check(&path, Some(&bytes))?;
                    }
                    changes.push(format!("deleted {}", path.display()));
                    staged.push((path, None));
                }
                Op::Update {
                    path,
                    move_to,
                    hunks,
                } => {
                    let bytes = read_bytes(&path)?.ok_or_else(|| {
                        ToolError::bad_input(format!("cannot update {}: not found", path.display()))
                    })?;
                    if guard {
                        self.engine.last_read().check(&path, Some(&bytes))?;
                    }
                    let mut text = Text::decode(&bytes, &path)?;
                    let lines: Vec<String> = text.body.lines().map(str::to_owned).collect();
                    let had_newline = text.body.ends_with('\n') || text.body.is_empty();
                    let new_lines = patch::apply(&path, &lines, &hunks)
                        .map_err(|e| ToolError::bad_input(e.to_string()))?;
                    text.body = new_lines.join("\n");
                    if had_newline && !text.body.is_empty() {
                        text.body.push('\n');
                    }
                    match move_to {
                        Some(to) => {
                            if to.exists() && to != path {
                                return Err(ToolError::bad_input(format!(
                                    "cannot move {} to {}: it exists",
                                    path.display(),
                                    to.display()
                                )));
                            }
                            changes.push(format!("moved {} to {}", path.display(), to.display()));
                            staged.push((to, Some(text)));
                            staged.push((path, None));
                        }
                        None => {
                            changes.push(format!("updated {}", path.display()));
                            staged.push((path, Some(text)));
                        }
                    }
                }
            }
        }
        Ok((staged, changes))
    }

    /// The directory relative patch paths start from.
    fn base_dir(&self) -> Result<PathBuf, ToolError> {
        match self.engine.workspace_root() {
            Some(r) => Ok(r.to_owned()),
            None => std::env::current_dir()
                .map_err(|e| ToolError::bad_input(format!("no workspace directory: {e}"))),
        }
    }

    /// Writes every staged file (or deletes it), all or nothing, then
    /// formats the written ones and restores their BOM state.
    pub(super) async fn commit(
        &self,
        staged: Vec<(PathBuf, Option<Text>)>,
    ) -> Result<EditAnswer, ToolError> {
        self.commit_with(staged, None).await
    }

    /// [`Editor::commit`]; with `range`, only those lines of the (single)
    /// file are formatted.
    async fn commit_with(
        &self,
        staged: Vec<(PathBuf, Option<Text>)>,
        range: Option<(usize, usize)>,
    ) -> Result<EditAnswer, ToolError> {
        // The one place files are written: every staged path is judged
        // again here (as resolved for writing), before the first write.
        self.confine(staged.iter().map(|(p, _)| p.as_path()))?;
        let baseline = self.baseline(&staged).await?;
        let mut answer = EditAnswer {
            root: self.engine.workspace_root().map(Path::to_owned),
            baseline,
            ..EditAnswer::default()
        };
        // A dry run holds the files in memory instead (`Editor::preview`):
        // its checks see them there, and nothing is formatted or written.
        if self.engine.files().is_dry_run() {
            for (path, text) in &staged {
                let text = text
                    .as_ref()
                    .map(|t| String::from_utf8_lossy(&t.encode()).into_owned());
                self.engine.files().stage(path, text);
            }
            answer.preview = true;
            return Ok(answer);
        }
        write_all(&staged)?;
        for (path, text) in &staged {
            let Some(t) = text else {
                self.engine.last_read().forget(path);
                continue;
            };
            match range {
                Some((first, last)) => {
                    let report = self.format_lines(path, first, last).await;
                    answer.formatting.push((path.clone(), report));
                }
                None => {
                    for report in self.engine.formatters().format(path).await {
                        answer.formatting.push((path.clone(), report));
                    }
                }
            }
            // A formatter may add or drop the BOM; the content decides.
            if let Ok(bytes) = std::fs::read(path) {
                if let Ok(after) = Text::decode(&bytes, path)
                    && after.bom != t.bom
                {
                    let fixed = Text {
                        bom: t.bom,
                        ..after
                    };
                    let _ = atomic_write(path, &fixed.encode());
                }
                if let Ok(bytes) = std::fs::read(path) {
                    self.engine.last_read().record(path, &bytes);
                }
            }
        }
        Ok(answer)
    }
}

/// `old` replaced by `new` in `body` (line endings as `\n`), once or with
/// `replace_all` everywhere; the refusal names `path`.
fn replace_in(
    path: &Path,
    body: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, ToolError> {
    let (old, new) = (old.replace("\r\n", "\n"), new.replace("\r\n", "\n"));
    replace(body, &old, &new, replace_all).map_err(|e| {
        ToolError::bad_input(match e {
            ReplaceError::EmptyOld => "`old` must not be empty".into(),
            ReplaceError::NotFound => format!("`old` was not found in {}", path.display()),
            ReplaceError::Ambiguous(n) => format!(
                "`old` is in {} {n} times; give more context or set replace_all",
                path.display()
            ),
        })
    })
}
