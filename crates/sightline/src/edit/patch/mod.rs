//! The `*** Begin Patch` format that Codex and OpenCode use: add, delete,
//! update (with context hunks) and move. Parsing and applying are pure; the
//! caller writes the results, all or nothing.

use std::path::{Path, PathBuf};

/// One change of a patch, with paths resolved against the base directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `*** Add File:` a new file with this text.
    Add {
        /// The file to create.
        path: PathBuf,
        /// Its whole text.
        text: String,
    },
    /// `*** Delete File:`.
    Delete {
        /// The file to delete.
        path: PathBuf,
    },
    /// `*** Update File:`, maybe with `*** Move to:`.
    Update {
        /// The file to change.
        path: PathBuf,
        /// Where it moves, if it does.
        move_to: Option<PathBuf>,
        /// The changes, in order.
        hunks: Vec<Hunk>,
    },
}

/// One `@@` hunk: lines to find, and what replaces them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The text after `@@`, a line to find first (may be empty).
    pub anchor: String,
    /// The context and `-` lines, in order: what must be in the file.
    pub old: Vec<String>,
    /// The context and `+` lines, in order: what takes their place.
    pub new: Vec<String>,
    /// `*** End of File`: the old lines end the file.
    pub at_end: bool,
}

/// Why a patch was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The text is not between `*** Begin Patch` and `*** End Patch`.
    #[error("the patch must start with `*** Begin Patch` and end with `*** End Patch`")]
    Envelope,
    /// A line of the patch that is not in its grammar.
    #[error("patch line {line}: {message}")]
    Syntax {
        /// The 1-based line of the patch.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// A hunk's lines are not in the file.
    #[error("{path}: hunk {hunk} does not match the file; it expects:\n{expected}")]
    NoMatch {
        /// The file, as the patch names it.
        path: String,
        /// The 1-based number of the hunk in that file.
        hunk: usize,
        /// The first line that was looked for.
        expected: String,
    },
}

/// Parses a patch; relative paths are resolved against `base`.
pub fn parse(text: &str, base: &Path) -> Result<Vec<Op>, PatchError> {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .ok_or(PatchError::Envelope)?;
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .ok_or(PatchError::Envelope)?;
    if lines[first].trim() != "*** Begin Patch" || lines[last].trim() != "*** End Patch" {
        return Err(PatchError::Envelope);
    }
    let resolve = |p: &str| {
        let p = Path::new(p.trim());
        if p.is_absolute() {
            p.to_owned()
        } else {
            base.join(p)
        }
    };
    let mut ops = Vec::new();
    let mut i = first + 1;
    while i < last {
        let line = lines[i];
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            let mut text = String::new();
            i += 1;
            while i < last && !lines[i].starts_with("*** ") {
                let Some(l) = lines[i].strip_prefix('+') else {
                    return Err(syntax_error(i, "lines of an added file start with `+`"));
                };
                text.push_str(l);
                text.push('\n');
                i += 1;
            }
            ops.push(Op::Add {
                path: resolve(p),
                text,
            });
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            ops.push(Op::Delete { path: resolve(p) });
            i += 1;
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            let path = resolve(p);
            i += 1;
            let mut move_to = None;
            if let Some(m) = lines.get(i).and_then(|l| l.strip_prefix("*** Move to: ")) {
                move_to = Some(resolve(m));
                i += 1;
            }
            let hunks = parse_hunks(&lines, &mut i, last)?;
            if hunks.iter().all(|h| h.old.is_empty() && h.new.is_empty()) && move_to.is_none() {
                return Err(syntax_error(
                    i,
                    &format!("the update of {} has no hunks", path.display()),
                ));
            }
            ops.push(Op::Update {
                path,
                move_to,
                hunks,
            });
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(syntax_error(
                i,
                "expected `*** Add File:`, `*** Delete File:` or `*** Update File:`",
            ));
        }
    }
    Ok(ops)
}

/// The patch with every relative path of its file lines (`*** Add File:`,
/// `*** Delete File:`, `*** Update File:`, `*** Move to:`) joined to
/// `base`, as [`parse`] would resolve them; every other line as it is.
pub fn with_absolute_paths(text: &str, base: &Path) -> String {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Delete File: ",
        "*** Update File: ",
        "*** Move to: ",
    ];
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let header = HEADERS
            .iter()
            .find_map(|h| Some((*h, line.strip_prefix(h)?)));
        match header {
            Some((h, rest)) if !Path::new(rest.trim()).is_absolute() => {
                let ending = &rest[rest.trim_end().len()..];
                out.push_str(h);
                out.push_str(&base.join(rest.trim()).display().to_string());
                out.push_str(ending);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// The error of the patch's line `line` (0-based).
fn syntax_error(line: usize, message: &str) -> PatchError {
    PatchError::Syntax {
        line: line + 1,
        message: message.to_owned(),
    }
}

/// The hunks of an update, from the line `*i` up to the next `*** `
/// header (or `last`), leaving `*i` on that header.
fn parse_hunks(lines: &[&str], i: &mut usize, last: usize) -> Result<Vec<Hunk>, PatchError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    while *i < last && (!lines[*i].starts_with("*** ") || lines[*i] == "*** End of File") {
        let l = lines[*i];
        if l == "*** End of File" {
            if let Some(h) = hunks.last_mut() {
                h.at_end = true;
            }
        } else if let Some(anchor) = l.strip_prefix("@@") {
            hunks.push(Hunk {
                anchor: anchor.trim().to_owned(),
                ..Hunk::default()
            });
        } else {
            if hunks.is_empty() {
                hunks.push(Hunk::default());
            }
            let h = hunks
                .last_mut()
                .ok_or_else(|| syntax_error(*i, "no hunk"))?;
            match l.chars().next() {
                Some(' ') => {
                    h.old.push(l[1..].to_owned());
                    h.new.push(l[1..].to_owned());
                }
                None => {
                    h.old.push(String::new());
                    h.new.push(String::new());
                }
                Some('-') => h.old.push(l[1..].to_owned()),
                Some('+') => h.new.push(l[1..].to_owned()),
                _ => return Err(syntax_error(*i, "hunk lines start with ` `, `-` or `+`")),
            }
        }
        *i += 1;
    }
    Ok(hunks)
}

/// Applies hunks to a file's lines (without line endings).
pub fn apply(path: &Path, lines: &[String], hunks: &[Hunk]) -> Result<Vec<String>, PatchError> {
    let mut out: Vec<String> = lines.to_vec();
    let mut from = 0usize;
    for (n, h) in hunks.iter().enumerate() {
        if !h.anchor.is_empty()
            && let Some(a) = find(&out, from, std::slice::from_ref(&h.anchor))
        {
            from = a + 1;
        }
        let at = if h.old.is_empty() {
            Some(if h.at_end {
                out.len()
            } else {
                from.min(out.len())
            })
        } else if h.at_end {
            let start = out.len().saturating_sub(h.old.len());
            matches_at(&out, start, &h.old).then_some(start)
        } else {
            find(&out, from, &h.old)
        };
        let Some(at) = at else {
            return Err(PatchError::NoMatch {
                path: path.display().to_string(),
                hunk: n + 1,
                expected: h.old.join("\n"),
            });
        };
        out.splice(at..at + h.old.len(), h.new.iter().cloned());
        from = at + h.new.len();
    }
    Ok(out)
}

fn matches_at(lines: &[String], at: usize, want: &[String]) -> bool {
    at + want.len() <= lines.len()
        && lines[at..at + want.len()]
            .iter()
            .zip(want)
            .all(|(a, b)| a.trim_end() == b.trim_end())
}

/// The first index at or after `from` where `want` starts (lines compared
/// without trailing whitespace), then anywhere before `from`.
fn find(lines: &[String], from: usize, want: &[String]) -> Option<usize> {
    let n = lines.len();
    (from..n)
        .chain(0..from.min(n))
        .find(|&i| matches_at(lines, i, want))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_patch_made_absolute_parses_to_the_same_changes_from_anywhere() {
        let text = "*** Begin Patch\n*** Add File: new.py\n+x = 1\n*** Delete File: /abs/old.py\n*** Update File: a.py\n*** Move to: sub/b.py\n@@ def f():\n-    return 1\n+*** Add File: kept.py\n*** End Patch\n";
        let absolute = with_absolute_paths(text, Path::new("/p"));
        assert_eq!(
            parse(&absolute, Path::new("/elsewhere")).unwrap(),
            parse(text, Path::new("/p")).unwrap()
        );
        assert!(absolute.contains("*** Move to: /p/sub/b.py\n"));
        assert!(absolute.contains("+*** Add File: kept.py\n"));
    }

    #[test]
    fn parses_every_kind_of_change() {
        let text = "*** Begin Patch\n*** Add File: new.py\n+x = 1\n*** Delete File: old.py\n*** Update File: a.py\n*** Move to: b.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n";
        let ops = parse(text, Path::new("/p")).unwrap();
        assert_eq!(ops.len(), 3);
        assert_eq!(
            ops[0],
            Op::Add {
                path: "/p/new.py".into(),
                text: "x = 1\n".into()
            }
        );
        assert_eq!(
            ops[1],
            Op::Delete {
                path: "/p/old.py".into()
            }
        );
        let Op::Update { move_to, hunks, .. } = &ops[2] else {
            panic!()
        };
        assert_eq!(move_to.as_deref(), Some(Path::new("/p/b.py")));
        assert_eq!(hunks[0].anchor, "def f():");
        assert_eq!(
            parse("*** Update File: a\n", Path::new("/")).unwrap_err(),
            PatchError::Envelope
        );
    }

    #[test]
    fn applies_hunks_with_anchors_and_reports_mismatches() {
        let file = v("def f():\n    return 1\n\ndef g():\n    return 1\n");
        let h = Hunk {
            anchor: "def g():".into(),
            old: v("    return 1"),
            new: v("    return 2"),
            at_end: false,
        };
        assert_eq!(
            apply(Path::new("a.py"), &file, &[h]).unwrap(),
            v("def f():\n    return 1\n\ndef g():\n    return 2\n")
        );
        let bad = Hunk {
            old: v("nope"),
            new: v("x"),
            ..Hunk::default()
        };
        let e = apply(Path::new("a.py"), &file, &[bad]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.py: hunk 1 does not match the file; it expects:\nnope"
        );
    }
}

#[cfg(test)]
mod proptests;
