//! Supertypes and subtypes: through the server's type hierarchy where it
//! offers one (clangd, gopls, jdtls). Where it does not (pyright,
//! typescript-language-server, rust-analyzer), supertypes are the bases
//! the declaration's header names, each resolved with `definition`, and
//! subtypes come from `implementation`, or, for a server without that
//! (pyright), from the references that are a class header naming the type
//! among its bases. The answer says which way it was found.

use std::path::Path;

use crate::answer::{Item, Items, ItemsKind, Loc, Pos};
use crate::engine::Engine;
use crate::engine::locations::Wait;
use crate::error::ToolError;
use crate::sync::Snapshot;

impl Engine {
    /// The supertypes (`up`) or subtypes of the type at a position.
    pub(crate) async fn type_hierarchy(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        up: bool,
    ) -> Result<Items, ToolError> {
        let (server, checked, pos) = self
            .prepare(file, Pos::new(line, column), Wait::Indexed)
            .await?;
        let kind = if up {
            ItemsKind::Supertypes
        } else {
            ItemsKind::Subtypes
        };
        let id = server.spec.id;
        let (items, note) = if server.offers("typeHierarchyProvider") {
            (server.type_hierarchy(&checked.path, pos, up).await?, None)
        } else if up && server.offers("definitionProvider") {
            (
                self.named_bases(file, line, column).await?,
                Some(format!(
                    "{id} offers no type hierarchy: these are the bases its declaration names, each resolved with goToDefinition"
                )),
            )
        } else if server.offers("implementationProvider") {
            // tsserver lists a class among its own implementations.
            let own = self.definition(file, line, column).await?.locations;
            let found = self.implementation(file, line, column).await?;
            (
                found
                    .locations
                    .into_iter()
                    .filter(|l| !own.iter().any(|o| o.path == l.path && o.line == l.line))
                    .map(type_item)
                    .collect(),
                Some(format!(
                    "{id} offers no type hierarchy: these are its implementations (goToImplementation)"
                )),
            )
        } else if !up && server.offers("referencesProvider") {
            let found = self.references(file, line, column, false).await?;
            (
                found
                    .locations
                    .into_iter()
                    .filter_map(subclass_at)
                    .collect(),
                Some(format!(
                    "{id} offers no type hierarchy: these are the classes whose declaration names it as a base (from its references)"
                )),
            )
        } else {
            return Err(ToolError::unsupported(format!(
                "{id} does not support the type hierarchy"
            )));
        };
        Ok(Items::across_files(
            kind,
            server.root.clone(),
            items,
            note.into_iter().collect(),
        ))
    }

    /// The bases named in the header of the declaration of the type at a
    /// position, each where `definition` finds it.
    async fn named_bases(
        &self,
        file: &Path,
        line: usize,
        column: usize,
    ) -> Result<Vec<Item>, ToolError> {
        // The declaration itself: the definition, when the position is a use.
        let definition = self.definition(file, line, column).await?;
        let (decl_file, decl_line, decl_col) = match definition.locations.first() {
            Some(l) => (l.path.clone(), l.line, l.column),
            None => (file.to_owned(), line, column),
        };
        let text = self.snapshot(&decl_file)?.index.text().to_owned();
        let Some(start) = offset_of(&text, decl_line, decl_col) else {
            return Ok(Vec::new());
        };
        let ext = decl_file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let mut out = Vec::new();
        for (at, name) in bases(&text[start..], ext) {
            let (l, c) = line_col(&text, start + at);
            let found = self.definition(&decl_file, l, c).await?;
            match found.locations.into_iter().next() {
                Some(loc) => out.push(Item {
                    name,
                    ..type_item(loc)
                }),
                None => out.push(type_item(Loc {
                    path: decl_file.clone(),
                    line: l,
                    column: c,
                    text: name.clone(),
                })),
            }
        }
        Ok(out)
    }
}

/// An item for a type at `loc`, named by the word there.
fn type_item(loc: Loc) -> Item {
    let name = word_at(&loc);
    Item {
        name,
        kind: "type".into(),
        start_line: loc.line,
        end_line: loc.line,
        loc,
        children: Vec::new(),
    }
}

/// The identifier at `loc`'s column in its file's line (the text is
/// trimmed, so the file is read).
fn word_at(loc: &Loc) -> String {
    let line = Snapshot::read(&loc.path)
        .ok()
        .and_then(|s| s.index.line(loc.line - 1).map(str::to_owned))
        .unwrap_or_default();
    line.chars()
        .skip(loc.column.saturating_sub(1))
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// A reference that is a base in a Python class header
/// (`class Group(Command):`): the class declared there.
fn subclass_at(loc: Loc) -> Option<Item> {
    let rest = loc.text.strip_prefix("class ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let bases = rest.get(name.len()..)?;
    if name.is_empty() || !bases.trim_start().starts_with(['(', '[']) {
        return None;
    }
    let line = Snapshot::read(&loc.path)
        .ok()?
        .index
        .line(loc.line - 1)?
        .to_owned();
    let byte = line.find("class ")? + "class ".len();
    let column = line[..byte].chars().count() + 1;
    Some(Item {
        name,
        kind: "class".into(),
        start_line: loc.line,
        end_line: loc.line,
        loc: Loc { column, ..loc },
        children: Vec::new(),
    })
}

/// The byte offset of a 1-based line and character column.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let l = text.get(start..)?.lines().next()?;
    let byte = l.char_indices().nth(column - 1).map_or(l.len(), |(b, _)| b);
    Some(start + byte)
}

/// The 1-based line and character column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The bases a declaration's header names, as (offset from the start of
/// `decl`, name): `decl` starts at the declared name. Python: the classes
/// in the parentheses (keyword arguments left out); TypeScript and
/// JavaScript: what follows `extends` and `implements`; Rust: a trait's
/// supertraits after `:`. Each base is the last segment of a dotted or
/// `::` path, without its type arguments.
fn bases(decl: &str, ext: &str) -> Vec<(usize, String)> {
    let name_end = decl
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(decl.len(), |(i, _)| i);
    // The header: up to its body (`{`) or, in Python, the `:` after the
    // parentheses, never past 2000 bytes.
    let mut depth = 0i32;
    let mut end = decl.len().min(2000);
    for (i, c) in decl
        .char_indices()
        .skip(name_end)
        .take_while(|(i, _)| *i < 2000)
    {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            '{' if depth <= 0 => {
                end = i;
                break;
            }
            ':' if depth <= 0 && matches!(ext, "py" | "pyi") => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let header = &decl[..end];
    let parts: Vec<(usize, &str)> = match ext {
        "py" | "pyi" => {
            let Some(open) = header[name_end..].find('(').map(|o| o + name_end) else {
                return Vec::new();
            };
            let close = header.rfind(')').unwrap_or(header.len());
            split_top(header, open + 1, close.max(open + 1), ',')
                .into_iter()
                .filter(|(_, p)| !p.contains('='))
                .collect()
        }
        "rs" => {
            let Some(colon) = header[name_end..].find(':').map(|o| o + name_end) else {
                return Vec::new();
            };
            let stop = header[colon..]
                .find(" where")
                .map_or(header.len(), |w| w + colon);
            split_top(header, colon + 1, stop, '+')
        }
        _ => {
            let mut out = Vec::new();
            for keyword in ["extends", "implements"] {
                let Some(k) = find_word(header, keyword) else {
                    continue;
                };
                let from = k + keyword.len();
                let to = ["implements", "extends"]
                    .iter()
                    .filter_map(|w| find_word(&header[from..], w).map(|i| i + from))
                    .min()
                    .unwrap_or(header.len());
                out.extend(split_top(header, from, to, ','));
            }
            out
        }
    };
    parts
        .into_iter()
        .filter_map(|(at, part)| {
            // The type without its arguments, then its last path segment.
            let bare = part
                .split(['[', '<', '('])
                .next()
                .unwrap_or(part)
                .trim_end();
            let segment = bare.rfind(['.', ':']).map_or(0, |i| i + 1);
            let name = &bare[segment..];
            (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then(|| (at + segment, name.to_owned()))
        })
        .collect()
}

/// The parts of `text[from..to]` split at `sep` outside brackets, each
/// with its offset in `text`, trimmed at the start.
fn split_top(text: &str, from: usize, to: usize, sep: char) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = from;
    let slice = text.get(from..to).unwrap_or("");
    for (i, c) in slice.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push((start, &text[start..from + i]));
                start = from + i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push((start, &text[start..to.max(start)]));
    out.into_iter()
        .map(|(at, p)| {
            let lead = p.len() - p.trim_start().len();
            (at + lead, p.trim())
        })
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

/// The byte offset of `word` as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().last();
        let after = text[i + word.len()..].chars().next();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::bases;

    fn names(decl: &str, ext: &str) -> Vec<(String, String)> {
        bases(decl, ext)
            .into_iter()
            .map(|(at, n)| (decl[at..at + n.len()].to_owned(), n))
            .collect()
    }

    #[test]
    fn the_bases_a_header_names_are_found_at_their_names() {
        let same = |v: Vec<(String, String)>| {
            v.into_iter()
                .map(|(a, b)| {
                    assert_eq!(a, b);
                    b
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            same(names("Group(Command):\n    pass", "py")),
            vec!["Command"]
        );
        assert_eq!(
            same(names("Choice(ParamType, t.Generic[T], metaclass=M):", "py")),
            vec!["ParamType", "Generic"]
        );
        assert_eq!(same(names("Plain:\n", "py")), Vec::<String>::new());
        assert_eq!(
            same(names(
                "ObservableValue<T>\n    extends Atom\n    implements IObservableValue<T>, IInterceptable<T> {",
                "ts"
            )),
            vec!["Atom", "IObservableValue", "IInterceptable"]
        );
        assert_eq!(
            same(names("Searcher: Clone + core::fmt::Debug {", "rs")),
            vec!["Clone", "Debug"]
        );
    }
}
