//! The one audited conversion between filesystem paths and `file:` URIs.
//!
//! Paths are encoded byte by byte: everything outside RFC 3986's unreserved set
//! and `/` is percent-encoded, so spaces, `#`, `?`, `%`, `[`, `]` and non-ASCII
//! names survive every server's URI parser. Server URIs are never compared as
//! strings: they are decoded back to paths, and callers canonicalise paths once
//! at ingress so that a symlinked root and its target agree. Windows paths
//! (drive letters, UNC shares) follow their own rules, in `windows`: pure
//! functions on strings, so that their tests run on every platform.

use std::path::{Path, PathBuf};

use crate::protocol::Uri;

pub mod windows;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UriError {
    #[error("path is not absolute: {0}")]
    Relative(PathBuf),
    #[error("not a file uri: {0}")]
    NotFile(String),
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
}

/// The `file:` URI string for an absolute path.
pub fn path_to_uri_string(path: &Path) -> Result<String, UriError> {
    if !path.is_absolute() {
        return Err(UriError::Relative(path.to_owned()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(encode(path.as_os_str().as_bytes()))
    }
    #[cfg(windows)]
    {
        path.to_str()
            .and_then(windows::path_to_uri)
            .ok_or_else(|| UriError::NotFile(path.display().to_string()))
    }
}

/// `file://` and the bytes of an absolute Unix path, each outside the
/// unreserved set percent-encoded.
#[cfg(unix)]
fn encode(bytes: &[u8]) -> String {
    let mut out = String::from("file://");
    for &b in bytes {
        if unreserved(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file:` URI for an absolute path.
pub fn path_to_uri(path: &Path) -> Result<Uri, UriError> {
    let s = path_to_uri_string(path)?;
    Uri::parse(&s).map_err(|_| UriError::NotFile(s))
}

/// Decodes a `file:` URI back into a path. Accepts an empty or `localhost`
/// authority, and escapes in either case.
pub fn uri_to_path(uri: &str) -> Result<PathBuf, UriError> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        let rest = uri
            .strip_prefix("file://")
            .or_else(|| uri.strip_prefix("FILE://"))
            .ok_or_else(|| UriError::NotFile(uri.to_owned()))?;
        let rest = rest.strip_prefix("localhost").unwrap_or(rest);
        if !rest.starts_with('/') {
            return Err(UriError::NotFile(uri.to_owned()));
        }
        // A query or fragment is not part of a file path.
        let rest = rest.split(['?', '#']).next().unwrap_or(rest);
        Ok(PathBuf::from(std::ffi::OsString::from_vec(decode(rest))))
    }
    #[cfg(windows)]
    {
        windows::uri_to_path(uri)
            .map(PathBuf::from)
            .ok_or_else(|| UriError::NotFile(uri.to_owned()))
    }
}

/// Percent-decodes `s`; an escape that is not one stays as it is.
fn decode(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Canonicalises a path where it exists, so symlinked roots compare equal.
/// On Windows the canonical form's verbatim prefix (`\\?\`) is dropped,
/// as servers and users never write it.
pub fn normalize(path: &Path) -> PathBuf {
    let p = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    #[cfg(windows)]
    if let Some(s) = p.to_str() {
        return PathBuf::from(windows::strip_verbatim(s));
    }
    p
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tricky_names_round_trip() {
        for p in [
            "/tmp/with space/a.py",
            "/tmp/hash#tag/q?.ts",
            "/tmp/100%/50%25.py",
            "/tmp/名前/ünïcödé 🙂.py",
            "/tmp/[brackets]/@scope/x+y=z;a,b.ts",
        ] {
            let uri = path_to_uri_string(Path::new(p)).unwrap();
            assert!(
                !uri.contains(' ') && !uri[7..].contains('#') && !uri.contains('?'),
                "{uri}"
            );
            assert_eq!(uri_to_path(&uri).unwrap(), PathBuf::from(p), "{uri}");
            // The typed URI must keep the same string so servers see what we sent.
            assert_eq!(path_to_uri(Path::new(p)).unwrap().as_str(), uri);
        }
    }

    #[test]
    fn encodes_exactly() {
        assert_eq!(
            path_to_uri_string(Path::new("/a b/#/%/é")).unwrap(),
            "file:///a%20b/%23/%25/%C3%A9"
        );
    }

    #[test]
    fn decodes_what_servers_send() {
        // vscode-uri (pyright, typescript-language-server) writes `%3A` and
        // lower-case escapes; some servers use a `localhost` authority.
        assert_eq!(
            uri_to_path("file:///a%3Ab/%c3%a9").unwrap(),
            PathBuf::from("/a:b/é")
        );
        assert_eq!(
            uri_to_path("file://localhost/x/y").unwrap(),
            PathBuf::from("/x/y")
        );
        assert_eq!(
            uri_to_path("file:///bad%zz").unwrap(),
            PathBuf::from("/bad%zz")
        );
        assert!(uri_to_path("untitled:1").is_err());
        assert!(path_to_uri_string(Path::new("rel/x.py")).is_err());
    }

    #[test]
    fn symlinked_root_normalizes_to_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real root");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("m.py"), "x = 1\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let via_link = normalize(&link.join("m.py"));
        assert_eq!(via_link, normalize(&real.join("m.py")));
        let uri = path_to_uri_string(&via_link).unwrap();
        assert_eq!(uri_to_path(&uri).unwrap(), via_link);
    }
}
