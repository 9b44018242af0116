//! One warm engine per user: `sightline daemon` serves MCP on a private Unix
//! socket, `sightline mcp` bridges an agent's stdio to it and the CLI's
//! questions are its clients (unless `--no-daemon`), so that sessions and
//! calls on one root share their language servers.
//!
//! The path of a session: `bridge` (in the client's process) connects, or
//! starts the daemon and connects, and adds the client's [`Hello`] to the
//! MCP `initialize` request; `serve` (in the daemon) checks the peer's uid,
//! picks the engine for the hello's key (`engines`) and answers the session
//! with the same MCP server as `sightline mcp` in process.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub mod bridge;
pub mod call;
pub(crate) mod connect;
mod engines;
pub mod handshake;
pub mod log;
pub mod paths;
pub mod serve;
pub mod transport;

/// What can go wrong starting or reaching the daemon.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// A file system step failed.
    #[error("daemon: {0}")]
    Io(String),
    /// The runtime directory is not private to this user.
    #[error("daemon: refusing to use {0}")]
    Unsafe(String),
    /// No daemon answered in time.
    #[error("daemon: no daemon answered on {0} within {1} s")]
    Unreachable(String, u64),
    /// The running daemon has other settings ([`settings_env`]) than this
    /// client, those named; the client answers in process, and says so
    /// ([`other_settings_note`]).
    #[error("daemon: the running daemon has other settings ({})", .0.join(", "))]
    OtherSettings(Vec<String>),
}

/// The first line of an answer given in process because the running daemon
/// has other settings (`differ` names them): never a second set of servers
/// started without a word.
pub fn other_settings_note(differ: &[String]) -> String {
    // A daemon of an older build names none.
    let which = if differ.is_empty() {
        String::new()
    } else {
        format!(" ({})", differ.join(", "))
    };
    format!(
        "note: the running sightline daemon has other settings{which}; this answer comes from servers started for this call alone (`sightline daemon stop` lets the next client start a daemon with these)\n"
    )
}

/// What a client tells the daemon in `initialize`
/// (`capabilities.experimental.sightline`): where it works and how, so that
/// it gets a server only where the server would be identical.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hello {
    /// The client's workspace directory.
    pub root: Option<PathBuf>,
    /// Its sandbox mode, as named on the command line.
    pub sandbox: Option<String>,
    /// Whether it asked for the edit tools.
    pub edit_tools: bool,
    /// Its `PATH`: servers are looked up there first.
    pub path: Option<String>,
    /// Its `VIRTUAL_ENV`: Python servers use that environment's packages.
    #[serde(default)]
    pub virtual_env: Option<PathBuf>,
    /// The rest of its environment that servers see
    /// (`pool::env::SERVER_ENV`), unset ones as `None`.
    #[serde(default)]
    pub env: crate::pool::env::ServerEnv,
    /// Its build ([`build_id`]); a daemon of another build drains and exits.
    pub build: String,
    /// Only `sightline daemon status` or `stop`: any build may ask, and the
    /// daemon does not drain for it.
    #[serde(default)]
    pub control: bool,
    /// The client's [`settings_env`]: a daemon whose own differ refuses the
    /// session, and the client answers in process.
    #[serde(default)]
    pub settings: Vec<(String, Option<String>)>,
    /// Which of sightline's faces the client is (`mcp`, `cli`, `hook`),
    /// counted in `sightline daemon status`: the proof that an agent's MCP
    /// session and its hooks reached the same daemon.
    #[serde(default)]
    pub client: String,
    /// Whether the session is one call (a CLI command): nothing it answers
    /// can be named by a later call, so an edit's answer names no checkpoint
    /// and the text is the in-process command's, byte for byte.
    #[serde(default)]
    pub one_call: bool,
    /// The other folders its questions reach (`sightline mcp --folder`),
    /// besides the configuration's `workspace.folders`.
    #[serde(default)]
    pub folders: Vec<PathBuf>,
    /// The tool profile it asked for (`sightline mcp --tools`), if any.
    #[serde(default)]
    pub tools: Option<String>,
}

/// The settings that set what an engine does, as this process resolves
/// them (a client whose settings differ from the daemon's would silently
/// get the daemon's): the data
/// directory, the user configuration file, whether downloads are off, the
/// watch limit. Compared resolved, not as variables, so that a client with
/// no `XDG_*` variables (Codex starts its MCP servers with a cleared
/// environment) and the user's shell, whose `XDG_*` name the defaults,
/// meet in one daemon.
pub fn settings_env() -> Vec<(String, Option<String>)> {
    vec![
        (
            "data directory".to_owned(),
            Some(crate::files::data_dir().display().to_string()),
        ),
        (
            "user configuration".to_owned(),
            crate::config::user_file().map(|p| p.display().to_string()),
        ),
        (
            "downloads disabled".to_owned(),
            Some(crate::catalog::install::downloads_disabled().to_string()),
        ),
        (
            "SIGHTLINE_WATCH_LIMIT".to_owned(),
            std::env::var("SIGHTLINE_WATCH_LIMIT").ok(),
        ),
    ]
}

/// The variables that decide which daemon a client reaches and what its
/// servers see: an agent that starts MCP servers with a cleared
/// environment (Codex) is asked to pass these on (`setup codex` writes
/// them as `env_vars`), so that its MCP session reaches the daemon its
/// hooks and the user's shell reach, with the same settings.
pub fn client_vars() -> Vec<&'static str> {
    let mut vars = vec![
        "XDG_RUNTIME_DIR",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "SIGHTLINE_DATA_DIR",
        "SIGHTLINE_CONFIG",
        "SIGHTLINE_DAEMON",
        "SIGHTLINE_NO_DAEMON",
        "SIGHTLINE_DISABLE_LSP_DOWNLOAD",
        "SIGHTLINE_WATCH_LIMIT",
        crate::sandbox::child_env::PASS_ENV,
        "RUST_LOG",
        "VIRTUAL_ENV",
    ];
    vars.extend(crate::pool::env::SERVER_ENV);
    vars.extend(crate::sandbox::network_env::NETWORK_VARS);
    vars
}

/// The directories an agent CLI puts first on the `PATH` of what it starts:
/// its own helpers, never a language server. Codex 0.169.0 puts
/// `.../vendor/<target>/codex-path` (its `rg`) first for its hooks and its
/// MCP servers alike; with it kept, a Codex session's `PATH` differed from
/// the shell's, and the daemon started a second set of servers for it.
const AGENT_PATH_DIRS: &[&str] = &["codex-path"];

/// `path` without an agent CLI's own directories ([`AGENT_PATH_DIRS`]).
fn own_path(path: &str) -> String {
    std::env::split_paths(path)
        .filter(|d| {
            !d.file_name()
                .is_some_and(|n| AGENT_PATH_DIRS.iter().any(|a| n == *a))
        })
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(if cfg!(windows) { ";" } else { ":" })
}

/// The error data of a session refused for its settings.
pub const SETTINGS_DIFFER: &str = "settings";

impl Hello {
    /// This process as a `client` (`mcp`, `cli`, `hook`) working in
    /// `root`: its PATH and build.
    pub fn of_client(
        client: &str,
        root: Option<PathBuf>,
        sandbox: Option<String>,
        edit_tools: bool,
    ) -> Hello {
        Hello {
            root,
            sandbox,
            edit_tools,
            path: std::env::var("PATH").ok().map(|p| own_path(&p)),
            // Absolute, since the daemon's working directory is not ours.
            virtual_env: std::env::var_os("VIRTUAL_ENV")
                .filter(|v| !v.is_empty())
                .map(|v| std::path::absolute(PathBuf::from(&v)).unwrap_or_else(|_| v.into())),
            env: crate::pool::env::of_this_process(),
            build: build_id(),
            control: false,
            settings: settings_env(),
            client: client.to_owned(),
            one_call: false,
            folders: Vec::new(),
            tools: None,
        }
    }

    /// `sightline daemon status`/`stop`, and `servers` asking for the
    /// daemon's: no place of work, any build.
    pub fn control() -> Hello {
        Hello {
            root: None,
            sandbox: None,
            edit_tools: false,
            path: None,
            virtual_env: None,
            env: Vec::new(),
            build: build_id(),
            control: true,
            settings: Vec::new(),
            client: "control".to_owned(),
            one_call: false,
            folders: Vec::new(),
            tools: None,
        }
    }
}

/// The key under `capabilities.experimental`.
pub const HELLO_KEY: &str = "sightline";

/// This build's identity: the executable's size and modification time, so
/// that a rebuilt or upgraded binary never talks to an older daemon.
/// `SIGHTLINE_BUILD_ID` stands in for it (tests of version skew).
pub fn build_id() -> String {
    if let Some(id) = std::env::var_os("SIGHTLINE_BUILD_ID").filter(|v| !v.is_empty()) {
        return id.to_string_lossy().into_owned();
    }
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!(
                "{}-{}-{}.{}",
                env!("CARGO_PKG_VERSION"),
                m.len(),
                modified.as_secs(),
                modified.subsec_nanos()
            )
        }
        Err(_) => env!("CARGO_PKG_VERSION").to_owned(),
    }
}

/// Whether `SIGHTLINE_NO_DAEMON=1` (or `SIGHTLINE_DAEMON=0`) keeps every
/// server in process.
pub fn disabled_by_env() -> bool {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    set("SIGHTLINE_NO_DAEMON").is_some_and(|v| v != "0")
        || set("SIGHTLINE_DAEMON").is_some_and(|v| v == "0")
}
