//! One server per (workspace root, server id), started lazily: concurrent first
//! calls share one start, a crashed server is restarted with back-off and
//! reported as broken after repeated failures (then retried after a cool-down),
//! idle servers and documents are let go, and all servers shut down together.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::error::ToolError;
use crate::install;
use crate::progress::Progress;
use crate::registry::{Budgets, ServerSpec, TYPESCRIPT};
use crate::server::LspServer;

type Key = (PathBuf, &'static str);
type Slot = Arc<OnceCell<Arc<LspServer>>>;

/// Recent failures of one (root, server): crashes and failed starts.
#[derive(Default)]
struct Health {
    failures: Vec<Instant>,
    last_error: Option<ToolError>,
}

#[derive(Default)]
struct Shared {
    slots: Mutex<HashMap<Key, Slot>>,
    health: Mutex<HashMap<Key, Health>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

impl Shared {
    fn slot(&self, key: &Key) -> Slot {
        lock(&self.slots).entry(key.clone()).or_default().clone()
    }

    /// Forgets `slot` if it is still the one registered for `key`.
    fn forget(&self, key: &Key, slot: &Slot) {
        let mut slots = lock(&self.slots);
        if slots.get(key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            slots.remove(key);
        }
    }

    fn record_failure(&self, key: &Key, error: ToolError) {
        let mut health = lock(&self.health);
        let h = health.entry(key.clone()).or_default();
        h.failures.push(Instant::now());
        h.last_error = Some(error);
    }

    /// Shuts down servers idle past their budget and closes idle documents.
    fn reap(&self) {
        let servers: Vec<(Key, Slot)> = lock(&self.slots)
            .iter()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        for (key, slot) in servers {
            let Some(server) = slot.get().cloned() else {
                continue;
            };
            // The slot and this clone are the only holders when no call is
            // using the server.
            let unused = Arc::strong_count(&server) <= 2;
            if unused && server.idle_for() >= server.budgets.idle_server {
                tracing::info!(
                    "{} for {} idle for {:.0} s; shutting it down",
                    key.1,
                    key.0.display(),
                    server.idle_for().as_secs_f64()
                );
                self.forget(&key, &slot);
                tokio::spawn(async move { server.shutdown().await });
            } else if let Err(e) = server.close_idle_documents() {
                tracing::debug!("{}: closing idle documents failed: {e}", key.1);
            }
        }
    }
}

pub struct Pool {
    shared: Arc<Shared>,
    budgets: Budgets,
    server_budgets: HashMap<String, Budgets>,
    settings: std::collections::BTreeMap<String, crate::config::ServerSettings>,
    /// Servers a project file names commands for without trust: id → why.
    blocked: std::collections::BTreeMap<String, String>,
    sandbox: crate::sandbox::Sandbox,
    progress: Arc<dyn Progress>,
    search_path: Vec<PathBuf>,
    downloads: bool,
    reaper: OnceLock<()>,
}

impl Pool {
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
            settings: resolved.settings.clone(),
            blocked: resolved.blocked.clone(),
            sandbox,
            progress,
            search_path,
            downloads,
            reaper: OnceLock::new(),
        }
    }

    pub fn budgets_for(&self, spec: &ServerSpec) -> Budgets {
        self.server_budgets
            .get(spec.id)
            .copied()
            .or_else(|| self.settings.get(spec.id).map(|s| s.budgets))
            .unwrap_or(self.budgets)
    }

    /// The program to run for `spec`: the configured command, or discovery.
    pub fn locate(&self, spec: &ServerSpec, root: &Path) -> Option<PathBuf> {
        match self.settings.get(spec.id).and_then(|s| s.command.as_ref()) {
            Some(command) => resolve_program(&command[0], root),
            None => install::locate(spec, root, &self.search_path),
        }
    }

    /// The running server for `root`, started (and installed) if needed.
    pub async fn get(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        self.start_reaper();
        let key = (root.to_owned(), spec.id);
        let budgets = self.budgets_for(spec);
        loop {
            self.wait_out_failures(&key, &budgets).await?;
            let slot = self.shared.slot(&key);
            let started = slot
                .get_or_try_init(|| self.start(spec, root, budgets))
                .await;
            let server = match started {
                Ok(s) => s.clone(),
                Err(e) => {
                    // A missing server is not a failure of the server.
                    if matches!(e, ToolError::Server(_) | ToolError::Exited(_)) {
                        self.shared.record_failure(&key, e.clone());
                    }
                    return Err(e);
                }
            };
            if server.is_alive() {
                server.touch();
                return Ok(server);
            }
            // It crashed since its last use: count it, then start it anew
            // (the loop applies the back-off, or reports it broken).
            let why = server.exit_reason();
            tracing::warn!("{} for {} has exited: {why}", spec.id, root.display());
            self.shared.record_failure(&key, ToolError::Exited(why));
            self.shared.forget(&key, &slot);
        }
    }

    /// Waits out the back-off after recent failures, or answers that the
    /// server is broken when it failed too often.
    async fn wait_out_failures(&self, key: &Key, budgets: &Budgets) -> Result<(), ToolError> {
        let wait = {
            let mut health = lock(&self.shared.health);
            let Some(h) = health.get_mut(key) else {
                return Ok(());
            };
            let now = Instant::now();
            h.failures
                .retain(|t| now.duration_since(*t) < budgets.cooldown);
            let n = h.failures.len() as u32;
            let Some(&newest) = h.failures.last() else {
                return Ok(());
            };
            if n >= budgets.max_failures.max(1) {
                let retry = (newest + budgets.cooldown).saturating_duration_since(now);
                return Err(ToolError::Server(format!(
                    "{} is broken: it failed {n} times in {:.0} s; last failure: {}; sightline tries it again in {:.0} s",
                    key.1,
                    budgets.cooldown.as_secs_f64(),
                    h.last_error
                        .as_ref()
                        .map(ToolError::message)
                        .unwrap_or_default(),
                    retry.as_secs_f64().ceil()
                )));
            }
            if n < 2 {
                return Ok(());
            }
            let backoff = budgets.backoff * 2u32.saturating_pow(n - 2);
            (newest + backoff).saturating_duration_since(now)
        };
        if !wait.is_zero() {
            tracing::info!(
                "{}: waiting {:.1} s before restarting it",
                key.1,
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
        }
        Ok(())
    }

    async fn start(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        if let Some(why) = self.blocked.get(spec.id) {
            return Err(ToolError::Unavailable(why.clone()));
        }
        let settings = self.settings.get(spec.id);
        let command = settings.and_then(|s| s.command.clone());
        let progress = crate::progress::Tee::current(&self.progress);
        let program = match self.locate(spec, root) {
            Some(p) => p,
            None if command.is_some() => {
                let program = command.as_ref().map(|c| c[0].clone()).unwrap_or_default();
                return Err(ToolError::Unavailable(format!(
                    "the configured command of {} (`{program}`) is not found",
                    spec.id
                )));
            }
            None if !self.downloads || !spec.installable() => return Err(unavailable(spec)),
            None => install::install(spec, &progress, &self.sandbox)
                .await
                .map_err(|e| ToolError::Unavailable(format!("{e}; {}", hint(spec))))?,
        };
        let mut init = initialization_options(spec, root, &program)?;
        if let (Some(extra), Some(base)) = (
            settings.and_then(|s| s.initialization.clone()),
            init.as_object_mut(),
        ) {
            base.extend(extra);
        }
        let args = match &command {
            Some(c) => c[1..].to_vec(),
            None => spec.args.iter().map(|a| a.to_string()).collect(),
        };
        // Every server runs in the sandbox: it may write the writable roots
        // (the workspace, or its own root when there is no workspace
        // directory), a private TMPDIR and the caches it is known to need.
        // A project root outside the workspace stays writable for its own
        // server: rust-analyzer's `cargo check` writes `target/` there.
        let tmp = crate::sandbox::private_tmp(spec.id);
        let mut writable = self.sandbox.writable_for_project(root);
        if !writable.iter().any(|w| root.starts_with(w)) {
            writable.push(root.to_owned());
        }
        writable.extend(crate::sandbox::cache_dirs(spec.id));
        let network = settings.and_then(|s| s.network).unwrap_or(spec.network);
        let (program, args) = self
            .sandbox
            .command(&program, &args, &writable, &tmp, network)?;
        let mut env = settings.map(|s| s.env.clone()).unwrap_or_default();
        env.extend(crate::sandbox::private_env(spec.id, &tmp));
        let launch = crate::server::Launch {
            program,
            args,
            env,
            init,
            tmp: Some(tmp),
        };
        let key = format!("start {} {}", spec.id, root.display());
        progress.begin(
            &key,
            &format!("starting {} for {}", spec.id, root.display()),
        );
        let result = LspServer::start(spec, root.to_owned(), launch, budgets).await;
        match &result {
            Ok(s) => progress.end(
                &key,
                &format!("{} running (pid {})", spec.id, s.pid().unwrap_or(0)),
            ),
            Err(e) => progress.end(&key, &e.to_string()),
        }
        result
    }

    /// Lets go of idle servers and documents in the background, for as long
    /// as the pool lives.
    fn start_reaper(&self) {
        self.reaper.get_or_init(|| {
            let shortest = self
                .server_budgets
                .values()
                .chain([&self.budgets])
                .map(|b| b.idle_document.min(b.idle_server))
                .min()
                .unwrap_or(Duration::from_secs(60));
            let tick = (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
            let shared: Weak<Shared> = Arc::downgrade(&self.shared);
            tokio::spawn(async move {
                let mut interval = tokio::time::interval(tick);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    interval.tick().await;
                    let Some(shared) = shared.upgrade() else {
                        break;
                    };
                    shared.reap();
                }
            });
        });
    }

    /// Servers reported broken now: (id, root, last failure).
    pub fn broken(&self) -> Vec<(&'static str, PathBuf, String)> {
        let now = Instant::now();
        lock(&self.shared.health)
            .iter()
            .filter_map(|((root, id), h)| {
                let b = self
                    .server_budgets
                    .get(*id)
                    .copied()
                    .unwrap_or(self.budgets);
                let recent = h
                    .failures
                    .iter()
                    .filter(|t| now.duration_since(**t) < b.cooldown)
                    .count();
                (recent as u32 >= b.max_failures.max(1)).then(|| {
                    let why = h.last_error.as_ref().map(ToolError::message);
                    (*id, root.clone(), why.unwrap_or_default())
                })
            })
            .collect()
    }

    /// Every running server.
    pub fn running(&self) -> Vec<Arc<LspServer>> {
        lock(&self.shared.slots)
            .values()
            .filter_map(|s| s.get().cloned())
            .collect()
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

fn hint(spec: &ServerSpec) -> String {
    match spec.install {
        crate::registry::Install::Path => format!("put `{}` on PATH", spec.command),
        crate::registry::Install::Download(from) => {
            format!("download it from {from} and put `{}` on PATH", spec.command)
        }
        _ => format!(
            "install it with `{}` (provides {})",
            spec.install_command(),
            spec.command
        ),
    }
}

fn unavailable(spec: &ServerSpec) -> ToolError {
    if !spec.installable() {
        return ToolError::Unavailable(format!(
            "no {} language server found ({}); {}",
            spec.language,
            spec.id,
            hint(spec)
        ));
    }
    ToolError::Unavailable(format!(
        "no {} language server found; {}, or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)",
        spec.language,
        hint(spec)
    ))
}

/// A configured program: a path (relative to the root) or a name on PATH.
fn resolve_program(program: &str, root: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        let p = root.join(program);
        return p.is_file().then_some(p);
    }
    which::which(program).ok()
}

fn initialization_options(
    spec: &ServerSpec,
    root: &Path,
    program: &Path,
) -> Result<Value, ToolError> {
    if spec.id == crate::builtin::ASTRO.id {
        // The Astro server needs a TypeScript SDK directory.
        return Ok(match install::find_tsserver(root, program) {
            Some(ts) => json!({ "typescript": { "tsdk": ts.parent() } }),
            None => json!({}),
        });
    }
    if spec.id != TYPESCRIPT.id {
        return Ok(serde_json::from_str(spec.init).unwrap_or_else(|_| json!({})));
    }
    // typescript-language-server needs a TypeScript that ships tsserver.js;
    // TypeScript 7 is the native port without it.
    match install::find_tsserver(root, program) {
        Some(tsserver) => Ok(json!({ "tsserver": { "path": tsserver } })),
        None => Err(ToolError::Unavailable(format!(
            "typescript-language-server needs TypeScript 5 or 6 (with tsserver.js); install it with `npm install typescript@5.9.3` in the project, or `{}`",
            spec.install_command()
        ))),
    }
}
