//! Reading and editing a symbol by its name path (`engine::name_path`):
//! its whole text with line numbers, its lines replaced, text put before
//! or after it, and a delete that refuses while it is used. A symbol's
//! lines run from the first line of its range (its header, decorators and
//! attributes included) to its last. Each edit is refused when the file
//! changed on disk since its outline was read, and goes through the same
//! commit, formatting and error delta as `edit`.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use crate::edit::EditAnswer;
use crate::edit::commit::read_bytes;
use crate::edit::text::Text;
use crate::engine::name_path::Found;
use crate::error::ToolError;
use crate::files::AbsPath;

/// Where a symbol edit puts its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolEdit {
    /// In place of the symbol's lines.
    Replace,
    /// On the lines before its first.
    Before,
    /// On the lines after its last.
    After,
}

/// A symbol found in a file, with the file's text when the outline was read.
struct Located {
    path: PathBuf,
    bytes: Vec<u8>,
    text: Text,
    found: Found,
}

impl Editor<'_> {
    /// The outline's symbol `name_path` in `file`, and the file's text read
    /// just before: the outline is of that text unless the file changed
    /// meanwhile, which is refused.
    async fn locate(
        &self,
        file: &Path,
        name_path: &str,
        kind: Option<&str>,
    ) -> Result<Located, ToolError> {
        let path = AbsPath::new(file)?.canonical().into_path_buf();
        let bytes = read_bytes(&path)?
            .ok_or_else(|| ToolError::bad_input(format!("file not found: {}", path.display())))?;
        let found = self.engine.find_symbol(&path, name_path, kind).await?;
        unchanged_since(&path, &bytes)?;
        let text = Text::decode(&bytes, &path)?;
        Ok(Located {
            path,
            bytes,
            text,
            found,
        })
    }

    /// The whole text of the symbol `name_path` in `file`, with its line
    /// numbers (those `read` shows), headed by its name path and kind.
    pub(crate) async fn read_symbol(
        &self,
        file: &Path,
        name_path: &str,
        kind: Option<&str>,
    ) -> Result<String, ToolError> {
        let at = self.locate(file, name_path, kind).await?;
        self.engine.last_read().record(&at.path, &at.bytes);
        let (first, last) = lines_of(&at.found);
        let mut out = format!(
            "{} {} (lines {first}-{last})\n",
            at.found.name_path, at.found.item.kind
        );
        for (i, line) in at.text.body.lines().enumerate().take(last).skip(first - 1) {
            out.push_str(&format!("{:>6}\t{line}\n", i + 1));
        }
        Ok(out)
    }

    /// Replaces the symbol's lines with `text`, or puts `text` on lines of
    /// its own before or after them; formatted, and answered with the
    /// errors it brought, as `edit` is.
    pub(crate) async fn edit_symbol(
        &self,
        file: &Path,
        name_path: &str,
        kind: Option<&str>,
        how: SymbolEdit,
        text: &str,
    ) -> Result<EditAnswer, ToolError> {
        self.engine.sandbox().check_write(file)?;
        let at = self.locate(file, name_path, kind).await?;
        self.engine.last_read().check(&at.path, Some(&at.bytes))?;
        let mut lines: Vec<&str> = at.text.body.split_inclusive('\n').collect();
        let (first, last) = lines_of(&at.found);
        let last = last.min(lines.len()).max(1);
        let first = first.min(last);
        let mut new = text.replace("\r\n", "\n");
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        let (from, to) = match how {
            SymbolEdit::Replace => (first - 1, last),
            SymbolEdit::Before => (first - 1, first - 1),
            SymbolEdit::After => (last, last),
        };
        // A last line without its newline gets one before text goes after it.
        let mut joined_last = String::new();
        if how == SymbolEdit::After
            && let Some(l) = lines.get(last - 1)
            && !l.ends_with('\n')
        {
            joined_last = format!("{l}\n");
        }
        if !joined_last.is_empty() {
            lines[last - 1] = &joined_last;
        }
        let body: String = lines[..from]
            .iter()
            .copied()
            .chain(std::iter::once(new.as_str()))
            .chain(lines[to.min(lines.len())..].iter().copied())
            .collect();
        let verb = match how {
            SymbolEdit::Replace => "replaced",
            SymbolEdit::Before => "inserted before",
            SymbolEdit::After => "inserted after",
        };
        let changed = Text { body, ..at.text };
        let mut answer = self.commit(vec![(at.path.clone(), Some(changed))]).await?;
        answer.changes = vec![format!(
            "{verb} {} {} (lines {first}-{last}) in {}",
            at.found.name_path,
            at.found.item.kind,
            at.path.display()
        )];
        self.check_errors(&mut answer, std::slice::from_ref(&at.path))
            .await;
        Ok(answer)
    }

    /// Deletes the symbol's lines when nothing outside them uses it; else
    /// refuses and lists the uses. With `force`, deletes it all the same,
    /// and the answer's errors are what that broke.
    pub(crate) async fn safe_delete(
        &self,
        file: &Path,
        name_path: &str,
        kind: Option<&str>,
        force: bool,
    ) -> Result<EditAnswer, ToolError> {
        self.engine.sandbox().check_write(file)?;
        let at = self.locate(file, name_path, kind).await?;
        let (first, last) = lines_of(&at.found);
        let item = &at.found.item;
        let uses = self
            .engine
            .references(&at.path, item.loc.line, item.loc.column, false)
            .await?;
        let outside: Vec<_> = uses
            .locations
            .iter()
            .filter(|l| !(l.path == at.path && (first..=last).contains(&l.line)))
            .collect();
        // Packages of a monorepo left unsearched may hold uses: not a
        // delete to make without `force`.
        if outside.is_empty()
            && !force
            && let Some(note) = uses.notes.first()
        {
            return Err(ToolError::bad_input(format!(
                "not deleted: {} {} may be used where its references did not look ({note}); delete anyway with force",
                at.found.name_path, item.kind,
            )));
        }
        if !outside.is_empty() && !force {
            let listed: Vec<String> = outside
                .iter()
                .take(crate::edit::ERRORS_PER_FILE)
                .map(|l| {
                    let shown = l.path.strip_prefix(&uses.root).unwrap_or(&l.path);
                    format!("{}:{}:{} {}", shown.display(), l.line, l.column, l.text)
                })
                .collect();
            let more = outside.len().saturating_sub(listed.len());
            return Err(ToolError::bad_input(format!(
                "not deleted: {} {} is used {} time{} outside it; remove the uses first, or delete anyway with force:\n{}{}",
                at.found.name_path,
                item.kind,
                outside.len(),
                if outside.len() == 1 { "" } else { "s" },
                listed.join("\n"),
                if more > 0 {
                    format!("\n... and {more} more")
                } else {
                    String::new()
                }
            )));
        }
        let mut answer = self
            .edit_symbol(&at.path, name_path, kind, SymbolEdit::Replace, "")
            .await?;
        answer.changes = vec![format!(
            "deleted {} {} (lines {first}-{last}) from {}{}",
            at.found.name_path,
            item.kind,
            at.path.display(),
            if outside.is_empty() {
                String::new()
            } else {
                format!(", which was used {} times", outside.len())
            }
        )];
        Ok(answer)
    }
}

/// The first and last line (1-based, inclusive) of a found symbol.
fn lines_of(found: &Found) -> (usize, usize) {
    let first = found.item.start_line.min(found.item.loc.line).max(1);
    (first, found.item.end_line.max(first))
}

/// Refuses when `path` no longer holds `bytes`.
fn unchanged_since(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    if read_bytes(path)?.as_deref() == Some(bytes) {
        return Ok(());
    }
    Err(ToolError::bad_input(format!(
        "{} changed on disk while its outline was read; nothing was written, ask again",
        path.display()
    )))
}
