//! A rename is whole or not at all: in a monorepo, a server's rename edit
//! reaches only the packages it holds, so before anything is written the
//! edit is checked against the symbol's references across the workspace
//! (`engine::packages` loads the packages that mention the name for both).
//! A use the edit leaves with the old name refuses the rename, naming it.

use crate::edit::editor::Editor;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sightline_lsp::Position;
use sightline_lsp::{Encoding, LineIndex};

use crate::answer::Loc;
use crate::edit::wire::WorkspaceEdit;
use crate::engine::Engine;
use crate::engine::packages::{LoadedPackages, load_users};
use crate::error::ToolError;
use crate::server::LspServer;

/// Loads the other packages that mention `old_name` for a rename, or
/// refuses it when not all of them can be.
pub(super) fn load_packages<'a>(
    engine: &Engine,
    server: &'a LspServer,
    file: &Path,
    old_name: &str,
) -> Result<LoadedPackages<'a>, ToolError> {
    let packages = load_users(
        server,
        engine.files(),
        file,
        old_name,
        engine.config().reach(),
    )?;
    match &packages.note {
        Some(note) => Err(ToolError::refused(format!(
            "rename not done: {note}; nothing was written"
        ))),
        None => Ok(packages),
    }
}

impl Editor<'_> {
    /// Whole or not at all: every use the references of the symbol at
    /// `at` know of, written with the old name, must be in `edit`.
    pub(super) async fn refuse_partial_rename(
        &self,
        server: &LspServer,
        (file, line, column): (&Path, usize, usize),
        edit: &WorkspaceEdit,
        old_name: &str,
    ) -> Result<(), ToolError> {
        // Boxed, as the rename's future would hold the references' too.
        let uses = Box::pin(self.engine.references(file, line, column, true)).await?;
        let missed = left_out(edit, &uses.locations, old_name, server.encoding);
        if missed.is_empty() {
            return Ok(());
        }
        let root = self.engine.workspace_root().unwrap_or(&server.root);
        Err(refusal(server.spec.id, old_name, &missed, root))
    }
}

/// A place in a file: 0-based line and character (code point) column.
type At = (u64, u64);

/// The ranges (0-based, first and last place, in characters) each file's
/// text edits replace, from a `WorkspaceEdit`'s `changes` and
/// `documentChanges`. The edit counts in the server's `encoding` (UTF-16
/// units for pyright and tsserver), a use's column in characters: each
/// range is read against the file's text as it is (the edit is not yet
/// written), so a line with characters past U+FFFF (an emoji) before the
/// name compares alike.
fn edited_ranges(edit: &WorkspaceEdit, encoding: Encoding) -> HashMap<PathBuf, Vec<(At, At)>> {
    let mut ranges: HashMap<PathBuf, Vec<(At, At)>> = HashMap::new();
    let mut texts: HashMap<PathBuf, Option<LineIndex>> = HashMap::new();
    for (path, e) in edit.text_edits() {
        let (first, last) = (e.range.start, e.range.end);
        let index = texts
            .entry(path.clone())
            .or_insert_with(|| std::fs::read_to_string(&path).ok().map(LineIndex::new));
        let index = &*index;
        let at = |p: Position| -> At {
            match index {
                Some(index) => {
                    let (line, col) = index.from_lsp(p, encoding);
                    (line as u64, col as u64)
                }
                None => (u64::from(p.line), u64::from(p.character)),
            }
        };
        ranges.entry(path).or_default().push((at(first), at(last)));
    }
    ranges
}

/// Whether `loc` is a use written with `old_name` (an alias's own uses,
/// `import {f as g}` then `g()`, keep their name in a rename).
fn written_as(loc: &Loc, old_name: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(&loc.path) else {
        return false;
    };
    let Some(line) = text.lines().nth(loc.line.saturating_sub(1)) else {
        return false;
    };
    let rest: String = line.chars().skip(loc.column.saturating_sub(1)).collect();
    rest.starts_with(old_name)
}

/// The uses of `old_name` among `references` that `edit` (in the server's
/// `encoding`) leaves unrenamed.
fn left_out(
    edit: &WorkspaceEdit,
    references: &[Loc],
    old_name: &str,
    encoding: Encoding,
) -> Vec<Loc> {
    let ranges = edited_ranges(edit, encoding);
    references
        .iter()
        .filter(|loc| {
            let at: At = (
                loc.line.saturating_sub(1) as u64,
                loc.column.saturating_sub(1) as u64,
            );
            let path = sightline_lsp::normalize(&loc.path);
            let covered = ranges
                .get(&path)
                .is_some_and(|r| r.iter().any(|(first, last)| (*first..=*last).contains(&at)));
            !covered && written_as(loc, old_name)
        })
        .cloned()
        .collect()
}

/// The refusal when a rename would leave uses behind: the count, the files,
/// and the first places, relative to `root`.
fn refusal(server: &str, old_name: &str, missed: &[Loc], root: &Path) -> ToolError {
    let mut files: Vec<&Path> = missed.iter().map(|l| l.path.as_path()).collect();
    files.sort();
    files.dedup();
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let places: Vec<String> = missed
        .iter()
        .take(10)
        .map(|l| format!("{}:{}:{}", rel(&l.path), l.line, l.column))
        .collect();
    ToolError::refused(format!(
        "rename not done: {server}'s edit would leave {} of `{old_name}` in {} unrenamed ({}{}); nothing was written",
        if missed.len() == 1 {
            "1 use".to_owned()
        } else {
            format!("{} uses", missed.len())
        },
        if files.len() == 1 {
            "1 file".to_owned()
        } else {
            format!("{} files", files.len())
        },
        places.join(", "),
        if missed.len() > 10 { ", ..." } else { "" },
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_use_outside_every_edit_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ts");
        let b = dir.path().join("b.ts");
        std::fs::write(&a, "export function f() {}\nf()\nf(f)\n").unwrap();
        std::fs::write(&b, "import { f as g } from './a'\ng()\nf()\n").unwrap();
        let uri = |p: &Path| sightline_lsp::path_to_uri_string(p).unwrap();
        let range = |l: u64, c: u64| json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 1}});
        // The declaration and the first `f` of `f(f)` in a.ts, the import
        // in b.ts.
        let edit = json!({
            "changes": { uri(&a): [
                {"range": range(0, 16), "newText": "h"},
                {"range": range(2, 0), "newText": "h"},
            ] },
            "documentChanges": [{"textDocument": {"uri": uri(&b), "version": 1}, "edits": [{"range": range(0, 9), "newText": "h"}]}],
        });
        let loc = |p: &Path, line: usize, column: usize| Loc {
            path: p.to_owned(),
            line,
            column,
            text: String::new(),
        };
        let refs = [
            loc(&a, 1, 17),
            loc(&a, 2, 1),
            loc(&a, 3, 1),
            loc(&a, 3, 3),
            loc(&b, 1, 10),
            loc(&b, 2, 1),
            loc(&b, 3, 1),
        ];
        let missed = left_out(
            &WorkspaceEdit::read(&edit).unwrap(),
            &refs,
            "f",
            Encoding::Utf16,
        );
        // a.ts:2 and the argument of `f(f)` (an edit on its line is not
        // one at it) are missed; b.ts:2 is the alias's own use, kept.
        assert_eq!(missed, [loc(&a, 2, 1), loc(&a, 3, 3), loc(&b, 3, 1)]);
        let e = refusal("tsserver", "f", &missed, dir.path());
        // An emoji before the name: the edit's UTF-16 column (two units for
        // it) and the use's character column are the same place.
        let c = dir.path().join("c.py");
        std::fs::write(&c, "s = \"🙂\"; f()\n").unwrap();
        let edit = json!({ "changes": { uri(&c): [
            {"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 12}}, "newText": "h"},
        ] } });
        assert_eq!(
            left_out(
                &WorkspaceEdit::read(&edit).unwrap(),
                &[loc(&c, 1, 11)],
                "f",
                Encoding::Utf16
            ),
            []
        );
        assert_eq!(
            e.message,
            "rename not done: tsserver's edit would leave 3 uses of `f` in 2 files unrenamed (a.ts:2:1, a.ts:3:3, b.ts:3:1); nothing was written"
        );
    }
}
