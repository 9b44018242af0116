//! Checks on the position a caller asked about, so that bad input gets one
//! clear `error:` line and never reaches a server: the line and column are
//! in the file, and the column is on a symbol (or a named symbol is on the
//! line once).

use std::path::Path;

use sightline_lsp::LineIndex;

use crate::answer::Pos;
use crate::error::ToolError;

fn is_symbol_char(c: char, dash: bool) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || (dash && c == '-')
}

/// Whether names in this file's language hold dashes (`--accent` in CSS,
/// `max-retries` in YAML, `assoc-in` in Clojure).
pub fn dashed_names(file: &Path) -> bool {
    matches!(
        crate::files::extension_of(file).as_deref(),
        Some(
            ".css"
                | ".scss"
                | ".less"
                | ".html"
                | ".htm"
                | ".yaml"
                | ".yml"
                | ".clj"
                | ".cljs"
                | ".cljc"
                | ".edn"
                | ".nix"
                | ".tex"
                | ".bib"
        )
    )
}

/// The symbols on a line: (1-based start column, name). Runs of digits are
/// numbers, not symbols.
pub fn symbols_on(line: &str, dash: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, c) in line.chars().enumerate() {
        if is_symbol_char(c, dash) {
            current
                .get_or_insert_with(|| (i + 1, String::new()))
                .1
                .push(c);
        } else if let Some(sym) = current.take() {
            out.push(sym);
        }
    }
    out.extend(current);
    out.retain(|(_, s)| !s.starts_with(|c: char| c.is_ascii_digit()));
    out
}

/// The symbol that covers the 1-based character `column` of `line`.
pub fn symbol_at(line: &str, column: usize, dash: bool) -> Option<String> {
    symbols_on(line, dash)
        .into_iter()
        .find(|(start, name)| column >= *start && column < start + name.chars().count())
        .map(|(_, name)| name)
}

/// Checks a caller's position against the text: the line is in the file,
/// the column on the line, and on a symbol.
pub fn validate_position(index: &LineIndex, file: &Path, pos: Pos) -> Result<(), ToolError> {
    let Pos { line, column } = pos;
    let bad = |m: String| Err(ToolError::bad_input(m));
    if line == 0 {
        return bad("line must be 1 or more (lines are 1-based)".into());
    }
    let count = index.line_count();
    if line > count {
        let s = if count == 1 { "" } else { "s" };
        return bad(format!(
            "line {line} is past the end of {} ({count} line{s})",
            file.display()
        ));
    }
    if column == 0 {
        return bad("column must be 1 or more (columns are 1-based)".into());
    }
    let text = index.line(line - 1).unwrap_or("");
    let len = text.chars().count();
    if column > len {
        let s = if len == 1 { "" } else { "s" };
        return bad(format!(
            "column {column} is past the end of line {line} ({len} character{s})"
        ));
    }
    let symbols = symbols_on(text, dashed_names(file));
    let on_symbol = symbols
        .iter()
        .any(|(start, name)| column >= *start && column < start + name.chars().count());
    if on_symbol {
        return Ok(());
    }
    let what = match text.chars().nth(column - 1) {
        Some(c) if c.is_whitespace() => "whitespace".to_owned(),
        Some(c) if c.is_ascii_digit() => "a number".to_owned(),
        Some(c) => format!("`{c}`"),
        None => "nothing".to_owned(),
    };
    if symbols.is_empty() {
        return bad(format!(
            "line {line} column {column} is on {what}, and line {line} holds no symbols"
        ));
    }
    let list: Vec<String> = symbols.iter().map(|(c, n)| format!("{c} ({n})")).collect();
    bad(format!(
        "line {line} column {column} is on {what}, not a symbol; symbols on this line start at columns {}",
        list.join(", ")
    ))
}

/// The 1-based column where `symbol` stands alone on `line`.
pub fn column_of(
    index: &LineIndex,
    file: &Path,
    line: usize,
    symbol: &str,
) -> Result<usize, ToolError> {
    let bad = |m: String| Err(ToolError::bad_input(m));
    if line == 0 || line > index.line_count() {
        return validate_position(index, file, Pos::new(line, 1)).map(|()| 1);
    }
    let symbols = symbols_on(index.line(line - 1).unwrap_or(""), dashed_names(file));
    let at: Vec<usize> = symbols
        .iter()
        .filter(|(_, name)| name == symbol)
        .map(|(c, _)| *c)
        .collect();
    let list = || {
        symbols
            .iter()
            .map(|(c, n)| format!("{c} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match at.as_slice() {
        [one] => Ok(*one),
        [] if symbols.is_empty() => bad(format!(
            "`{symbol}` is not on line {line}, which holds no symbols"
        )),
        [] => bad(format!(
            "`{symbol}` is not on line {line}; symbols on this line start at columns {}",
            list()
        )),
        many => bad(format!(
            "`{symbol}` is on line {line} {} times, at columns {}; give `column` instead",
            many.len(),
            many.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn symbols_are_found_by_name() {
        let index = LineIndex::new("x = add(add, 1)\nprint(x)\n");
        let f = Path::new("/p/a.py");
        assert_eq!(column_of(&index, f, 2, "print").unwrap(), 1);
        assert_eq!(
            column_of(&index, f, 1, "add").unwrap_err().to_string(),
            "error: `add` is on line 1 2 times, at columns 5, 9; give `column` instead"
        );
        assert_eq!(
            column_of(&index, f, 2, "y").unwrap_err().to_string(),
            "error: `y` is not on line 2; symbols on this line start at columns 1 (print), 7 (x)"
        );
        assert!(column_of(&index, f, 9, "x").is_err());
    }

    #[test]
    fn symbols_are_found_by_character_column() {
        assert_eq!(
            symbols_on("  名前 = foo(x1, 42) # 🙂 bar", false),
            vec![
                (3, "名前".into()),
                (8, "foo".into()),
                (12, "x1".into()),
                (24, "bar".into())
            ]
        );
    }

    #[test]
    fn positions_are_checked() {
        let idx = LineIndex::new("def f(a):\n    return a\n");
        let f = Path::new("/x.py");
        assert!(validate_position(&idx, f, Pos::new(1, 5)).is_ok());
        let e = validate_position(&idx, f, Pos::new(2, 1))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "error: line 2 column 1 is on whitespace, not a symbol; symbols on this line start at columns 5 (return), 12 (a)"
        );
        assert_eq!(
            validate_position(&idx, f, Pos::new(0, 1))
                .unwrap_err()
                .to_string(),
            "error: line must be 1 or more (lines are 1-based)"
        );
        assert_eq!(
            validate_position(&idx, f, Pos::new(3, 1))
                .unwrap_err()
                .to_string(),
            "error: line 3 is past the end of /x.py (2 lines)"
        );
        assert_eq!(
            validate_position(&idx, f, Pos::new(1, 0))
                .unwrap_err()
                .to_string(),
            "error: column must be 1 or more (columns are 1-based)"
        );
        assert_eq!(
            validate_position(&idx, f, Pos::new(1, 10))
                .unwrap_err()
                .to_string(),
            "error: column 10 is past the end of line 1 (9 characters)"
        );
        assert_eq!(
            validate_position(&idx, f, Pos::new(1, 6))
                .unwrap_err()
                .to_string(),
            "error: line 1 column 6 is on `(`, not a symbol; symbols on this line start at columns 1 (def), 5 (f), 7 (a)"
        );
    }
}
