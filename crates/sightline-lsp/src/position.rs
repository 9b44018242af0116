//! Conversion between the positions agents use (1-based lines, 1-based columns
//! counted in Unicode characters) and the encoding a server negotiated: utf-8,
//! utf-16 or utf-32 code units, 0-based. LSP ends a line at `\n`, `\r\n` or `\r`,
//! and a column past the end of a line means the end of the line.

use crate::protocol::Position;

/// The position encoding negotiated with one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// Reads the `positionEncoding` a server chose; a server that names none
    /// uses utf-16, as the specification requires.
    pub fn from_server(value: Option<&str>) -> Encoding {
        match value {
            Some("utf-8") => Encoding::Utf8,
            Some("utf-32") => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// Byte offsets of line starts in a text, for LSP line rules.
#[derive(Debug, Clone)]
pub struct LineIndex {
    text: String,
    /// `starts[i]..ends[i]` is line `i` without its terminator.
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: impl Into<String>) -> LineIndex {
        let text = text.into();
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut ends = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    ends.push(i);
                    starts.push(i + 1);
                }
                b'\r' => {
                    ends.push(i);
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        ends.push(bytes.len());
        LineIndex { text, starts, ends }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of lines. A trailing newline does not start a counted line, which
    /// matches how editors and `read` tools number a file.
    pub fn line_count(&self) -> usize {
        let n = self.starts.len();
        if n > 1 && self.starts[n - 1] == self.text.len() {
            n - 1
        } else {
            n
        }
    }

    /// The text of 0-based line `line`, without its terminator.
    pub fn line(&self, line: usize) -> Option<&str> {
        let (s, e) = (*self.starts.get(line)?, *self.ends.get(line)?);
        self.text.get(s..e)
    }

    /// Converts a 0-based line and 0-based character (code point) column into a
    /// server position. Columns past the end clamp to the end of the line.
    pub fn to_lsp(&self, line: usize, char_col: usize, enc: Encoding) -> Option<Position> {
        let text = self.line(line)?;
        let units: u32 = text.chars().take(char_col).map(|c| enc.units(c)).sum();
        Some(Position {
            line: line as u32,
            character: units,
        })
    }

    /// The byte offset in the text of a server position (clamped like
    /// [`LineIndex::from_lsp`]; past the last line is the end of the text).
    pub fn offset(&self, pos: Position, enc: Encoding) -> usize {
        if pos.line as usize >= self.starts.len() {
            return self.text.len();
        }
        let (line, col) = self.from_lsp(pos, enc);
        let start = self.starts[line];
        let text = self.line(line).unwrap_or("");
        start + text.char_indices().nth(col).map_or(text.len(), |(b, _)| b)
    }

    /// Converts a server position into a 0-based line and 0-based character
    /// column. A character inside a multi-byte sequence snaps to the character
    /// that holds it; past the end of the line means the end of the line; past the
    /// last line clamps to the last line.
    pub fn from_lsp(&self, pos: Position, enc: Encoding) -> (usize, usize) {
        let line = (pos.line as usize).min(self.starts.len() - 1);
        let text = self.line(line).unwrap_or("");
        let mut seen = 0u32;
        let mut col = 0usize;
        for c in text.chars() {
            let w = enc.units(c);
            if seen + w > pos.character {
                break;
            }
            seen += w;
            col += 1;
        }
        (line, col)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const ALL: [Encoding; 3] = [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32];

    #[test]
    fn multibyte_text_round_trips_in_every_encoding() {
        // Each column of each line must survive char -> server -> char.
        let text = "x = 1\n名前 = \"🙂\"; value = 名前\r\nemoji 👩‍👩‍👧 then name\rlast é";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        for enc in ALL {
            for line in 0..idx.line_count() {
                let n = idx.line(line).unwrap().chars().count();
                for col in 0..=n {
                    let p = idx.to_lsp(line, col, enc).unwrap();
                    assert_eq!(idx.from_lsp(p, enc), (line, col), "{enc:?} {line}:{col}");
                }
            }
        }
    }

    #[test]
    fn units_match_each_encoding() {
        let idx = LineIndex::new("🙂名x");
        // 🙂 is 4 bytes / 2 utf-16 units / 1 char; 名 is 3 bytes / 1 unit.
        assert_eq!(idx.to_lsp(0, 2, Encoding::Utf8).unwrap().character, 7);
        assert_eq!(idx.to_lsp(0, 2, Encoding::Utf16).unwrap().character, 3);
        assert_eq!(idx.to_lsp(0, 2, Encoding::Utf32).unwrap().character, 2);
    }

    #[test]
    fn positions_inside_a_character_snap_and_past_end_clamps() {
        let idx = LineIndex::new("🙂x\nab");
        assert_eq!(
            idx.from_lsp(
                Position {
                    line: 0,
                    character: 1
                },
                Encoding::Utf16
            ),
            (0, 0)
        );
        assert_eq!(
            idx.from_lsp(
                Position {
                    line: 0,
                    character: 3
                },
                Encoding::Utf8
            ),
            (0, 0)
        );
        assert_eq!(
            idx.from_lsp(
                Position {
                    line: 0,
                    character: 99
                },
                Encoding::Utf16
            ),
            (0, 2)
        );
        assert_eq!(
            idx.from_lsp(
                Position {
                    line: 9,
                    character: 1
                },
                Encoding::Utf16
            ),
            (1, 1)
        );
        assert_eq!(idx.to_lsp(1, 99, Encoding::Utf8).unwrap().character, 2);
        assert!(idx.to_lsp(5, 0, Encoding::Utf8).is_none());
    }

    #[test]
    fn line_endings_follow_lsp() {
        let idx = LineIndex::new("a\r\nb\rc\n");
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.line(0), Some("a"));
        assert_eq!(idx.line(1), Some("b"));
        assert_eq!(idx.line(2), Some("c"));
        assert_eq!(LineIndex::new("").line_count(), 1);
    }
}
