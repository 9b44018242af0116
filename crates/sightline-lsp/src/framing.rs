//! `Content-Length` framing, lenient on input: header names in any case, unknown
//! headers ignored, non-header lines before a message skipped (some servers and
//! wrapper scripts print logs to stdout), and a cap on the body size.

use bytes::{Buf, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// Bodies above this size are skipped, not buffered. 32 MiB is far above any
/// answer we ask for; a workspace-wide symbol dump of a big monorepo is ~5 MiB.
pub const DEFAULT_MAX_BODY: usize = 32 * 1024 * 1024;

/// How much of a skipped body is kept to identify it.
const HEAD_BYTES: usize = 256;

/// Header sections longer than this without a blank line are treated as garbage.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// One decoded frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete message body.
    Body(bytes::Bytes),
    /// A body over the size cap was skipped; the stream stays usable. `head`
    /// holds its first bytes, enough to find the id of the request it answers.
    Oversized { size: usize, head: Vec<u8> },
    /// A line that was not a header was skipped.
    Garbage(String),
}

#[derive(Debug, thiserror::Error)]
pub enum FramingError {
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Debug)]
enum State {
    Headers {
        length: Option<usize>,
    },
    Body {
        length: usize,
    },
    Skip {
        remaining: usize,
        size: usize,
        head: Vec<u8>,
    },
}

/// A decoder/encoder for LSP base-protocol frames.
#[derive(Debug)]
pub struct LspCodec {
    state: State,
    max_body: usize,
}

impl Default for LspCodec {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_BODY)
    }
}

impl LspCodec {
    pub fn new(max_body: usize) -> Self {
        Self {
            state: State::Headers { length: None },
            max_body,
        }
    }
}

/// Parses `Content-Length: N` anywhere in a line, case-insensitively, so that a
/// log line glued to the header without a newline still frames correctly.
fn content_length(line: &str) -> Option<Option<usize>> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find("content-length")?;
    let rest = line[at + "content-length".len()..].trim_start();
    let value = rest.strip_prefix(':')?.trim();
    Some(value.parse::<usize>().ok())
}

fn is_header(line: &str) -> bool {
    match line.split_once(':') {
        Some((name, _)) => {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        }
        None => false,
    }
}

impl Decoder for LspCodec {
    type Item = Frame;
    type Error = FramingError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, FramingError> {
        loop {
            match &mut self.state {
                State::Skip {
                    remaining,
                    size,
                    head,
                } => {
                    let n = (*remaining).min(src.len());
                    let keep = n.min(HEAD_BYTES.saturating_sub(head.len()));
                    head.extend_from_slice(&src[..keep]);
                    src.advance(n);
                    *remaining -= n;
                    if *remaining > 0 {
                        return Ok(None);
                    }
                    let frame = Frame::Oversized {
                        size: *size,
                        head: std::mem::take(head),
                    };
                    self.state = State::Headers { length: None };
                    return Ok(Some(frame));
                }
                State::Body { length } => {
                    let length = *length;
                    if src.len() < length {
                        // The length is the peer's word: under a lifted cap a
                        // bogus one must not reserve all memory up front.
                        src.reserve((length - src.len()).min(DEFAULT_MAX_BODY));
                        return Ok(None);
                    }
                    let mut body = src.split_to(length);
                    self.state = State::Headers { length: None };
                    // A body cut short by its writer swallows the start of the
                    // next message. When the body is not JSON and holds a
                    // header, give the bytes from the header back, so that only
                    // the broken message is lost.
                    if let Some(at) = embedded_header(&body) {
                        let rest = body.split_off(at);
                        let mut again = BytesMut::with_capacity(rest.len() + src.len());
                        again.extend_from_slice(&rest);
                        again.extend_from_slice(src);
                        *src = again;
                    }
                    return Ok(Some(Frame::Body(body.freeze())));
                }
                State::Headers { length } => {
                    let Some(nl) = src.iter().position(|&b| b == b'\n') else {
                        if src.len() > MAX_HEADER_LINE {
                            let junk = src.split_to(src.len());
                            return Ok(Some(Frame::Garbage(lossy(&junk))));
                        }
                        return Ok(None);
                    };
                    let raw = src.split_to(nl + 1);
                    let line = lossy(&raw);
                    let line = line.trim_end_matches(['\r', '\n']);
                    if line.is_empty() {
                        if let Some(len) = length.take() {
                            if len > self.max_body {
                                self.state = State::Skip {
                                    remaining: len,
                                    size: len,
                                    head: Vec::new(),
                                };
                                continue;
                            }
                            self.state = State::Body { length: len };
                        }
                        // A blank line without a length is noise between frames.
                        continue;
                    }
                    match content_length(line) {
                        Some(Some(len)) => *length = Some(len),
                        Some(None) => return Ok(Some(Frame::Garbage(line.to_owned()))),
                        None if is_header(line) && length.is_some() => {}
                        None => {
                            // Not a header we know: a stray log line. Drop any
                            // partial header state so that the next real header
                            // starts a clean frame.
                            *length = None;
                            return Ok(Some(Frame::Garbage(line.to_owned())));
                        }
                    }
                }
            }
        }
    }
}

/// Where a `Content-Length` header starts inside a body that is not JSON.
fn embedded_header(body: &[u8]) -> Option<usize> {
    const NEEDLE: &[u8] = b"content-length:";
    let at = body
        .windows(NEEDLE.len())
        .position(|w| w.eq_ignore_ascii_case(NEEDLE))?;
    if at == 0 || serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() {
        return None;
    }
    Some(at)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `body` with its `Content-Length` header, ready for the pipe.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    let mut out = Vec::with_capacity(header.len() + body.len());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

impl Encoder<&[u8]> for LspCodec {
    type Error = FramingError;

    fn encode(&mut self, body: &[u8], dst: &mut BytesMut) -> Result<(), FramingError> {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        dst.reserve(header.len() + body.len());
        dst.extend_from_slice(header.as_bytes());
        dst.extend_from_slice(body);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn decode_all(codec: &mut LspCodec, buf: &mut BytesMut) -> Vec<Frame> {
        let mut out = Vec::new();
        while let Some(f) = codec.decode(buf).unwrap() {
            out.push(f);
        }
        out
    }

    fn bodies(frames: &[Frame]) -> Vec<String> {
        frames
            .iter()
            .filter_map(|f| match f {
                Frame::Body(b) => Some(String::from_utf8(b.to_vec()).unwrap()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn joined_frames_decode_in_order() {
        let mut codec = LspCodec::default();
        let mut buf =
            BytesMut::from(format!("{}{}", frame("{\"a\":1}"), frame("{\"b\":2}")).as_str());
        assert_eq!(
            bodies(&decode_all(&mut codec, &mut buf)),
            ["{\"a\":1}", "{\"b\":2}"]
        );
        assert!(buf.is_empty());
    }

    #[test]
    fn split_frames_wait_for_the_rest() {
        let text = frame("{\"hello\":\"wörld\"}");
        for cut in 1..text.len() {
            let mut codec = LspCodec::default();
            let mut buf = BytesMut::from(&text.as_bytes()[..cut]);
            let first = decode_all(&mut codec, &mut buf);
            buf.extend_from_slice(&text.as_bytes()[cut..]);
            let mut all = first;
            all.extend(decode_all(&mut codec, &mut buf));
            assert_eq!(bodies(&all), ["{\"hello\":\"wörld\"}"], "cut at {cut}");
        }
    }

    #[test]
    fn garbage_lines_are_skipped() {
        let mut codec = LspCodec::default();
        let text = format!(
            "starting server...\nDebugger listening\r\n\r\n{}",
            frame("{}")
        );
        let mut buf = BytesMut::from(text.as_str());
        let frames = decode_all(&mut codec, &mut buf);
        assert_eq!(bodies(&frames), ["{}"]);
        assert_eq!(
            frames
                .iter()
                .filter(|f| matches!(f, Frame::Garbage(_)))
                .count(),
            2
        );
    }

    #[test]
    fn log_glued_to_header_still_frames() {
        let mut codec = LspCodec::default();
        let text = format!("noiseContent-Length: 2\r\n\r\n{{}}{}", frame("[]"));
        let mut buf = BytesMut::from(text.as_str());
        assert_eq!(bodies(&decode_all(&mut codec, &mut buf)), ["{}", "[]"]);
    }

    #[test]
    fn header_names_are_case_insensitive_and_extra_headers_ignored() {
        let mut codec = LspCodec::default();
        let text = "content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:   4\r\n\r\nnull";
        let mut buf = BytesMut::from(text);
        assert_eq!(bodies(&decode_all(&mut codec, &mut buf)), ["null"]);
        let mut buf = BytesMut::from("Content-Length: 4\nContent-Type: x\n\nnull");
        assert_eq!(bodies(&decode_all(&mut codec, &mut buf)), ["null"]);
    }

    #[test]
    fn oversize_bodies_are_skipped_and_the_stream_continues() {
        let mut codec = LspCodec::new(8);
        let big = "x".repeat(100);
        let text = format!("{}{}", frame(&big), frame("{}"));
        let mut buf = BytesMut::from(&text.as_bytes()[..40]);
        let mut frames = decode_all(&mut codec, &mut buf);
        buf.extend_from_slice(&text.as_bytes()[40..]);
        frames.extend(decode_all(&mut codec, &mut buf));
        let head = "x".repeat(100).into_bytes();
        assert_eq!(frames[0], Frame::Oversized { size: 100, head });
        assert_eq!(bodies(&frames), ["{}"]);
    }

    #[test]
    fn a_truncated_body_loses_only_itself() {
        let mut codec = LspCodec::default();
        let cut = r#"{"jsonrpc":"2.0","id":1,"res"#;
        let text = format!(
            "Content-Length: {}\r\n\r\n{cut}{}",
            cut.len() + 30,
            frame(r#"{"a":"content-length: 3"}"#)
        );
        let mut buf = BytesMut::from(text.as_str());
        let frames = decode_all(&mut codec, &mut buf);
        assert_eq!(bodies(&frames), [cut, r#"{"a":"content-length: 3"}"#]);
    }

    #[test]
    fn bad_length_is_reported_as_garbage() {
        let mut codec = LspCodec::default();
        let text = format!("Content-Length: lots\r\n\r\n{}", frame("1"));
        let mut buf = BytesMut::from(text.as_str());
        let frames = decode_all(&mut codec, &mut buf);
        assert!(matches!(&frames[0], Frame::Garbage(l) if l.contains("lots")));
        assert_eq!(bodies(&frames), ["1"]);
    }

    #[test]
    fn a_huge_length_under_a_lifted_cap_reserves_little() {
        // Found by the property tests: this reserved the whole length and
        // the allocation aborted the process.
        let mut codec = LspCodec::new(usize::MAX);
        let mut buf = BytesMut::from("Content-Length: 5648723665040341090\r\n\r\n{}");
        assert!(decode_all(&mut codec, &mut buf).is_empty());
        assert!(buf.capacity() <= 2 * DEFAULT_MAX_BODY);
        assert_eq!(&buf[..], b"{}");
    }

    #[test]
    fn encode_writes_length_header() {
        let mut codec = LspCodec::default();
        let mut dst = BytesMut::new();
        codec.encode("{\"é\":1}".as_bytes(), &mut dst).unwrap();
        assert_eq!(&dst[..], "Content-Length: 8\r\n\r\n{\"é\":1}".as_bytes());
    }
}
