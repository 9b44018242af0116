//! Property tests of the parsers that read what servers send, and of position
//! and URI conversion: arbitrary input never panics, and each answer agrees
//! with a simple model. Set `PROPTEST_CASES` for a longer search than CI runs.

#![allow(clippy::unwrap_used)]

#[cfg(unix)]
use std::ffi::OsStr;
#[cfg(unix)]
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use bytes::BytesMut;
use proptest::prelude::*;
use serde_json::Value;
use sightline_lsp::Message;
use sightline_lsp::Position;
#[cfg(unix)]
use sightline_lsp::path_to_uri;
use sightline_lsp::{DEFAULT_MAX_BODY, Frame, LspCodec};
use sightline_lsp::{Encoding, LineIndex, RequestId, ResponseError};
use sightline_lsp::{path_to_uri_string, uri_to_path};
use tokio_util::codec::{Decoder, Encoder};

/// 256 cases each, unless `PROPTEST_CASES` asks for a longer search.
fn config() -> ProptestConfig {
    if std::env::var_os("PROPTEST_CASES").is_some() {
        ProptestConfig::default()
    } else {
        ProptestConfig::with_cases(256)
    }
}
const ENCODINGS: [Encoding; 3] = [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32];

// ---------------------------------------------------------------- framing

/// Feeds `input` to a fresh decoder in pieces cut at `cuts`, decoding all it
/// can after each piece; returns the frames and what is left unread.
fn decode_in_pieces(max_body: usize, input: &[u8], cuts: &[usize]) -> (Vec<Frame>, Vec<u8>) {
    let mut codec = LspCodec::new(max_body);
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.push(input.len());
    cuts.sort_unstable();
    let mut from = 0;
    for cut in cuts {
        buf.extend_from_slice(&input[from..cut]);
        from = cut;
        while let Some(f) = codec.decode(&mut buf).unwrap() {
            frames.push(f);
            // Every frame consumes input or ends a header section, so there
            // are never more frames than bytes plus one.
            assert!(frames.len() <= input.len() + 1, "the decoder loops");
        }
    }
    (frames, buf.to_vec())
}

/// Input made of the pieces of real frames, log lines and junk.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"Content-Length: ".to_vec()),
        Just(b"content-length:".to_vec()),
        Just(b"Content-Type: x".to_vec()),
        (0..300u32).prop_map(|n| n.to_string().into_bytes()),
        any::<usize>().prop_map(|n| n.to_string().into_bytes()),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"{\"a\":1}".to_vec()),
        "\\PC{0,8}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

fn max_body() -> impl Strategy<Value = usize> {
    // A caller may lift the cap as far as it likes.
    prop_oneof![0..300usize, Just(DEFAULT_MAX_BODY), Just(usize::MAX)]
}

/// One thing a server writes to its stdout.
#[derive(Debug, Clone)]
enum Item {
    /// A message, framed with the given header spelling and line ending.
    Message {
        body: Vec<u8>,
        name: &'static str,
        eol: &'static str,
        extra_header: bool,
    },
    /// A log line that is not a header.
    Log(String),
    Blank,
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // JSON is never split, even when it holds a header.
        "\\PC{0,40}".prop_map(|s| serde_json::to_vec(&s).unwrap()),
        Just(b"{\"a\":\"Content-Length: 3\"}".to_vec()),
        // Non-JSON bodies without a header in them.
        prop::collection::vec(any::<u8>(), 0..400).prop_filter("holds a header", |b| {
            !b.windows(15)
                .any(|w| w.eq_ignore_ascii_case(b"content-length:"))
        }),
    ]
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        3 => (
            body(),
            prop::sample::select(vec!["Content-Length", "content-length", "CONTENT-LENGTH"]),
            prop::sample::select(vec!["\r\n", "\n"]),
            any::<bool>(),
        )
            .prop_map(|(body, name, eol, extra_header)| Item::Message {
                body,
                name,
                eol,
                extra_header,
            }),
        1 => "[^\r\n]{1,40}"
            .prop_filter("a header", |l| !l.to_ascii_lowercase().contains("content-length"))
            .prop_map(Item::Log),
        1 => Just(Item::Blank),
    ]
}

fn render(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Message {
                body,
                name,
                eol,
                extra_header,
            } => {
                out.extend_from_slice(format!("{name}: {}{eol}", body.len()).as_bytes());
                if *extra_header {
                    out.extend_from_slice(
                        format!("Content-Type: x; charset=utf-8{eol}").as_bytes(),
                    );
                }
                out.extend_from_slice(eol.as_bytes());
                out.extend_from_slice(body);
            }
            Item::Log(line) => {
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
            Item::Blank => out.extend_from_slice(b"\r\n"),
        }
    }
    out
}

/// The frames the decoder should give for `items`.
fn expected_frames(items: &[Item], max_body: usize) -> Vec<Frame> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Message { body, .. } if body.len() > max_body => Some(Frame::Oversized {
                size: body.len(),
                head: body[..body.len().min(256)].to_vec(),
            }),
            Item::Message { body, .. } => Some(Frame::Body(body.clone().into())),
            Item::Log(line) => Some(Frame::Garbage(line.clone())),
            Item::Blank => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Anything at all decodes without a panic or an endless loop, and how
    /// the input is cut into reads does not change the frames.
    #[test]
    fn framing_never_panics_and_ignores_how_reads_are_cut(
        input in soup(),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        max in max_body(),
    ) {
        let whole = decode_in_pieces(max, &input, &[]);
        let pieces = decode_in_pieces(max, &input, &cuts);
        prop_assert_eq!(whole, pieces);
    }

    /// Framed messages between log lines come out as written, in order,
    /// oversized ones as their size and head, however the reads are cut.
    #[test]
    fn framing_gives_back_the_messages_written(
        items in prop::collection::vec(item(), 0..8),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        max in max_body(),
    ) {
        let input = render(&items);
        let (frames, rest) = decode_in_pieces(max, &input, &cuts);
        prop_assert_eq!(frames, expected_frames(&items, max));
        prop_assert!(rest.is_empty(), "left unread: {:?}", rest);
    }

    /// What the encoder writes decodes to the same body.
    #[test]
    fn framing_round_trips_the_encoder(body in body()) {
        let mut buf = BytesMut::new();
        LspCodec::default().encode(&body[..], &mut buf).unwrap();
        let (frames, rest) = decode_in_pieces(DEFAULT_MAX_BODY, &buf, &[]);
        prop_assert_eq!(frames, vec![Frame::Body(body.into())]);
        prop_assert!(rest.is_empty());
    }
}

// ---------------------------------------------------------------- positions

/// Text rich in line ends and characters of every width in every encoding.
fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        4 => prop::sample::select(vec!['a', ' ', 'é', '名', '🙂', '\u{200d}', '\n', '\r']),
        1 => any::<char>(),
    ];
    prop::collection::vec(c, 0..60).prop_map(String::from_iter)
}

/// LSP lines: split at `\r\n`, `\r` or `\n`.
fn model_lines(text: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                lines.push(String::new());
            }
            '\n' => lines.push(String::new()),
            c => lines.last_mut().unwrap().push(c),
        }
    }
    lines
}

fn units(s: &str, enc: Encoding) -> u32 {
    match enc {
        Encoding::Utf8 => s.len() as u32,
        Encoding::Utf16 => s.encode_utf16().count() as u32,
        Encoding::Utf32 => s.chars().count() as u32,
    }
}

/// The prefix of `line` with `col` characters (all of it when shorter).
fn prefix(line: &str, col: usize) -> &str {
    line.char_indices()
        .nth(col)
        .map_or(line, |(at, _)| &line[..at])
}

/// Byte offset of the start of each model line.
fn model_starts(text: &str, lines: &[String]) -> Vec<usize> {
    let mut starts = vec![0];
    let mut at = 0;
    for line in &lines[..lines.len() - 1] {
        at += line.len();
        at += if text[at..].starts_with("\r\n") { 2 } else { 1 };
        starts.push(at);
    }
    starts
}

proptest! {
    #![proptest_config(config())]

    /// Lines are split as LSP says; a trailing line end starts no counted line.
    #[test]
    fn positions_split_lines_as_lsp_does(text in text()) {
        let idx = LineIndex::new(text.clone());
        let lines = model_lines(&text);
        for (i, line) in lines.iter().enumerate() {
            prop_assert_eq!(idx.line(i), Some(line.as_str()));
        }
        prop_assert_eq!(idx.line(lines.len()), None);
        let ends_a_line = text.ends_with(['\n', '\r']);
        prop_assert_eq!(idx.line_count(), lines.len() - usize::from(ends_a_line));
    }

    /// Every column of every line (and past its end) converts to the units of
    /// its prefix, back to the same column, and to the byte offset of the
    /// prefix.
    #[test]
    fn positions_round_trip_every_column(text in text()) {
        let idx = LineIndex::new(text.clone());
        let lines = model_lines(&text);
        let starts = model_starts(&text, &lines);
        for enc in ENCODINGS {
            for (line, s) in lines.iter().enumerate() {
                let n = s.chars().count();
                for col in 0..=n + 2 {
                    let p = idx.to_lsp(line, col, enc).unwrap();
                    let before = prefix(s, col);
                    prop_assert_eq!(p.line as usize, line);
                    prop_assert_eq!(p.character, units(before, enc));
                    prop_assert_eq!(idx.from_lsp(p, enc), (line, col.min(n)));
                    prop_assert_eq!(idx.offset(p, enc), starts[line] + before.len());
                }
            }
            prop_assert!(idx.to_lsp(lines.len(), 0, enc).is_none());
        }
    }

    /// Any position a server sends, even inside a character or past the end,
    /// maps to the last whole character before it, on a line that exists, at
    /// a character boundary.
    #[test]
    fn positions_from_servers_snap_and_clamp(
        text in text(),
        line in prop_oneof![0..12u32, any::<u32>()],
        character in prop_oneof![0..200u32, any::<u32>()],
    ) {
        let idx = LineIndex::new(text.clone());
        let lines = model_lines(&text);
        let starts = model_starts(&text, &lines);
        let pos = Position { line, character };
        for enc in ENCODINGS {
            let l = (line as usize).min(lines.len() - 1);
            let s = &lines[l];
            // The most characters whose units fit in `character`.
            let col = (0..=s.chars().count())
                .take_while(|&c| units(prefix(s, c), enc) <= character)
                .last()
                .unwrap();
            prop_assert_eq!(idx.from_lsp(pos, enc), (l, col));
            let offset = idx.offset(pos, enc);
            if (line as usize) < lines.len() {
                prop_assert_eq!(offset, starts[l] + prefix(s, col).len());
            } else {
                prop_assert_eq!(offset, text.len());
            }
            prop_assert!(text.is_char_boundary(offset));
        }
    }
}

// ---------------------------------------------------------------- uris

/// Absolute paths of arbitrary bytes, and of the characters that need escapes.
#[cfg(unix)]
fn path_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        // With hex digits, so that a `%` left unescaped would read as one.
        3 => prop::sample::select(b"/ab4F.-_~ %#?[]@:+;,=\\|".to_vec()),
        1 => any::<u8>(),
    ];
    let utf8 = "[/a-z名🙂 %#?é]{0,20}".prop_map(String::into_bytes);
    let any_bytes = prop::collection::vec(byte, 0..30);
    prop_oneof![any_bytes, utf8].prop_map(|rest| [b"/".as_slice(), &rest].concat())
}

#[cfg(unix)]
fn has_dot_segment(path: &[u8]) -> bool {
    path.split(|&b| b == b'/').any(|s| s == b"." || s == b"..")
}

proptest! {
    #![proptest_config(config())]

    /// A path survives path -> URI -> path byte for byte, the URI has only
    /// unreserved characters and escapes, and escapes in lower case decode
    /// the same.
    #[cfg(unix)]
    #[test]
    fn uris_round_trip_any_path(path in path_bytes()) {
        let p = Path::new(OsStr::from_bytes(&path));
        let uri = path_to_uri_string(p).unwrap();
        let rest = uri.strip_prefix("file://").unwrap();
        // Only unreserved characters, and escapes of two upper-case digits.
        let mut bytes = rest.bytes();
        while let Some(b) = bytes.next() {
            if b == b'%' {
                let hex = |d: Option<u8>| d.is_some_and(|d| d.is_ascii_digit() || (b'A'..=b'F').contains(&d));
                prop_assert!(hex(bytes.next()) && hex(bytes.next()), "{}", uri);
            } else {
                prop_assert!(b.is_ascii_alphanumeric() || b"-._~/".contains(&b), "{}", uri);
            }
        }
        prop_assert_eq!(uri_to_path(&uri).unwrap().into_os_string().into_vec(), path.clone());
        let lower = format!("file://{}", rest.to_ascii_lowercase());
        // Lower-casing the whole path changes the letters; compare escapes only.
        let want: Vec<u8> = path.iter().map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~/".contains(b) { b.to_ascii_lowercase() } else { *b }
        }).collect();
        prop_assert_eq!(uri_to_path(&lower).unwrap().into_os_string().into_vec(), want);
    }

    /// The typed URI servers are sent names the same path, and keeps the
    /// very string built from a clean path. (A URI parser drops `.` and `..`
    /// segments, and may merge empty ones; paths reach it canonical.)
    #[cfg(unix)]
    #[test]
    fn uris_are_sent_as_built(path in path_bytes()) {
        prop_assume!(!has_dot_segment(&path));
        let p = Path::new(OsStr::from_bytes(&path));
        let uri = path_to_uri(p).unwrap();
        prop_assert_eq!(uri_to_path(uri.as_str()).unwrap(), p);
        let clean: std::path::PathBuf = p.components().collect();
        if clean.as_os_str() == p.as_os_str() {
            prop_assert_eq!(uri.as_str(), path_to_uri_string(p).unwrap());
        }
    }

    /// Any string decodes without a panic; a relative path never encodes.
    #[test]
    fn uris_from_servers_never_panic(
        s in prop_oneof!["\\PC{0,30}", "(file|FILE)://(localhost)?/[/%a-fA-F0-9?#é]{0,20}"],
        rel in "[^/\\x00][^\\x00]{0,10}",
    ) {
        if let Ok(p) = uri_to_path(&s) {
            prop_assert!(p.is_absolute(), "{} -> {}", s, p.display());
        }
        prop_assert!(path_to_uri_string(Path::new(&rel)).is_err());
    }

    /// A Windows path (a drive path or a UNC share, any names) survives
    /// path -> URI -> path, the URI has no backslash or space, and a server's
    /// `%3A` and lower-case drive letter decode to the same path.
    #[test]
    fn windows_uris_round_trip(
        drive in "[A-Z]",
        unc in any::<bool>(),
        parts in prop::collection::vec("[^\\\\/:*?\"<>|\x00-\x1f]{1,8}", 1..5),
    ) {

        let path = if unc {
            format!(r"\\{}", parts.join("\\"))
        } else {
            format!(r"{drive}:\{}", parts.join("\\"))
        };
        prop_assume!(!unc || parts.len() > 1);
        let uri = sightline_lsp::windows_path_to_uri(&path).unwrap();
        prop_assert!(!uri.contains('\\') && !uri.contains(' '), "{}", uri);
        prop_assert_eq!(sightline_lsp::windows_uri_to_path(&uri).unwrap(), path.clone());
        if !unc {
            let vscode = uri.replacen(&format!("{drive}:"), &format!("{}%3A", drive.to_ascii_lowercase()), 1);
            prop_assert_eq!(sightline_lsp::windows_uri_to_path(&vscode).unwrap(), path);
        }
    }
}

// ---------------------------------------------------------------- messages

fn json() -> impl Strategy<Value = Value> {
    // Whole numbers only: floats need not survive a JSON round trip.
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        "\\PC{0,6}".prop_map(RequestId::String),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    let error =
        (any::<i64>(), "\\PC{0,10}", prop::option::of(json())).prop_map(|(code, message, data)| {
            ResponseError {
                code,
                message,
                // `"data": null` reads back as no data.
                data: data.filter(|d| !d.is_null()),
            }
        });
    prop_oneof![
        (id(), "[a-z/$]{1,12}", json()).prop_map(|(id, method, params)| Message::Request {
            id,
            method,
            params
        }),
        ("[a-z/$]{1,12}", json())
            .prop_map(|(method, params)| Message::Notification { method, params }),
        (id(), json()).prop_map(|(id, r)| Message::Response {
            id: Some(id),
            result: Ok(r),
        }),
        (prop::option::of(id()), error)
            .prop_map(|(id, e)| Message::Response { id, result: Err(e) }),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Whatever a body holds, decoding it answers without a panic.
    #[test]
    fn messages_decode_anything_without_panic(
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            json().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        ],
    ) {
        let _ = Message::decode(&body);
    }

    /// A message reads back as itself.
    #[test]
    fn messages_round_trip(m in message()) {
        prop_assert_eq!(Message::decode(&m.encode()).unwrap(), m);
    }
}
