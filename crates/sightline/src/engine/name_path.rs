//! Finding a symbol by its name path in a file's outline: `Session/request`
//! (or `Outer/Inner/method`, `Session.request`, `Foo::new`), a bare name,
//! and `/Session/request` from the top of the file; a `kind` narrows it.
//! None found or more than one is an error that lists what there is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::answer::Item;
use crate::engine::Engine;
use crate::error::ToolError;

/// At most this many candidates are listed in an error.
const LISTED: usize = 20;

/// A symbol found by name path, with its place in the outline.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its name path as the outline spells it (`Session/request`).
    pub name_path: String,
    /// The outline's item: its name's position, kind and lines.
    pub item: Item,
}

impl Engine {
    /// The symbol of `file` that `name_path` names, of `kind` when given.
    pub(crate) async fn find_symbol(
        &self,
        file: &Path,
        name_path: &str,
        kind: Option<&str>,
    ) -> Result<Found, ToolError> {
        let outline = self.document_symbols(file).await?;
        let mut found = find(&outline.items, name_path, kind, file)?;
        // pyright's selection range for `*args` starts at the `*`: the
        // position of a symbol is where its name is written on the line.
        let loc = &mut found.item.loc;
        if let Ok(snapshot) = self.snapshot(&loc.path)
            && let Some(text) = snapshot.index.line(loc.line - 1)
        {
            let from: usize = text
                .char_indices()
                .nth(loc.column - 1)
                .map_or(text.len(), |(b, _)| b);
            if !text[from..].starts_with(found.item.name.as_str())
                && let Some(at) = text[from..].find(found.item.name.as_str())
            {
                loc.column = text[..from + at].chars().count() + 1;
            }
        }
        Ok(found)
    }
}

impl Engine {
    /// The name path (`Session.request`) of the innermost symbol each place
    /// sits in, from each file's outline; `None` for a place in no symbol,
    /// or in a file whose outline cannot be had.
    pub(crate) async fn enclosing_symbols(
        &self,
        places: &[(PathBuf, usize)],
    ) -> Vec<Option<String>> {
        self.enclosing_items(places)
            .await
            .into_iter()
            .map(|found| found.map(|(name, _)| name))
            .collect()
    }

    /// As [`Self::enclosing_symbols`], with the innermost symbol's kind.
    pub(crate) async fn enclosing_items(
        &self,
        places: &[(PathBuf, usize)],
    ) -> Vec<Option<(String, String)>> {
        let mut outlines: HashMap<PathBuf, Option<Vec<Item>>> = HashMap::new();
        for (path, _) in places {
            if !outlines.contains_key(path) {
                let outline = self.document_symbols(path).await.ok().map(|o| o.items);
                outlines.insert(path.clone(), outline);
            }
        }
        places
            .iter()
            .map(|(path, line)| {
                let items = outlines.get(path)?.as_deref()?;
                let chain = enclosing(items, *line);
                let kind = chain.last()?.kind.clone();
                let names: Vec<&str> = chain.iter().map(|i| i.name.as_str()).collect();
                Some((names.join("."), kind))
            })
            .collect()
    }
}

/// Kinds of outline items that hold no code of their own: a place on a
/// variable's line sits in the function around it (pyright outlines a
/// function's locals).
const NOT_ENCLOSING: &[&str] = &[
    "variable",
    "constant",
    "field",
    "property",
    "key",
    "string",
    "number",
    "boolean",
    "array",
    "null",
    "enum member",
    "type parameter",
];

/// The symbols around `line`, outermost first.
fn enclosing(items: &[Item], line: usize) -> Vec<&Item> {
    for item in items {
        if NOT_ENCLOSING.contains(&item.kind.as_str()) {
            continue;
        }
        let first = item.start_line.min(item.loc.line);
        if (first..=item.end_line.max(item.loc.line)).contains(&line) {
            let mut chain = vec![item];
            chain.extend(enclosing(&item.children, line));
            return chain;
        }
    }
    Vec::new()
}

/// Every item of an outline with its chain of names, depth first.
fn flatten<'a>(
    items: &'a [Item],
    parents: &mut Vec<&'a str>,
    out: &mut Vec<(Vec<&'a str>, &'a Item)>,
) {
    for item in items {
        parents.push(&item.name);
        out.push((parents.clone(), item));
        flatten(&item.children, parents, out);
        parents.pop();
    }
}

/// Whether one segment of a name path names an outline item called
/// `name`: the same name, or the type of an `impl` block (rust-analyzer
/// names them `impl Foo` and `impl Display for Foo`), or a name given with
/// its signature (`area(double)`).
fn names(segment: &str, name: &str) -> bool {
    if segment == name {
        return true;
    }
    if let Some(rest) = name.strip_prefix("impl ") {
        let target = rest.rsplit(" for ").next().unwrap_or(rest);
        let target = target.split('<').next().unwrap_or(target).trim();
        return segment == target;
    }
    name.strip_prefix(segment)
        .is_some_and(|rest| rest.starts_with('('))
}

/// The ways `name_path` may be read as segments: whole (a bare name, which
/// may itself hold a dot), then split at `/`, `::` or `.`.
fn readings(name_path: &str) -> Vec<(bool, Vec<&str>)> {
    let absolute = name_path.starts_with('/');
    let path = name_path.trim_start_matches('/');
    let mut out = vec![(absolute, vec![path])];
    for sep in ["/", "::", "."] {
        if path.contains(sep) {
            out.push((absolute, path.split(sep).map(str::trim).collect()));
            break;
        }
    }
    out
}

/// The segments of a name path that has more than one (`Session/request`,
/// `Foo::new`, `Session.request`), else the whole text as one.
pub(crate) fn segments(name_path: &str) -> Vec<&str> {
    readings(name_path.trim())
        .pop()
        .map(|(_, s)| s)
        .unwrap_or_default()
}

/// Whether the outline item at `loc`'s place has a chain of names that
/// ends with `segments`.
pub(crate) fn names_at(items: &[Item], loc: &crate::answer::Loc, segments: &[&str]) -> bool {
    let mut all = Vec::new();
    flatten(items, &mut Vec::new(), &mut all);
    all.iter().any(|(chain, item)| {
        item.loc.line == loc.line
            && chain.len() >= segments.len()
            && chain[chain.len() - segments.len()..]
                .iter()
                .zip(segments)
                .all(|(name, segment)| names(segment, name))
    })
}

/// See [`Engine::find_symbol`]; `file` names the file in errors.
pub(crate) fn find(
    items: &[Item],
    name_path: &str,
    kind: Option<&str>,
    file: &Path,
) -> Result<Found, ToolError> {
    let name_path = name_path.trim();
    if name_path.is_empty() || name_path == "/" {
        return Err(ToolError::bad_input("the symbol's name path is empty"));
    }
    let mut all = Vec::new();
    flatten(items, &mut Vec::new(), &mut all);
    let kind_ok = |item: &Item| kind.is_none_or(|k| item.kind == k.trim());
    let mut matched = Vec::new();
    for (absolute, segments) in readings(name_path) {
        matched = all
            .iter()
            .filter(|(chain, item)| {
                let fits = if absolute {
                    chain.len() == segments.len()
                } else {
                    chain.len() >= segments.len()
                };
                fits && kind_ok(item)
                    && chain[chain.len() - segments.len()..]
                        .iter()
                        .zip(&segments)
                        .all(|(name, segment)| names(segment, name))
            })
            .collect();
        if !matched.is_empty() {
            break;
        }
    }
    let shown = |(chain, item): &(Vec<&str>, &Item)| {
        format!("{} {} {}", chain.join("/"), item.kind, item.loc.line)
    };
    let list = |found: &[&(Vec<&str>, &Item)]| {
        let mut lines: Vec<String> = found.iter().take(LISTED).map(|f| shown(f)).collect();
        if found.len() > LISTED {
            lines.push(format!("... and {} more", found.len() - LISTED));
        }
        lines.join("\n")
    };
    let of_kind = kind.map(|k| format!(" of kind {k}")).unwrap_or_default();
    match matched.as_slice() {
        [(chain, item)] => Ok(Found {
            name_path: chain.join("/"),
            item: (*item).clone(),
        }),
        [] => {
            let everything: Vec<_> = all.iter().collect();
            let listed = if everything.is_empty() {
                "its outline is empty".to_owned()
            } else {
                format!("its symbols:\n{}", list(&everything))
            };
            Err(ToolError::bad_input(format!(
                "no symbol `{name_path}`{of_kind} in {}; {listed}",
                file.display()
            )))
        }
        many => Err(ToolError::bad_input(format!(
            "`{name_path}`{of_kind} names {} symbols in {}; give a longer name path (`Outer/name`) or `kind`:\n{}",
            many.len(),
            file.display(),
            list(many)
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::{Path, PathBuf};

    use super::find;
    use crate::answer::{Item, Loc};

    fn item(name: &str, kind: &str, line: usize, children: Vec<Item>) -> Item {
        Item {
            name: name.into(),
            kind: kind.into(),
            loc: Loc {
                path: PathBuf::from("/p/client.py"),
                line,
                column: 5,
                text: String::new(),
            },
            start_line: line,
            end_line: line + 3,
            children,
        }
    }

    fn outline() -> Vec<Item> {
        let mut session = item(
            "Session",
            "class",
            1,
            vec![
                item("request", "method", 2, vec![]),
                item(
                    "Inner",
                    "class",
                    6,
                    vec![item("request", "method", 7, vec![])],
                ),
            ],
        );
        session.end_line = 12;
        vec![
            session,
            item("request", "function", 20, vec![]),
            item(
                "impl Display for Point",
                "object",
                30,
                vec![item("fmt", "method", 31, vec![])],
            ),
        ]
    }

    #[test]
    fn a_name_path_finds_one_symbol_at_any_depth() {
        let file = Path::new("/p/client.py");
        let at = |p: &str, k: Option<&str>| {
            find(&outline(), p, k, file).map(|f| (f.name_path, f.item.loc.line))
        };
        assert_eq!(
            at("Session/request", None).unwrap(),
            ("Session/request".into(), 2)
        );
        assert_eq!(at("Session.request", None).unwrap().1, 2);
        assert_eq!(at("Inner/request", None).unwrap().1, 7);
        assert_eq!(at("Session/Inner/request", None).unwrap().1, 7);
        assert_eq!(at("/request", None).unwrap().1, 20);
        assert_eq!(at("request", Some("function")).unwrap().1, 20);
        assert_eq!(at("Point::fmt", None).unwrap().1, 31);
        let many = at("request", None).unwrap_err().to_string();
        assert_eq!(
            many,
            "error: `request` names 3 symbols in /p/client.py; give a longer name path (`Outer/name`) or `kind`:\nSession/request method 2\nSession/Inner/request method 7\nrequest function 20"
        );
        let none = at("Client/request", None).unwrap_err().to_string();
        assert!(
            none.starts_with(
                "error: no symbol `Client/request` in /p/client.py; its symbols:\nSession class 1\n"
            ),
            "{none}"
        );
        assert!(at("", None).is_err());
    }

    #[test]
    fn a_line_s_enclosing_symbols_are_the_innermost_chain() {
        let o = outline();
        let names = |line: usize| -> Vec<&str> {
            super::enclosing(&o, line)
                .iter()
                .map(|i| i.name.as_str())
                .collect()
        };
        assert_eq!(names(8), vec!["Session", "Inner", "request"]);
        assert_eq!(names(5), vec!["Session", "request"]);
        assert_eq!(names(15), Vec::<&str>::new());
    }
}
