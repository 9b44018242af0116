//! The environment every child of sightline gets, by an allow-list: the
//! daemon, language servers, formatters and installers see what they need
//! to find their toolchains and the network (`PATH`, `HOME`, the locale,
//! the temporary and XDG directories, the toolchains' own variables, the
//! proxies, certificate files, registries and npm fetch settings of
//! `network_env`) and nothing else. The
//! shared daemon is started by whichever client comes first (Claude Code's
//! hook passes `ANTHROPIC_API_KEY` on; a shell holds `DATABASE_URL`,
//! `SSH_AUTH_SOCK`), and language servers run a project's code and plugins
//! (tsserver plugins, pyright's `.pth` files, rust-analyzer's build
//! scripts): whatever is in their environment is handed to the repository.
//! A name the user lists in `SIGHTLINE_PASS_ENV` (comma-separated) still
//! passes (a private registry's `NPM_TOKEN` for installs, say).
//!
//! Even an allowed name is refused when it looks like a credential
//! (`CARGO_REGISTRIES_X_TOKEN` under `CARGO_`) or its value carries one (a
//! proxy URL with a password).

/// Exact names a child may get.
const NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TERM",
    "NO_COLOR",
    "SOURCE_DATE_EPOCH",
    "VIRTUAL_ENV",
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "DYLD_FALLBACK_LIBRARY_PATH",
    "JAVA_HOME",
    "NODE_PATH",
    "NODE_OPTIONS",
    "PNPM_HOME",
    "VOLTA_HOME",
    "N_PREFIX",
    "NVM_DIR",
    "BUN_INSTALL",
    "DENO_DIR",
    "GEM_HOME",
    "GEM_PATH",
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "LIBRARY_PATH",
    "PKG_CONFIG_PATH",
    "CC",
    "CXX",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTFLAGS",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "VSCODE_EXTENSIONS",
    // Windows: where a program finds itself, its profile and its shell.
    "SystemRoot",
    "SYSTEMROOT",
    "windir",
    "ComSpec",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "USERNAME",
    "ProgramFiles",
    "ProgramFiles(x86)",
    "ProgramData",
];

/// Name prefixes a child may get: the locale, the XDG directories, the
/// toolchains' own settings, and sightline's.
const PREFIXES: &[&str] = &[
    "LC_",
    "XDG_",
    "SIGHTLINE_",
    "PYTHON",
    "CONDA_",
    "PYENV_",
    "UV_",
    "PIP_",
    "POETRY_",
    "GO",
    "CGO_",
    "CARGO_",
    "RUSTUP_",
    "COREPACK_",
    "DOTNET_",
    "MAVEN_",
    "GRADLE_",
    "ANDROID_",
    "ZIG_",
];

/// Name endings that are credentials, refused even under an allowed
/// prefix.
const SECRET_SUFFIXES: &[&str] = &[
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_PASSWD",
    "_PWD",
    "_JWT",
    "_DSN",
    "_AUTH",
    "_AUTHTOKEN",
    "_CREDENTIALS",
];

/// The variable whose comma-separated names pass despite the rule.
pub const PASS_ENV: &str = "SIGHTLINE_PASS_ENV";

/// Whether a child may get `name` by the allow-list (its value is judged
/// apart, [`value_allowed`]).
pub fn name_allowed(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let listed = NAMES.contains(&name)
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || super::network_env::allowed(name);
    listed && !SECRET_SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// Whether a child may get `value`: no credential in it (a URL's
/// `user:password@`, a token in its query).
pub fn value_allowed(value: &str) -> bool {
    !super::network_env::holds_credential(value)
}

/// The names `SIGHTLINE_PASS_ENV` lets through.
fn passed() -> Vec<String> {
    std::env::var(PASS_ENV)
        .unwrap_or_default()
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The variables of this process no child gets: every one the allow-list
/// does not name, or whose value carries a credential, but those the user
/// lets pass.
pub fn refused() -> Vec<String> {
    let passed = passed();
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
        .filter(|(k, v)| {
            let v = v.to_string_lossy();
            let kept = passed.contains(k)
                || (name_allowed(k) && value_allowed(&v) && super::network_env::value_fits(k, &v));
            !kept
        })
        .map(|(k, _)| k)
        .collect()
}

/// Removes [`refused`] from a command's environment: what is left is what
/// the allow-list names.
pub fn restrict(cmd: &mut std::process::Command) {
    for name in refused() {
        cmd.env_remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_toolchain_needs_is_allowed_and_no_credential_under_it() {
        for name in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "CLAUDE_CODE_MESSAGING_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DATABASE_URL",
            "PGPASSWORD",
            "SSH_AUTH_SOCK",
            "MYSQL_PWD",
            "REDIS_URL",
            "npm_config__authToken",
            "SENTRY_DSN",
            "SLACK_WEBHOOK_URL",
            "DOCKER_AUTH_CONFIG",
            "CI_JOB_JWT",
            "CARGO_REGISTRIES_MINE_TOKEN",
            "PIP_PASSWORD",
            "CODEX_HOME",
        ] {
            assert!(!name_allowed(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TMPDIR",
            "XDG_CACHE_HOME",
            "HTTPS_PROXY",
            "NODE_EXTRA_CA_CERTS",
            "SSL_CERT_FILE",
            "VIRTUAL_ENV",
            "PYTHONPATH",
            "GOPATH",
            "CARGO_HOME",
            "RUSTUP_TOOLCHAIN",
            "SIGHTLINE_DATA_DIR",
        ] {
            assert!(name_allowed(name), "{name}");
        }
        assert!(!value_allowed("http://me:secret@proxy:3128"));
        assert!(!value_allowed("me:secret@proxy:3128"));
        assert!(!value_allowed("https://registry.example/simple?token=abc"));
        assert!(value_allowed("http://proxy:3128"));
        assert!(value_allowed("/usr/local/share/ca.pem"));
    }
}
