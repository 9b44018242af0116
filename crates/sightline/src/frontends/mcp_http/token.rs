//! The bearer token every request to `sightline mcp --http` must carry: read
//! from `--token-file`, or made from the system's random source and kept in
//! the runtime directory (mode 0600) for this run.

use std::path::{Path, PathBuf};

/// The longest token file read.
const LARGEST: u64 = 4096;

/// A token, and the file it was generated into, if it was.
pub(crate) struct Token {
    pub(crate) secret: String,
    pub(crate) generated: Option<PathBuf>,
}

/// Removes the token file it holds when dropped: held by the server's own
/// future alone (its connections' tasks share the token, and a process
/// that exits does not wait for them), so the file goes when the server
/// stops.
pub(crate) struct RemovedOnStop(pub(crate) Option<PathBuf>);

impl Drop for RemovedOnStop {
    fn drop(&mut self) {
        if let Some(file) = &self.0 {
            let _ = std::fs::remove_file(file);
        }
    }
}

impl Token {
    /// The token in `file`: its first line, trimmed.
    pub(crate) fn read(file: &Path) -> Result<Self, String> {
        let meta = std::fs::metadata(file)
            .map_err(|e| format!("cannot read the token file {}: {e}", file.display()))?;
        if !meta.is_file() || meta.len() > LARGEST {
            return Err(format!(
                "the token file {} is not a regular file of at most {LARGEST} bytes",
                file.display()
            ));
        }
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read the token file {}: {e}", file.display()))?;
        let secret = text.lines().next().unwrap_or_default().trim().to_owned();
        if secret.len() < 16 || secret.chars().any(|c| !c.is_ascii_graphic()) {
            return Err(format!(
                "the token in {} must be at least 16 printable characters, without spaces",
                file.display()
            ));
        }
        Ok(Self {
            secret,
            generated: None,
        })
    }

    /// A new token of 32 random bytes (hex), written to `file` with mode
    /// 0600 before the server listens.
    pub(crate) fn generate(file: PathBuf) -> Result<Self, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random source for a token: {e}"))?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        write_private(&file, &secret)
            .map_err(|e| format!("cannot write the token to {}: {e}", file.display()))?;
        Ok(Self {
            secret,
            generated: Some(file),
        })
    }

    /// Whether an `Authorization` header's value carries this token, compared
    /// in time that does not depend on where they differ.
    pub(crate) fn admits(&self, authorization: Option<&[u8]>) -> bool {
        // The scheme's name is case-insensitive (RFC 7235).
        let Some(given) = authorization
            .filter(|a| a.len() > 7 && a[..7].eq_ignore_ascii_case(b"bearer "))
            .map(|a| &a[7..])
        else {
            return false;
        };
        let want = self.secret.as_bytes();
        if given.len() != want.len() {
            return false;
        }
        given
            .iter()
            .zip(want)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// Writes `text` to `file`, readable by its owner alone from its creation.
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = file.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&tmp)?;
    f.write_all(format!("{text}\n").as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let token = Token::generate(dir.path().join("t")).expect("a token");
        let good = format!("Bearer {}", token.secret);
        assert!(token.admits(Some(good.as_bytes())));
        assert!(!token.admits(None));
        let lower = format!("bearer {}", token.secret);
        assert!(
            token.admits(Some(lower.as_bytes())),
            "the scheme in any case"
        );
        assert!(!token.admits(Some(token.secret.as_bytes())), "no scheme");
        assert!(
            !token.admits(Some(&good.as_bytes()[..good.len() - 1])),
            "a prefix"
        );
        let mut wrong = good.clone().into_bytes();
        let last = wrong.len() - 1;
        wrong[last] = if wrong[last] == b'0' { b'1' } else { b'0' };
        assert!(!token.admits(Some(&wrong)));
    }

    #[cfg(unix)]
    #[test]
    fn a_generated_token_is_private_and_goes_with_the_server() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("t");
        let token = Token::generate(file.clone()).expect("a token");
        let mode = std::fs::metadata(&file)
            .expect("the file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(Token::read(&file).expect("read back").secret, token.secret);
        drop(RemovedOnStop(token.generated.clone()));
        assert!(
            !file.exists(),
            "the generated token file outlived the server"
        );
    }

    #[test]
    fn a_short_or_huge_token_file_is_one_error() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let short = dir.path().join("short");
        std::fs::write(&short, "abc\n").expect("write");
        assert!(
            Token::read(&short)
                .err()
                .expect("refused")
                .contains("at least 16")
        );
        let huge = dir.path().join("huge");
        std::fs::write(&huge, "a".repeat(5000)).expect("write");
        assert!(
            Token::read(&huge)
                .err()
                .expect("refused")
                .contains("at most 4096")
        );
    }
}
