//! `sightline daemon`: holds the lock, listens on the socket, refuses peers
//! of another uid, and serves each connection as one MCP session on the
//! engine its hello names. It exits when no client has been connected for
//! the idle time and no server runs, when asked to stop, or, after a client
//! of another build asked it to drain, when its last session ends.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeRequestParams,
    InitializeResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

use crate::frontends::daemon::engines::Engines;
use crate::frontends::daemon::transport::{self, Listener, Ready};
use crate::frontends::daemon::{DaemonError, HELLO_KEY, Hello, build_id, paths};
use crate::frontends::mcp::McpServer;

/// What a control session (`sightline daemon status` or `stop`, whose hello
/// says `control`) asks the daemon itself, as an unlisted tool. Only such
/// a session may: to an agent's session (over stdio or HTTP) these are
/// unknown tools, so that no agent stops the daemon every session shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// The daemon's state: its servers, sessions and memory.
    Status,
    /// Stop the daemon and its servers.
    Stop,
}

impl Control {
    /// The tool's name on the wire.
    pub const fn tool(self) -> &'static str {
        match self {
            Control::Status => "sightline_daemon_status",
            Control::Stop => "sightline_daemon_stop",
        }
    }

    /// The control call named `name`, if it is one.
    fn named(name: &str) -> Option<Control> {
        [Control::Status, Control::Stop]
            .into_iter()
            .find(|c| c.tool() == name)
    }
}

/// How long the daemon stays up with no client and no server, unless
/// `SIGHTLINE_DAEMON_IDLE_SECS` says otherwise.
const IDLE_EXIT: Duration = Duration::from_secs(60);

/// How often the servers' memory is summed against the limit.
const MEMORY_CHECK: Duration = Duration::from_secs(2);

/// The servers' memory budget in KiB: `SIGHTLINE_DAEMON_MEMORY_LIMIT_MB`, or
/// a quarter of the machine's memory.
fn memory_limit_kib() -> u64 {
    if let Some(mb) = std::env::var("SIGHTLINE_DAEMON_MEMORY_LIMIT_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return mb * 1024;
    }
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(8 << 20);
    total / 4
}

struct Daemon {
    engines: Engines,
    /// The pending checks of agents' edits, one for every session: an
    /// agent's before-edit and after-edit hook calls, and the next event
    /// that brings a late result, come in sessions of their own.
    pending: Arc<crate::frontends::hooks::PendingChecks>,
    build: String,
    started: Instant,
    clients: AtomicUsize,
    sessions: AtomicU64,
    /// The sessions served, by the kind of client (`Hello::client`).
    by_client: Mutex<std::collections::BTreeMap<String, u64>>,
    last_left: Mutex<Instant>,
    /// Refuse new sessions and exit when the last one ends.
    draining: AtomicBool,
    stop: tokio::sync::Notify,
    /// The daemon's hold on its address, kept until it leaves (`leave`).
    lock: Mutex<Option<transport::Claim>>,
}

impl Daemon {
    /// Removes the socket and lets the lock go, once: from then on a client
    /// starting finds no daemon and starts its own at once. Called before a
    /// client of another build is told this daemon drains, so that it
    /// needs no wait, and when the daemon exits.
    fn leave(&self) {
        // The claim, dropped at the end of this statement, removes the
        // socket and releases the lock.
        self.lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// Runs the daemon until it exits; the exit status.
pub async fn run(ready: Ready) -> i32 {
    match serve(ready).await {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!("{e}");
            2
        }
    }
}

fn idle_exit() -> Duration {
    std::env::var("SIGHTLINE_DAEMON_IDLE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(IDLE_EXIT, Duration::from_secs)
}

async fn serve(mut ready: Ready) -> Result<(), DaemonError> {
    let Some((mut listener, lock)) = Listener::bind()? else {
        return Ok(());
    };
    let _ = std::fs::write(
        paths::runtime_dir().join("daemon.pid"),
        std::process::id().to_string(),
    );
    ready.listening();
    tracing::info!(
        "daemon: pid {} listening on {} (build {})",
        std::process::id(),
        transport::address(),
        build_id()
    );
    let daemon = Arc::new(Daemon {
        engines: Engines::default(),
        pending: Arc::default(),
        build: build_id(),
        started: Instant::now(),
        clients: AtomicUsize::new(0),
        sessions: AtomicU64::new(0),
        by_client: Mutex::new(std::collections::BTreeMap::new()),
        last_left: Mutex::new(Instant::now()),
        draining: AtomicBool::new(false),
        stop: tokio::sync::Notify::new(),
        lock: Mutex::new(Some(lock)),
    });
    let idle = idle_exit();
    let limit = memory_limit_kib();
    let mut last_memory_check = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    // One signal future for the daemon's life: a new one per loop pass
    // would miss a signal that came between two.
    let interrupted = crate::frontends::signals::interrupted();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Some(stream) = accepted else { continue };
                // Counted before the session's task runs, so that an idle
                // exit never races a client just accepted.
                daemon.clients.fetch_add(1, Ordering::SeqCst);
                let daemon = daemon.clone();
                tokio::spawn(async move { session(daemon, stream).await });
            }
            _ = tick.tick() => {
                if last_memory_check.elapsed() >= MEMORY_CHECK {
                    last_memory_check = Instant::now();
                    within_memory(&daemon.engines, limit);
                    crate::frontends::daemon::paths::bound_log();
                }
                if daemon.draining.load(Ordering::SeqCst) {
                    tracing::info!("daemon: draining; no new sessions");
                    break;
                }
                let clients = daemon.clients.load(Ordering::SeqCst);
                if clients > 0 {
                    continue;
                }
                let quiet = daemon.last_left.lock().unwrap_or_else(PoisonError::into_inner).elapsed();
                if daemon.draining.load(Ordering::SeqCst)
                    || (quiet >= idle && !daemon.engines.any_running())
                {
                    tracing::info!("daemon: no clients; exiting");
                    break;
                }
            }
            () = daemon.stop.notified() => {
                tracing::info!("daemon: asked to stop");
                break;
            }
            () = &mut interrupted => break,
        }
    }
    // The socket and the lock go first, so that a client starting now gets
    // a new daemon at once; a draining daemon finishes its sessions after.
    daemon.leave();
    drop(listener);
    if daemon.draining.load(Ordering::SeqCst) {
        while daemon.clients.load(Ordering::SeqCst) > 0 {
            tokio::select! {
                _ = tick.tick() => {}
                () = &mut interrupted => break,
            }
        }
    }
    daemon.engines.shutdown().await;
    Ok(())
}

/// Stops idle servers, the least recently used first, while all servers
/// together hold more than `limit` KiB; a server in use is never stopped.
fn within_memory(engines: &Engines, limit: u64) {
    let used = |engines: &Engines| -> u64 { engines.servers().iter().map(|s| s.rss_kib).sum() };
    let mut total = used(engines);
    while total > limit {
        // The engine holding the idlest server.
        let Some(engine) = engines
            .all()
            .into_iter()
            .filter_map(|(_, e)| {
                let idlest = e.servers().rows().iter().map(|s| s.idle_secs).max()?;
                Some((idlest, e))
            })
            .max_by_key(|(idle, _)| *idle)
            .map(|(_, e)| e)
        else {
            return;
        };
        let Some((id, root)) = engine.servers().stop_idlest() else {
            return;
        };
        tracing::info!(
            "daemon: servers hold {} MiB, over the {} MiB limit; stopped {id} for {}",
            total / 1024,
            limit / 1024,
            root.display()
        );
        total = used(engines);
    }
}

/// Takes one client off the count when its session ends, even by a panic.
struct Leaving(Arc<Daemon>);

impl Drop for Leaving {
    fn drop(&mut self) {
        *self
            .0
            .last_left
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
        self.0.clients.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves one accepted client, already counted.
async fn session(daemon: Arc<Daemon>, stream: transport::Stream) {
    let _leaving = Leaving(daemon.clone());
    daemon.sessions.fetch_add(1, Ordering::SeqCst);
    let handler = Session {
        daemon: daemon.clone(),
        mcp: Arc::new(OnceLock::new()),
        control: Arc::new(OnceLock::new()),
    };
    match handler.serve(stream).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => tracing::debug!("daemon: a session ended before it began: {e}"),
    }
}

/// One client's session: the MCP mcp of its engine, chosen at `initialize`.
#[derive(Clone)]
struct Session {
    daemon: Arc<Daemon>,
    mcp: Arc<OnceLock<McpServer>>,
    /// Set when the session is a control session (`Control`).
    control: Arc<OnceLock<()>>,
}

impl Session {
    fn mcp(&self) -> Result<&McpServer, ErrorData> {
        self.mcp
            .get()
            .ok_or_else(|| ErrorData::invalid_request("the session is not initialized", None))
    }

    fn status(&self) -> serde_json::Value {
        let d = &self.daemon;
        let servers: Vec<serde_json::Value> = d
            .engines
            .servers()
            .into_iter()
            .map(|s| {
                json!({
                    "id": s.id,
                    "root": s.root,
                    "writable": s.writable,
                    "pid": s.pid,
                    "rss_kib": s.rss_kib,
                    "idle_secs": s.idle_secs,
                    "requests": s.served,
                    "polled_dirs": s.polled_dirs,
                })
            })
            .collect();
        let memory: u64 = servers.iter().filter_map(|s| s["rss_kib"].as_u64()).sum();
        json!({
            "pid": std::process::id(),
            // All servers together, and the budget past which idle ones
            // are stopped (`within_memory`).
            "memory_kib": memory,
            "memory_limit_kib": memory_limit_kib(),
            "uptime_secs": d.started.elapsed().as_secs(),
            // Not counting the session that asks.
            "clients": d.clients.load(Ordering::SeqCst).saturating_sub(1),
            "sessions": d.sessions.load(Ordering::SeqCst),
            "sessions_by_client": d.by_client.lock().unwrap_or_else(PoisonError::into_inner).clone(),
            "build": d.build,
            "servers": servers,
        })
    }
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        crate::frontends::mcp::server_config()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let hello: Option<Hello> = request
            .capabilities
            .experimental
            .as_ref()
            .and_then(|e| e.get(HELLO_KEY))
            .and_then(|h| serde_json::from_value(serde_json::Value::Object(h.clone())).ok());
        let Some(hello) = hello else {
            return Err(ErrorData::invalid_request(
                "connect through `sightline mcp --daemon`, which says where the client works",
                None,
            ));
        };
        if hello.build != self.daemon.build && !hello.control {
            // The client starts a daemon of its own build once this one is
            // gone; the sessions of this build finish first.
            self.daemon.draining.store(true, Ordering::SeqCst);
            // Leave the socket and the lock before answering, so that the
            // client's own daemon can start as soon as it hears.
            self.daemon.leave();
            self.daemon.stop.notify_one();
            tracing::info!(
                "daemon: a client of build {} arrived; draining (this is {})",
                hello.build,
                self.daemon.build
            );
            return Err(ErrorData::invalid_request(
                format!(
                    "sightline daemon: build {} differs from the client's {}; draining",
                    self.daemon.build, hello.build
                ),
                Some(json!({ "sightline": "draining" })),
            ));
        }
        if self.daemon.draining.load(Ordering::SeqCst) {
            return Err(ErrorData::invalid_request(
                "sightline daemon: draining",
                Some(json!({ "sightline": "draining" })),
            ));
        }
        // A control session (`daemon status`, `daemon stop`) asks the
        // daemon itself, with no engine: a configuration file deleted or
        // broken since the daemon started must never keep it from
        // stopping (the stop was answered "cannot read config.json", and
        // the daemon ran on).
        if hello.control {
            let _ = self.control.set(());
            context.peer.set_peer_info(request.clone());
            return self.negotiate_initialize(&request);
        }
        let own = crate::frontends::daemon::settings_env();
        if hello.settings != own {
            // The settings named by both sides, each whose value differs.
            let differ: Vec<&String> = own
                .iter()
                .chain(&hello.settings)
                .filter(|(name, _)| {
                    let of = |s: &[(String, Option<String>)]| {
                        s.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
                    };
                    of(&own) != of(&hello.settings)
                })
                .map(|(name, _)| name)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            tracing::warn!(
                "daemon: a client with other settings ({differ:?}); it answers in process"
            );
            return Err(ErrorData::invalid_request(
                "sightline daemon: the client's settings (data directory, configuration, downloads) differ from the daemon's",
                Some(
                    json!({ "sightline": crate::frontends::daemon::SETTINGS_DIFFER, "differ": differ }),
                ),
            ));
        }
        let (engine, tools) = self
            .daemon
            .engines
            .for_hello(&hello)
            .map_err(|e| ErrorData::invalid_request(e, None))?;
        *self
            .daemon
            .by_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(hello.client.clone())
            .or_default() += 1;
        let server = if hello.one_call {
            McpServer::of_command(engine)
        } else {
            McpServer::new(engine, tools)
        };
        let _ = self
            .mcp
            .set(server.sharing_checks(self.daemon.pending.clone()));
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.mcp()?.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.mcp.get()?.get_tool(name)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.mcp()?.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.mcp()?.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.mcp()?.read_resource(request, context).await
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.mcp()?.subscribe(request, context).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.mcp()?.unsubscribe(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.control.get().is_none() {
            return self.mcp()?.call_tool(request, context).await;
        }
        match Control::named(&request.name) {
            Some(Control::Status) => {
                let text = serde_json::to_string(&self.status()).unwrap_or_default();
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            Some(Control::Stop) => {
                self.daemon.stop.notify_one();
                Ok(CallToolResult::success(vec![ContentBlock::text("stopping")]).into())
            }
            None => Err(ErrorData::invalid_params(
                format!(
                    "a control session asks {} or {} only",
                    Control::Status.tool(),
                    Control::Stop.tool()
                ),
                None,
            )),
        }
    }
}
