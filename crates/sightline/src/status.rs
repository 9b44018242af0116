//! `sightline servers`: every server with its state, as a person would want
//! to see it: off (and how to turn it on), running (root and pid), broken
//! (why), installed (where, which version), or missing (how to get it).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::install;
use crate::registry::{self, Role, ServerSpec};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    Off {
        why: String,
    },
    Running {
        root: PathBuf,
        pid: u32,
    },
    Broken {
        root: PathBuf,
        reason: String,
    },
    Installed {
        path: PathBuf,
        version: Option<String>,
    },
    Missing {
        install: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    pub id: String,
    pub language: String,
    pub extensions: Vec<String>,
    pub role: &'static str,
    #[serde(flatten)]
    pub state: State,
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Primary => "primary",
        Role::Alternative => "alternative",
        Role::Linter => "linter",
    }
}

impl Workspace {
    /// The state of every server, built-in and configured, for files under
    /// `root` (where project-local servers are looked for).
    pub fn server_states(&self, root: &Path) -> Vec<ServerStatus> {
        let running = self.running_servers();
        let broken = self.broken_servers();
        self.all_servers()
            .into_iter()
            .map(|spec| {
                let state = if let Some(s) = running.iter().find(|s| s.spec.id == spec.id) {
                    State::Running {
                        root: s.root.clone(),
                        pid: s.pid().unwrap_or(0),
                    }
                } else if let Some((_, r, why)) = broken.iter().find(|(id, _, _)| *id == spec.id) {
                    State::Broken {
                        root: r.clone(),
                        reason: why.clone(),
                    }
                } else if let Some(why) = self.why_off(spec) {
                    State::Off { why }
                } else {
                    match self.locate_server(spec, root) {
                        Some(path) => State::Installed {
                            version: install::version_of(spec, &path),
                            path,
                        },
                        None => State::Missing {
                            install: spec.install_command(),
                        },
                    }
                };
                ServerStatus {
                    id: spec.id.to_owned(),
                    language: spec.language.to_owned(),
                    extensions: spec
                        .extensions
                        .iter()
                        .chain(spec.file_names)
                        .map(|e| e.to_string())
                        .collect(),
                    role: role_name(spec.role),
                    state,
                }
            })
            .collect()
    }
}

/// The text table of `sightline servers`.
pub fn render(states: &[ServerStatus]) -> String {
    let id_w = states.iter().map(|s| s.id.len()).max().unwrap_or(2).max(2);
    let ext_w = states
        .iter()
        .map(|s| s.extensions.join(" ").chars().count().min(28))
        .max()
        .unwrap_or(10);
    let mut out = String::new();
    for s in states {
        let mut exts = s.extensions.join(" ");
        if exts.chars().count() > 28 {
            exts = format!("{}…", exts.chars().take(27).collect::<String>());
        }
        let state = match &s.state {
            State::Off { why } => format!("off: {why}"),
            State::Running { root, pid } => format!("running for {} (pid {pid})", root.display()),
            State::Broken { root, reason } => format!("broken for {}: {reason}", root.display()),
            State::Installed { path, version } => format!(
                "installed {}at {}",
                version
                    .as_ref()
                    .map(|v| format!("{v} "))
                    .unwrap_or_default(),
                path.display()
            ),
            State::Missing { install } => format!("missing: {install}"),
        };
        out.push_str(&format!("{:<id_w$}  {:<ext_w$}  {state}\n", s.id, exts));
    }
    out
}

/// Servers by id, for `sightline install`.
pub fn find(ws: &Workspace, id: &str) -> Option<&'static ServerSpec> {
    ws.all_servers()
        .into_iter()
        .find(|s| s.id == id)
        .or_else(|| registry::builtin(id))
}
