//! Which declarations a change touches: from the line diff of a file
//! (`delta::hunks`) and its outline before the change, the functions whose
//! header changed, the members and variables changed, and the types that
//! gained or lost a member. A function's body is not its declaration, so a
//! change inside one follows no one, unless the function's return type is
//! inferred (no annotation, in TypeScript, JavaScript or Python) and the
//! change is to a line that returns: then what it returns, which its users
//! see, may have changed with it.

use std::path::PathBuf;

use crate::answer::Item;
use crate::edit::delta::Hunk;

/// Whether a hunk touches old lines `from..=to`: it changes one of them, or
/// inserts between two of them.
fn touches(h: &Hunk, from: usize, to: usize) -> bool {
    let (first, last) = h.old;
    if first > last {
        // An insertion before old line `first`: inside the span only.
        from < first && first <= to
    } else {
        first <= to && from <= last
    }
}

/// Collects the symbols of `items` whose declaration the `hunks` of `text`
/// touch, as (file, line, column, name) of their names: a function's header
/// (its name to the parenthesis that closes its parameters, with what
/// follows on that line), a variable's or field's whole range. A type (a
/// class, an interface, a struct, an enum) follows its members, and itself
/// when its header changes or a change between its members adds or removes
/// one. A function's body is not its declaration.
pub(super) fn declared(
    items: &[Item],
    (text, other): (&str, &str),
    hunks: &[Hunk],
    out: &mut Vec<(PathBuf, usize, usize, String)>,
) {
    for item in items {
        let (from, to) = (item.loc.line, item.end_line.max(item.loc.line));
        let header_to = match item.kind.as_str() {
            "function" | "method" => {
                let header = header_end(text, item.loc.line, item.loc.column).min(to);
                // A return changed in a function whose return type is
                // inferred: the whole function counts.
                if infers_return_type(&item.loc.path)
                    && !annotated_return(text, item.loc.line, item.loc.column)
                    && hunks
                        .iter()
                        .any(|h| touches(h, header + 1, to) && returns_in(h, text, other))
                {
                    to
                } else {
                    header
                }
            }
            "constructor" | "operator" => header_end(text, item.loc.line, item.loc.column).min(to),
            "class" | "interface" | "struct" | "enum" | "module" | "namespace" | "package"
            | "object" => {
                declared(&item.children, (text, other), hunks, out);
                // A change inside the type that no member holds adds or
                // removes one: the type's users may break.
                let between = hunks.iter().any(|h| {
                    touches(h, from + 1, to)
                        && !item
                            .children
                            .iter()
                            .any(|c| touches(h, c.loc.line, c.end_line.max(c.loc.line)))
                });
                if between { to } else { from }
            }
            _ => to,
        };
        if hunks.iter().any(|h| touches(h, from, header_to)) {
            out.push((
                item.loc.path.clone(),
                item.loc.line,
                item.loc.column,
                item.name.clone(),
            ));
        }
    }
}

/// Whether a function's users see a return type inferred from its body
/// where none is written: TypeScript, JavaScript and Python (pyright infers
/// one for an unannotated function).
fn infers_return_type(path: &std::path::Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        matches!(
            e,
            "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" | "py" | "pyi"
        )
    })
}

/// Whether the header of the function named at `line`, `column` writes its
/// return type: something between the parameter list's closing parenthesis
/// and the body (`): T {`, `) -> T:`), not just the body's opening (`) {`,
/// `):`).
fn annotated_return(text: &str, line: usize, column: usize) -> bool {
    let Some((at, after)) = params_close(text, line, column) else {
        return false;
    };
    let rest: String = text
        .lines()
        .nth(at - 1)
        .unwrap_or_default()
        .chars()
        .skip(after)
        .collect();
    // Up to the body: a block's `{`, an arrow's `=>`, or a comment after a
    // Python header's `:`.
    let rest = ["{", "=>", "#", "//"]
        .iter()
        .fold(rest.as_str(), |r, end| {
            r.split(end).next().unwrap_or_default()
        })
        .trim();
    let rest = rest.strip_suffix(':').unwrap_or(rest).trim();
    !rest.is_empty()
}

/// Whether the lines a hunk changes (in `text`, and the lines it puts in
/// their place, in `other`) return a value.
fn returns_in(h: &Hunk, text: &str, other: &str) -> bool {
    let lines = |t: &str, (first, last): (usize, usize)| -> bool {
        t.lines()
            .skip(first.saturating_sub(1))
            .take((last + 1).saturating_sub(first))
            .any(|l| {
                let l = l.trim_start();
                ["return", "yield"].iter().any(|k| {
                    l.strip_prefix(k)
                        .is_some_and(|r| r.is_empty() || r.starts_with([' ', ';', '(']))
                })
            })
    };
    lines(text, h.old) || lines(other, h.new)
}

/// The line on which the parameter list that follows a function's name
/// (at `line`, `column`, 1-based) closes: where the parentheses opened
/// from there balance. The name's line when none opens on it.
fn header_end(text: &str, line: usize, column: usize) -> usize {
    params_close(text, line, column).map_or(line, |(at, _)| at)
}

/// Where the parameter list that follows a function's name (at `line`,
/// `column`, 1-based) closes: the first line (1-based) at whose end the
/// parentheses opened from there balance, and the count of characters on
/// it through the parenthesis that balanced them last. A type parameter's
/// own parentheses (`<T extends (x: X) => Y>(`) close on the way and are
/// passed over. `None` when no parenthesis opens on the name's line, or
/// they never balance.
fn params_close(text: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let mut depth = 0i64;
    let mut opened = false;
    for (i, l) in text.lines().enumerate().skip(line.saturating_sub(1)) {
        let skip = if i + 1 == line {
            column.saturating_sub(1)
        } else {
            0
        };
        let mut closed_at = None;
        for (n, c) in l.chars().enumerate().skip(skip) {
            match c {
                '(' => {
                    depth += 1;
                    opened = true;
                }
                ')' => {
                    depth -= 1;
                    if depth <= 0 {
                        closed_at = Some(n + 1);
                    }
                }
                _ => {}
            }
        }
        if !opened {
            return None;
        }
        if depth <= 0 {
            return closed_at.map(|at| (i + 1, at));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Loc;
    use crate::edit::delta;

    fn item(kind: &str, line: usize, end_line: usize, children: Vec<Item>) -> Item {
        Item {
            name: format!("{kind}{line}"),
            kind: kind.into(),
            loc: Loc {
                path: PathBuf::from("/p/lib.py"),
                line,
                column: 5,
                text: String::new(),
            },
            start_line: line,
            end_line,
            children,
        }
    }

    fn found(items: &[Item], old: &str, new: &str) -> Vec<usize> {
        let mut out = Vec::new();
        declared(items, (old, new), &delta::hunks(old, new), &mut out);
        out.into_iter().map(|(_, l, _, _)| l).collect()
    }

    #[test]
    fn a_changed_return_of_a_function_whose_return_type_is_inferred_follows_it() {
        let old = "def add(a,\n        b):\n    c = a\n    return a + b\n";
        let items = [item("function", 1, 4, vec![])];
        // What it returns changed, and nothing says its type: followed.
        let returns = "def add(a,\n        b):\n    c = a\n    return str(a + b)\n";
        assert_eq!(found(&items, old, returns), vec![1]);
        // A return put in where there was none, too.
        let added = "def add(a,\n        b):\n    return c\n    return a + b\n";
        assert_eq!(found(&items, old, added), vec![1]);
        // Another line of the body: not followed.
        let other = "def add(a,\n        b):\n    c = b\n    return a + b\n";
        assert_eq!(found(&items, old, other), Vec::<usize>::new());
        // The return type written: its users see that, whatever returns.
        let typed = "def add(a,\n        b) -> int:\n    c = a\n    return a + b\n";
        let typed_new = "def add(a,\n        b) -> int:\n    c = a\n    return a - b\n";
        assert_eq!(found(&items, typed, typed_new), Vec::<usize>::new());
        // TypeScript alike: `): T {` is written, `) {` is not.
        let ts = |header: &str, ret: &str| {
            format!("function add(a, b){header} {{\n  return {ret};\n}}\n")
        };
        let mut ts_items = [item("function", 1, 3, vec![])];
        ts_items[0].loc.path = PathBuf::from("/p/lib.ts");
        ts_items[0].loc.column = 10;
        assert_eq!(
            found(&ts_items, &ts("", "a + b"), &ts("", "`${a}`")),
            vec![1]
        );
        assert_eq!(
            found(
                &ts_items,
                &ts(": number", "a + b"),
                &ts(": number", "a - b")
            ),
            Vec::<usize>::new()
        );
        // A type parameter's own parentheses are not the parameter list:
        // a line put in the list touches the header.
        let generic = "export function pick<T extends (...a: any) => boolean>(\n  t: T,\n): boolean {\n  return true;\n}\n";
        let generic_new = "export function pick<T extends (...a: any) => boolean>(\n  t: T,\n  u: T,\n): boolean {\n  return true;\n}\n";
        let mut generic_items = [item("function", 1, 5, vec![])];
        generic_items[0].loc.path = PathBuf::from("/p/lib.ts");
        generic_items[0].loc.column = 17;
        assert_eq!(found(&generic_items, generic, generic_new), vec![1]);
        // An arrow's body, and a comment after a header, are not a type.
        let arrow =
            |header: &str| format!("const add = function(a, b){header} => {{\n  return a;\n}}\n");
        let arrow_new = |header: &str| {
            format!("const add = function(a, b){header} => {{\n  return `${{a}}`;\n}}\n")
        };
        let mut arrow_items = [item("function", 1, 3, vec![])];
        arrow_items[0].loc.path = PathBuf::from("/p/lib.ts");
        arrow_items[0].loc.column = 13;
        assert_eq!(found(&arrow_items, &arrow(""), &arrow_new("")), vec![1]);
        assert_eq!(
            found(&arrow_items, &arrow(": number"), &arrow_new(": number")),
            Vec::<usize>::new()
        );
        let commented = "def add(a, b):  # sums\n    c = a\n    return a + b\n";
        let commented_new = "def add(a, b):  # sums\n    c = a\n    return str(a + b)\n";
        let py_items = [item("function", 1, 3, vec![])];
        assert_eq!(found(&py_items, commented, commented_new), vec![1]);
        // A language whose return type is always written: not followed.
        let mut rs_items = [item("function", 1, 3, vec![])];
        rs_items[0].loc.path = PathBuf::from("/p/lib.rs");
        let rs = |ret: &str| format!("fn add(a: i32, b: i32) {{\n    return {ret};\n}}\n");
        assert_eq!(
            found(&rs_items, &rs("a + b"), &rs("a - b")),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn a_functions_body_is_not_its_declaration() {
        let old = "def add(a,\n        b) -> int:\n    return a + b\n\nx = 1\n";
        let items = [
            item("function", 1, 3, vec![]),
            item("variable", 5, 5, vec![]),
        ];
        let body = "def add(a,\n        b) -> int:\n    return a - b\n\nx = 1\n";
        assert_eq!(found(&items, old, body), Vec::<usize>::new());
        let params = "def add(a,\n        b, c) -> int:\n    return a + b\n\nx = 1\n";
        assert_eq!(found(&items, old, params), vec![1]);
        let var = "def add(a,\n        b) -> int:\n    return a + b\n\nx = 2\n";
        assert_eq!(found(&items, old, var), vec![5]);
        // A line inserted above the function does not touch it; one
        // inserted inside its parameter list does.
        let above = "# note\ndef add(a,\n        b) -> int:\n    return a + b\n\nx = 1\n";
        assert_eq!(found(&items, old, above), Vec::<usize>::new());
        let inside = "def add(a,\n        c,\n        b) -> int:\n    return a + b\n\nx = 1\n";
        assert_eq!(found(&items, old, inside), vec![1]);
        // An import added at the top and a parameter far below: only the
        // function, not all between.
        let both = "import os\ndef add(a,\n        b, c) -> int:\n    return a + b\n\nx = 1\n";
        assert_eq!(found(&items, old, both), vec![1]);
    }

    #[test]
    fn a_types_members_are_followed_and_a_new_member_follows_the_type() {
        let old = "interface Shape {\n  width: number;\n  height: number;\n}\n";
        let items = [item(
            "interface",
            1,
            4,
            vec![
                item("property", 2, 2, vec![]),
                item("property", 3, 3, vec![]),
            ],
        )];
        let typed = "interface Shape {\n  width: number;\n  height: string;\n}\n";
        assert_eq!(found(&items, old, typed), vec![3]);
        let added = "interface Shape {\n  width: number;\n  depth: number;\n  height: number;\n}\n";
        assert_eq!(found(&items, old, added), vec![1]);
    }
}
