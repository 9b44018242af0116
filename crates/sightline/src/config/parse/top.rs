//! The readers of the top-level keys that are a value each (a switch, a
//! number, a mode, a list or map of the user's): one function per key, named
//! in the key table (`config::keys`), which says who may set it. The keys
//! with sections of their own (`lsp`, `formatter`, `workspace`, `mcp`) are
//! read beside their sections.

use jsonc_parser::ast;
use serde_json::json;

use crate::config::entries::{
    File, absolute_dirs_of, bool_of, flatten, parse_formatter, root_range, to_json,
};
use crate::config::{Config, ConfigError, NewErrors, SANDBOX_MODES};

/// A top-level property of a configuration file.
type Prop<'a> = ast::ObjectProp<'a>;

impl Config {
    /// `$schema`: the editor's, nothing to read.
    pub(in crate::config) fn merge_schema_url(
        &mut self,
        _: &File,
        _: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        Ok(())
    }

    /// `lsp`: the servers (`merge_lsp`).
    pub(in crate::config) fn merge_lsp_key(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
        self.merge_lsp(file, &prop.value, project)
    }

    /// `workspace`: a monorepo's packages by hand (`merge_workspace`).
    pub(in crate::config) fn merge_workspace_key(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
        self.merge_workspace(file, &prop.value, project)
    }

    /// `mcp`: the tools a session lists (`merge_mcp`).
    pub(in crate::config) fn merge_mcp_key(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        self.merge_mcp(file, &prop.value)
    }

    /// `autoinstall`: installing runs an installer with the network, so an
    /// untrusted project's `true` is ignored (and said).
    pub(in crate::config) fn merge_autoinstall(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
        let v = bool_of(file, &prop.value, "\"autoinstall\" must be true or false")?;
        if v && project && !self.trusted {
            self.ignore("autoinstall".into(), &file.origin(prop.range));
            return Ok(());
        }
        self.autoinstall = Some(v);
        self.record("autoinstall", json!(v), file.origin(prop.range));
        Ok(())
    }

    /// `edit_tools`: serving the edit tools is an untrusted project's to
    /// ask only of a trusted one.
    pub(in crate::config) fn merge_edit_tools(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
        let v = bool_of(file, &prop.value, "\"edit_tools\" must be true or false")?;
        if v && project && !self.trusted {
            self.ignore("edit_tools".into(), &file.origin(prop.range));
            return Ok(());
        }
        self.edit_tools = v;
        self.record("edit_tools", json!(v), file.origin(prop.range));
        Ok(())
    }

    /// `format_range`, `edit_delta` and `edit_warnings`: switches.
    pub(in crate::config) fn merge_switch(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        let key = prop.name.as_str();
        let v = bool_of(
            file,
            &prop.value,
            &format!("\"{key}\" must be true or false"),
        )?;
        match key {
            "format_range" => self.format_range = v,
            "edit_delta" => self.edit_delta = v,
            _ => self.edit_warnings = v,
        }
        self.record(key, json!(v), file.origin(prop.range));
        Ok(())
    }

    /// `dependents_ms`: milliseconds, 0 turning the check off.
    pub(in crate::config) fn merge_dependents_ms(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
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
        Ok(())
    }

    /// `sandbox`: a mode; an untrusted project may only narrow it.
    pub(in crate::config) fn merge_sandbox(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
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
            return Ok(());
        }
        self.record("sandbox", json!(v), origin);
        self.sandbox = Some(v);
        Ok(())
    }

    /// `formatter`: `true`, `false`, or the formatters' entries; an
    /// untrusted project's commands are gated.
    pub(in crate::config) fn merge_formatter(
        &mut self,
        file: &File,
        prop: &Prop,
        project: bool,
    ) -> Result<(), ConfigError> {
        let v = to_json(&prop.value);
        match &prop.value {
            ast::Value::BooleanLit(b) => self.formatters_enabled = b.value,
            ast::Value::Object(obj) => {
                self.formatters_enabled = true;
                for p in &obj.properties {
                    let name = p.name.as_str().to_owned();
                    let mut entry = self.formatters.remove(&name).unwrap_or_default();
                    let before = entry.clone();
                    parse_formatter(file, &name, &p.value, &mut entry)?;
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
        Ok(())
    }

    /// `agent`: `{"new_errors": "tell" | "deny"}`.
    pub(in crate::config) fn merge_agent(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        let message = "\"agent\" must be an object with \"new_errors\": \"tell\" or \"deny\"";
        let ast::Value::Object(obj) = &prop.value else {
            return Err(file.error(root_range(&prop.value), message));
        };
        for inner in &obj.properties {
            let (v, word) = match (inner.name.as_str(), &inner.value) {
                ("new_errors", ast::Value::StringLit(s)) if s.value == "tell" => {
                    (NewErrors::Tell, "tell")
                }
                ("new_errors", ast::Value::StringLit(s)) if s.value == "deny" => {
                    (NewErrors::Deny, "deny")
                }
                _ => return Err(file.error(inner.range, message)),
            };
            self.agent_new_errors = v;
            self.record("agent.new_errors", json!(word), file.origin(inner.range));
        }
        Ok(())
    }

    /// `allow_unsandboxed`: run children unsandboxed where Landlock is
    /// missing.
    pub(in crate::config) fn merge_allow_unsandboxed(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        let v = bool_of(
            file,
            &prop.value,
            "\"allow_unsandboxed\" must be true or false",
        )?;
        self.allow_unsandboxed = v;
        self.record("allow_unsandboxed", json!(v), file.origin(prop.range));
        Ok(())
    }

    /// `writable_roots`: absolute directories `workspace-write` also
    /// writes.
    pub(in crate::config) fn merge_writable_roots(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        let roots = absolute_dirs_of(file, &prop.value, "writable_roots")?;
        self.record("writable_roots", json!(roots), file.origin(prop.range));
        self.writable_roots = roots;
        Ok(())
    }

    /// `network_env`: the user's network settings for installers and
    /// servers, which may name no credential.
    pub(in crate::config) fn merge_network_env(
        &mut self,
        file: &File,
        prop: &Prop,
        _: bool,
    ) -> Result<(), ConfigError> {
        let vars = crate::config::entries::string_map_of(file, prop, "network_env")?;
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
        if let Some((name, value)) = vars
            .iter()
            .find(|(k, v)| !crate::sandbox::network_env::value_fits(k, v))
        {
            return Err(file.error(
                prop.range,
                &format!(
                    "network_env: \"{name}\" takes a whole number of at least 1 (retries: at least 0), not \"{value}\""
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
        Ok(())
    }
}
