//! Configuration: JSONC files in the reference agent's shape, the user file
//! (`$XDG_CONFIG_HOME/sightline/config.json[c]`, or `$SIGHTLINE_CONFIG`)
//! under the project file (`sightline.json[c]` at the workspace root), every
//! value remembered with the file and line it came from. Every invalid shape
//! is a one-line error naming the file and line.
//!
//! Commands named by a project file run only when the project is trusted
//! (`sightline trust DIR`): a cloned repository must not choose what runs.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use jsonc_parser::ast;
use serde_json::{Map, Value, json};

use crate::registry::{self, Budgets, Role, ServerSpec};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid JSONC, or a value has the wrong shape.
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
    #[error("cannot read {file}: {message}")]
    Unreadable { file: String, message: String },
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    File { path: PathBuf, line: usize },
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
    pub disabled: bool,
    pub command: Option<Vec<String>>,
    pub extensions: Option<Vec<String>>,
    pub env: BTreeMap<String, String>,
    pub initialization: Option<Map<String, Value>>,
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
    pub lsp_origin: Origin,
    pub servers: BTreeMap<String, LspEntry>,
    /// `false` stops sightline installing servers.
    pub autoinstall: Option<bool>,
    /// Serve the edit tools over MCP.
    pub edit_tools: bool,
    /// `edit` formats only the lines it touched.
    pub format_range: bool,
    /// Run children unsandboxed where Landlock is missing, instead of refusing.
    pub allow_unsandboxed: bool,
    pub sandbox: Option<String>,
    /// The `formatter` section, kept for the formatter runner.
    pub formatter: Value,
    /// `false` turns every formatter off.
    pub formatters_enabled: bool,
    pub formatters: BTreeMap<String, FormatterEntry>,
    /// Every leaf value with its origin, for `sightline config`.
    pub values: BTreeMap<String, (Value, Origin)>,
    /// The project directory, when a project file was read.
    pub project: Option<PathBuf>,
    pub trusted: bool,
    pub files: Vec<PathBuf>,
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
            allow_unsandboxed: false,
            sandbox: None,
            formatter: Value::Null,
            formatters_enabled: true,
            formatters: BTreeMap::new(),
            values: BTreeMap::new(),
            project: None,
            trusted: false,
            files: Vec::new(),
        }
    }
}

const TOP_KEYS: &[&str] = &[
    "$schema",
    "lsp",
    "formatter",
    "sandbox",
    "autoinstall",
    "edit_tools",
    "format_range",
    "allow_unsandboxed",
];
const ENTRY_KEYS: &[&str] = &[
    "disabled",
    "command",
    "extensions",
    "env",
    "initialization",
    "diagnostics",
];
const BUDGET_KEYS: &[&str] = &[
    "document_ms",
    "pull_ms",
    "push_quiet_ms",
    "ready_ms",
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
        .find(|p| p.is_file())
}

/// The file listing trusted project directories.
fn trust_file() -> PathBuf {
    crate::install::data_dir().join("trusted-projects")
}

/// Whether `dir` has been trusted with `sightline trust`.
pub fn is_trusted(dir: &Path) -> bool {
    let dir = sightline_lsp::uri::normalize(dir);
    std::fs::read_to_string(trust_file()).is_ok_and(|t| t.lines().any(|l| Path::new(l) == dir))
}

/// Trusts (or, with `trust = false`, stops trusting) the project in `dir`.
pub fn set_trusted(dir: &Path, trust: bool) -> std::io::Result<PathBuf> {
    let dir = sightline_lsp::uri::normalize(dir);
    let path = trust_file();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| Path::new(l) != dir)
        .map(str::to_owned)
        .collect();
    if trust {
        lines.push(dir.display().to_string());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, lines.join("\n") + "\n")?;
    std::fs::rename(&tmp, &path)?;
    Ok(dir)
}

impl Config {
    /// Reads the user file and the project file of `workspace`.
    pub fn load(workspace: Option<&Path>) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        if let Some(user) = user_file() {
            config.merge_file(&user, false)?;
        }
        if let Some(ws) = workspace
            && let Some(project) = project_file(ws)
        {
            config.project = Some(sightline_lsp::uri::normalize(ws));
            config.trusted = is_trusted(ws);
            config.merge_file(&project, true)?;
        }
        Ok(config)
    }

    /// Reads one file over what is there.
    pub fn merge_file(&mut self, path: &Path, project: bool) -> Result<(), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
            file: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.merge_text(path, &text, project)
    }

    pub fn merge_text(
        &mut self,
        path: &Path,
        text: &str,
        project: bool,
    ) -> Result<(), ConfigError> {
        self.files.push(path.to_owned());
        let file = File { path, text };
        let parsed = jsonc_parser::parse_to_ast(
            text,
            &jsonc_parser::CollectOptions::default(),
            &jsonc_parser::ParseOptions::default(),
        )
        .map_err(|e| ConfigError::Invalid {
            file: path.display().to_string(),
            line: e.line_display(),
            message: e.kind().to_string(),
        })?;
        let Some(root) = parsed.value else {
            return Ok(());
        };
        let ast::Value::Object(obj) = &root else {
            return Err(file.error(root_range(&root), "the configuration must be an object"));
        };
        for prop in &obj.properties {
            let key = prop.name.as_str();
            match key {
                "$schema" => {}
                "lsp" => self.merge_lsp(&file, &prop.value, project)?,
                "autoinstall" => {
                    let v = bool_of(&file, &prop.value, "\"autoinstall\" must be true or false")?;
                    self.autoinstall = Some(v);
                    self.record("autoinstall", json!(v), file.origin(prop.range));
                }
                "allow_unsandboxed" => {
                    let v = bool_of(
                        &file,
                        &prop.value,
                        "\"allow_unsandboxed\" must be true or false",
                    )?;
                    // A cloned repository must not switch the sandbox off.
                    if project {
                        return Err(file.error(
                            prop.range,
                            "\"allow_unsandboxed\" may only be set in the user configuration",
                        ));
                    }
                    self.allow_unsandboxed = v;
                    self.record("allow_unsandboxed", json!(v), file.origin(prop.range));
                }
                "format_range" => {
                    let v = bool_of(&file, &prop.value, "\"format_range\" must be true or false")?;
                    self.format_range = v;
                    self.record("format_range", json!(v), file.origin(prop.range));
                }
                "edit_tools" => {
                    let v = bool_of(&file, &prop.value, "\"edit_tools\" must be true or false")?;
                    self.edit_tools = v;
                    self.record("edit_tools", json!(v), file.origin(prop.range));
                }
                "sandbox" => {
                    let v = match &prop.value {
                        ast::Value::StringLit(s) if SANDBOX_MODES.contains(&s.value.as_ref()) => {
                            s.value.to_string()
                        }
                        other => {
                            return Err(file.error(
                                root_range(other),
                                &format!("\"sandbox\" must be one of {}", SANDBOX_MODES.join(", ")),
                            ));
                        }
                    };
                    self.record("sandbox", json!(v), file.origin(prop.range));
                    self.sandbox = Some(v);
                }
                "formatter" => {
                    let v = to_json(&prop.value);
                    match &prop.value {
                        ast::Value::BooleanLit(b) => self.formatters_enabled = b.value,
                        ast::Value::Object(obj) => {
                            self.formatters_enabled = true;
                            for p in &obj.properties {
                                let name = p.name.as_str().to_owned();
                                let entry = self.formatters.entry(name.clone()).or_default();
                                parse_formatter(&file, &name, &p.value, entry)?;
                                entry.from_project |= project;
                                entry.origin = Some(file.origin(p.range));
                                let custom = crate::formatter::builtin(&name).is_none();
                                if custom
                                    && !entry.disabled
                                    && (entry.command.is_none() || entry.extensions.is_none())
                                {
                                    return Err(file.error(
                                        p.range,
                                        &format!("formatter.\"{name}\" is not a built-in formatter, so it needs \"command\" (with $FILE) and \"extensions\""),
                                    ));
                                }
                            }
                        }
                        other => {
                            return Err(file.error(
                                root_range(other),
                                "\"formatter\" must be true, false or an object of formatters",
                            ));
                        }
                    }
                    for (k, val) in flatten("formatter", &v) {
                        self.values.insert(k, (val, file.origin(prop.range)));
                    }
                    self.formatter = v;
                }
                other => {
                    return Err(file.error(
                        prop.range,
                        &format!(
                            "unknown key \"{other}\"; expected one of {}",
                            TOP_KEYS[1..].join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn record(&mut self, key: &str, value: Value, origin: Origin) {
        self.values.insert(key.to_owned(), (value, origin));
    }

    fn merge_lsp(
        &mut self,
        file: &File,
        value: &ast::Value,
        project: bool,
    ) -> Result<(), ConfigError> {
        match value {
            ast::Value::BooleanLit(b) => {
                self.lsp_enabled = b.value;
                self.lsp_origin = file.origin(b.range);
                self.record("lsp", json!(b.value), self.lsp_origin.clone());
                Ok(())
            }
            ast::Value::Object(obj) => {
                self.lsp_enabled = true;
                self.lsp_origin = file.origin(obj.range);
                for prop in &obj.properties {
                    let id = prop.name.as_str().to_owned();
                    let entry = self.servers.entry(id.clone()).or_default();
                    parse_entry(file, &id, &prop.value, entry)?;
                    entry.origin = Some(file.origin(prop.range));
                    entry.from_project |= project;
                    let builtin = registry::builtin(&id).is_some();
                    if !builtin
                        && !entry.disabled
                        && (entry.extensions.is_none() || entry.command.is_none())
                    {
                        return Err(file.error(
                            prop.range,
                            &format!(
                                "lsp.\"{id}\" is not a built-in server, so it needs \"command\" (such as [\"my-server\", \"--stdio\"]) and \"extensions\" (such as [\".foo\"])"
                            ),
                        ));
                    }
                    let flat = flatten(&format!("lsp.{id}"), &to_json(&prop.value));
                    for (k, v) in flat {
                        self.values.insert(k, (v, file.origin(prop.range)));
                    }
                }
                Ok(())
            }
            other => Err(file.error(
                root_range(other),
                "\"lsp\" must be true, false or an object of servers",
            )),
        }
    }
}

/// A file being read, for errors with line numbers.
struct File<'a> {
    path: &'a Path,
    text: &'a str,
}

impl File<'_> {
    fn line(&self, range: jsonc_parser::common::Range) -> usize {
        self.text[..range.start.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    fn origin(&self, range: jsonc_parser::common::Range) -> Origin {
        Origin::File {
            path: self.path.to_owned(),
            line: self.line(range),
        }
    }

    fn error(&self, range: jsonc_parser::common::Range, message: &str) -> ConfigError {
        ConfigError::Invalid {
            file: self.path.display().to_string(),
            line: self.line(range),
            message: message.to_owned(),
        }
    }
}

fn root_range(v: &ast::Value) -> jsonc_parser::common::Range {
    match v {
        ast::Value::StringLit(x) => x.range,
        ast::Value::NumberLit(x) => x.range,
        ast::Value::BooleanLit(x) => x.range,
        ast::Value::Object(x) => x.range,
        ast::Value::Array(x) => x.range,
        ast::Value::NullKeyword(x) => x.range,
    }
}

fn to_json(v: &ast::Value) -> Value {
    match v {
        ast::Value::StringLit(s) => Value::String(s.value.to_string()),
        ast::Value::NumberLit(n) => serde_json::from_str(n.value).unwrap_or(Value::Null),
        ast::Value::BooleanLit(b) => Value::Bool(b.value),
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(a) => Value::Array(a.elements.iter().map(to_json).collect()),
        ast::Value::Object(o) => Value::Object(
            o.properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), to_json(&p.value)))
                .collect(),
        ),
    }
}

/// Leaf values of `v` under dotted keys.
fn flatten(prefix: &str, v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Object(o) if !o.is_empty() => o
            .iter()
            .flat_map(|(k, v)| flatten(&format!("{prefix}.{k}"), v))
            .collect(),
        other => vec![(prefix.to_owned(), other.clone())],
    }
}

fn bool_of(file: &File, v: &ast::Value, message: &str) -> Result<bool, ConfigError> {
    match v {
        ast::Value::BooleanLit(b) => Ok(b.value),
        other => Err(file.error(root_range(other), message)),
    }
}

fn strings_of(file: &File, v: &ast::Value, message: &str) -> Result<Vec<String>, ConfigError> {
    let ast::Value::Array(a) = v else {
        return Err(file.error(root_range(v), message));
    };
    a.elements
        .iter()
        .map(|e| match e {
            ast::Value::StringLit(s) => Ok(s.value.to_string()),
            other => Err(file.error(root_range(other), message)),
        })
        .collect()
}

fn parse_entry(
    file: &File,
    id: &str,
    v: &ast::Value,
    entry: &mut LspEntry,
) -> Result<(), ConfigError> {
    let ast::Value::Object(obj) = v else {
        return Err(file.error(
            root_range(v),
            &format!("lsp.\"{id}\" must be an object such as {{\"disabled\": true}} or {{\"command\": [...], \"extensions\": [...]}}"),
        ));
    };
    for prop in &obj.properties {
        let key = prop.name.as_str();
        let v = &prop.value;
        match key {
            "disabled" => {
                entry.disabled = bool_of(
                    file,
                    v,
                    &format!("lsp.\"{id}\".disabled must be true or false"),
                )?;
            }
            "command" => {
                let c = strings_of(
                    file,
                    v,
                    &format!(
                        "lsp.\"{id}\".command must be a list of strings, such as [\"my-server\", \"--stdio\"]"
                    ),
                )?;
                if c.is_empty() || c[0].is_empty() {
                    return Err(file.error(
                        prop.range,
                        &format!("lsp.\"{id}\".command must name a program"),
                    ));
                }
                entry.command = Some(c);
            }
            "extensions" => {
                let e = strings_of(
                    file,
                    v,
                    &format!(
                        "lsp.\"{id}\".extensions must be a list of strings, such as [\".foo\"]"
                    ),
                )?;
                // An empty list matched every file in the reference agent.
                if e.is_empty() {
                    return Err(file.error(
                        prop.range,
                        &format!("lsp.\"{id}\".extensions must not be empty"),
                    ));
                }
                if let Some(bad) = e.iter().find(|x| !x.starts_with('.') || x.len() < 2) {
                    return Err(file.error(
                        root_range(v),
                        &format!("lsp.\"{id}\".extensions: \"{bad}\" must start with a dot, such as \".foo\""),
                    ));
                }
                entry.extensions = Some(e.iter().map(|x| x.to_lowercase()).collect());
            }
            "env" => {
                let ast::Value::Object(o) = v else {
                    return Err(file.error(
                        root_range(v),
                        &format!("lsp.\"{id}\".env must be an object of strings"),
                    ));
                };
                for p in &o.properties {
                    let ast::Value::StringLit(s) = &p.value else {
                        return Err(file.error(
                            p.range,
                            &format!("lsp.\"{id}\".env.{} must be a string", p.name.as_str()),
                        ));
                    };
                    entry
                        .env
                        .insert(p.name.as_str().to_owned(), s.value.to_string());
                }
            }
            "initialization" => match to_json(v) {
                Value::Object(o) => {
                    let mut merged = entry.initialization.take().unwrap_or_default();
                    merged.extend(o);
                    entry.initialization = Some(merged);
                }
                _ => {
                    return Err(file.error(
                        root_range(v),
                        &format!("lsp.\"{id}\".initialization must be an object"),
                    ));
                }
            },
            "diagnostics" => {
                let ast::Value::Object(o) = v else {
                    return Err(file.error(
                        root_range(v),
                        &format!(
                            "lsp.\"{id}\".diagnostics must be an object of budgets in milliseconds"
                        ),
                    ));
                };
                for p in &o.properties {
                    let name = p.name.as_str();
                    let n = match &p.value {
                        ast::Value::NumberLit(n) => n.value.parse::<u64>().ok(),
                        _ => None,
                    };
                    match (BUDGET_KEYS.contains(&name), n) {
                        (true, Some(n)) => {
                            entry.diagnostics.insert(name.to_owned(), n);
                        }
                        (true, None) => {
                            return Err(file.error(p.range, &format!("lsp.\"{id}\".diagnostics.{name} must be a whole number of milliseconds")));
                        }
                        (false, _) => {
                            return Err(file.error(
                                p.range,
                                &format!(
                                    "unknown budget \"{name}\"; expected one of {}",
                                    BUDGET_KEYS.join(", ")
                                ),
                            ));
                        }
                    }
                }
            }
            other => {
                return Err(file.error(
                    prop.range,
                    &format!(
                        "unknown key lsp.\"{id}\".{other}; expected one of {}",
                        ENTRY_KEYS.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One `formatter` entry.
#[derive(Debug, Clone, Default)]
pub struct FormatterEntry {
    pub disabled: bool,
    pub command: Option<Vec<String>>,
    pub environment: BTreeMap<String, String>,
    pub extensions: Option<Vec<String>>,
    pub timeout_ms: Option<u64>,
    pub origin: Option<Origin>,
    pub from_project: bool,
}

fn parse_formatter(
    file: &File,
    name: &str,
    v: &ast::Value,
    entry: &mut FormatterEntry,
) -> Result<(), ConfigError> {
    let ast::Value::Object(obj) = v else {
        return Err(file.error(
            root_range(v),
            &format!("formatter.\"{name}\" must be an object such as {{\"disabled\": true}}"),
        ));
    };
    for prop in &obj.properties {
        let key = prop.name.as_str();
        let v = &prop.value;
        match key {
            "disabled" => {
                entry.disabled = bool_of(
                    file,
                    v,
                    &format!("formatter.\"{name}\".disabled must be true or false"),
                )?
            }
            "command" => {
                let c = strings_of(
                    file,
                    v,
                    &format!(
                        "formatter.\"{name}\".command must be a list of strings, such as [\"fmt\", \"$FILE\"]"
                    ),
                )?;
                if c.is_empty() || c[0].is_empty() {
                    return Err(file.error(
                        prop.range,
                        &format!("formatter.\"{name}\".command must name a program"),
                    ));
                }
                entry.command = Some(c);
            }
            "extensions" => {
                let e = strings_of(
                    file,
                    v,
                    &format!(
                        "formatter.\"{name}\".extensions must be a list of strings, such as [\".foo\"]"
                    ),
                )?;
                if e.is_empty() || e.iter().any(|x| !x.starts_with('.')) {
                    return Err(file.error(prop.range, &format!("formatter.\"{name}\".extensions must be a non-empty list of extensions with their dot")));
                }
                entry.extensions = Some(e.iter().map(|x| x.to_lowercase()).collect());
            }
            "environment" => {
                let ast::Value::Object(o) = v else {
                    return Err(file.error(
                        root_range(v),
                        &format!("formatter.\"{name}\".environment must be an object of strings"),
                    ));
                };
                for p in &o.properties {
                    let ast::Value::StringLit(s) = &p.value else {
                        return Err(file.error(
                            p.range,
                            &format!(
                                "formatter.\"{name}\".environment.{} must be a string",
                                p.name.as_str()
                            ),
                        ));
                    };
                    entry
                        .environment
                        .insert(p.name.as_str().to_owned(), s.value.to_string());
                }
            }
            "timeout_ms" => {
                match v {
                    ast::Value::NumberLit(n) if n.value.parse::<u64>().is_ok() => {
                        entry.timeout_ms = n.value.parse().ok()
                    }
                    other => return Err(file.error(
                        root_range(other),
                        &format!(
                            "formatter.\"{name}\".timeout_ms must be a whole number of milliseconds"
                        ),
                    )),
                }
            }
            other => {
                return Err(file.error(
                    prop.range,
                    &format!("unknown key formatter.\"{name}\".{other}; expected one of disabled, command, extensions, environment, timeout_ms"),
                ));
            }
        }
    }
    Ok(())
}

/// What a server needs from the configuration to start.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Replaces discovery: the program and its arguments.
    pub command: Option<Vec<String>>,
    pub env: Vec<(String, String)>,
    /// Merged over the built-in `initializationOptions`.
    pub initialization: Option<Map<String, Value>>,
    pub budgets: Budgets,
}

/// The configuration turned into what the engine uses.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Custom servers (before the built-ins).
    pub custom: Vec<&'static ServerSpec>,
    /// Servers on, by id (primaries unless disabled, alternatives and linters
    /// turned on by an entry, custom servers).
    pub enabled: HashSet<String>,
    /// Linters turned on explicitly (installed if needed).
    pub explicit: HashSet<String>,
    pub settings: BTreeMap<String, ServerSettings>,
    /// Servers whose command a project file sets without trust: id → why.
    pub blocked: BTreeMap<String, String>,
    /// Why every server is off, when `"lsp": false`.
    pub all_off: Option<String>,
}

impl Config {
    /// Applies the configuration to the built-in registry. Custom servers are
    /// leaked into `'static` specs: a configuration is resolved once per
    /// workspace.
    pub fn resolve(&self, budgets: Budgets) -> Resolved {
        let mut r = Resolved::default();
        if !self.lsp_enabled {
            r.all_off = Some(format!(
                "language servers are turned off by \"lsp\": false ({})",
                self.lsp_origin
            ));
        }
        for s in registry::BUILTIN {
            if s.role == Role::Primary {
                r.enabled.insert(s.id.to_owned());
            }
        }
        for (id, entry) in &self.servers {
            if entry.disabled {
                r.enabled.remove(id);
                continue;
            }
            if entry.command.is_some() && entry.from_project && !self.trusted {
                let origin = entry.origin.clone().unwrap_or(Origin::Default);
                let project = self
                    .project
                    .as_deref()
                    .unwrap_or(Path::new("."))
                    .display()
                    .to_string();
                r.blocked.insert(
                    id.clone(),
                    format!(
                        "the project configuration ({origin}) sets the command of {id}, and {project} is not trusted, so it does not run; trust it with `sightline trust {project}`"
                    ),
                );
            }
            r.enabled.insert(id.clone());
            r.explicit.insert(id.clone());
            if registry::builtin(id).is_none() {
                let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
                let exts: Vec<&'static str> =
                    entry.extensions.iter().flatten().map(|e| leak(e)).collect();
                let command = entry
                    .command
                    .as_ref()
                    .and_then(|c| c.first())
                    .map_or("", |c| leak(c));
                let spec = ServerSpec {
                    id: leak(id),
                    language: leak(id),
                    extensions: Box::leak(exts.into_boxed_slice()),
                    command,
                    ..registry::BASE
                };
                r.custom.push(Box::leak(Box::new(spec)));
            }
            let mut b = budgets;
            for (k, ms) in &entry.diagnostics {
                let d = std::time::Duration::from_millis(*ms);
                match k.as_str() {
                    "document_ms" => b.document = d,
                    "pull_ms" => b.pull = d,
                    "push_quiet_ms" => b.push_quiet = d,
                    "ready_ms" => b.ready = d,
                    "full_ms" => b.full = d,
                    "initialize_ms" => b.initialize = d,
                    "request_ms" => b.request = d,
                    _ => {}
                }
            }
            r.settings.insert(
                id.clone(),
                ServerSettings {
                    command: entry.command.clone(),
                    env: entry
                        .env
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    initialization: entry.initialization.clone(),
                    budgets: b,
                },
            );
        }
        r
    }

    /// The effective configuration, one `key = value  (origin)` per line.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            out.push_str(&format!("# read {}\n", f.display()));
        }
        if let Some(p) = &self.project {
            out.push_str(&format!(
                "# project {} is {}\n",
                p.display(),
                if self.trusted {
                    "trusted"
                } else {
                    "not trusted"
                }
            ));
        }
        let mut values = self.values.clone();
        values
            .entry("lsp".into())
            .or_insert((json!(self.lsp_enabled), self.lsp_origin.clone()));
        values.entry("autoinstall".into()).or_insert((
            json!(!crate::install::downloads_disabled()),
            Origin::Default,
        ));
        values
            .entry("sandbox".into())
            .or_insert((json!("workspace-write"), Origin::Default));
        for (k, (v, origin)) in values {
            out.push_str(&format!("{k} = {v}  ({origin})\n"));
        }
        out
    }
}

/// The JSON Schema of a configuration file.
pub fn schema() -> Value {
    serde_json::to_value(schemars::schema_for!(schema::ConfigFile)).unwrap_or(Value::Null)
}

/// Types that exist only to describe the files' shape to `schemars`.
mod schema {
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
        /// Where child processes may write: `workspace-write` (default),
        /// `read-only` or `danger-full-access`.
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
        /// Environment variables added to the server's.
        env: Option<BTreeMap<String, String>>,
        /// Merged over the built-in `initializationOptions`.
        initialization: Option<serde_json::Map<String, serde_json::Value>>,
        /// Wait budgets in milliseconds.
        diagnostics: Option<Budgets>,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        let mut c = Config::default();
        c.merge_text(Path::new("/p/sightline.json"), text, true)
            .map(|()| c)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_invalid_shape_names_the_file_and_line() {
        let cases = [
            (
                "[1]",
                "/p/sightline.json:1: the configuration must be an object",
            ),
            (
                "{\n  \"lps\": true\n}",
                "/p/sightline.json:2: unknown key \"lps\"; expected one of lsp, formatter, sandbox, autoinstall, edit_tools, format_range, allow_unsandboxed",
            ),
            (
                "{\n\n  \"lsp\": 3\n}",
                "/p/sightline.json:3: \"lsp\" must be true, false or an object of servers",
            ),
            (
                "{ \"lsp\": {\n  \"x\": 1 } }",
                "/p/sightline.json:2: lsp.\"x\" must be an object such as {\"disabled\": true} or {\"command\": [...], \"extensions\": [...]}",
            ),
            (
                "{ \"lsp\": {\n  \"mine\": { \"command\": [\"m\"] } } }",
                "/p/sightline.json:2: lsp.\"mine\" is not a built-in server, so it needs \"command\" (such as [\"my-server\", \"--stdio\"]) and \"extensions\" (such as [\".foo\"])",
            ),
            (
                "{ \"lsp\": { \"mine\": {\n \"command\": \"m\" } } }",
                "/p/sightline.json:2: lsp.\"mine\".command must be a list of strings, such as [\"my-server\", \"--stdio\"]",
            ),
            (
                "{ \"lsp\": { \"mine\": {\n \"command\": [] } } }",
                "/p/sightline.json:2: lsp.\"mine\".command must name a program",
            ),
            (
                "{ \"lsp\": { \"mine\": { \"command\": [\"m\"],\n \"extensions\": [] } } }",
                "/p/sightline.json:2: lsp.\"mine\".extensions must not be empty",
            ),
            (
                "{ \"lsp\": { \"mine\": { \"command\": [\"m\"],\n \"extensions\": [\"foo\"] } } }",
                "/p/sightline.json:2: lsp.\"mine\".extensions: \"foo\" must start with a dot, such as \".foo\"",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"env\": { \"A\": 1 } } } }",
                "/p/sightline.json:2: lsp.\"pyright\".env.A must be a string",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"initialization\": [] } } }",
                "/p/sightline.json:2: lsp.\"pyright\".initialization must be an object",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"diagnostics\": { \"document_ms\": \"5s\" } } } }",
                "/p/sightline.json:2: lsp.\"pyright\".diagnostics.document_ms must be a whole number of milliseconds",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"diagnostics\": { \"doc\": 5 } } } }",
                "/p/sightline.json:2: unknown budget \"doc\"; expected one of document_ms, pull_ms, push_quiet_ms, ready_ms, full_ms, initialize_ms, request_ms",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"disable\": true } } }",
                "/p/sightline.json:2: unknown key lsp.\"pyright\".disable; expected one of disabled, command, extensions, env, initialization, diagnostics",
            ),
            (
                "{ \"lsp\": { \"pyright\": {\n \"disabled\": \"yes\" } } }",
                "/p/sightline.json:2: lsp.\"pyright\".disabled must be true or false",
            ),
            (
                "{\n \"sandbox\": \"none\" }",
                "/p/sightline.json:2: \"sandbox\" must be one of workspace-write, read-only, danger-full-access",
            ),
            (
                "{\n \"autoinstall\": 1 }",
                "/p/sightline.json:2: \"autoinstall\" must be true or false",
            ),
            (
                "{\n \"formatter\": 1 }",
                "/p/sightline.json:2: \"formatter\" must be true, false or an object of formatters",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text).unwrap_err(), want, "{text}");
        }
        let syntax = parse("{\n  \"lsp\": tru\n}").unwrap_err();
        assert!(syntax.starts_with("/p/sightline.json:2: "), "{syntax}");
    }

    #[test]
    fn comments_trailing_commas_and_the_reference_shape_are_accepted() {
        let c = parse(
            r#"{
              // JSONC
              "$schema": "x",
              "lsp": {
                "rust": { "command": ["rust-analyzer"], "env": { "RUST_LOG": "debug" } },
                "custom-lsp": { "command": ["custom-lsp-server", "--stdio"], "extensions": [".custom"],
                                "initialization": { "preferences": { "a": "relative" } } },
                "typescript": { "disabled": true },
                "ty": {},
              },
            }"#,
        )
        .unwrap();
        let r = c.resolve(Budgets::default());
        assert!(!r.enabled.contains("typescript"));
        assert!(r.enabled.contains("ty") && r.enabled.contains("pyright"));
        assert_eq!(r.custom.len(), 1);
        assert_eq!(r.custom[0].extensions, &[".custom"]);
        // Project commands need trust.
        assert!(r.blocked.contains_key("rust") && r.blocked.contains_key("custom-lsp"));
        assert!(
            r.blocked["rust"].contains("sightline trust"),
            "{}",
            r.blocked["rust"]
        );
    }

    #[test]
    fn an_override_without_a_command_keeps_discovery_and_merges() {
        let mut c = Config::default();
        c.merge_text(
            Path::new("/u/config.json"),
            r#"{ "lsp": { "pyright": { "env": { "A": "1" }, "initialization": { "x": 1 } } } }"#,
            false,
        )
        .unwrap();
        c.merge_text(Path::new("/p/sightline.json"), r#"{ "lsp": { "pyright": { "env": { "B": "2" }, "initialization": { "y": 2 }, "diagnostics": { "document_ms": 900 } } } }"#, true).unwrap();
        let r = c.resolve(Budgets::default());
        let s = &r.settings["pyright"];
        assert!(s.command.is_none());
        assert_eq!(
            s.env,
            vec![("A".into(), "1".into()), ("B".into(), "2".into())]
        );
        assert_eq!(
            Value::Object(s.initialization.clone().unwrap()),
            json!({ "x": 1, "y": 2 })
        );
        assert_eq!(s.budgets.document, std::time::Duration::from_millis(900));
        assert!(r.blocked.is_empty(), "no command, nothing to trust");
        assert!(
            c.describe()
                .contains("lsp.pyright.env.B = \"2\"  (/p/sightline.json:1)"),
            "{}",
            c.describe()
        );
    }

    #[test]
    fn lsp_false_turns_everything_off_and_says_where() {
        let c = parse("{\n  \"lsp\": false\n}").unwrap();
        let r = c.resolve(Budgets::default());
        assert_eq!(
            r.all_off.unwrap(),
            "language servers are turned off by \"lsp\": false (/p/sightline.json:2)"
        );
    }

    #[test]
    fn the_schema_describes_the_shape() {
        let s = schema();
        assert_eq!(s["type"], "object");
        assert!(s["properties"]["lsp"].is_object());
        assert_eq!(s["additionalProperties"], false);
    }
}
