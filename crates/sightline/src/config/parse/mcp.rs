//! The `mcp` section: which tools an MCP session lists (`"tools"`), the
//! user's choice; the names are checked against the tool registry when a
//! session starts (the registry is the frontends', which read this).

use jsonc_parser::ast;
use serde_json::json;

use crate::config::entries::{File, root_range, strings_of};
use crate::config::{Config, ConfigError};

impl Config {
    /// `mcp`: `{"tools": ["lsp_diagnostics", ...]}`, user file only (the
    /// key table says so): a cloned repository does not choose which tools
    /// an agent is given.
    pub(super) fn merge_mcp(&mut self, file: &File, value: &ast::Value) -> Result<(), ConfigError> {
        let message = "\"mcp\" must be an object with \"tools\", a list of tool names";
        let ast::Value::Object(obj) = value else {
            return Err(file.error(root_range(value), message));
        };
        for prop in &obj.properties {
            if prop.name.as_str() != "tools" {
                return Err(file.error(
                    prop.range,
                    &format!(
                        "unknown key \"{}\" in \"mcp\"; expected tools",
                        prop.name.as_str()
                    ),
                ));
            }
            let tools = strings_of(
                file,
                &prop.value,
                "\"mcp.tools\" must be a list of tool names",
            )?;
            if tools.is_empty() {
                return Err(file.error(prop.range, "\"mcp.tools\" names no tool"));
            }
            self.record("mcp.tools", json!(tools), file.origin(prop.range));
            self.mcp_tools = Some(tools);
        }
        Ok(())
    }
}
