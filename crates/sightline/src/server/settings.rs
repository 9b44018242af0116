//! The settings a server is answered when it asks for its configuration
//! (`workspace/configuration`), one section at a time.

use serde_json::{Value, json};

use crate::server::inbox::Inbox;

impl Inbox {
    /// The settings answered to `workspace/configuration` for one section:
    /// the built-in ones with the configured ones (`lsp.ID.settings`, at
    /// that dotted section) merged over them.
    pub(super) fn configuration(&self, section: Option<&str>) -> Value {
        let mut base = self.builtin_configuration(section);
        let user = self
            .user_settings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let configured = match section {
            Some("") | None => Some(&*user),
            Some(s) => s.split('.').try_fold(&*user, |v, part| v.get(part)),
        };
        if let Some(c) = configured.filter(|c| !c.is_null()) {
            crate::config::merge_deep(&mut base, c);
        }
        base
    }

    fn builtin_configuration(&self, section: Option<&str>) -> Value {
        match section {
            // A server that fails on `{}` for its whole settings object
            // (section "", or none) gets the settings its table entry makes.
            Some("") | None if self.spec.quirks.launch.whole_settings.is_some() => self
                .spec
                .quirks
                .launch
                .whole_settings
                .map_or_else(|| json!({}), |settings| settings(&self.root)),
            // pyright asks for `python`; point it at the project's virtualenv.
            Some("python") => match find_venv_python(&self.root, self.virtual_env.as_deref()) {
                Some(py) => json!({ "pythonPath": py }),
                None => json!({}),
            },
            // The VS Code HTML server reads
            // `js/ts.implicitProjectConfig.strictNullChecks` without checking
            // that `implicitProjectConfig` exists, and every validation of a
            // file with a script fails on `{}`; these are VS Code's defaults.
            Some("js/ts") => json!({
                "implicitProjectConfig": { "strictNullChecks": true, "experimentalDecorators": false }
            }),
            // An empty object, not null: the VS Code CSS server fails on null
            // settings, and every other server measured accepts `{}`.
            _ => json!({}),
        }
    }
}

fn find_venv_python(
    root: &std::path::Path,
    virtual_env: Option<&std::path::Path>,
) -> Option<String> {
    let mut candidates = Vec::new();
    if let Some(v) = virtual_env {
        candidates.push(v.to_owned());
    }
    candidates.push(root.join(".venv"));
    candidates.push(root.join("venv"));
    candidates
        .into_iter()
        .map(|v| v.join("bin").join("python"))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}
