//! `parse` against patches rendered from a model, and on line soup;
//! `apply` of one hunk against a first-match splice.

use super::*;
use proptest::prelude::*;

const BASE: &str = "/base";

/// A path as an agent writes it: relative or absolute, never padded.
fn path() -> impl Strategy<Value = String> {
    "/?[a-zA-Z0-9_.é-]{1,8}(/[a-zA-Z0-9_.é -]{1,8}){0,2}".prop_filter("padded", |p| p.trim() == p)
}

/// A line of a file: anything but a line end (a `\r` before one would be
/// read as part of it).
fn line() -> impl Strategy<Value = String> {
    prop_oneof!["[^\n]{0,12}", "[ *@+-]{0,4}[a-z]{0,3}"]
        .prop_filter("ends in \\r", |l| !l.ends_with('\r'))
}

#[derive(Debug, Clone)]
struct ModelHunk {
    anchor: String,
    /// `' '`, `'-'` or `'+'`, and the text.
    lines: Vec<(char, String)>,
    at_end: bool,
    /// Written without its `@@` line (only a first hunk with no anchor
    /// and some lines may be).
    bare: bool,
}

#[derive(Debug, Clone)]
enum ModelOp {
    Add(String, Vec<String>),
    Delete(String),
    Update(String, Option<String>, Vec<ModelHunk>),
}

fn hunk() -> impl Strategy<Value = ModelHunk> {
    (
        line().prop_map(|a| a.trim().to_owned()),
        prop::collection::vec((prop::sample::select(vec![' ', '-', '+']), line()), 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(anchor, lines, at_end, bare)| ModelHunk {
            bare: bare && anchor.is_empty() && !lines.is_empty(),
            anchor,
            lines,
            at_end,
        })
}

fn op() -> impl Strategy<Value = ModelOp> {
    prop_oneof![
        (path(), prop::collection::vec(line(), 0..4)).prop_map(|(p, lines)| ModelOp::Add(p, lines)),
        path().prop_map(ModelOp::Delete),
        (
            path(),
            prop::option::of(path()),
            prop::collection::vec(hunk(), 0..3)
        )
            .prop_map(|(p, to, hunks)| ModelOp::Update(p, to, hunks)),
    ]
}

/// The patch text, and the 0-based patch line after each op.
fn render(ops: &[ModelOp], crlf: bool, padding: usize) -> (String, Vec<usize>) {
    let mut lines = vec![String::new(); padding];
    lines.push("*** Begin Patch".into());
    let mut ends = Vec::new();
    for op in ops {
        match op {
            ModelOp::Add(p, text) => {
                lines.push(format!("*** Add File: {p}"));
                lines.extend(text.iter().map(|l| format!("+{l}")));
            }
            ModelOp::Delete(p) => lines.push(format!("*** Delete File: {p}")),
            ModelOp::Update(p, to, hunks) => {
                lines.push(format!("*** Update File: {p}"));
                if let Some(to) = to {
                    lines.push(format!("*** Move to: {to}"));
                }
                for (n, h) in hunks.iter().enumerate() {
                    if !(n == 0 && h.bare) {
                        lines.push(format!("@@ {}", h.anchor).trim_end().to_owned());
                    }
                    lines.extend(h.lines.iter().map(|(k, l)| format!("{k}{l}")));
                    if h.at_end {
                        lines.push("*** End of File".into());
                    }
                }
            }
        }
        ends.push(lines.len());
    }
    lines.push("*** End Patch".into());
    lines.push(String::new());
    let eol = if crlf { "\r\n" } else { "\n" };
    (lines.join(eol), ends)
}

/// What `parse` should answer for the rendered `ops`.
fn model(ops: &[ModelOp], ends: &[usize]) -> Result<Vec<Op>, PatchError> {
    let resolve = |p: &str| Path::new(BASE).join(p);
    let mut out = Vec::new();
    for (op, &end) in ops.iter().zip(ends) {
        out.push(match op {
            ModelOp::Add(p, lines) => Op::Add {
                path: resolve(p),
                text: lines.iter().map(|l| format!("{l}\n")).collect(),
            },
            ModelOp::Delete(p) => Op::Delete { path: resolve(p) },
            ModelOp::Update(p, to, hunks) => {
                let hunks: Vec<Hunk> = hunks
                    .iter()
                    .map(|h| Hunk {
                        anchor: h.anchor.clone(),
                        old: (h.lines.iter().filter(|(k, _)| *k != '+'))
                            .map(|(_, l)| l.clone())
                            .collect(),
                        new: (h.lines.iter().filter(|(k, _)| *k != '-'))
                            .map(|(_, l)| l.clone())
                            .collect(),
                        at_end: h.at_end,
                    })
                    .collect();
                if to.is_none() && hunks.iter().all(|h| h.old.is_empty() && h.new.is_empty()) {
                    return Err(PatchError::Syntax {
                        line: end + 1,
                        message: format!("the update of {} has no hunks", resolve(p).display()),
                    });
                }
                Op::Update {
                    path: resolve(p),
                    move_to: to.as_deref().map(resolve),
                    hunks,
                }
            }
        });
    }
    Ok(out)
}

/// Lines a patch is made of, right or wrong.
fn soup_line() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "*** Begin Patch",
            "*** End Patch",
            "*** Add File: a",
            "*** Add File: ",
            "*** Update File: b",
            "*** Move to: c",
            "*** Move to: ",
            "*** Delete File: d",
            "*** End of File",
            "*** ",
            "@@",
            "@@ x",
            "+x",
            "-é",
            " 🙂",
            "",
            "  ",
        ])
        .prop_map(str::to_owned),
        "\\PC{0,6}",
        "[ +@*-]{1,4}\\PC{0,3}",
    ]
}

proptest! {
    #![proptest_config(crate::proptest_config())]

    /// A patch written from a model parses back to the model's ops (or
    /// to its error for an update without changes).
    #[test]
    fn parse_reads_back_what_was_written(
        ops in prop::collection::vec(op(), 0..4),
        crlf: bool,
        padding in 0..2usize,
    ) {
        let (text, ends) = render(&ops, crlf, padding);
        prop_assert_eq!(parse(&text, Path::new(BASE)), model(&ops, &ends));
    }

    /// Any text parses without a panic; every path comes out absolute.
    #[test]
    fn parse_never_panics(
        lines in prop::collection::vec(soup_line(), 0..12),
        envelope: bool,
        crlf: bool,
    ) {
        let mut lines = lines;
        if envelope {
            lines.insert(0, "*** Begin Patch".into());
            lines.push("*** End Patch".into());
        }
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        if let Ok(ops) = parse(&text, Path::new(BASE)) {
            for op in ops {
                let (Op::Add { path, .. } | Op::Delete { path } | Op::Update { path, .. }) = op;
                prop_assert!(path.is_absolute());
            }
        }
    }

    /// One hunk without an anchor replaces the first place its old lines
    /// are (trailing spaces aside), or fails where they are nowhere.
    #[test]
    fn apply_splices_at_the_first_match(
        file in prop::collection::vec(prop::sample::select(vec!["a", "b", "b  ", "", "é"]), 0..10),
        from in any::<prop::sample::Index>(),
        len in 0..4usize,
        new in prop::collection::vec(prop::sample::select(vec!["x", "", "b"]), 0..3),
        wrong in prop::option::of(prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 1..3)),
    ) {
        let file: Vec<String> = file.into_iter().map(str::to_owned).collect();
        let new: Vec<String> = new.into_iter().map(str::to_owned).collect();
        let old: Vec<String> = match wrong {
            Some(w) => w.into_iter().map(str::to_owned).collect(),
            None if file.is_empty() => Vec::new(),
            None => {
                let at = from.index(file.len());
                file[at..(at + len).min(file.len())].to_vec()
            }
        };
        let hunk = Hunk { old: old.clone(), new: new.clone(), ..Hunk::default() };
        let got = apply(Path::new("f"), &file, &[hunk]);
        let first = (0..=file.len()).find(|&i| {
            i + old.len() <= file.len()
                && file[i..i + old.len()].iter().zip(&old).all(|(a, b)| a.trim_end() == b.trim_end())
        });
        match first {
            Some(i) => {
                let want = [&file[..i], &new[..], &file[i + old.len()..]].concat();
                prop_assert_eq!(got, Ok(want));
            }
            None => {
                let failed = matches!(got, Err(PatchError::NoMatch { hunk: 1, .. }));
                prop_assert!(failed, "{:?}", got);
            }
        }
    }

    /// Any hunks apply or fail without a panic, and a success changes the
    /// length by what the hunks add and remove.
    #[test]
    fn apply_never_panics(
        file in prop::collection::vec(prop::sample::select(vec!["a", "b", ""]), 0..8),
        hunks in prop::collection::vec(
            (
                prop::sample::select(vec!["", "a", "b", "z"]),
                prop::collection::vec(prop::sample::select(vec!["a", "b", ""]), 0..3),
                prop::collection::vec(prop::sample::select(vec!["x", ""]), 0..3),
                any::<bool>(),
            ),
            0..4,
        ),
    ) {
        let file: Vec<String> = file.into_iter().map(str::to_owned).collect();
        let own = |v: Vec<&str>| v.into_iter().map(str::to_owned).collect::<Vec<_>>();
        let hunks: Vec<Hunk> = hunks
            .into_iter()
            .map(|(anchor, old, new, at_end)| Hunk { anchor: anchor.into(), old: own(old), new: own(new), at_end })
            .collect();
        if let Ok(out) = apply(Path::new("f"), &file, &hunks) {
            let grown: isize = hunks.iter().map(|h| h.new.len() as isize - h.old.len() as isize).sum();
            prop_assert_eq!(out.len() as isize, file.len() as isize + grown);
        }
    }
}
