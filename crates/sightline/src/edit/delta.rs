//! What an edit did to a file's errors: the findings after it matched
//! against those before, so that an answer lists only what the edit
//! introduced and counts what it fixed and what was already there. A finding
//! is the same one when its severity, message, source, code and the text it
//! covers match, wherever its line moved; among several such, the one whose
//! line the change carried to the other's is matched first. The line diff
//! behind that (`hunks`) also tells the edit check which lines changed.

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

/// How long the line diff may search for the fewest changes; past it,
/// `similar` answers with a coarser diff (never a wrong one).
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(500);

/// One changed region: old lines `old.0..=old.1` (1-based; empty when
/// `old.0 > old.1`, an insertion before old line `old.0`) became new lines
/// `new.0..=new.1` (empty likewise for a deletion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    /// The old lines, first and last.
    pub old: (usize, usize),
    /// The new lines, first and last.
    pub new: (usize, usize),
}

/// The lines `old` and `new` share, as (old index, new index) pairs, 0-based,
/// in order: Myers's diff (`similar`), the fewest changes within
/// [`DIFF_DEADLINE`].
fn matched(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    let deadline = std::time::Instant::now() + DIFF_DEADLINE;
    similar::capture_diff_slices_deadline(similar::Algorithm::Myers, old, new, Some(deadline))
        .into_iter()
        .filter_map(|op| match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((0..len).map(move |k| (old_index + k, new_index + k))),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The changed regions of `new` against `old`, in order.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (x, y) in matched(&a, &b).into_iter().chain([(a.len(), b.len())]) {
        if x > i || y > j {
            out.push(Hunk {
                old: (i + 1, x),
                new: (j + 1, y),
            });
        }
        (i, j) = (x + 1, y + 1);
    }
    out
}

/// Splits `after` (computed for `after_text`) against `before`: each
/// finding after is matched, at most once, with one before of the same
/// identity, first with one the change carried to its line, then in order.
pub fn split(before: &State, after: &[Finding], after_text: &str) -> Delta {
    let old_lines: Vec<&str> = before.text.lines().collect();
    let new_lines: Vec<&str> = after_text.lines().collect();
    let moved: HashMap<usize, usize> = matched(&old_lines, &new_lines)
        .into_iter()
        .map(|(x, y)| (x + 1, y + 1))
        .collect();
    let mut left: HashMap<Key, Vec<(usize, &Finding)>> = HashMap::new();
    for f in &before.findings {
        let line = moved.get(&f.line).copied().unwrap_or(0);
        left.entry(key(f, &old_lines)).or_default().push((line, f));
    }
    let keys: Vec<Key> = after.iter().map(|f| key(f, &new_lines)).collect();
    let mut taken = vec![false; after.len()];
    // Same identity and carried to the same line: surely the same.
    for (k, f) in after.iter().enumerate() {
        if let Some(c) = left.get_mut(&keys[k])
            && let Some(at) = c.iter().position(|(line, _)| *line == f.line)
        {
            c.remove(at);
            taken[k] = true;
        }
    }
    let mut delta = Delta::default();
    for (k, f) in after.iter().enumerate() {
        let same = taken[k]
            || left.get_mut(&keys[k]).is_some_and(|c| {
                !c.is_empty() && {
                    c.remove(0);
                    true
                }
            });
        if same {
            delta.kept.push(f.clone());
        } else {
            delta.new.push(f.clone());
        }
    }
    let mut fixed: Vec<Finding> = left
        .into_values()
        .flatten()
        .map(|(_, f)| f.clone())
        .collect();
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

fn key(f: &Finding, lines: &[&str]) -> Key {
    (
        f.severity,
        f.message.clone(),
        f.source.clone(),
        f.code.clone(),
        covered(f, lines),
    )
}

/// The text a finding covers (1-based lines, character columns) in `lines`,
/// at most [`COVERED_CHARS`] characters of it, whitespace folded.
pub fn covered(f: &Finding, lines: &[&str]) -> String {
    let mut out = String::new();
    let first = f.line.saturating_sub(1);
    for (i, line) in lines.iter().enumerate().skip(first) {
        let n = i + 1;
        if n > f.end_line {
            break;
        }
        let from = if n == f.line {
            f.column.saturating_sub(1)
        } else {
            0
        };
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
    let folded = crate::answer::fold(&out);
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

    /// An identical error added above an old one: the new one is the one
    /// on the added line, not the old one further down.
    #[test]
    fn the_added_copy_of_an_error_is_the_new_one() {
        let m = "Cannot find name 'x'";
        let before = State {
            text: "a\nb\nuse(x)\n".into(),
            findings: vec![at(3, 5, 6, m)],
        };
        let after_text = "use(x)\na\nb\nuse(x)\n";
        let d = split(&before, &[at(1, 5, 6, m), at(4, 5, 6, m)], after_text);
        assert_eq!(d.new, vec![at(1, 5, 6, m)]);
        assert_eq!(d.kept, vec![at(4, 5, 6, m)]);
        assert!(d.fixed.is_empty());
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
        assert_eq!(
            (d.new.clone(), d.kept.len(), d.fixed.len()),
            (vec![both[1].clone()], 1, 0)
        );
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
        assert_eq!(covered(&f, &["é→abc", "xyz"]), "abc xy");
        // A range past the text's end covers what there is; column 0 is
        // taken as 1.
        assert_eq!(covered(&at(9, 1, 4, "m"), &["a"]), "");
        assert_eq!(covered(&at(1, 0, 2, "m"), &["ab"]), "a");
    }

    #[test]
    fn hunks_are_the_changed_regions_in_order() {
        let h = |old: &str, new: &str| {
            hunks(old, new)
                .into_iter()
                .map(|h| (h.old, h.new))
                .collect::<Vec<_>>()
        };
        assert_eq!(h("a\nb\nc\n", "a\nb\nc\n"), vec![]);
        assert_eq!(h("a\nb\nc\n", "a\nB\nc\n"), vec![((2, 2), (2, 2))]);
        // An insertion after line 1: the empty old span (2, 1).
        assert_eq!(h("a\nb\nc\n", "a\nx\nb\nc\n"), vec![((2, 1), (2, 2))]);
        // Two regions apart are two hunks, not one span.
        assert_eq!(
            h("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n"),
            vec![((1, 1), (1, 1)), ((5, 5), (5, 5))]
        );
        assert_eq!(h("a\nb\n", "a\n"), vec![((2, 2), (2, 1))]);
        assert_eq!(h("", "a\n"), vec![((1, 0), (1, 1))]);
    }

    proptest::proptest! {
        /// Applying the hunks to the old lines gives the new lines.
        #[test]
        fn hunks_rebuild_the_new_text(
            old in proptest::collection::vec("[abc]", 0..12),
            new in proptest::collection::vec("[abc]", 0..12),
        ) {
            let (o, n) = (old.join("\n"), new.join("\n"));
            let (a, b): (Vec<&str>, Vec<&str>) = (o.lines().collect(), n.lines().collect());
            let mut rebuilt: Vec<&str> = Vec::new();
            let mut next = 1;
            for h in hunks(&o, &n) {
                rebuilt.extend(&a[next - 1..h.old.0 - 1]);
                rebuilt.extend(&b[h.new.0 - 1..h.new.1]);
                next = h.old.1 + 1;
            }
            rebuilt.extend(&a[next - 1..]);
            proptest::prop_assert_eq!(rebuilt, b);
        }
    }
}
