//! Telling a failure that may be the sandbox at work: the denied path, when
//! the program's error names it.

/// A hint for a failure that may be the sandbox at work: the denied path,
/// when the program's error names it.
pub fn explain_denial(text: &str) -> Option<String> {
    // ASCII lowercasing keeps every byte offset, so `at` is an offset in
    // `text` too (full Unicode lowercasing can change lengths: `İ` grows).
    let lower = text.to_ascii_lowercase();
    let at = lower
        .find("permission denied")
        .or_else(|| lower.find("eacces"))
        .or_else(|| lower.find("operation not permitted"))?;
    let after = &text[at..];
    let path = after
        .split(|c: char| c == '\'' || c == '"' || c.is_whitespace())
        .find(|w| is_path(w))
        .or_else(|| {
            text[..at]
                .split(|c: char| c == '\'' || c == '"' || c.is_whitespace() || c == ':')
                .rev()
                .find(|w| is_path(w))
        });
    Some(match path {
        Some(p) => format!("the sandbox may have denied writing {p}"),
        None => "the sandbox may have denied a write outside the workspace".into(),
    })
}

/// An absolute path, not the rest of a URL (`https://...` split at `:`).
fn is_path(word: &str) -> bool {
    word.starts_with('/') && !word.starts_with("//")
}

#[cfg(test)]
mod tests {
    use super::explain_denial;

    #[test]
    fn a_denial_names_the_path_but_never_a_url() {
        assert_eq!(
            explain_denial("mkdir /home/u/.cache/x: Permission denied").as_deref(),
            Some("the sandbox may have denied writing /home/u/.cache/x")
        );
        // Biome: a bug-report URL above, the error without a path.
        let biome = "report it to https://github.com/biomejs/biome/issues/ along with\n\
                     Message: failed to create initial log file, kind: PermissionDenied, message: \"Permission denied\"";
        assert_eq!(
            explain_denial(biome).as_deref(),
            Some("the sandbox may have denied a write outside the workspace")
        );
        assert_eq!(explain_denial("connection refused"), None);
    }

    #[test]
    fn text_whose_lowercase_is_longer_does_not_panic() {
        // `İ` lowercases to two characters, so an offset found in a fully
        // lowercased copy lands inside a character of the original.
        let text = format!(
            "{}Permission denied{} /tmp/x",
            "İ".repeat(20),
            "é".repeat(10)
        );
        assert_eq!(
            explain_denial(&text).as_deref(),
            Some("the sandbox may have denied writing /tmp/x")
        );
    }
}
