//! The JSON Schema of configuration files (`sightline schema`).

use serde_json::Value;

/// The JSON Schema of a configuration file.
pub fn schema() -> Value {
    serde_json::to_value(schemars::schema_for!(shape::ConfigFile)).unwrap_or(Value::Null)
}

/// Types that exist only to describe the files' shape to `schemars`.
mod shape {
    #![allow(dead_code)]
    use std::collections::BTreeMap;

    use schemars::JsonSchema;

    /// A sightline configuration file: `sightline.json[c]` at a project root,
    /// or the user's `~/.config/sightline/config.json[c]`.
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ConfigFile {
        #[serde(rename = "$schema")]
        schema: Option<String>,
        /// Language servers: `true` (the default) enables the built-ins,
        /// `false` disables all, an object enables the built-ins plus the
        /// entries it holds.
        lsp: Option<Lsp>,
        /// Formatters: `true`, `false`, or an object of overrides.
        formatter: Option<serde_json::Value>,
        /// Where child processes and the edit tools may write:
        /// `workspace-write` (default), `read-only` or `danger-full-access`.
        sandbox: Option<Sandbox>,
        /// Whether sightline installs missing servers (npm, PyPI, toolchains).
        autoinstall: Option<bool>,
        /// Serve the edit tools (read, write, edit, apply_patch) over MCP.
        edit_tools: Option<bool>,
        /// Make `edit` format only the lines it touched.
        format_range: Option<bool>,
        /// (User file only.) Run children unsandboxed where Landlock is
        /// missing, instead of refusing to start them.
        allow_unsandboxed: Option<bool>,
        /// (User file only.) Absolute directories that `workspace-write`
        /// also lets sightline's edit tools and its children write, beside
        /// the workspace.
        writable_roots: Option<Vec<String>>,
    }

    #[derive(JsonSchema)]
    #[serde(untagged)]
    pub enum Lsp {
        All(bool),
        Servers(BTreeMap<String, Entry>),
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum Sandbox {
        WorkspaceWrite,
        ReadOnly,
        DangerFullAccess,
    }

    /// A built-in server's override, or a custom server (which needs
    /// `command` and `extensions`).
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Entry {
        /// Turns the server off.
        disabled: Option<bool>,
        /// The program and its arguments. Without it, a built-in keeps its own
        /// discovery and install. From a project file it runs only once the
        /// project is trusted (`sightline trust DIR`).
        #[schemars(length(min = 1))]
        command: Option<Vec<String>>,
        /// File extensions with their dot, such as `.foo`.
        #[schemars(length(min = 1))]
        extensions: Option<Vec<String>>,
        /// Environment variables added to the server's. From a project file
        /// they apply only once the project is trusted.
        env: Option<BTreeMap<String, String>>,
        /// Merged over the built-in `initializationOptions`. From an untrusted
        /// project file, settings that name a program, a path or a plugin
        /// are ignored.
        initialization: Option<serde_json::Map<String, serde_json::Value>>,
        /// Wait budgets in milliseconds.
        diagnostics: Option<Budgets>,
        /// Lets the server open internet sockets (off for every built-in
        /// but rust and gopls, whose build tools download dependencies).
        /// From a project file it applies only once the project is trusted.
        network: Option<bool>,
    }

    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Budgets {
        /// How long a diagnostics call waits for fresh results (5000).
        document_ms: Option<u64>,
        /// How long one pull may take (3000).
        pull_ms: Option<u64>,
        /// Quiet time after an unversioned push (150).
        push_quiet_ms: Option<u64>,
        /// How long a cross-file question waits for indexing (10000).
        ready_ms: Option<u64>,
        /// How long a whole-workspace check may take (10000).
        full_ms: Option<u64>,
        /// Timeout of `initialize` (45000).
        initialize_ms: Option<u64>,
        /// Timeout of other requests (30000).
        request_ms: Option<u64>,
    }
}
