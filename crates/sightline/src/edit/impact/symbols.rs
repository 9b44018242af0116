//! The declarations a diff touches, from the outlines on each side and the
//! declarations the check followed to their users.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::answer::Item;
use crate::edit::impact::{Change, ChangedSymbol, Use, tests_of};
use crate::edit::new_errors::Followed;
use crate::edit::text::Text;
use crate::engine::Engine;

/// Each file's outline, flattened: (name path, item), or none when it
/// cannot be had (a file that is not there).
pub(super) async fn outlines(
    engine: &Engine,
    files: &[PathBuf],
) -> Vec<(PathBuf, Vec<(String, Item)>)> {
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
pub(super) struct Texts<'a> {
    pub(super) old: &'a [(PathBuf, Option<String>)],
    pub(super) new: &'a [(PathBuf, Option<Text>)],
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
                .map(|t| t.strip_prefix('\u{feff}').unwrap_or(t))
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
pub(super) fn changed_symbols(
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
        // Overloads share a name path: the one after is the same
        // declaration if its text is unchanged, else the one at the same
        // place among its namesakes.
        let namesakes: Vec<&(String, Item)> = after.iter().filter(|(n, _)| *n == name).collect();
        let ordinal = found.map_or(0, |(n, i)| {
            before
                .iter()
                .take_while(|(_, j)| !std::ptr::eq(j, i))
                .filter(|(m, _)| m == n)
                .count()
        });
        let now = found
            .and_then(|(_, was)| {
                namesakes
                    .iter()
                    .find(|(_, is)| texts.unchanged(&f.path, was, is))
            })
            .or_else(|| namesakes.get(ordinal).or(namesakes.last()))
            .copied();
        // Each use has its enclosing symbol, in order: they are taken
        // whether or not this declaration is listed.
        let mut symbols: Vec<Option<String>> = Vec::new();
        for _ in f.uses.iter().flatten() {
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
            .flatten()
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
            uses_looked_for: f.uses.is_some(),
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
                uses_looked_for: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::answer::Loc;

    fn item(name: &str, line: usize) -> (String, Item) {
        let loc = Loc {
            path: PathBuf::from("/p/a.ts"),
            line,
            column: 10,
            text: String::new(),
        };
        let it = Item {
            name: name.to_owned(),
            kind: "function".to_owned(),
            loc,
            start_line: line,
            end_line: line,
            children: Vec::new(),
        };
        (name.to_owned(), it)
    }

    fn followed(line: usize, uses: Option<Vec<Loc>>) -> Followed {
        Followed {
            path: PathBuf::from("/p/a.ts"),
            line,
            column: 10,
            name: "f".to_owned(),
            uses,
        }
    }

    #[test]
    fn of_three_overloads_only_the_one_whose_text_changed_is_listed() {
        let path = PathBuf::from("/p/a.ts");
        let old = "function f(a: string): string;\nfunction f(a: number): number;\nfunction f(a: any): any { return a; }\n";
        let new = "function f(a: string): string;\nfunction f(a: bigint): bigint;\nfunction f(a: any): any { return a; }\n";
        let olds = vec![(path.clone(), Some(old.to_owned()))];
        let news = vec![(
            path.clone(),
            Some(Text::decode(new.as_bytes(), &path).unwrap()),
        )];
        let texts = Texts {
            old: &olds,
            new: &news,
        };
        let outline = vec![item("f", 1), item("f", 2), item("f", 3)];
        let outlines = vec![(path.clone(), outline)];
        // The check followed the second (its line changed) and, say, the
        // first: only the second is listed, at its own line.
        let listed = changed_symbols(
            &[followed(2, Some(Vec::new())), followed(1, None)],
            &[],
            &outlines,
            &outlines,
            &texts,
        );
        let lines: Vec<(usize, Change)> = listed.iter().map(|s| (s.line, s.change)).collect();
        assert_eq!(lines, vec![(2, Change::Changed)]);
    }

    #[test]
    fn a_byte_order_mark_before_the_diff_is_no_change() {
        let path = PathBuf::from("/p/a.ts");
        let olds = vec![(path.clone(), Some("\u{feff}function f() {}\n".to_owned()))];
        let news = vec![(
            path.clone(),
            Some(Text::decode("\u{feff}function f() {}\n".as_bytes(), &path).unwrap()),
        )];
        let texts = Texts {
            old: &olds,
            new: &news,
        };
        let outlines = vec![(path.clone(), vec![item("f", 1)])];
        let listed = changed_symbols(
            &[followed(1, Some(Vec::new()))],
            &[],
            &outlines,
            &outlines,
            &texts,
        );
        assert!(listed.is_empty(), "{listed:?}");
    }

    #[test]
    fn a_declaration_whose_uses_were_not_looked_for_says_so() {
        let path = PathBuf::from("/p/a.ts");
        let olds = vec![(path.clone(), Some("function f() {}\n".to_owned()))];
        let news = vec![(
            path.clone(),
            Some(Text::decode(b"function f(x) {}\n", &path).unwrap()),
        )];
        let texts = Texts {
            old: &olds,
            new: &news,
        };
        let outlines = vec![(path.clone(), vec![item("f", 1)])];
        let listed = changed_symbols(&[followed(1, None)], &[], &outlines, &outlines, &texts);
        assert_eq!(listed.len(), 1);
        assert!(!listed[0].uses_looked_for);
    }
}
