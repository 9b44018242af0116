//! Uses that servers leave out of a symbol's references: the uses of an
//! import alias (`from m import f as g`, `use m::f as g;`), and, with
//! rust-analyzer, even the use that was asked about.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use sightline_lsp::LineIndex;
use sightline_lsp::protocol::{Location, Position, Range};
use sightline_lsp::uri::{path_to_uri_string, uri_to_path};

use crate::error::ToolError;
use crate::server::LspServer;
use crate::sync::Snapshot;

type Texts = HashMap<PathBuf, Arc<LineIndex>>;

/// pyright and ty stop at `from m import f as g`: they list that line among
/// the references of `f` but not the uses of `g`. For each such line in
/// `found`, `g`'s references are asked for too. rust-analyzer finds
/// references by the item's own name, so it misses the uses of `g` even
/// then; an alias is visible only in its own file, so the words `g` there
/// whose definition is `g`'s are added. Without declarations, `g` itself
/// (the alias's declaration) is left out.
pub async fn alias_references(
    server: &LspServer,
    found: &[Location],
    include_declaration: bool,
    texts: &mut Texts,
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
        let targets = server.definition(&path, pos).await?;
        for (l, col) in words(&index, &name) {
            let Some(at) = server.position_at(&index, l, col) else {
                continue;
            };
            let known = uses
                .iter()
                .chain(found)
                .chain(&more)
                .any(|u| u.uri == loc.uri && u.range.start == at);
            if known || at == pos || targets.is_empty() {
                continue;
            }
            let here = server.definition(&path, at).await?;
            if here.iter().any(|d| targets.contains(d)) {
                uses.push(word_location(&loc.uri, server, &index, l, col, &name));
            }
        }
        more.extend(
            uses.into_iter()
                .filter(|r| include_declaration || r.uri != loc.uri || r.range.start != pos),
        );
    }
    Ok(more)
}

/// The asked position, when the server left it out of its own answer
/// (rust-analyzer, asked at a use of an alias) although it holds a symbol
/// with a definition: the contract is every use of the symbol there, this
/// one included. A declaration added here is taken out later with the
/// others when declarations are not wanted.
pub async fn asked_use(
    server: &LspServer,
    checked: &Snapshot,
    pos: Position,
    found: &[Location],
) -> Result<Option<Location>, ToolError> {
    let uri_text = path_to_uri_string(&checked.path).unwrap_or_default();
    let Ok(uri) = uri_text.parse() else {
        return Ok(None);
    };
    let listed = found
        .iter()
        .any(|l| l.uri == uri && l.range.start <= pos && pos <= l.range.end);
    if listed {
        return Ok(None);
    }
    let index = LineIndex::new(checked.text.as_str());
    let (line, col) = server.char_position(&index, pos);
    let Some((start, name)) = word_at(index.line(line).unwrap_or(""), col) else {
        return Ok(None);
    };
    if server.definition(&checked.path, pos).await?.is_empty() {
        return Ok(None);
    }
    Ok(Some(word_location(
        &uri, server, &index, line, start, &name,
    )))
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier around character `col` of `line`: its first column and
/// its text.
fn word_at(line: &str, col: usize) -> Option<(usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    if !chars.get(col).is_some_and(|c| is_word_char(*c)) {
        return None;
    }
    let start = (0..col)
        .rev()
        .take_while(|i| is_word_char(chars[*i]))
        .last()
        .unwrap_or(col);
    let end = (col..chars.len())
        .take_while(|i| is_word_char(chars[*i]))
        .last()
        .map_or(col, |i| i + 1);
    Some((start, chars[start..end].iter().collect()))
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
    uri: &sightline_lsp::protocol::Uri,
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

/// The 0-based character column and the name `g` when the text after `loc`
/// reads `as g`.
fn alias_after(server: &LspServer, index: &LineIndex, loc: &Location) -> Option<(usize, String)> {
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
        assert_eq!(word_at("let 名前 = plus(1);", 9), Some((9, "plus".into())));
        assert_eq!(word_at("let 名前 = plus(1);", 11), Some((9, "plus".into())));
        assert_eq!(word_at("a + b", 1), None);
        let index = LineIndex::new("use m::add as plus;\n🙂 plus(plusx, xplus, plus)\n");
        assert_eq!(words(&index, "plus"), vec![(0, 14), (1, 2), (1, 21)]);
    }
}
