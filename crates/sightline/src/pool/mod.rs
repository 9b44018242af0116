//! One server per (workspace root, server id), started lazily: concurrent first
//! calls share one start, a crashed server is restarted with back-off and
//! reported as broken after repeated failures (then retried after a cool-down),
//! idle servers and documents are let go, and all servers shut down together.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::install;
use crate::catalog::{Budgets, ServerSpec};
use crate::error::{ErrorKind, ToolError};
use crate::pool::health::{Shared, lock};
use crate::progress::Progress;
use crate::server::LspServer;

pub mod env;
pub mod events;
mod health;
mod launch;
mod runtime;

/// The running servers, one per (root, server id), started on first use.
pub struct Pool {
    shared: Arc<Shared>,
    budgets: Budgets,
    server_budgets: HashMap<String, Budgets>,
    /// Replaced when the configuration files change (`set_settings`).
    settings: std::sync::RwLock<std::collections::BTreeMap<String, crate::config::ServerSettings>>,
    /// Servers a project file names commands for without trust: id → why.
    /// Replaced with the settings (`set_settings`): a command an untrusted
    /// project names later must not run either.
    blocked: std::sync::RwLock<std::collections::BTreeMap<String, String>>,
    sandbox: crate::sandbox::Sandbox,
    progress: Arc<dyn Progress>,
    search_path: Vec<PathBuf>,
    downloads: bool,
    /// The user's virtualenv, for the servers' environment and settings.
    virtual_env: Option<PathBuf>,
    /// The client's environment for servers (`env`).
    server_env: env::ServerEnv,
    /// The cap on inotify watches per server (`Options::watch_limit`).
    watch_limit: usize,
}

/// Running servers that several pools hand out: the daemon's engines whose
/// servers would be identical (same sandbox mode, environment and
/// configuration) share one, so that a CLI call without `--root` and an MCP
/// session working in the project's directory use one pyright. A server is
/// shared only where it would also be confined alike (see `health::Key`).
#[derive(Clone, Default)]
pub struct SharedServers(Arc<Shared>);

impl SharedServers {
    /// Whether `other` hands out the same servers.
    pub fn same(&self, other: &SharedServers) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Pool {
    /// A pool starting servers with these budgets and settings, in `sandbox`,
    /// looking in `search_path` before PATH, installing when `downloads`.
    pub fn new(
        budgets: Budgets,
        server_budgets: HashMap<String, Budgets>,
        resolved: &crate::config::Resolved,
        sandbox: crate::sandbox::Sandbox,
        progress: Arc<dyn Progress>,
        search_path: Vec<PathBuf>,
        downloads: bool,
    ) -> Self {
        Pool {
            shared: Arc::default(),
            budgets,
            server_budgets,
            settings: std::sync::RwLock::new(resolved.settings.clone()),
            blocked: std::sync::RwLock::new(resolved.blocked.clone()),
            sandbox,
            progress,
            search_path,
            downloads,
            virtual_env: None,
            server_env: Vec::new(),
            watch_limit: crate::sync::watch::limit_from_env(),
        }
    }

    /// The same pool, watching at most `limit` directories per server.
    pub fn with_watch_limit(mut self, limit: Option<usize>) -> Self {
        if let Some(l) = limit {
            self.watch_limit = l;
        }
        self
    }

    /// The same pool, handing out `shared`'s servers (and starting new ones
    /// there) instead of its own.
    pub fn with_shared(mut self, shared: Option<SharedServers>) -> Self {
        if let Some(s) = shared {
            self.shared = s.0;
        }
        self
    }

    /// The same pool, starting servers for a user working in `virtual_env`.
    pub fn with_virtual_env(mut self, virtual_env: Option<PathBuf>) -> Self {
        self.virtual_env = virtual_env;
        self
    }

    /// The same pool, giving servers the client's `server_env`.
    pub fn with_server_env(mut self, server_env: env::ServerEnv) -> Self {
        self.server_env = server_env;
        self
    }

    /// The configured settings of server `id`, if any.
    pub fn settings_of(&self, id: &str) -> Option<crate::config::ServerSettings> {
        self.settings
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Takes the settings of a changed configuration: servers started from
    /// now on get them. The ids whose entry changed, each with whether only
    /// its `settings` did (a running server can be told those).
    pub fn set_settings(
        &self,
        new: std::collections::BTreeMap<String, crate::config::ServerSettings>,
        blocked: std::collections::BTreeMap<String, String>,
    ) -> Vec<(String, bool)> {
        *self
            .blocked
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = blocked;
        let mut cur = self
            .settings
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut changed = Vec::new();
        let ids: std::collections::BTreeSet<&String> = cur.keys().chain(new.keys()).collect();
        for id in ids {
            let (a, b) = (cur.get(id), new.get(id));
            // What a server reads only at start; an entry that is absent
            // reads as one that sets none of it.
            let launch = |s: Option<&crate::config::ServerSettings>| {
                s.map_or((None, Vec::new(), None, None), |s| {
                    (
                        s.command.clone(),
                        s.env.clone(),
                        s.initialization.clone(),
                        s.network,
                    )
                })
            };
            let only_settings = launch(a) == launch(b);
            if a.and_then(|s| s.settings.as_ref()) != b.and_then(|s| s.settings.as_ref())
                || !only_settings
            {
                changed.push((id.clone(), only_settings));
            }
        }
        *cur = new;
        changed
    }

    /// The budgets of `spec`: given for its id, else configured, else the default.
    pub fn budgets_for(&self, spec: &ServerSpec) -> Budgets {
        self.server_budgets
            .get(spec.id)
            .copied()
            .or_else(|| self.settings_of(spec.id).map(|s| s.budgets))
            .unwrap_or(self.budgets)
    }

    /// The program to run for `spec`: the configured command, or discovery.
    pub fn locate(&self, spec: &ServerSpec, root: &Path) -> Option<PathBuf> {
        match self.settings_of(spec.id).and_then(|s| s.command) {
            Some(command) => launch::resolve_program(&command[0], root),
            None => install::locate(spec, root, &self.search_path),
        }
    }

    /// Whether a server of `spec` that [`Self::locate`] does not find would
    /// be installed on its first question (downloads allowed, and the
    /// catalog knows how).
    pub fn installs(&self, spec: &ServerSpec) -> bool {
        self.downloads
            && spec.installable()
            && self.settings_of(spec.id).and_then(|s| s.command).is_none()
    }

    /// The running server for `root`, started (and installed) if needed.
    pub async fn get(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        self.start_reaper();
        let key = (
            root.to_owned(),
            spec.id,
            self.sandbox.writable_for_project(root),
        );
        let budgets = self.budgets_for(spec);
        let mut restarted = None;
        loop {
            self.wait_out_failures(&key, &budgets).await?;
            let slot = self.shared.slot(&key);
            let mut fresh = false;
            let started = slot
                .get_or_try_init(|| {
                    fresh = true;
                    self.start(spec, root, budgets)
                })
                .await;
            if fresh && let Ok(s) = &started {
                let pid = s.pid().map(|p| format!(" (pid {p})")).unwrap_or_default();
                self.shared.events.send(
                    events::EventLevel::Info,
                    format!("{} for {} started{pid}", spec.id, root.display()),
                );
            }
            let server = match started {
                Ok(s) => s.clone(),
                Err(e) => {
                    // A missing server is not a failure of the server.
                    if matches!(
                        e,
                        ToolError {
                            kind: ErrorKind::Server,
                            ..
                        } | ToolError {
                            kind: ErrorKind::Exited,
                            ..
                        }
                    ) {
                        self.shared.record_failure(&key, e.clone());
                    }
                    return Err(e);
                }
            };
            if server.is_alive() {
                // A file it reads only at start changed: a new server, and
                // the next answer says why.
                if let Some(why) = server.restart_reason() {
                    tracing::info!("{why}");
                    self.shared
                        .events
                        .send(events::EventLevel::Info, why.clone());
                    self.shared.forget(&key, &slot);
                    tokio::spawn(async move { server.shutdown().await });
                    restarted = Some(why);
                    continue;
                }
                if let Some(why) = restarted.take() {
                    server.set_note(why);
                }
                server.touch();
                self.link_relay(&server).await;
                return Ok(server);
            }
            // It crashed since its last use: count it, then start it anew
            // (the loop applies the back-off, or reports it broken).
            let why = server.exit_reason();
            tracing::warn!("{} for {} has exited: {why}", spec.id, root.display());
            self.shared.events.send(
                events::EventLevel::Warning,
                format!("{} for {} has exited: {why}", spec.id, root.display()),
            );
            self.shared.record_failure(&key, ToolError::exited(why));
            self.shared.forget(&key, &slot);
        }
    }

    /// Starts the server that answers `server`'s relayed requests, for the
    /// same root, and links the two (vue-language-server's tsserver). Where
    /// that server cannot start, the relayed requests are answered with
    /// nothing, and the asking server answers what it can without them.
    async fn link_relay(&self, server: &Arc<LspServer>) {
        let Some(relay) = server.spec.quirks.relay else {
            return;
        };
        if server.relay_linked() {
            return;
        }
        let Some(spec) = crate::catalog::builtin(relay.to) else {
            return;
        };
        match Box::pin(self.get(spec, &server.root)).await {
            Ok(target) => server.relay_to(&target),
            Err(e) => tracing::warn!(
                "{} for {}: {} cannot answer its requests: {e}",
                server.spec.id,
                server.root.display(),
                relay.to
            ),
        }
    }

    /// Every running server with the directories it may write.
    pub fn running_confined(&self) -> Vec<(Vec<PathBuf>, Arc<LspServer>)> {
        lock(&self.shared.slots)
            .iter()
            .filter_map(|(k, s)| Some((k.2.clone(), s.get().cloned()?)))
            .collect()
    }

    /// What happens to this pool's servers from now on (shared with the
    /// pools that share its servers).
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<events::ServerEvent> {
        self.shared.events.listen()
    }

    /// Every running server.
    pub fn running(&self) -> Vec<Arc<LspServer>> {
        lock(&self.shared.slots)
            .values()
            .filter_map(|s| s.get().cloned())
            .collect()
    }

    /// Stops the server unused the longest, if one is unused now (no call
    /// holds it: a server is never stopped in the middle of a request);
    /// its id and root. The next question starts it again.
    pub fn stop_idlest(&self) -> Option<(&'static str, PathBuf)> {
        let (key, slot, server) = {
            let slots = lock(&self.shared.slots);
            slots
                .iter()
                .filter_map(|(k, s)| Some((k.clone(), s.clone(), s.get().cloned()?)))
                // The slot and this clone are the only holders when unused.
                .filter(|(_, _, server)| Arc::strong_count(server) <= 2)
                .max_by_key(|(_, _, server)| server.idle_for())?
        };
        self.shared.forget(&key, &slot);
        tracing::info!(
            "stopping {} for {} to stay within the memory limit",
            key.1,
            key.0.display()
        );
        tokio::spawn(async move { server.shutdown().await });
        Some((key.1, key.0))
    }

    /// Stops the running servers `pick` chooses and waits until they are
    /// gone; their ids and roots. The next question starts each again.
    /// Only this pool's own servers are chosen: among shared ones, those
    /// confined as this pool would confine them.
    pub async fn stop_where(
        &self,
        pick: impl Fn(&LspServer) -> bool,
    ) -> Vec<(&'static ServerSpec, PathBuf)> {
        let chosen: Vec<(health::Key, Arc<LspServer>)> = {
            let mut slots = lock(&self.shared.slots);
            let keys: Vec<health::Key> = slots
                .iter()
                .filter(|(k, _)| k.2 == self.sandbox.writable_for_project(&k.0))
                .filter(|(_, s)| s.get().is_some_and(|s| pick(s)))
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter()
                .filter_map(|k| {
                    let server = slots.remove(&k)?.get().cloned()?;
                    Some((k, server))
                })
                .collect()
        };
        futures_util::future::join_all(chosen.iter().map(|(_, s)| s.shutdown())).await;
        chosen
            .into_iter()
            .map(|(_, s)| (s.spec, s.root.clone()))
            .collect()
    }

    /// Whether no other pool hands out this pool's servers.
    pub fn sole_holder(&self) -> bool {
        Arc::strong_count(&self.shared) == 1
    }

    /// Shuts every server down: `shutdown`, `exit`, then the process group.
    pub async fn shutdown(&self) {
        let servers: Vec<_> = lock(&self.shared.slots)
            .drain()
            .filter_map(|(_, s)| s.get().cloned())
            .collect();
        futures_util::future::join_all(servers.iter().map(|s| s.shutdown())).await;
    }
}
