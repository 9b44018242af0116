//! Turning the configuration into what the engine uses: which servers are
//! on, their settings, and what the trust gate blocks.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;
use crate::catalog::{self, Budgets, Role, ServerSpec};

/// What a server needs from the configuration to start.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Replaces discovery: the program and its arguments.
    pub command: Option<Vec<String>>,
    /// Variables set for the server, after the trust gate.
    pub env: Vec<(String, String)>,
    /// Merged over the built-in `initializationOptions`.
    pub initialization: Option<Map<String, Value>>,
    /// Merged over the built-in answers to `workspace/configuration`.
    pub settings: Option<Map<String, Value>>,
    /// Its budgets, with the configured overrides applied.
    pub budgets: Budgets,
    /// Overrides the server table's `network`.
    pub network: Option<bool>,
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
    /// The settings of each configured server, by id.
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
        for s in catalog::BUILTIN {
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
            if catalog::builtin(id).is_none() {
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
                    ..catalog::BASE
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
                    "ceiling_ms" => b.ceiling = d,
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
                    settings: entry.settings.clone(),
                    budgets: b,
                    network: entry.network,
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
        if !self.ignored.is_empty() {
            out.push_str(&format!(
                "# ignored until trusted: {}\n",
                self.ignored.join(", ")
            ));
        }
        let mut values = self.values.clone();
        values
            .entry("lsp".into())
            .or_insert((json!(self.lsp_enabled), self.lsp_origin.clone()));
        values.entry("autoinstall".into()).or_insert((
            json!(!crate::catalog::install::downloads_disabled()),
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
