//! The variables no child of sightline gets: an agent's and the user's
//! credentials. The shared daemon is started by whichever client comes
//! first (Claude Code's hook passed `ANTHROPIC_API_KEY` and
//! `CLAUDE_CODE_MESSAGING_TOKEN` on), and language servers run a project's
//! code and plugins (tsserver plugins, pyright's `.pth` files,
//! rust-analyzer's build scripts): a secret in their environment is a
//! secret handed to the repository. So the daemon is started without them,
//! and every server, formatter and installer is spawned without them too
//! (in process, with `--no-daemon`). A name the user lists in
//! `SIGHTLINE_PASS_ENV` (comma-separated) still passes (a private registry's
//! `NPM_TOKEN` for installs, say).

/// Exact names that are credentials.
const NAMES: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "HF_TOKEN"];
/// Name prefixes that are credentials or an agent's own settings.
const PREFIXES: &[&str] = &[
    "ANTHROPIC_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_API_",
    "CLAUDE_CODE_",
    "CODEX_",
    "AWS_",
    "AZURE_OPENAI_",
];
/// Name endings that are credentials.
const SUFFIXES: &[&str] = &[
    "_KEY",
    "_API_KEY",
    "_TOKEN",
    "_SECRET",
    "_SECRET_KEY",
    "_PASSWORD",
    "_ACCESS_KEY",
    "_PRIVATE_KEY",
];

/// The variable whose comma-separated names pass despite the rule.
pub const PASS_ENV: &str = "SIGHTLINE_PASS_ENV";

/// Whether `name` is a credential no child gets (case as written: the
/// rule's names are upper case, as such variables are).
pub fn is_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    NAMES.contains(&upper.as_str())
        || PREFIXES.iter().any(|p| upper.starts_with(p))
        || SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// The credentials in this process's environment, but those the user lets
/// pass: the names to remove from a child's.
pub fn present() -> Vec<String> {
    let passed: Vec<String> = std::env::var(PASS_ENV)
        .unwrap_or_default()
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| is_credential(k) && !passed.contains(k))
        .collect()
}

/// Removes [`present`] from a command's environment.
pub fn remove_from(cmd: &mut std::process::Command) {
    for name in present() {
        cmd.env_remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_keys_and_tokens_are_credentials_and_paths_are_not() {
        for name in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "CLAUDE_CODE_MESSAGING_TOKEN",
            "GEMINI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "MY_SERVICE_PASSWORD",
            "CODEX_HOME",
        ] {
            assert!(is_credential(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "HTTPS_PROXY",
            "NODE_EXTRA_CA_CERTS",
            "SSL_CERT_FILE",
            "VIRTUAL_ENV",
            "TOKENIZERS_PARALLELISM",
        ] {
            assert!(!is_credential(name), "{name}");
        }
    }
}
