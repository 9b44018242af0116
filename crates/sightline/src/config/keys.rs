//! The configuration's top-level keys, in one table: each key's name, who
//! may set it, what it does, a value it takes, its schema and its reader.
//! The parser dispatches on it (`Config::merge_text`), the JSON Schema is
//! built from it (`sightline schema`), and docs/configuration.md's table of
//! keys is its rendering (a test keeps the two equal, and reads every key's
//! example). A new key is one row here and one reader.

use jsonc_parser::ast;
use schemars::{Schema, SchemaGenerator};

use serde_json::{Value, json};

use super::entries::File;
use super::schema::shape;
use super::{Config, ConfigError};

/// Who may set a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Setter {
    /// The user file or a project's (whose programs still need trust).
    Anyone,
    /// The user file only: a cloned repository must not set it.
    User,
}

/// Reads one key's property of a file into the configuration; `project`
/// says the file is a project's.
type Merge = fn(&mut Config, &File<'_>, &ast::ObjectProp<'_>, bool) -> Result<(), ConfigError>;

/// One top-level key.
pub(super) struct Key {
    /// Its name in the file.
    pub name: &'static str,
    /// Who may set it.
    pub setter: Setter,
    /// What it does: the schema's description and the docs' line.
    pub about: &'static str,
    /// A value it takes, as JSON (the test over every key reads it).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "read by the test over every key")
    )]
    pub example: &'static str,
    /// Its schema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Its reader.
    pub merge: Merge,
}

/// Every top-level key, in the order the docs list them.
pub(super) const KEYS: &[Key] = &[
    Key {
        name: "$schema",
        setter: Setter::Anyone,
        about: "The schema's URL, for editors (`sightline schema` prints it).",
        example: r#""https://example.invalid/sightline.schema.json""#,
        schema: |g| g.subschema_for::<Option<String>>(),
        merge: Config::merge_schema_url,
    },
    Key {
        name: "lsp",
        setter: Setter::Anyone,
        about: "Language servers: `true` (the default) enables the built-ins, `false` disables all, an object enables the built-ins plus the entries it holds.",
        example: "true",
        schema: |g| g.subschema_for::<Option<shape::Lsp>>(),
        merge: Config::merge_lsp_key,
    },
    Key {
        name: "formatter",
        setter: Setter::Anyone,
        about: "Formatters: `true`, `false`, or an object of overrides.",
        example: r#"{ "prettier": { "disabled": true } }"#,
        schema: |g| g.subschema_for::<Option<serde_json::Value>>(),
        merge: Config::merge_formatter,
    },
    Key {
        name: "sandbox",
        setter: Setter::Anyone,
        about: "Where child processes and the edit tools may write: `workspace-write` (default), `read-only` or `danger-full-access`.",
        example: r#""read-only""#,
        schema: |g| g.subschema_for::<Option<shape::Sandbox>>(),
        merge: Config::merge_sandbox,
    },
    Key {
        name: "autoinstall",
        setter: Setter::Anyone,
        about: "Whether sightline installs missing servers (npm, PyPI, toolchains).",
        example: "false",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_autoinstall,
    },
    Key {
        name: "edit_tools",
        setter: Setter::Anyone,
        about: "Serve the edit tools (read, write, edit, apply_patch) over MCP.",
        example: "false",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_edit_tools,
    },
    Key {
        name: "format_range",
        setter: Setter::Anyone,
        about: "Make `edit` format only the lines it touched.",
        example: "true",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_switch,
    },
    Key {
        name: "edit_delta",
        setter: Setter::Anyone,
        about: "The edit tools list only the errors an edit introduced, then count those it fixed and those already there (default `true`).",
        example: "true",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_switch,
    },
    Key {
        name: "edit_warnings",
        setter: Setter::Anyone,
        about: "The edit tools also list the warnings an edit introduced (default `false`).",
        example: "true",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_switch,
    },
    Key {
        name: "dependents_ms",
        setter: Setter::Anyone,
        about: "0 turns off the check of the files that use what an edit changes; any other value is the least time it may take (default 5000): the check goes on while their servers work, up to 120 s.",
        example: "8000",
        schema: |g| g.subschema_for::<Option<u64>>(),
        merge: Config::merge_dependents_ms,
    },
    Key {
        name: "workspace",
        setter: Setter::Anyone,
        about: "A monorepo's packages named by hand, for a layout no package manager declares (Poetry, Hatch, PDM), and how many packages a question may load into a server at once.",
        example: r#"{ "max_packages": 10 }"#,
        schema: |g| g.subschema_for::<Option<shape::Workspace>>(),
        merge: Config::merge_workspace_key,
    },
    Key {
        name: "agent",
        setter: Setter::User,
        about: "What an agent's hooks do with an edit that would add errors.",
        example: r#"{ "new_errors": "deny" }"#,
        schema: |g| g.subschema_for::<Option<shape::Agent>>(),
        merge: Config::merge_agent,
    },
    Key {
        name: "mcp",
        setter: Setter::User,
        about: "The tools an MCP session lists, by name (`[\"lsp_diagnostics\", \"lsp_references\", \"rename\"]`), in place of the `--tools` profile.",
        example: r#"{ "tools": ["lsp_diagnostics"] }"#,
        schema: |g| g.subschema_for::<Option<shape::Mcp>>(),
        merge: Config::merge_mcp_key,
    },
    Key {
        name: "allow_unsandboxed",
        setter: Setter::User,
        about: "Run children unsandboxed where Landlock is missing, instead of refusing to start them.",
        example: "false",
        schema: |g| g.subschema_for::<Option<bool>>(),
        merge: Config::merge_allow_unsandboxed,
    },
    Key {
        name: "writable_roots",
        setter: Setter::User,
        about: "Absolute directories that `workspace-write` also lets sightline's edit tools and its children write, beside the workspace.",
        example: r#"["/tmp"]"#,
        schema: |g| g.subschema_for::<Option<Vec<String>>>(),
        merge: Config::merge_writable_roots,
    },
    Key {
        name: "network_env",
        setter: Setter::User,
        about: "The user's network and certificate settings (`HTTPS_PROXY`, `NODE_EXTRA_CA_CERTS`, `npm_config_registry`, `PIP_INDEX_URL`, ...) that installers and servers get, whichever client started the daemon.",
        example: r#"{ "HTTPS_PROXY": "http://proxy:3128" }"#,
        schema: |g| g.subschema_for::<Option<std::collections::BTreeMap<String, String>>>(),
        merge: Config::merge_network_env,
    },
];

/// The key named `name`.
pub(super) fn find(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// The keys a file sets, for an error about one it may not: all but
/// `$schema`.
pub(super) fn names() -> String {
    KEYS.iter()
        .skip(1)
        .map(|k| k.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// docs/configuration.md's table of the keys.
#[cfg(test)]
pub(super) fn docs_table() -> String {
    let mut out = String::from("| key | who may set it | what it does |\n|---|---|---|\n");
    for k in KEYS {
        let who = match k.setter {
            Setter::Anyone => "any file",
            Setter::User => "the user file",
        };
        out.push_str(&format!(
            "| `{}` | {who} | {} |\n",
            k.name,
            k.about.replace('|', "\\|")
        ));
    }
    out
}

/// The JSON Schema of a configuration file.
pub fn schema() -> Value {
    let mut generator = schemars::SchemaGenerator::default();
    let mut properties = serde_json::Map::new();
    for key in KEYS {
        let mut value = (key.schema)(&mut generator).to_value();
        // Any value (`formatter`) is the schema `true`: an object says the
        // same and can carry a description.
        if value == Value::Bool(true) {
            value = json!({});
        }
        let about = match key.setter {
            Setter::Anyone => key.about.to_owned(),
            Setter::User => format!("(User file only.) {}", key.about),
        };
        if let Value::Object(o) = &mut value {
            o.insert("description".into(), json!(about));
        }
        properties.insert(key.name.to_owned(), value);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ConfigFile",
        "description": "A sightline configuration file: `sightline.json[c]` at a project root, or the user's `~/.config/sightline/config.json[c]`.",
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
        "$defs": generator.take_definitions(true),
    })
}
