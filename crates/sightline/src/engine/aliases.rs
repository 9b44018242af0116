//! Uses that servers leave out of a symbol's references: the uses of an
//! import alias (`from m import f as g`, `use m::f as g;`).

use crate::sync::TextsByPath;

use futures_util::StreamExt;
use sightline_lsp::LineIndex;
use sightline_lsp::uri_to_path;
use sightline_lsp::{Location, Position, Range};

use crate::catalog::ImportAliases;
use crate::error::ToolError;
use crate::server::LspServer;

/// pyright and ty stop at `from m import f as g`: they list that line among
/// the references of `f` but not the uses of `g`. For each such line in
/// `found`, `g`'s references are asked for too. rust-analyzer finds
/// references by the item's own name, so it misses the uses of `g` even
/// then; an alias is visible only in its own file, so the words `g` there
/// whose definition is `g`'s are added (`ImportAliases::AskAliasAndWords`). Without declarations, `g` itself
/// (the alias's declaration) is left out.
pub async fn alias_references(
    server: &LspServer,
    found: &[Location],
    include_declaration: bool,
    texts: &mut TextsByPath,
) -> Result<Vec<Location>, ToolError> {
    let mut more: Vec<Location> = Vec::new();
    for loc in found {
        let Ok(path) = uri_to_path(loc.uri.as_str()) else {
            continue;
        };
        let Some(index) = server.index_for(&path, texts) else {
            continue;
        };
        let Some((alias_col, name)) = alias_after(server, &index, loc) else {
            continue;
        };
        let line = loc.range.end.line as usize;
        let Some(pos) = server.position_at(&index, line, alias_col) else {
            continue;
        };
        let mut uses = server.references(&path, pos).await?;
        if server.spec.quirks.references.import_aliases == ImportAliases::AskAliasAndWords {
            let targets = server.definition(&path, pos).await?;
            let unknown: Vec<(usize, usize, Position)> = words(&index, &name)
                .into_iter()
                .filter_map(|(l, col)| Some((l, col, server.position_at(&index, l, col)?)))
                .filter(|(_, _, at)| {
                    *at != pos
                        && !uses
                            .iter()
                            .chain(found)
                            .chain(&more)
                            .any(|u| u.uri == loc.uri && u.range.start == *at)
                })
                .collect();
            if !targets.is_empty() {
                // Each word is checked with its own `definition`, eight at a
                // time rather than one round trip after another.
                let ats: Vec<Position> = unknown.iter().map(|u| u.2).collect();
                let path = &path;
                let answers: Vec<_> = futures_util::stream::iter(ats)
                    .map(|at| server.definition(path, at))
                    .buffered(8)
                    .collect()
                    .await;
                for ((l, col, _), here) in unknown.into_iter().zip(answers) {
                    if here?.iter().any(|d| targets.contains(d)) {
                        uses.push(word_location(&loc.uri, server, &index, l, col, &name));
                    }
                }
            }
        }
        more.extend(
            uses.into_iter()
                .filter(|r| include_declaration || r.uri != loc.uri || r.range.start != pos),
        );
    }
    Ok(more)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every whole-word occurrence of `name` in `index`: 0-based line and
/// character column.
fn words(index: &LineIndex, name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for l in 0..index.line_count() {
        let Some(text) = index.line(l) else { continue };
        let chars: Vec<char> = text.chars().collect();
        let n: Vec<char> = name.chars().collect();
        for c in 0..chars.len().saturating_sub(n.len() - 1) {
            let whole = chars[c..c + n.len()] == n[..]
                && (c == 0 || !is_word_char(chars[c - 1]))
                && chars.get(c + n.len()).is_none_or(|x| !is_word_char(*x));
            if whole {
                out.push((l, c));
            }
        }
    }
    out
}

fn word_location(
    uri: &sightline_lsp::Uri,
    server: &LspServer,
    index: &LineIndex,
    line: usize,
    col: usize,
    name: &str,
) -> Location {
    let start = server.position_at(index, line, col).unwrap_or(Position {
        line: 0,
        character: 0,
    });
    let end = server
        .position_at(index, line, col + name.chars().count())
        .unwrap_or(start);
    Location {
        uri: uri.clone(),
        range: Range { start, end },
    }
}

/// Words that begin an import statement: Python's `from m import f as g`
/// and `import m as g`, Rust's `use m::f as g;`.
const IMPORT_STARTS: &[&str] = &["from ", "import ", "use ", "pub use ", "pub(crate) use "];

/// Whether line `line` of `index` is part of an import statement: it starts
/// one, or one starts above it and is still open (a parenthesised or braced
/// list spread over lines, with no `)` or `;` in between). `n as usize`
/// and `except E as e` are not imports.
fn in_import(index: &LineIndex, line: usize) -> bool {
    let starts = |l: usize| {
        index
            .line(l)
            .is_some_and(|t| IMPORT_STARTS.iter().any(|k| t.trim_start().starts_with(k)))
    };
    if starts(line) {
        return true;
    }
    for above in (line.saturating_sub(30)..line).rev() {
        let text = index.line(above).unwrap_or("");
        if starts(above) {
            return text.contains(['(', '{']) && !text.contains([')', ';']);
        }
        if text.contains([')', ';']) {
            return false;
        }
    }
    false
}

/// The 0-based character column and the name `g` when `loc` is in an import
/// statement and the text after it reads `as g`.
fn alias_after(server: &LspServer, index: &LineIndex, loc: &Location) -> Option<(usize, String)> {
    if !in_import(index, loc.range.end.line as usize) {
        return None;
    }
    let line = index.line(loc.range.end.line as usize)?;
    let (_, end_col) = server.char_position(index, loc.range.end);
    let rest: String = line.chars().skip(end_col).collect();
    let trimmed = rest.trim_start();
    let after_as = trimmed.strip_prefix("as")?;
    if !after_as.starts_with(char::is_whitespace) {
        return None;
    }
    let name = after_as.trim_start();
    if !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return None;
    }
    let offset = rest.chars().count() - name.chars().count();
    let word: String = name.chars().take_while(|c| is_word_char(*c)).collect();
    Some((end_col + offset, word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole_after_wide_characters() {
        let index = LineIndex::new("use m::add as plus;\n🙂 plus(plusx, xplus, plus)\n");
        assert_eq!(words(&index, "plus"), vec![(0, 14), (1, 2), (1, 21)]);
    }

    #[test]
    fn only_imports_have_aliases() {
        // The closing line of a spread import is part of it too.
        let text = "from m import (\n    a as b,\n)\nx = n as usize\nuse m::{\n    f as g,\n};\nexcept E as e:\nimport os as o\n";
        let index = LineIndex::new(text);
        let got: Vec<bool> = (0..9).map(|l| in_import(&index, l)).collect();
        assert_eq!(
            got,
            vec![true, true, true, false, true, true, true, false, true]
        );
    }
}
