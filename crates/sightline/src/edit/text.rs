//! The text of a file as the edit tools handle it: the byte-order mark and
//! line endings kept apart from the content (`Text`), and the replacement
//! the `edit` tool makes (`replace`).

use std::path::Path;

use crate::error::ToolError;

const BOM: &str = "\u{feff}";

/// The text of a file, split into what the tools keep apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    /// The file starts with a byte-order mark.
    pub bom: bool,
    /// The file's lines end in `\r\n`.
    pub crlf: bool,
    /// The content without BOM, with `\n` line endings.
    pub body: String,
}

impl Text {
    /// Splits `bytes` of `path` into mark, line endings and content; text that
    /// is not UTF-8 is an error.
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Text, ToolError> {
        let s = std::str::from_utf8(bytes)
            .map_err(|_| ToolError::bad_input(format!("{} is not UTF-8 text", path.display())))?;
        let bom = s.starts_with(BOM);
        let s = s.strip_prefix(BOM).unwrap_or(s);
        let crlf = s.contains("\r\n");
        Ok(Text {
            bom,
            crlf,
            body: s.replace("\r\n", "\n"),
        })
    }

    /// The bytes to write: the content with the mark and line endings put back.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = String::new();
        if self.bom {
            out.push_str(BOM);
        }
        if self.crlf {
            out.push_str(&self.body.replace('\n', "\r\n"));
        } else {
            out.push_str(&self.body);
        }
        out.into_bytes()
    }
}

/// Why [`replace`] changed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplaceError {
    /// `old` is empty.
    EmptyOld,
    /// `old` is not in the text.
    NotFound,
    /// `old` is there this many times and `replace_all` was not set.
    Ambiguous(usize),
}

/// What [`replace`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The new text: exactly `str::replace` (or `replacen(.., 1)`).
    pub body: String,
    /// How many spans were replaced.
    pub count: usize,
    /// The lines of the new text (1-based, inclusive) from the start of the
    /// first replacement to the end of the last one, for range formatting.
    pub lines: (usize, usize),
}

/// The text part of the `edit` tool: replaces `old` with `new` in `body`,
/// once (when `old` is there exactly once) or, with `replace_all`, at every
/// non-overlapping match from the left, as `str::replace` does.
pub fn replace(
    body: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, ReplaceError> {
    if old.is_empty() {
        return Err(ReplaceError::EmptyOld);
    }
    // The same matches `str::replace` replaces. (`rfind` may find a last
    // match that overlaps the one before it, which `replace` skips.)
    let at: Vec<usize> = body.match_indices(old).map(|(i, _)| i).collect();
    match at.len() {
        0 => return Err(ReplaceError::NotFound),
        n if n > 1 && !replace_all => return Err(ReplaceError::Ambiguous(n)),
        _ => {}
    }
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    let mut first_at = 0;
    let mut last_end = 0;
    for (k, &i) in at.iter().enumerate() {
        out.push_str(&body[copied..i]);
        if k == 0 {
            first_at = out.len();
        }
        out.push_str(new);
        last_end = out.len();
        copied = i + old.len();
    }
    out.push_str(&body[copied..]);
    // Counted over bytes: a `\n` byte is always a whole character.
    let line_at = |byte: usize| {
        out.as_bytes()[..byte]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    let lines = (line_at(first_at), line_at(last_end));
    Ok(Replaced {
        count: at.len(),
        lines,
        body: out,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn replace_all_over_overlapping_multibyte_matches() {
        // `rfind` finds a last `──` at byte 8 that overlaps the first match;
        // `replace` replaces only the first, and byte 8 of the new text is
        // inside a `─`.
        let r = replace("s = \"───\"", "──", "-", true).unwrap();
        assert_eq!(
            r,
            Replaced {
                body: "s = \"-─\"".into(),
                count: 1,
                lines: (1, 1),
            }
        );
    }

    #[test]
    fn the_lines_span_from_the_first_replacement_to_the_end_of_the_last() {
        let r = replace("a\nx\nb\nx\nc\n", "x", "y\nz", true).unwrap();
        assert_eq!(r.body, "a\ny\nz\nb\ny\nz\nc\n");
        assert_eq!((r.count, r.lines), (2, (2, 6)));
        assert_eq!(
            replace("x x", "x", "y", false),
            Err(ReplaceError::Ambiguous(2))
        );
        assert_eq!(replace("x", "", "y", true), Err(ReplaceError::EmptyOld));
        assert_eq!(replace("x", "z", "y", true), Err(ReplaceError::NotFound));
    }
}

#[cfg(test)]
mod proptests {
    //! `replace` against a model that scans the text one character at a time.

    use super::*;
    use proptest::prelude::*;

    /// Few characters, so that matches (and overlapping ones) are common:
    /// one to four bytes each, and newlines.
    const CHARS: &[char] = &['a', 'b', '─', 'é', '🙂', '\n', ' '];

    fn text(len: std::ops::Range<usize>) -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::collection::vec(prop::sample::select(CHARS), len.clone())
                .prop_map(String::from_iter),
            1 => prop::collection::vec(any::<char>(), len).prop_map(String::from_iter),
        ]
    }

    /// A text of runs of one character (so that matches overlap), and an
    /// `old` that is mostly a piece of it.
    fn body_and_old() -> impl Strategy<Value = (String, String)> {
        let runs = prop::collection::vec((prop::sample::select(CHARS), 1..5usize), 0..10).prop_map(
            |runs| {
                runs.into_iter()
                    .flat_map(|(c, n)| std::iter::repeat_n(c, n))
                    .collect::<String>()
            },
        );
        let body = prop_oneof![3 => runs, 1 => text(0..40)];
        (body, any::<prop::sample::Index>(), 1..4usize, text(0..4)).prop_map(
            |(body, at, len, other)| {
                let chars: Vec<char> = body.chars().collect();
                // One time in four (and in an empty text) `old` is anything.
                if chars.is_empty() || at.index(4) == 0 {
                    return (body, other);
                }
                let from = at.index(chars.len());
                let old = chars[from..(from + len).min(chars.len())].iter().collect();
                (body, old)
            },
        )
    }

    /// Replaces at every position where `old` starts (then skips past it),
    /// else copies one character; the lines run from the start of the first
    /// replacement to the end of the last one in the new text.
    fn model(
        body: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<Replaced, ReplaceError> {
        if old.is_empty() {
            return Err(ReplaceError::EmptyOld);
        }
        let mut count = 0;
        let mut rest = body;
        while !rest.is_empty() {
            if rest.starts_with(old) {
                count += 1;
                rest = &rest[old.len()..];
            } else {
                let c = rest.chars().next().unwrap_or_default();
                rest = &rest[c.len_utf8()..];
            }
        }
        match count {
            0 => return Err(ReplaceError::NotFound),
            n if n > 1 && !replace_all => return Err(ReplaceError::Ambiguous(n)),
            _ => {}
        }
        let mut out = String::new();
        let mut spans = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            if rest.starts_with(old) && (replace_all || spans.is_empty()) {
                let start = out.len();
                out.push_str(new);
                spans.push((start, out.len()));
                rest = &rest[old.len()..];
            } else {
                let c = rest.chars().next().unwrap_or_default();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        let line = |at: usize| out[..at].chars().filter(|&c| c == '\n').count() + 1;
        let lines = (line(spans[0].0), line(spans[spans.len() - 1].1));
        Ok(Replaced {
            body: out,
            count: spans.len(),
            lines,
        })
    }

    proptest! {
        #![proptest_config(crate::proptest_config())]

        #[test]
        fn replace_matches_the_model_and_str_replace(
            (body, old) in body_and_old(),
            new in text(0..4),
            replace_all: bool,
        ) {
            let got = replace(&body, &old, &new, replace_all);
            prop_assert_eq!(&got, &model(&body, &old, &new, replace_all));
            if let Ok(r) = got {
                let want = if replace_all {
                    body.replace(&old, &new)
                } else {
                    body.replacen(&old, &new, 1)
                };
                prop_assert_eq!(r.body, want);
            }
        }
    }
}
