//! Reading configuration files: JSONC through its syntax tree, so that every
//! error names its file and line.

use std::path::Path;

use jsonc_parser::ast;
use serde_json::{Value, json};

use super::*;
use crate::catalog;
use crate::config::entries::{
    File, absolute_dirs_of, bool_of, flatten, parse_entry, parse_formatter, root_range, to_json,
};

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
            config.project = Some(sightline_lsp::normalize(ws));
            config.trusted = is_trusted(ws);
            config.merge_file(&project, true)?;
        }
        Ok(config)
    }

    /// [`Config::load`] for a session's own project: a project file that
    /// does not parse leaves the user file alone in force (logged), so that
    /// the session starts and each question about that project's files
    /// answers the file's error line (`Engine::for_path`).
    pub fn load_for_session(project: Option<&Path>) -> Result<Config, ConfigError> {
        match Config::load(project) {
            Err(e) if project.is_some() => {
                tracing::warn!("{e}; the project's questions answer with this error");
                Config::load(None)
            }
            loaded => loaded,
        }
    }

    /// Reads one file over what is there.
    pub fn merge_file(&mut self, path: &Path, project: bool) -> Result<(), ConfigError> {
        let text = crate::files::read_project_file(path).map_err(|e| ConfigError::Unreadable {
            file: path.display().to_string(),
            message: match e {
                crate::files::ProjectFileError::Io { source, .. } => source.to_string(),
                crate::files::ProjectFileError::NotRegular { .. } => {
                    "not a regular file".to_owned()
                }
                crate::files::ProjectFileError::TooLarge { cap, .. } => format!("over {cap} bytes"),
            },
        })?;
        self.merge_text(path, &text, project)
    }

    /// Merges the configuration `text`, read from `path`; `project` says it is
    /// a project file (its commands then need trust).
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per top-level key of the configuration, each checked where its error names the line; split, the keys would no longer read as one table"
    )]
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
                    let roots = absolute_dirs_of(&file, &prop.value, "writable_roots")?;
                    self.record("writable_roots", json!(roots), file.origin(prop.range));
                    self.writable_roots = roots;
                }
                "network_env" => {
                    // A cloned repository must not point installs at its
                    // own registry or proxy.
                    if project {
                        return Err(file.error(
                            prop.range,
                            "\"network_env\" may only be set in the user configuration",
                        ));
                    }
                    let vars = crate::config::entries::string_map_of(&file, prop, "network_env")?;
                    if let Some(bad) = vars
                        .keys()
                        .find(|k| !crate::sandbox::network_env::allowed(k))
                    {
                        return Err(file.error(
                            prop.range,
                            &format!(
                                "network_env: \"{bad}\" is not a network setting; expected one of {}",
                                crate::sandbox::network_env::NETWORK_VARS.join(", ")
                            ),
                        ));
                    }
                    if let Some((name, _)) = vars
                        .iter()
                        .find(|(_, v)| crate::sandbox::network_env::holds_credential(v))
                    {
                        return Err(file.error(
                            prop.range,
                            &format!(
                                "network_env: \"{name}\" holds a user or password in its URL; credentials never reach sightline's children (name the variable in SIGHTLINE_PASS_ENV instead)"
                            ),
                        ));
                    }
                    self.record("network_env", json!(vars), file.origin(prop.range));
                    self.network_env = vars.into_iter().collect();
                }
                "edit_delta" | "edit_warnings" => {
                    let key = prop.name.as_str();
                    let v = bool_of(
                        &file,
                        &prop.value,
                        &format!("\"{key}\" must be true or false"),
                    )?;
                    if key == "edit_delta" {
                        self.edit_delta = v;
                    } else {
                        self.edit_warnings = v;
                    }
                    self.record(key, json!(v), file.origin(prop.range));
                }
                "workspace" => self.merge_workspace(&file, &prop.value, project)?,
                "mcp" => self.merge_mcp(&file, &prop.value, project, prop.range)?,
                "agent" => {
                    // Whether an agent's edits are stopped is the user's
                    // choice, not a cloned repository's.
                    if project {
                        return Err(file.error(
                            prop.range,
                            "\"agent\" may only be set in the user configuration",
                        ));
                    }
                    let message =
                        "\"agent\" must be an object with \"new_errors\": \"tell\" or \"deny\"";
                    let ast::Value::Object(obj) = &prop.value else {
                        return Err(file.error(root_range(&prop.value), message));
                    };
                    for inner in &obj.properties {
                        let v = match (inner.name.as_str(), &inner.value) {
                            ("new_errors", ast::Value::StringLit(s)) if s.value == "tell" => {
                                super::NewErrors::Tell
                            }
                            ("new_errors", ast::Value::StringLit(s)) if s.value == "deny" => {
                                super::NewErrors::Deny
                            }
                            _ => return Err(file.error(inner.range, message)),
                        };
                        self.agent_new_errors = v;
                        let word = if v == super::NewErrors::Deny {
                            "deny"
                        } else {
                            "tell"
                        };
                        self.record("agent.new_errors", json!(word), file.origin(inner.range));
                    }
                }
                "dependents_ms" => {
                    let v = match &prop.value {
                        ast::Value::NumberLit(n) if n.value.parse::<u64>().is_ok() => {
                            n.value.parse::<u64>().unwrap_or_default()
                        }
                        other => {
                            return Err(file.error(
                                root_range(other),
                                "\"dependents_ms\" must be a whole number of milliseconds",
                            ));
                        }
                    };
                    self.dependents_ms = v;
                    self.record("dependents_ms", json!(v), file.origin(prop.range));
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
                                let entry = self.formatters.entry(name.clone()).or_insert(entry);
                                let custom = crate::format::table::builtin(&name).is_none();
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
                        self.gate_lsp_settings(&id, &before, &mut entry, &origin);
                    }
                    entry.origin = Some(origin);
                    entry.from_project |= project;
                    let entry = self.servers.entry(id.clone()).or_insert(entry);
                    let builtin = catalog::builtin(&id).is_some();
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

mod mcp;
mod workspace;

#[cfg(test)]
mod proptests;
