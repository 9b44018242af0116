//! Reading configuration files: JSONC through its syntax tree, so that every
//! error names its file and line.

use std::path::Path;

use jsonc_parser::ast;
use serde_json::{Value, json};

use super::*;
use crate::registry;

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
                    // Installing runs an installer with the network.
                    if v && project && !self.trusted {
                        self.ignore("autoinstall".into(), &file.origin(prop.range));
                        continue;
                    }
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
                "writable_roots" => {
                    // A cloned repository must not widen what may be written.
                    if project {
                        return Err(file.error(
                            prop.range,
                            "\"writable_roots\" may only be set in the user configuration",
                        ));
                    }
                    let message = "\"writable_roots\" must be a list of absolute directories";
                    let roots = strings_of(&file, &prop.value, message)?;
                    if let Some(rel) = roots.iter().find(|r| !Path::new(r).is_absolute()) {
                        return Err(
                            file.error(root_range(&prop.value), &format!("{message}, got `{rel}`"))
                        );
                    }
                    self.record("writable_roots", json!(roots), file.origin(prop.range));
                    self.writable_roots = roots.into_iter().map(PathBuf::from).collect();
                }
                "format_range" => {
                    let v = bool_of(&file, &prop.value, "\"format_range\" must be true or false")?;
                    self.format_range = v;
                    self.record("format_range", json!(v), file.origin(prop.range));
                }
                "edit_tools" => {
                    let v = bool_of(&file, &prop.value, "\"edit_tools\" must be true or false")?;
                    if v && project && !self.trusted {
                        self.ignore("edit_tools".into(), &file.origin(prop.range));
                        continue;
                    }
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
                    let origin = file.origin(prop.range);
                    if project && !self.trusted && !self.gate_sandbox(&v, &origin) {
                        continue;
                    }
                    self.record("sandbox", json!(v), origin);
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
                                let mut entry = self.formatters.remove(&name).unwrap_or_default();
                                let before = entry.clone();
                                parse_formatter(&file, &name, &p.value, &mut entry)?;
                                let origin = file.origin(p.range);
                                if project && !self.trusted {
                                    self.gate_formatter(&name, &before, &mut entry, &origin);
                                }
                                entry.from_project |= project;
                                entry.origin = Some(origin);
                                let entry = self.formatters.entry(name.clone()).or_insert(entry);
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
                    let mut entry = self.servers.remove(&id).unwrap_or_default();
                    let before = entry.clone();
                    parse_entry(file, &id, &prop.value, &mut entry)?;
                    let origin = file.origin(prop.range);
                    if project && !self.trusted {
                        self.gate_lsp_entry(&id, &before, &mut entry, &origin);
                    }
                    entry.origin = Some(origin);
                    entry.from_project |= project;
                    let entry = self.servers.entry(id.clone()).or_insert(entry);
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

/// `command`: a list of strings whose first names a program.
fn command_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
    example: &str,
) -> Result<Vec<String>, ConfigError> {
    let c = strings_of(
        file,
        &prop.value,
        &format!("{what}.command must be a list of strings, such as {example}"),
    )?;
    if c.first().is_none_or(String::is_empty) {
        return Err(file.error(prop.range, &format!("{what}.command must name a program")));
    }
    Ok(c)
}

/// `extensions`: a non-empty list of extensions with their dot, lower-cased.
/// (An empty list matched every file in the reference agent.)
fn extensions_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
) -> Result<Vec<String>, ConfigError> {
    let e = strings_of(
        file,
        &prop.value,
        &format!("{what}.extensions must be a list of strings, such as [\".foo\"]"),
    )?;
    if e.is_empty() {
        return Err(file.error(prop.range, &format!("{what}.extensions must not be empty")));
    }
    if let Some(bad) = e.iter().find(|x| !x.starts_with('.') || x.len() < 2) {
        return Err(file.error(
            root_range(&prop.value),
            &format!("{what}.extensions: \"{bad}\" must start with a dot, such as \".foo\""),
        ));
    }
    Ok(e.iter().map(|x| x.to_lowercase()).collect())
}

/// An object of strings (`env`, `environment`).
fn string_map_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let ast::Value::Object(o) = &prop.value else {
        return Err(file.error(
            root_range(&prop.value),
            &format!("{what} must be an object of strings"),
        ));
    };
    let mut out = BTreeMap::new();
    for p in &o.properties {
        let ast::Value::StringLit(s) = &p.value else {
            return Err(file.error(
                p.range,
                &format!("{what}.{} must be a string", p.name.as_str()),
            ));
        };
        out.insert(p.name.as_str().to_owned(), s.value.to_string());
    }
    Ok(out)
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
                entry.command = Some(command_of(
                    file,
                    prop,
                    &format!("lsp.\"{id}\""),
                    "[\"my-server\", \"--stdio\"]",
                )?);
            }
            "extensions" => {
                entry.extensions = Some(extensions_of(file, prop, &format!("lsp.\"{id}\""))?)
            }
            "env" => entry
                .env
                .extend(string_map_of(file, prop, &format!("lsp.\"{id}\".env"))?),
            "network" => {
                entry.network = Some(bool_of(
                    file,
                    v,
                    &format!("lsp.\"{id}\".network must be true or false"),
                )?);
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
                entry.command = Some(command_of(
                    file,
                    prop,
                    &format!("formatter.\"{name}\""),
                    "[\"fmt\", \"$FILE\"]",
                )?);
            }
            "extensions" => {
                entry.extensions =
                    Some(extensions_of(file, prop, &format!("formatter.\"{name}\""))?)
            }
            "environment" => entry.environment.extend(string_map_of(
                file,
                prop,
                &format!("formatter.\"{name}\".environment"),
            )?),
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

#[cfg(test)]
mod proptests {
    //! `merge_text` against configurations rendered from a model with
    //! comments and line breaks anywhere, and on token soup.

    use super::*;
    use proptest::prelude::*;

    const FILE: &str = "/p/sightline.jsonc";

    #[derive(Debug, Clone, Default)]
    struct Entry {
        disabled: Option<bool>,
        command: Option<Vec<String>>,
        extensions: Option<Vec<String>>,
        env: BTreeMap<String, String>,
    }

    #[derive(Debug, Clone)]
    enum Setting {
        Bool(&'static str, bool),
        Sandbox(&'static str),
        LspOff(bool),
        Lsp(Vec<(&'static str, Entry)>),
    }

    /// A value of the wrong shape (or an unknown key), and whether the error
    /// names the line of the key rather than of the value.
    const BAD: &[(&str, &str, bool)] = &[
        ("autoinstall", "3", false),
        ("format_range", "\"yes\"", false),
        ("sandbox", "\"none\"", false),
        ("lsp", "[]", false),
        ("formatter", "1", false),
        ("lps", "true", true),
        ("allow_unsandboxed", "true", true),
        ("writable_roots", "[\"/x\"]", true),
    ];

    fn entry(custom: bool) -> impl Strategy<Value = Entry> {
        let command = prop::collection::vec("\\PC{1,6}", 1..3);
        let extensions = prop::collection::vec("\\.[a-zA-Z0-9éÉ]{1,4}", 1..3);
        (
            prop::option::of(any::<bool>()),
            prop::option::of(command),
            prop::option::of(extensions),
            prop::collection::btree_map("[A-Z_]{1,4}", "\\PC{0,5}", 0..3),
        )
            .prop_map(move |(disabled, command, extensions, env)| Entry {
                disabled,
                // A server of one's own needs both.
                command: if custom {
                    command.or_else(|| Some(vec!["m".into()]))
                } else {
                    command
                },
                extensions: if custom {
                    extensions.or_else(|| Some(vec![".m".into()]))
                } else {
                    extensions
                },
                env,
            })
    }

    fn settings() -> impl Strategy<Value = Vec<Setting>> {
        let lsp = prop_oneof![
            any::<bool>().prop_map(Setting::LspOff),
            (
                prop::option::of(entry(false)),
                prop::option::of(entry(false)),
                prop::option::of(entry(true)),
                prop::option::of(entry(true)),
            )
                .prop_map(|(a, b, c, d)| {
                    let ids = ["pyright", "ty", "mine", "é-lsp"];
                    Setting::Lsp(
                        ids.into_iter()
                            .zip([a, b, c, d])
                            .filter_map(|(id, e)| Some((id, e?)))
                            .collect(),
                    )
                }),
        ];
        (
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            prop::option::of(prop::sample::select(SANDBOX_MODES)),
            prop::option::of(lsp),
        )
            .prop_map(|(auto, range, tools, sandbox, lsp)| {
                let mut v = Vec::new();
                v.extend(auto.map(|b| Setting::Bool("autoinstall", b)));
                v.extend(range.map(|b| Setting::Bool("format_range", b)));
                v.extend(tools.map(|b| Setting::Bool("edit_tools", b)));
                v.extend(sandbox.map(Setting::Sandbox));
                v.extend(lsp);
                v
            })
            .prop_shuffle()
    }

    /// What may stand between two tokens.
    fn gaps() -> impl Strategy<Value = Vec<&'static str>> {
        let gap = prop::sample::select(vec![
            "",
            " ",
            "\n",
            "\r\n  ",
            "\t",
            "// é 🙂 \"x\": 1,\n",
            "/* 名前\n 🙂 */",
            "/**/",
        ]);
        prop::collection::vec(gap, 1..40)
    }

    /// Writes tokens with gaps between them, remembering lines.
    struct Writer {
        out: String,
        gaps: Vec<&'static str>,
        next: usize,
    }

    impl Writer {
        fn gap(&mut self) {
            let g = self.gaps[self.next % self.gaps.len()];
            self.next += 1;
            self.out.push_str(g);
        }

        /// Writes `token` after a gap; returns the line it starts on.
        fn token(&mut self, token: &str) -> usize {
            self.gap();
            let line = self.out.matches('\n').count() + 1;
            self.out.push_str(token);
            line
        }

        fn string(&mut self, s: &str) -> usize {
            self.token(&serde_json::to_string(s).unwrap_or_default())
        }

        fn strings(&mut self, v: &[String]) {
            self.token("[");
            for s in v {
                self.string(s);
                self.token(",");
            }
            self.token("]");
        }
    }

    /// Where a setting was written: the lines of its key, of its value, and
    /// of each lsp entry's key.
    struct Lines {
        key: usize,
        value: usize,
        entries: Vec<usize>,
    }

    /// A written configuration.
    struct Rendered {
        text: String,
        lines: Vec<Lines>,
        /// The line the error of the bad setting names.
        bad: Option<usize>,
    }

    fn render(
        settings: &[Setting],
        bad: Option<(usize, (&str, &str, bool))>,
        gaps: Vec<&'static str>,
    ) -> Rendered {
        let mut w = Writer {
            out: String::new(),
            gaps,
            next: 0,
        };
        let mut lines = Vec::new();
        let mut bad_line = None;
        w.token("{");
        for (i, s) in settings.iter().enumerate() {
            if let Some((at, (key, value, on_key))) = bad
                && at == i
            {
                let k = w.string(key);
                w.token(":");
                let v = w.token(value);
                w.token(",");
                bad_line = Some(if on_key { k } else { v });
            }
            let (key, value, entries) = match s {
                Setting::Bool(k, b) => {
                    let k = w.string(k);
                    w.token(":");
                    (k, w.token(&b.to_string()), Vec::new())
                }
                Setting::Sandbox(mode) => {
                    let k = w.string("sandbox");
                    w.token(":");
                    (k, w.string(mode), Vec::new())
                }
                Setting::LspOff(b) => {
                    let k = w.string("lsp");
                    w.token(":");
                    (k, w.token(&b.to_string()), Vec::new())
                }
                Setting::Lsp(servers) => {
                    let k = w.string("lsp");
                    w.token(":");
                    let v = w.token("{");
                    let mut entries = Vec::new();
                    for (id, e) in servers {
                        entries.push(w.string(id));
                        w.token(":");
                        w.token("{");
                        if let Some(d) = e.disabled {
                            w.string("disabled");
                            w.token(":");
                            w.token(&d.to_string());
                            w.token(",");
                        }
                        if let Some(c) = &e.command {
                            w.string("command");
                            w.token(":");
                            w.strings(c);
                            w.token(",");
                        }
                        if let Some(x) = &e.extensions {
                            w.string("extensions");
                            w.token(":");
                            w.strings(x);
                            w.token(",");
                        }
                        w.string("env");
                        w.token(":");
                        w.token("{");
                        for (name, value) in &e.env {
                            w.string(name);
                            w.token(":");
                            w.string(value);
                            w.token(",");
                        }
                        w.token("}");
                        w.token("}");
                        w.token(",");
                    }
                    w.token("}");
                    (k, v, entries)
                }
            };
            w.token(",");
            lines.push(Lines {
                key,
                value,
                entries,
            });
        }
        if let Some((at, (key, value, on_key))) = bad
            && at >= settings.len()
        {
            let k = w.string(key);
            w.token(":");
            let v = w.token(value);
            bad_line = Some(if on_key { k } else { v });
        }
        w.token("}");
        w.gap();
        Rendered {
            text: w.out,
            lines,
            bad: bad_line,
        }
    }

    fn origin(line: usize) -> Origin {
        Origin::File {
            path: FILE.into(),
            line,
        }
    }

    /// Tokens of JSONC, right and wrong, and characters of every width.
    fn soup() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            prop::sample::select(vec![
                "{",
                "}",
                "[",
                "]",
                ":",
                ",",
                "\"lsp\"",
                "\"formatter\"",
                "\"sandbox\"",
                "\"autoinstall\"",
                "\"pyright\"",
                "\"command\"",
                "\"extensions\"",
                "\"diagnostics\"",
                "\"document_ms\"",
                "\"timeout_ms\"",
                "\"env\"",
                "\"initialization\"",
                "\"disabled\"",
                "\"ruff\"",
                "\"x\"",
                "\".é\"",
                "true",
                "false",
                "null",
                "0x1F",
                "-1",
                "1e400",
                "NaN",
                "+5",
                "'s'",
                "\"\\u00e9\"",
                "//",
                "/*",
                "*/",
                "\n",
                " ",
                "é",
                "🙂",
            ])
            .prop_map(str::to_owned),
            "\\PC{0,4}",
        ];
        prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
    }

    /// Well-formed JSONC of any shape, with the keys the reader knows, keys
    /// of its own (loose ones too), and characters of every width.
    fn shapes() -> impl Strategy<Value = String> {
        let gap = prop::sample::select(vec!["", " ", "\n", "/* é */", "// 🙂\n"]);
        let leaf = prop::sample::select(vec![
            "true",
            "false",
            "null",
            "1",
            "-2",
            "900",
            "0x1F",
            "1.5",
            "\"s\"",
            "\"é\"",
            "\".x\"",
            "\"workspace-write\"",
            "'q'",
            "[]",
            "{}",
            "[\"m\"]",
        ])
        .prop_map(str::to_owned);
        let key = prop::sample::select(vec![
            "\"lsp\"",
            "\"formatter\"",
            "\"sandbox\"",
            "\"autoinstall\"",
            "\"pyright\"",
            "\"ruff\"",
            "\"mine\"",
            "\"command\"",
            "\"extensions\"",
            "\"env\"",
            "\"environment\"",
            "\"initialization\"",
            "\"diagnostics\"",
            "\"document_ms\"",
            "\"timeout_ms\"",
            "\"disabled\"",
            "\"é\"",
            "é",
            "名前",
            "x",
        ]);
        let value = leaf.prop_recursive(4, 32, 4, move |inner| {
            let array = prop::collection::vec((gap.clone(), inner.clone()), 0..4).prop_map(|v| {
                let items: Vec<String> = v.into_iter().map(|(g, x)| format!("{g}{x}")).collect();
                format!("[{}]", items.join(","))
            });
            let object =
                prop::collection::vec((gap.clone(), key.clone(), inner), 0..4).prop_map(|v| {
                    let props: Vec<String> = v
                        .into_iter()
                        .map(|(g, k, x)| format!("{g}{k}:{g}{x}"))
                        .collect();
                    format!("{{{}}}", props.join(","))
                });
            prop_oneof![array, object]
        });
        prop_oneof![1 => value.clone(), 4 => value.prop_filter("not an object", |v| v.starts_with('{'))]
    }

    proptest! {
        #![proptest_config(crate::proptest_config())]

        /// A configuration written from a model, with comments and line
        /// breaks anywhere, reads back as the model, each value from the
        /// line it is on.
        #[test]
        fn config_reads_back_what_was_written(settings in settings(), gaps in gaps()) {
            let Rendered { text, lines, .. } = render(&settings, None, gaps);
            // Trusted: this is about reading, not about the trust gate.
            let mut c = Config { trusted: true, ..Config::default() };
            let r = c.merge_text(Path::new(FILE), &text, true);
            prop_assert_eq!(r, Ok(()), "{}", text);
            for (s, Lines { key, value, entries }) in settings.iter().zip(&lines) {
                let (key, value) = (*key, *value);
                match s {
                    Setting::Bool(k, b) => {
                        let got = match *k {
                            "autoinstall" => c.autoinstall.unwrap_or(!b),
                            "format_range" => c.format_range,
                            _ => c.edit_tools,
                        };
                        prop_assert_eq!(got, *b);
                        prop_assert_eq!(&c.values[*k], &(json!(b), origin(key)));
                    }
                    Setting::Sandbox(m) => {
                        prop_assert_eq!(c.sandbox.as_deref(), Some(*m));
                        prop_assert_eq!(&c.values["sandbox"], &(json!(m), origin(key)));
                    }
                    Setting::LspOff(b) => {
                        prop_assert_eq!(c.lsp_enabled, *b);
                        prop_assert_eq!(&c.lsp_origin, &origin(value));
                    }
                    Setting::Lsp(servers) => {
                        prop_assert!(c.lsp_enabled);
                        prop_assert_eq!(&c.lsp_origin, &origin(value));
                        prop_assert_eq!(c.servers.len(), servers.len());
                        for ((id, e), &line) in servers.iter().zip(entries) {
                            let got = &c.servers[*id];
                            prop_assert_eq!(got.disabled, e.disabled.unwrap_or(false));
                            prop_assert_eq!(&got.command, &e.command);
                            let lower = e.extensions.as_ref().map(|x| {
                                x.iter().map(|x| x.to_lowercase()).collect::<Vec<_>>()
                            });
                            prop_assert_eq!(&got.extensions, &lower);
                            prop_assert_eq!(&got.env, &e.env);
                            prop_assert_eq!(&got.origin, &Some(origin(line)));
                        }
                    }
                }
            }
        }

        /// A value of the wrong shape anywhere is an error naming its line.
        #[test]
        fn config_errors_name_the_line(
            settings in settings(),
            gaps in gaps(),
            at in 0..6usize,
            bad in prop::sample::select(BAD),
        ) {
            let Rendered { text, bad: line, .. } = render(&settings, Some((at, bad)), gaps);
            let mut c = Config::default();
            match c.merge_text(Path::new(FILE), &text, true) {
                Err(ConfigError::Invalid { file, line: got, .. }) => {
                    prop_assert_eq!(file, FILE);
                    prop_assert_eq!(Some(got), line, "{}", text);
                }
                other => prop_assert!(false, "{:?} for {}", other, text),
            }
        }

        /// Any text reads without a panic; an error names a line of the file.
        #[test]
        fn config_never_panics(text in prop_oneof![soup(), shapes()], project: bool) {
            let mut c = Config::default();
            if let Err(e) = c.merge_text(Path::new(FILE), &text, project) {
                let ConfigError::Invalid { line, .. } = e else {
                    return Err(TestCaseError::fail(format!("not an invalid-file error: {e}")));
                };
                prop_assert!(line >= 1 && line <= text.matches('\n').count() + 1, "{} for {:?}", line, text);
            }
        }
    }
}
