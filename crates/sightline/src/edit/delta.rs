//! What an edit did to a file's errors: the findings after it matched
//! against those before, so that an answer lists only what the edit
//! introduced and counts what it fixed and what was already there. A finding
//! is the same one when its severity, message, source, code and the text it
//! covers match, wherever its line moved.

use std::collections::HashMap;

use crate::answer::Finding;

/// A file's findings at one moment, with the text they were computed for
/// (the text their ranges cover is part of what makes two the same).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// The file's content then.
    pub text: String,
    /// Its findings then.
    pub findings: Vec<Finding>,
}

/// The findings after a change, split against those before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delta {
    /// Findings the change introduced, by position.
    pub new: Vec<Finding>,
    /// Findings before that are gone.
    pub fixed: Vec<Finding>,
    /// Findings present on both sides.
    pub kept: Vec<Finding>,
}

/// At most this many characters of a finding's text count in its identity,
/// so that an error over a whole function body that was edited elsewhere is
/// still the same error.
const COVERED_CHARS: usize = 120;

/// Splits `after` (computed for `after_text`) against `before`: each
/// finding after is matched, at most once, with one before of the same
/// identity.
pub fn split(before: &State, after: &[Finding], after_text: &str) -> Delta {
    let mut left: HashMap<Key, Vec<&Finding>> = HashMap::new();
    for f in &before.findings {
        left.entry(key(f, &before.text)).or_default().push(f);
    }
    let mut delta = Delta::default();
    for f in after {
        match left.get_mut(&key(f, after_text)).and_then(Vec::pop) {
            Some(_) => delta.kept.push(f.clone()),
            None => delta.new.push(f.clone()),
        }
    }
    let mut fixed: Vec<Finding> = left.into_values().flatten().cloned().collect();
    fixed.sort_by_key(|f| (f.line, f.column));
    delta.fixed = fixed;
    delta
}

type Key = (
    crate::answer::Severity,
    String,
    String,
    Option<String>,
    String,
);

fn key(f: &Finding, text: &str) -> Key {
    (
        f.severity,
        f.message.clone(),
        f.source.clone(),
        f.code.clone(),
        covered(f, text),
    )
}

/// The text a finding covers (1-based lines, character columns), at most
/// [`COVERED_CHARS`] characters of it, whitespace folded.
pub fn covered(f: &Finding, text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate().skip(f.line.saturating_sub(1)) {
        let n = i + 1;
        if n > f.end_line {
            break;
        }
        let from = if n == f.line { f.column - 1 } else { 0 };
        let chars = line.chars().skip(from);
        let piece: String = if n == f.end_line {
            let to = f.end_column.saturating_sub(1).saturating_sub(from);
            chars.take(to).collect()
        } else {
            chars.collect()
        };
        out.push_str(&piece);
        out.push(' ');
        if out.chars().count() >= COVERED_CHARS {
            break;
        }
    }
    let folded = crate::server::diagnostics::fold(&out);
    folded.chars().take(COVERED_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Severity;

    fn at(line: usize, column: usize, end_column: usize, message: &str) -> Finding {
        Finding {
            line,
            column,
            end_line: line,
            end_column,
            severity: Severity::Error,
            message: message.into(),
            source: "Pyright".into(),
            code: None,
        }
    }

    #[test]
    fn lines_shifted_above_an_error_do_not_make_it_new() {
        let before = State {
            text: "x = 1\ny = undefined_name\n".into(),
            findings: vec![at(2, 5, 19, "\"undefined_name\" is not defined")],
        };
        let after_text = "# one\n# two\nx = 1\ny = undefined_name\n";
        let d = split(
            &before,
            &[at(4, 5, 19, "\"undefined_name\" is not defined")],
            after_text,
        );
        assert!(d.new.is_empty() && d.fixed.is_empty());
        assert_eq!(d.kept.len(), 1);
    }

    #[test]
    fn the_same_message_over_other_text_is_another_error() {
        let before = State {
            text: "a = f(1)\n".into(),
            findings: vec![at(1, 5, 9, "Expected 2 positional arguments")],
        };
        let after_text = "a = f(1)\nb = g(2)\n";
        let after = [
            at(1, 5, 9, "Expected 2 positional arguments"),
            at(2, 5, 9, "Expected 2 positional arguments"),
        ];
        let d = split(&before, &after, after_text);
        assert_eq!(d.kept.len(), 1);
        assert_eq!(d.new, vec![at(2, 5, 9, "Expected 2 positional arguments")]);
    }

    #[test]
    fn twice_the_same_error_is_matched_once_each() {
        let text = "f(1)\nf(1)\n".to_owned();
        let both = vec![at(1, 1, 5, "m"), at(2, 1, 5, "m")];
        let before = State {
            text: text.clone(),
            findings: both[..1].to_vec(),
        };
        let d = split(&before, &both, &text);
        assert_eq!((d.new.len(), d.kept.len(), d.fixed.len()), (1, 1, 0));
        let before = State {
            text: text.clone(),
            findings: both.clone(),
        };
        let d = split(&before, &both[..1], &text);
        assert_eq!((d.new.len(), d.kept.len(), d.fixed.len()), (0, 1, 1));
    }

    #[test]
    fn covered_text_spans_lines_and_counts_characters() {
        let f = Finding {
            line: 1,
            column: 3,
            end_line: 2,
            end_column: 3,
            ..at(1, 1, 1, "m")
        };
        assert_eq!(covered(&f, "é→abc\nxyz\n"), "abc xy");
        // A range past the text's end covers what there is.
        assert_eq!(covered(&at(9, 1, 4, "m"), "a\n"), "");
    }
}
