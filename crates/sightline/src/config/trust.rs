//! The trust gate for project files: until `sightline trust DIR`, a project's
//! `sightline.json` may not choose what runs or how it starts. Its `command`
//! entries are blocked (see `resolve`); the keys that change how a program
//! starts are dropped here as they are read, and each one is remembered so
//! that answers can say what was ignored and how to trust.

use serde_json::Value;

use super::{Config, FormatterEntry, LspEntry, Origin};

/// Words in a setting's name that mark it as naming a program, a path or a
/// plugin (`typescript.tsdk`, `pluginPaths`, `python.defaultInterpreterPath`,
/// `command`, `nodePath`, `serverPath`, ...).
const PROGRAM_WORDS: &[&str] = &[
    "path",
    "command",
    "cmd",
    "exe",
    "bin",
    "program",
    "plugin",
    "interpreter",
    "server",
    "node",
    "tsdk",
    "probe",
    "launch",
    "script",
    "require",
    "loader",
    "executable",
    "args",
    "shell",
    "env",
];

/// Whether a setting (its name, or anything inside its value) may name a
/// program, a path or a plugin: its name has one of [`PROGRAM_WORDS`], or a
/// string in it looks like a path.
pub(super) fn names_a_program(key: &str, value: &Value) -> bool {
    let key = key.to_ascii_lowercase();
    if PROGRAM_WORDS.iter().any(|w| key.contains(w)) {
        return true;
    }
    match value {
        // A flag (`-toolexec=...` in gopls's `buildFlags`) can make a tool
        // run a program.
        Value::String(s) => {
            s.contains('/') || s.contains('\\') || s.starts_with('.') || s.starts_with('-')
        }
        Value::Array(a) => a.iter().any(|v| names_a_program("", v)),
        Value::Object(o) => o.iter().any(|(k, v)| names_a_program(k, v)),
        _ => false,
    }
}

impl Config {
    pub(super) fn ignore(&mut self, key: String, origin: &Origin) {
        self.ignored.push(format!("{key} ({origin})"));
    }

    /// Undoes what an untrusted project file changed in an `lsp` entry's
    /// `env`, `network` and program-naming `initialization` settings.
    pub(super) fn gate_lsp_entry(
        &mut self,
        id: &str,
        before: &LspEntry,
        entry: &mut LspEntry,
        origin: &Origin,
    ) {
        if entry.env != before.env {
            entry.env = before.env.clone();
            self.ignore(format!("lsp.{id}.env"), origin);
        }
        if entry.network != before.network {
            entry.network = before.network;
            self.ignore(format!("lsp.{id}.network"), origin);
        }
        let old = before.initialization.clone().unwrap_or_default();
        if let Some(init) = &mut entry.initialization {
            let changed: Vec<String> = init
                .iter()
                .filter(|(k, v)| old.get(*k) != Some(*v) && names_a_program(k, v))
                .map(|(k, _)| k.clone())
                .collect();
            for k in changed {
                match old.get(&k) {
                    Some(v) => init.insert(k.clone(), v.clone()),
                    None => init.remove(&k),
                };
                self.ignore(format!("lsp.{id}.initialization.{k}"), origin);
            }
        }
    }

    /// Undoes what an untrusted project file set in an `lsp` entry's
    /// `settings` that names a program, a path or a plugin (pyright's
    /// `python.pythonPath`, eslint's `nodePath`), leaf by leaf.
    pub(super) fn gate_lsp_settings(
        &mut self,
        id: &str,
        before: &LspEntry,
        entry: &mut LspEntry,
        origin: &Origin,
    ) {
        let old = Value::Object(before.settings.clone().unwrap_or_default());
        let Some(new) = entry.settings.take() else {
            return;
        };
        let mut new = Value::Object(new);
        let mut dropped = Vec::new();
        gate_leaves(&old, &mut new, String::new(), &mut dropped);
        for key in dropped {
            self.ignore(format!("lsp.{id}.settings.{key}"), origin);
        }
        if let Value::Object(m) = new {
            entry.settings = Some(m);
        }
    }

    /// Undoes an untrusted project file's formatter `environment`.
    pub(super) fn gate_formatter(
        &mut self,
        name: &str,
        before: &FormatterEntry,
        entry: &mut FormatterEntry,
        origin: &Origin,
    ) {
        if entry.environment != before.environment {
            entry.environment = before.environment.clone();
            self.ignore(format!("formatter.{name}.environment"), origin);
        }
    }

    /// Whether an untrusted project may set the sandbox `mode`: only as
    /// strict as what the user's file (or the default, `workspace-write`)
    /// chose, or stricter.
    pub(super) fn gate_sandbox(&mut self, mode: &str, origin: &Origin) -> bool {
        let rank = |m: &str| match m {
            "read-only" => 0,
            "workspace-write" => 1,
            _ => 2,
        };
        let current = self.sandbox.as_deref().unwrap_or("workspace-write");
        if rank(mode) > rank(current) {
            self.ignore("sandbox".into(), origin);
            return false;
        }
        true
    }

    /// One line for answers while a project file's keys are ignored: which,
    /// and how to trust the project.
    pub fn untrusted_note(&self) -> Option<String> {
        if self.ignored.is_empty() {
            return None;
        }
        let project = self
            .project
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| ".".into());
        Some(format!(
            "{project} is not trusted, so its configuration's {} {} ignored; trust it with `sightline trust {project}`",
            self.ignored.join(", "),
            if self.ignored.len() == 1 {
                "was"
            } else {
                "were"
            }
        ))
    }
}

/// Puts back `old`'s value of every leaf of `new` that changed and names a
/// program (its key path, or a string that looks like a path); the dotted
/// paths put back go to `dropped`.
fn gate_leaves(old: &Value, new: &mut Value, path: String, dropped: &mut Vec<String>) {
    if let Value::Object(map) = new {
        let keys: Vec<String> = map.keys().cloned().collect();
        for k in keys {
            let sub = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            let before = old.get(&k).cloned().unwrap_or(Value::Null);
            let Some(v) = map.get_mut(&k) else { continue };
            if v.is_object() && (before.is_object() || before.is_null()) {
                gate_leaves(&before, v, sub, dropped);
                continue;
            }
            if *v != before && names_a_program(&sub, v) {
                if before.is_null() {
                    map.remove(&k);
                } else {
                    *v = before;
                }
                dropped.push(sub);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::Path;

    use serde_json::{Map, json};

    use super::*;

    /// An untrusted project may make the sandbox stricter, never looser
    /// than the user's choice, and may not turn installs or edit tools on.
    #[test]
    fn an_untrusted_project_only_tightens() {
        let mut c = Config::default();
        c.merge_text(
            Path::new("/u/config.json"),
            r#"{ "sandbox": "read-only" }"#,
            false,
        )
        .unwrap();
        c.merge_text(
            Path::new("/p/sightline.json"),
            "{\n\"sandbox\": \"workspace-write\",\n\"autoinstall\": true,\n\"edit_tools\": true\n}",
            true,
        )
        .unwrap();
        assert_eq!(c.sandbox.as_deref(), Some("read-only"));
        assert_eq!(c.autoinstall, None);
        assert!(!c.edit_tools);
        assert_eq!(
            c.ignored,
            vec![
                "sandbox (/p/sightline.json:2)",
                "autoinstall (/p/sightline.json:3)",
                "edit_tools (/p/sightline.json:4)"
            ]
        );
        let mut c = Config::default();
        c.merge_text(
            Path::new("/p/sightline.json"),
            r#"{ "sandbox": "read-only" }"#,
            true,
        )
        .unwrap();
        assert_eq!(c.sandbox.as_deref(), Some("read-only"));
        assert!(c.ignored.is_empty());
    }

    /// The settings of `init` that name no program.
    fn harmless(init: &Map<String, Value>) -> Vec<&str> {
        init.iter()
            .filter(|(k, v)| !names_a_program(k, v))
            .map(|(k, _)| k.as_str())
            .collect()
    }

    #[test]
    fn settings_that_name_programs_are_told_apart() {
        let init = json!({
            "typeCheckingMode": "strict",
            "checkOnSave": false,
            "tsdk": "./node_modules/typescript/lib",
            "plugins": [{ "name": "x", "location": "./evil" }],
            "python": { "defaultInterpreterPath": "/usr/bin/python3" },
            "formatter": { "argv": ["./evil.sh"] },
            "maxResults": 4096,
        });
        assert_eq!(
            harmless(init.as_object().unwrap()),
            vec!["checkOnSave", "maxResults", "typeCheckingMode"]
        );
    }
}
