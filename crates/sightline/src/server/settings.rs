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
            // pyright asks for `python`; point it at the virtualenv. pyright
            // runs the interpreter it is given (to learn its search paths),
            // so a project's own `.venv/bin/python` is given only when the
            // project is trusted: a cloned repository's interpreter is its
            // code. The client's `VIRTUAL_ENV` is the user's own choice. An
            // untrusted project's virtualenv is read, never run: its
            // packages are found through their directories
            // (`python.analysis.extraPaths`, which pyright reads from the
            // `python` section).
            Some("python") => {
                let trusted = crate::project::trusted_at(&self.root);
                match find_venv_python(&self.root, self.virtual_env.as_deref(), trusted) {
                    Some(py) => json!({ "pythonPath": py }),
                    None if !trusted => {
                        let paths =
                            untrusted_site_packages(&self.root, self.virtual_env.as_deref());
                        if paths.is_empty() {
                            json!({})
                        } else {
                            json!({ "analysis": { "extraPaths": paths } })
                        }
                    }
                    None => json!({}),
                }
            }
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

/// The interpreter pyright is pointed at: the client's `VIRTUAL_ENV`'s, or,
/// in a `trusted` project, the project's own `.venv` or `venv`.
fn find_venv_python(
    root: &std::path::Path,
    virtual_env: Option<&std::path::Path>,
    trusted: bool,
) -> Option<String> {
    let mut candidates = Vec::new();
    if let Some(v) = virtual_env {
        candidates.push(v.to_owned());
    }
    if trusted {
        candidates.extend(project_venvs(root));
    }
    candidates
        .into_iter()
        .map(|v| v.join("bin").join("python"))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}

/// The project's own virtualenvs, where pyright would look.
fn project_venvs(root: &std::path::Path) -> [std::path::PathBuf; 2] {
    [root.join(".venv"), root.join("venv")]
}

/// The `site-packages` directories of an untrusted project's own
/// virtualenv (when the client names none), found by listing, not by
/// running its interpreter.
fn untrusted_site_packages(
    root: &std::path::Path,
    virtual_env: Option<&std::path::Path>,
) -> Vec<String> {
    if virtual_env.is_some() {
        return Vec::new();
    }
    let Some(venv) = project_venvs(root)
        .into_iter()
        .find(|v| v.join("bin/python").exists())
    else {
        return Vec::new();
    };
    let mut found: Vec<String> = std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .map(|p| p.display().to_string())
        .collect();
    found.sort();
    found
}
