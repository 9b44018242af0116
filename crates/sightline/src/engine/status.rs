//! `sightline servers`: every server with its state, as a person would want
//! to see it: off (and how to turn it on), running (root and pid), broken
//! (why), installed (where, which version), or missing (how to get it).

use std::path::Path;

use crate::answer::{ServerStatus, State};
use crate::catalog::Role;
use crate::catalog::install;
use crate::engine::Servers;

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Primary => "primary",
        Role::Alternative => "alternative",
        Role::Linter => "linter",
    }
}

impl Servers<'_> {
    /// The state of every server, built-in and configured, for files under
    /// `root` (where project-local servers are looked for).
    pub fn states(&self, root: &Path) -> Vec<ServerStatus> {
        let running = self.engine.running_servers();
        let broken = self.broken();
        self.engine
            .all_servers()
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
                } else if let Some(why) = self.engine.why_off(spec) {
                    State::Off { why }
                } else {
                    match self.locate(spec, root) {
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

impl Servers<'_> {
    /// Stops the server unused the longest, if any is unused now; its id
    /// and root (the daemon's memory limit).
    pub(crate) fn stop_idlest(&self) -> Option<(&'static str, std::path::PathBuf)> {
        self.engine.shared.pool.stop_idlest().or_else(|| {
            self.engine
                .with_projects()
                .iter()
                .find_map(|e| e.servers().stop_idlest())
        })
    }

    /// Each running server, the project engines' too, for `sightline
    /// daemon status`.
    pub fn rows(&self) -> Vec<ServerRow> {
        let mut rows = self.own_rows();
        for e in self.engine.with_projects() {
            rows.extend(e.servers().rows());
        }
        rows.sort_by_key(|r| r.pid);
        rows.dedup_by_key(|r| r.pid);
        rows
    }

    fn own_rows(&self) -> Vec<ServerRow> {
        self.engine
            .shared
            .pool
            .running_confined()
            .into_iter()
            .map(|(writable, s)| {
                let pid = s.pid().unwrap_or(0);
                ServerRow {
                    id: s.spec.id,
                    root: s.root.clone(),
                    writable,
                    pid,
                    rss_kib: tree_rss_kib(pid),
                    idle_secs: s.idle_for().as_secs(),
                    served: s.served(),
                    polled_dirs: s.polled_dirs(),
                }
            })
            .collect()
    }
}

/// One running server as `sightline daemon status` shows it.
#[derive(Debug, Clone)]
pub struct ServerRow {
    /// The server's id.
    pub id: &'static str,
    /// The project root it serves.
    pub root: std::path::PathBuf,
    /// The directories it may write besides its caches and TMPDIR (the
    /// workspace of the clients it serves, or its root).
    pub writable: Vec<std::path::PathBuf>,
    /// Its process id.
    pub pid: u32,
    /// Resident memory of its process tree, in KiB (typescript-language-server's
    /// tsserver is a child).
    pub rss_kib: u64,
    /// How long since a call used it.
    pub idle_secs: u64,
    /// Questions it was handed out for.
    pub served: u64,
    /// Directories its watch polls because the watch limit was reached.
    pub polled_dirs: usize,
}

/// `VmRSS` of `pid` and every process below it, in KiB.
fn tree_rss_kib(pid: u32) -> u64 {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let ppid = std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    let (_, after) = s.rsplit_once(')')?;
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                });
            if let Some(pp) = ppid {
                parents.push((p, pp));
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree.iter().map(|p| rss_kib(*p)).sum()
}

/// `VmRSS` of `pid` in KiB, or 0.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
