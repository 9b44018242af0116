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
