//! Reading configuration files: JSONC through its syntax tree, so that every
//! error names its file and line.

use std::path::Path;

use jsonc_parser::ast;
use serde_json::{Value, json};

use super::*;
use crate::catalog;
use crate::config::entries::{File, flatten, parse_entry, root_range, to_json};

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
            let name = prop.name.as_str();
            let Some(key) = super::keys::find(name) else {
                return Err(file.error(
                    prop.range,
                    &format!(
                        "unknown key \"{name}\"; expected one of {}",
                        super::keys::names()
                    ),
                ));
            };
            // A cloned repository must not set what is the user's alone.
            if key.setter == super::keys::Setter::User && project {
                return Err(file.error(
                    prop.range,
                    &format!("\"{name}\" may only be set in the user configuration"),
                ));
            }
            (key.merge)(self, &file, prop, project)?;
        }
        Ok(())
    }

    pub(super) fn record(&mut self, key: &str, value: Value, origin: Origin) {
        self.values.insert(key.to_owned(), (value, origin));
    }

    pub(super) fn merge_lsp(
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
mod top;
mod workspace;

#[cfg(test)]
mod proptests;
