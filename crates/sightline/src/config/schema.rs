//! The shapes of the configuration's values, described to `schemars`: the
//! JSON Schema of a file (`sightline schema`) is the key table's
//! (`config::keys`), each key's value one of these.

/// Types that exist only to describe the files' shape to `schemars`.
pub(super) mod shape {
    #![allow(dead_code)]
    use std::collections::BTreeMap;

    use schemars::JsonSchema;

    /// `mcp`: what an MCP session lists.
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Mcp {
        /// The tools, by name.
        tools: Option<Vec<String>>,
    }

    /// `agent`: the policy for agents' own edits.
    #[derive(JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Agent {
        /// `tell` (default): the edit lands and its new errors are told
        /// after; `deny`: the before-edit hook previews the edit and denies
        /// it, with its new errors as the reason, when it would add any.
        new_errors: Option<NewErrors>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum NewErrors {
        Tell,
        Deny,
    }

    /// `workspace`: the packages of a monorepo.
    #[derive(JsonSchema)]
    pub struct Workspace {
        /// Globs of package directories, from the file's directory
        /// (`packages/*`).
        packages: Option<Vec<String>>,
        /// Globs of directories that are not packages.
        exclude: Option<Vec<String>>,
        /// How many packages a question may load into one server at once
        /// (default 40); the packages past it are named in a note.
        max_packages: Option<u64>,
        /// Other directories (absolute) whose packages references, rename,
        /// move, impact and the edit check reach as the workspace's own: a
        /// library's consumer checked out beside it (user file only).
        folders: Option<Vec<String>>,
    }

    #[derive(JsonSchema)]
    #[serde(untagged)]
    pub enum Lsp {
        All(bool),
        Servers(Box<Servers>),
    }

    /// Entries by server id; the servers whose settings are known have them
    /// described, the rest take any settings object.
    #[derive(JsonSchema)]
    pub struct Servers {
        pyright: Option<Entry<super::known::Pyright>>,
        basedpyright: Option<Entry<super::known::Pyright>>,
        #[serde(rename = "yaml-ls")]
        yaml_ls: Option<Entry<super::known::Yaml>>,
        eslint: Option<Entry<super::known::Eslint>>,
        gopls: Option<Entry<super::known::Gopls>>,
        rust: Option<Entry<super::known::RustAnalyzer>>,
        #[serde(flatten)]
        others: BTreeMap<String, Entry>,
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
    pub struct Entry<S = serde_json::Map<String, serde_json::Value>> {
        /// What the server is answered when it asks for its configuration
        /// (`workspace/configuration`), by dotted section, merged over the
        /// built-in answers. An edit is picked up at the next question: the
        /// server is told (`workspace/didChangeConfiguration`). From an
        /// untrusted project file, settings that name a program or a path
        /// are ignored.
        settings: Option<S>,
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
        /// Lets the server open internet sockets (off for every built-in;
        /// turn it on for a rust or gopls whose build tools must download
        /// dependencies).
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
        /// How long in all a wait may go on past its budget while the
        /// server visibly works (120000).
        ceiling_ms: Option<u64>,
        /// How long a whole-workspace check may take (10000).
        full_ms: Option<u64>,
        /// Timeout of `initialize` (45000).
        initialize_ms: Option<u64>,
        /// Timeout of other requests (30000).
        request_ms: Option<u64>,
    }
}

/// The settings of the servers whose options are known, as their own
/// documentation names them; keys not listed here still pass through.
mod known {
    #![allow(dead_code)]
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde_json::Value;

    /// pyright and basedpyright: the `python` and `pyright` sections.
    #[derive(JsonSchema)]
    pub struct Pyright {
        python: Option<PyrightPython>,
        pyright: Option<PyrightOwn>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct PyrightPython {
        /// The interpreter whose packages are resolved (default: the
        /// project's `.venv`, or the client's `VIRTUAL_ENV`).
        python_path: Option<String>,
        analysis: Option<PyrightAnalysis>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct PyrightAnalysis {
        /// `off`, `basic`, `standard`, `strict` or `all`.
        type_checking_mode: Option<String>,
        /// Rule name to `none`, `information`, `warning` or `error`, such as
        /// `{ "reportMissingImports": "none" }`.
        diagnostic_severity_overrides: Option<BTreeMap<String, Value>>,
        /// More directories imports are resolved in.
        extra_paths: Option<Vec<String>>,
        /// Where custom stubs are.
        stub_path: Option<String>,
        /// `openFilesOnly` or `workspace`.
        diagnostic_mode: Option<String>,
        use_library_code_for_types: Option<bool>,
        auto_search_paths: Option<bool>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct PyrightOwn {
        /// Leave import organizing to another tool.
        disable_organize_imports: Option<bool>,
    }

    /// yaml-language-server: the `yaml` section.
    #[derive(JsonSchema)]
    pub struct Yaml {
        yaml: Option<YamlOwn>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct YamlOwn {
        /// Schema URL or path to the globs of the files it validates, such
        /// as `{ "./schema.json": "config/*.yaml" }`.
        schemas: Option<BTreeMap<String, Value>>,
        validate: Option<bool>,
        hover: Option<bool>,
        completion: Option<bool>,
        /// Custom tags, such as `!Ref scalar`.
        custom_tags: Option<Vec<String>>,
        /// Fetch schemas from the schema store (needs the network).
        schema_store: Option<Value>,
    }

    /// vscode-eslint's server: its settings object.
    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Eslint {
        /// `true` to lint, `false` to turn it off.
        validate: Option<Value>,
        /// `onType` or `onSave`.
        run: Option<String>,
        /// Where ESLint runs: `{ "mode": "auto" }`, `{ "mode": "location" }`
        /// or a directory.
        working_directory: Option<Value>,
        /// Options passed to the ESLint class.
        options: Option<Value>,
        /// Change rules' severities: `[{ "rule": "no-*", "severity": "warn" }]`.
        rules_customizations: Option<Vec<Value>>,
        /// Use the flat config (`eslint.config.js`).
        use_flat_config: Option<bool>,
    }

    /// gopls: the `gopls` section.
    #[derive(JsonSchema)]
    pub struct Gopls {
        gopls: Option<GoplsOwn>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct GoplsOwn {
        /// Flags for `go build`, such as `["-tags=integration"]`.
        build_flags: Option<Vec<String>>,
        /// Variables for the go command.
        env: Option<BTreeMap<String, String>>,
        /// Include and exclude directories: `["-node_modules", "+vendor"]`.
        directory_filters: Option<Vec<String>>,
        /// Analyzers turned on or off by name.
        analyses: Option<BTreeMap<String, bool>>,
        staticcheck: Option<bool>,
        gofumpt: Option<bool>,
    }

    /// rust-analyzer: the `rust-analyzer` section.
    #[derive(JsonSchema)]
    pub struct RustAnalyzer {
        #[serde(rename = "rust-analyzer")]
        rust_analyzer: Option<RustAnalyzerOwn>,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct RustAnalyzerOwn {
        /// `cargo` options: `features`, `allTargets`, `target`, `extraEnv`.
        cargo: Option<Value>,
        /// The check on save: `{ "command": "clippy" }`.
        check: Option<Value>,
        /// Proc-macro expansion: `{ "enable": true }`.
        proc_macro: Option<Value>,
        /// Files and directories excluded from the workspace.
        files: Option<Value>,
    }
}
