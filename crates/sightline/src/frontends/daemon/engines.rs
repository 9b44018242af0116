//! The daemon's engines, one per (root, sandbox mode, PATH, virtualenv and
//! the rest of the environment servers see, configuration):
//! sessions whose servers would be identical share one engine and so one
//! set of servers; any difference gets an engine of its own. The
//! configuration counts with the project's trust, so that a `sightline
//! trust` or `trust --revoke` takes effect at the next session or call, and
//! the engine of the old configuration is shut down.
//!
//! Engines that differ only in the root share their servers
//! ([`crate::pool::SharedServers`]): a CLI call without `--root` and an MCP
//! session in the project's directory start pyright at the same project
//! root, confined alike, and so get one pyright. Nor does the raw `PATH`
//! part them: engines share servers when their `PATH`s find the same
//! programs (`programs_found`), as an MCP host's `PATH` with directories of
//! its own and the user's shell do.

use crate::frontends::tools::Toolset;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use crate::engine::{Engine, Options};
use crate::frontends::daemon::Hello;

/// Root with the session's other folders (`sightline mcp --folder`),
/// sandbox mode, PATH, virtualenv with the rest of the servers'
/// environment, and the configuration's fingerprint. The folders are not
/// in the fingerprint: an MCP session with `--folder` and the hooks of the
/// same agent, which send none, share their servers and neither's engine
/// is taken for a stale one of the other's.
type Key = (
    (Option<PathBuf>, Vec<PathBuf>),
    Option<String>,
    // The client's `PATH`, and what it finds (`programs_found`, worked out
    // once per session, not on every comparison of groups).
    (Option<String>, Option<String>),
    (Option<PathBuf>, crate::pool::env::ServerEnv),
    u64,
);

/// A key without its root, and with what its `PATH` finds in place of the
/// `PATH` itself: the engines of one group share their servers.
type Group = (
    Option<String>,
    Option<String>,
    (Option<PathBuf>, crate::pool::env::ServerEnv),
    u64,
);

fn group(key: &Key) -> Group {
    (key.1.clone(), key.2.1.clone(), key.3.clone(), key.4)
}

/// What `path` finds of every program a built-in server starts, and of the
/// runtimes servers run their tools with (`node`, `python3`): two `PATH`s
/// that find the same files start the same servers.
fn programs_found(path: &str) -> String {
    let dirs: Vec<PathBuf> = std::env::split_paths(path).collect();
    let mut names: Vec<&str> = crate::catalog::table::BUILTIN
        .iter()
        .map(|s| s.command)
        .chain(["node", "python3", "python", "go", "cargo", "rustup"])
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .iter()
        .map(|name| {
            let found = dirs
                .iter()
                .map(|d| d.join(name))
                .find(|p| p.is_file())
                .and_then(|p| std::fs::canonicalize(p).ok());
            format!(
                "{name}={}",
                found.map(|p| p.display().to_string()).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// Every engine the daemon holds.
#[derive(Default)]
pub struct Engines {
    by_key: Mutex<HashMap<Key, Arc<Engine>>>,
    /// The servers of each group that has an engine.
    groups: Arc<Mutex<HashMap<Group, crate::pool::SharedServers>>>,
}

impl Engines {
    /// The engine for `hello`, made on first use; also the tools its
    /// session serves (the client's profile, else the configuration's).
    pub fn for_hello(&self, hello: &Hello) -> Result<(Arc<Engine>, Toolset), String> {
        // The configuration of the client's own project; each file of
        // another project is answered by that project's engine
        // (`Engine::for_path`).
        let project = hello.root.as_deref().and_then(crate::config::project_dir);
        let mut config = crate::config::Config::load_for_session(project.as_deref())
            .map_err(|e| e.to_string())?;
        let tools = session_tools(hello, &config)?;
        let fingerprint = crate::config::fingerprint(
            &config,
            hello
                .root
                .as_deref()
                .is_some_and(crate::project::trusted_at),
        );
        config.folders.extend(hello.folders.iter().cloned());
        let key = (
            (hello.root.clone(), hello.folders.clone()),
            hello.sandbox.clone(),
            (
                hello.path.clone(),
                hello.path.as_deref().map(programs_found),
            ),
            (hello.virtual_env.clone(), hello.env.clone()),
            fingerprint,
        );
        let mut map = self.by_key.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = map.get(&key) {
            return Ok((e.clone(), tools));
        }
        // The same client place under another configuration or trust: its
        // servers were started under rules that no longer hold.
        let stale: Vec<Key> = map
            .keys()
            .filter(|k| k.0 == key.0 && k.1 == key.1 && k.2 == key.2 && k.3 == key.3)
            .cloned()
            .collect();
        for k in stale {
            let Some(old) = map.remove(&k) else {
                continue;
            };
            // Engines of other roots under the old configuration may still
            // use these servers; they go when the last of them does.
            if !map.keys().any(|other| group(other) == group(&k)) {
                self.groups
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&group(&k));
                // Only what no other engine uses: a project engine of
                // another client place may share a group of this one's.
                tokio::spawn(async move { old.shutdown_unshared().await });
            }
        }
        tracing::debug!("daemon: a new engine for {key:?}");
        let shared = self
            .groups
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(group(&key))
            .or_default()
            .clone();
        // The client's PATH comes first, so that a session finds the servers
        // its own shell would (a project's node_modules/.bin on PATH, a venv).
        let search_path = hello
            .path
            .as_deref()
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        // A project engine of this client place shares the servers of its
        // configuration's group, as an engine made for that project would.
        let share_by_config: crate::engine::ShareByConfig = {
            let groups = self.groups.clone();
            let place = (key.1.clone(), key.2.1.clone(), key.3.clone());
            Arc::new(move |fingerprint| {
                let group = (
                    place.0.clone(),
                    place.1.clone(),
                    place.2.clone(),
                    fingerprint,
                );
                groups
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(group)
                    .or_default()
                    .clone()
            })
        };
        let engine = Arc::new(Engine::new(Options {
            root: hello.root.clone(),
            config,
            project_configs: true,
            share_by_config: Some(share_by_config),
            sandbox: hello
                .sandbox
                .as_deref()
                .and_then(crate::sandbox::Mode::parse),
            search_path,
            virtual_env: hello.virtual_env.clone(),
            // Only the variables the daemon carries: a client cannot set
            // others on its servers this way.
            server_env: hello
                .env
                .iter()
                .filter(|(k, _)| crate::pool::env::SERVER_ENV.contains(&k.as_str()))
                .cloned()
                .collect(),
            shared_servers: Some(shared),
            ..Options::default()
        }));
        map.insert(key, engine.clone());
        Ok((engine, tools))
    }

    /// Every engine, for status and shutdown.
    pub fn all(&self) -> Vec<(Option<PathBuf>, Arc<Engine>)> {
        let map = self.by_key.lock().unwrap_or_else(PoisonError::into_inner);
        map.iter()
            .map(|(k, e)| (k.0.0.clone(), e.clone()))
            .collect()
    }

    /// Every running server once (engines of one group hold the same
    /// servers).
    pub fn servers(&self) -> Vec<crate::engine::status::ServerRow> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (_, e) in self.all() {
            for row in e.servers().rows() {
                if seen.insert(row.pid) {
                    out.push(row);
                }
            }
        }
        out
    }

    /// Whether any engine still runs a server.
    pub fn any_running(&self) -> bool {
        self.all()
            .iter()
            .any(|(_, e)| !e.servers().pids().is_empty())
    }

    /// Shuts every server of every engine down.
    pub async fn shutdown(&self) {
        for (_, e) in self.all() {
            e.shutdown().await;
        }
    }
}

/// The tools a session of `hello` serves under `config`; or why the
/// session cannot start: a folder a rename would write in that holds the
/// client's workspace (the configuration's are checked for the root and
/// the home directory when read), or a profile or tool list naming none.
fn session_tools(hello: &Hello, config: &crate::config::Config) -> Result<Toolset, String> {
    if let Some(why) = config
        .folders
        .iter()
        .chain(&hello.folders)
        .find_map(|f| crate::config::folder_refused(f, hello.root.as_deref()))
    {
        return Err(why);
    }
    Toolset::chosen(
        hello.tools.as_deref(),
        hello.edit_tools || config.edit_tools,
        config.mcp_tools.as_deref(),
    )
}
