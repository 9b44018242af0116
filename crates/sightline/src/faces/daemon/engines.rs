//! The daemon's engines, one per (root, sandbox mode, PATH, virtualenv and
//! the rest of the environment servers see, configuration):
//! sessions whose servers would be identical share one engine and so one
//! set of servers; any difference gets an engine of its own. The
//! configuration counts with the project's trust, so that a `sightline
//! trust` or `trust --revoke` takes effect at the next session or call, and
//! the engine of the old configuration is shut down.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use crate::engine::{Engine, Options};
use crate::faces::daemon::Hello;

/// Root, sandbox mode, PATH, virtualenv with the rest of the servers'
/// environment, and the configuration's fingerprint.
type Key = (
    Option<PathBuf>,
    Option<String>,
    Option<String>,
    (Option<PathBuf>, crate::pool::env::ServerEnv),
    u64,
);

/// Every engine the daemon holds.
#[derive(Default)]
pub struct Engines {
    by_key: Mutex<HashMap<Key, Arc<Engine>>>,
}

impl Engines {
    /// The engine for `hello`, made on first use; also whether the
    /// configuration asks for the edit tools.
    pub fn for_hello(&self, hello: &Hello) -> Result<(Arc<Engine>, bool), String> {
        let config =
            crate::config::Config::load(hello.root.as_deref()).map_err(|e| e.to_string())?;
        let edit_tools = config.edit_tools;
        let fingerprint = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            format!("{config:?}").hash(&mut h);
            hello
                .root
                .as_deref()
                .is_some_and(crate::project::trusted_at)
                .hash(&mut h);
            h.finish()
        };
        let key = (
            hello.root.clone(),
            hello.sandbox.clone(),
            hello.path.clone(),
            (hello.virtual_env.clone(), hello.env.clone()),
            fingerprint,
        );
        let mut map = self.by_key.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = map.get(&key) {
            return Ok((e.clone(), edit_tools));
        }
        // The same client place under another configuration or trust: its
        // servers were started under rules that no longer hold.
        let stale: Vec<Key> = map
            .keys()
            .filter(|k| k.0 == key.0 && k.1 == key.1 && k.2 == key.2 && k.3 == key.3)
            .cloned()
            .collect();
        for k in stale {
            if let Some(old) = map.remove(&k) {
                tokio::spawn(async move { old.shutdown().await });
            }
        }
        // The client's PATH comes first, so that a session finds the servers
        // its own shell would (a project's node_modules/.bin on PATH, a venv).
        let search_path = hello
            .path
            .as_deref()
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        let engine = Arc::new(Engine::new(Options {
            root: hello.root.clone(),
            config,
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
            ..Options::default()
        }));
        map.insert(key, engine.clone());
        Ok((engine, edit_tools))
    }

    /// Every engine, for status and shutdown.
    pub fn all(&self) -> Vec<(Option<PathBuf>, Arc<Engine>)> {
        let map = self.by_key.lock().unwrap_or_else(PoisonError::into_inner);
        map.iter().map(|(k, e)| (k.0.clone(), e.clone())).collect()
    }

    /// Whether any engine still runs a server.
    pub fn any_running(&self) -> bool {
        self.all().iter().any(|(_, e)| !e.server_pids().is_empty())
    }

    /// Shuts every server of every engine down.
    pub async fn shutdown(&self) {
        for (_, e) in self.all() {
            e.shutdown().await;
        }
    }
}
