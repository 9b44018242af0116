//! Configuration: JSONC files (`lsp`, `formatter` and the other keys the
//! docs/configuration.md lists), the user file
//! (`$XDG_CONFIG_HOME/sightline/config.json[c]`, or `$SIGHTLINE_CONFIG`)
//! under the project file (the nearest `sightline.json[c]` above a file,
//! `project_dir`), every
//! value remembered with the file and line it came from. Every invalid shape
//! is a one-line error naming the file and line.
//!
//! Commands named by a project file run only when the project is trusted
//! (`sightline trust DIR`): a cloned repository must not choose what runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Why a configuration file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid JSONC, or a value has the wrong shape.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// The file exists but cannot be read.
    #[error("cannot read {file}: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// Why it cannot be read.
        message: String,
    },
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Not set in any file: the default.
    Default,
    /// A line of a configuration file.
    File {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
    },
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => write!(f, "default"),
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
        }
    }
}

/// One `lsp` entry.
#[derive(Debug, Clone, Default)]
pub struct LspEntry {
    /// Turned off.
    pub disabled: bool,
    /// The program and its arguments; without it, a built-in keeps its discovery and install.
    pub command: Option<Vec<String>>,
    /// The extensions it serves (a custom server needs them).
    pub extensions: Option<Vec<String>>,
    /// Variables set for the server.
    pub env: BTreeMap<String, String>,
    /// `initializationOptions`, merged over the built-in ones.
    pub initialization: Option<Map<String, Value>>,
    /// The settings the server is answered when it asks for its
    /// configuration (`workspace/configuration`, by section), merged over
    /// the built-in ones; the files' objects merge deeply.
    pub settings: Option<Map<String, Value>>,
    /// Lets the server open internet sockets (or, `false`, refuses them).
    pub network: Option<bool>,
    /// Budget overrides in milliseconds, by `Budgets` field name.
    pub diagnostics: BTreeMap<String, u64>,
    /// Where the entry (its key) is written.
    pub origin: Option<Origin>,
    /// Whether it came from a project file (its command needs trust).
    pub from_project: bool,
}

/// The merged configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `false` turns every server off.
    pub lsp_enabled: bool,
    /// Where `lsp` was set.
    pub lsp_origin: Origin,
    /// The `lsp` entries, by server id.
    pub servers: BTreeMap<String, LspEntry>,
    /// `false` stops sightline installing servers.
    pub autoinstall: Option<bool>,
    /// Serve the edit tools over MCP.
    pub edit_tools: bool,
    /// `edit` formats only the lines it touched.
    pub format_range: bool,
    /// The edit tools list only the errors an edit introduced, with counts
    /// of those it fixed and those already there (default); `false` lists
    /// every error.
    pub edit_delta: bool,
    /// The edit tools also list the warnings an edit introduced.
    pub edit_warnings: bool,
    /// 0 turns off the check of the files that use what an edit changes;
    /// otherwise the least time it may take (it goes on while their
    /// servers work, up to the ceiling of a server's waits).
    pub dependents_ms: u64,
    /// How many packages of a monorepo a question may load into a server
    /// at once (`workspace.max_packages`); the rest are named in a note.
    pub max_packages: usize,
    /// The user's other folders, whose packages a question reaches as the
    /// workspace's own (`workspace.folders`, user file only, and `sightline
    /// mcp --folder`).
    pub folders: Vec<PathBuf>,
    /// What the before-edit hook does with an agent's edit that would add
    /// errors (`agent.new_errors`, user file only).
    pub agent_new_errors: NewErrors,
    /// The tools an MCP session lists, by name (`mcp.tools`, user file
    /// only); none: the profile's (`--tools`, else `default`).
    pub mcp_tools: Option<Vec<String>>,
    /// Run children unsandboxed where Landlock is missing, instead of refusing.
    pub allow_unsandboxed: bool,
    /// The sandbox mode as written (`workspace-write`, `read-only`, `danger-full-access`).
    pub sandbox: Option<String>,
    /// Directories `workspace-write` lets sightline and its children write
    /// besides the workspace (user file only).
    pub writable_roots: Vec<PathBuf>,
    /// The user's network and certificate settings every child gets
    /// (user file only; `sandbox::network_env`).
    pub network_env: Vec<(String, String)>,
    /// The `formatter` section, kept for the formatter runner.
    pub formatter: Value,
    /// `false` turns every formatter off.
    pub formatters_enabled: bool,
    /// The `formatter` entries, by key.
    pub formatters: BTreeMap<String, FormatterEntry>,
    /// Every leaf value with its origin, for `sightline config`.
    pub values: BTreeMap<String, (Value, Origin)>,
    /// The project directory, when a project file was read.
    pub project: Option<PathBuf>,
    /// Whether the project's directory is trusted (`sightline trust`).
    pub trusted: bool,
    /// The files read, user file first.
    pub files: Vec<PathBuf>,
    /// Keys of an untrusted project file that were dropped, each with where
    /// it is written (see `trust`).
    pub ignored: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            lsp_enabled: true,
            lsp_origin: Origin::Default,
            servers: BTreeMap::new(),
            autoinstall: None,
            edit_tools: false,
            format_range: false,
            edit_delta: true,
            edit_warnings: false,
            dependents_ms: 5000,
            max_packages: 40,
            folders: Vec::new(),
            agent_new_errors: NewErrors::Tell,
            mcp_tools: None,
            allow_unsandboxed: false,
            sandbox: None,
            writable_roots: Vec::new(),
            network_env: Vec::new(),
            formatter: Value::Null,
            formatters_enabled: true,
            formatters: BTreeMap::new(),
            values: BTreeMap::new(),
            project: None,
            trusted: false,
            files: Vec::new(),
            ignored: Vec::new(),
        }
    }
}

/// What the before-edit hook does with an agent's edit that would add
/// errors (`"agent": {"new_errors": ...}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NewErrors {
    /// Let it through and tell the agent the new errors after it lands.
    #[default]
    Tell,
    /// Deny it, with the new errors as the reason, when its preview
    /// finishes within the hook's budget.
    Deny,
}

impl Config {
    /// How far a question about a symbol reaches: the package budget and
    /// the user's other folders.
    pub(crate) fn reach(&self) -> Reach<'_> {
        Reach {
            budget: self.max_packages,
            folders: &self.folders,
        }
    }

    /// What the runner needs of the `formatter` settings. A project file's
    /// formatter commands run only when the project is trusted (or there is
    /// no project file).
    pub fn formatting(&self) -> crate::format::Settings {
        crate::format::Settings {
            enabled: self.formatters_enabled,
            entries: self.formatters.clone(),
            trusted: self.trusted || self.project.is_none(),
        }
    }
}

/// How far a question about a symbol reaches beyond its package: at most
/// `budget` other packages, those of the workspace and of the user's other
/// `folders` (`engine::packages`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reach<'a> {
    pub budget: usize,
    pub folders: &'a [PathBuf],
}

const ENTRY_KEYS: &[&str] = &[
    "disabled",
    "command",
    "extensions",
    "env",
    "initialization",
    "settings",
    "diagnostics",
    "network",
];
const BUDGET_KEYS: &[&str] = &[
    "document_ms",
    "pull_ms",
    "push_quiet_ms",
    "ready_ms",
    "ceiling_ms",
    "full_ms",
    "initialize_ms",
    "request_ms",
];
const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "danger-full-access"];

/// The user configuration file, if one exists.
pub fn user_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SIGHTLINE_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let dir = dirs::config_dir()?.join("sightline");
    ["config.jsonc", "config.json"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// The project file in `dir`, if one exists.
pub fn project_file(dir: &Path) -> Option<PathBuf> {
    ["sightline.jsonc", "sightline.json"]
        .iter()
        .map(|n| dir.join(n))
        // Anything there but a directory: a link to a device or a FIFO is
        // the project's file too, and its read says why it cannot be one.
        .find(|p| p.symlink_metadata().is_ok_and(|m| !m.is_dir()) && !p.is_dir())
}

/// The project whose configuration applies at `start` (a directory): the
/// nearest one, `start` itself or above it, that holds a project file.
/// Every face asks this of each file's directory, so that a file's answers
/// follow its own project's `sightline.json` whatever the working directory.
pub fn project_dir(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| project_file(d).is_some())
        .map(sightline_lsp::normalize)
}

/// A fingerprint of `config` and of whether its programs may run: engines
/// whose fingerprints are equal would start identical servers.
pub fn fingerprint(config: &Config, trusted_root: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{config:?}").hash(&mut h);
    trusted_root.hash(&mut h);
    h.finish()
}

mod entries;
mod folders;
mod keys;
mod parse;
mod resolve;
mod schema;
mod trust;

pub use crate::format::FormatterEntry;
pub use crate::project::{is_trusted, set_trusted, trust_in_process};
pub use folders::folder_refused;
pub use resolve::{Resolved, ServerSettings};

/// `over` merged into `base`: objects key by key, all the way down; any
/// other value replaces.
pub fn merge_deep(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge_deep(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}
pub use keys::schema;

#[cfg(test)]
mod tests;
