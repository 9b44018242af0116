//! `sightline servers`: every server with its state, as a person would want
//! to see it: off (and how to turn it on), running (root and pid), broken
//! (why), installed (where, which version), or missing (how to get it).

use std::path::Path;

use crate::answer::{ServerStatus, State};
use crate::engine::Engine;
use crate::servers::Role;
use crate::servers::install;

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Primary => "primary",
        Role::Alternative => "alternative",
        Role::Linter => "linter",
    }
}

impl Engine {
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
