//! Windows paths as `file:` URIs: `C:\a b\x.py` is `file:///C:/a%20b/x.py`
//! and the share `\\server\share\x.py` is `file://server/share/x.py`. Built
//! wrongly (a drive letter read as a host, backslashes kept, the colon
//! escaped one way and compared the other) these break LSP bridges on
//! Windows. Pure functions on strings: used on Windows, tested everywhere.

use super::{decode, unreserved};

/// A path without its verbatim prefix: `\\?\C:\x` is `C:\x` and
/// `\\?\UNC\server\share` is `\\server\share` (what `canonicalize` returns
/// on Windows, and what no server expects).
pub fn strip_verbatim(path: &str) -> String {
    if let Some(unc) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{unc}");
    }
    path.strip_prefix(r"\\?\").unwrap_or(path).to_owned()
}

/// The drive letter of `C:...` or `c:...`, upper-cased.
fn drive(s: &str) -> Option<char> {
    let mut chars = s.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    (chars.next() == Some(':')).then(|| letter.to_ascii_uppercase())
}

/// Percent-encodes the UTF-8 of `s`, keeping `/`.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        if unreserved(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file:` URI of an absolute Windows path (a drive path or a UNC
/// share, verbatim or not; either slash); `None` for a relative one.
pub fn path_to_uri(path: &str) -> Option<String> {
    let path = strip_verbatim(path).replace('\\', "/");
    if let Some(unc) = path.strip_prefix("//") {
        let (host, rest) = unc.split_once('/').unwrap_or((unc, ""));
        if host.is_empty() {
            return None;
        }
        return Some(format!("file://{}/{}", encode(host), encode(rest)));
    }
    let letter = drive(&path)?;
    let rest = &path[2..];
    if !rest.starts_with('/') && !rest.is_empty() {
        // `C:x` is relative to the drive's current directory.
        return None;
    }
    Some(format!("file:///{letter}:{}", encode(rest)))
}

/// The Windows path of a `file:` URI: a drive path (the letter upper-cased,
/// `%3A` or `:` after it) or, for a URI with a host, a UNC path.
pub fn uri_to_path(uri: &str) -> Option<String> {
    let rest = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("FILE://"))?;
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let path = String::from_utf8(decode(path)).ok()?;
    // `localhost` stands for no host only before a drive letter; the share
    // `\\localhost\share` keeps it.
    let local =
        host.eq_ignore_ascii_case("localhost") && path.strip_prefix('/').and_then(drive).is_some();
    if !host.is_empty() && !local {
        let host = String::from_utf8(decode(host)).ok()?;
        return Some(format!(r"\\{host}{}", path.replace('/', "\\")));
    }
    let path = path.strip_prefix('/')?;
    let letter = drive(path)?;
    Some(format!("{letter}:{}", path[2..].replace('/', "\\")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn drive_paths() {
        assert_eq!(
            path_to_uri(r"C:\Users\me\a b\x.py").unwrap(),
            "file:///C:/Users/me/a%20b/x.py"
        );
        // The letter is one case, whatever the path or the server wrote.
        assert_eq!(path_to_uri(r"d:\x").unwrap(), "file:///D:/x");
        assert_eq!(
            path_to_uri("C:/mixed\\slashes").unwrap(),
            "file:///C:/mixed/slashes"
        );
        assert_eq!(path_to_uri(r"C:\").unwrap(), "file:///C:/");
        assert_eq!(
            path_to_uri(r"\\?\C:\long\path").unwrap(),
            "file:///C:/long/path"
        );
        assert_eq!(
            path_to_uri(r"C:\名前\#%.ts").unwrap(),
            "file:///C:/%E5%90%8D%E5%89%8D/%23%25.ts"
        );
    }

    #[test]
    fn relative_paths_have_no_uri() {
        for p in [r"x\y.py", r"C:x.py", r"\rooted\but\driveless", r"\\"] {
            assert_eq!(path_to_uri(p), None, "{p}");
        }
    }

    #[test]
    fn unc_shares() {
        assert_eq!(
            path_to_uri(r"\\server\share\dir\x.py").unwrap(),
            "file://server/share/dir/x.py"
        );
        assert_eq!(
            path_to_uri(r"\\?\UNC\server\share\x.py").unwrap(),
            "file://server/share/x.py"
        );
        assert_eq!(
            uri_to_path("file://server/share/dir/x.py").unwrap(),
            r"\\server\share\dir\x.py"
        );
        // A share on `localhost` is not a local drive path.
        let uri = path_to_uri(r"\\localhost\share\x.py").unwrap();
        assert_eq!(uri, "file://localhost/share/x.py");
        assert_eq!(uri_to_path(&uri).unwrap(), r"\\localhost\share\x.py");
    }

    #[test]
    fn decodes_what_servers_send() {
        // vscode-uri (pyright, typescript-language-server) writes the colon
        // as `%3A` and the letter in lower case.
        assert_eq!(
            uri_to_path("file:///c%3A/Users/x.py").unwrap(),
            r"C:\Users\x.py"
        );
        assert_eq!(
            uri_to_path("file:///C:/a%20b/x.py").unwrap(),
            r"C:\a b\x.py"
        );
        assert_eq!(uri_to_path("file://localhost/C:/x").unwrap(), r"C:\x");
        assert_eq!(uri_to_path("file:///C:/x.py#L3").unwrap(), r"C:\x.py");
        assert_eq!(uri_to_path("file:///no/drive"), None);
        assert_eq!(uri_to_path("untitled:1"), None);
    }

    #[test]
    fn round_trips() {
        for p in [
            r"C:\Users\me\project\src\main.rs",
            r"E:\with space\[brackets]\@scope\x+y=z;a,b.ts",
            r"C:\ünïcödé 🙂\100%.py",
            r"\\nas\share\repo\a.go",
        ] {
            let uri = path_to_uri(p).unwrap();
            assert!(!uri.contains('\\') && !uri.contains(' '), "{uri}");
            assert_eq!(uri_to_path(&uri).unwrap(), p, "{uri}");
        }
    }

    #[test]
    fn verbatim_prefixes_are_dropped() {
        assert_eq!(strip_verbatim(r"\\?\C:\x"), r"C:\x");
        assert_eq!(strip_verbatim(r"\\?\UNC\srv\share\x"), r"\\srv\share\x");
        assert_eq!(strip_verbatim(r"C:\x"), r"C:\x");
    }
}
