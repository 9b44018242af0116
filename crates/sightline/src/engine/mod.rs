//! The engine: the questions of the tool contract, answered for files as
//! they are on disk now. The CLI, the MCP server and Rust callers all go
//! through [`Engine`]. A question is checked (`validate`), routed to the
//! servers of its file (`route`), asked of the running server the pool
//! hands out, and its answers combined: `diagnostics`, `locations`
//! (definitions, references), `symbols` (hover, outlines, the call
//! hierarchy). `aliases` and `outside_project` complete references that servers leave
//! partial; `status` is what `sightline servers` shows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::{Budgets, ServerSpec};
use crate::config::{Config, Resolved};
use crate::error::ToolError;
use crate::pool::Pool;
use crate::progress::{Progress, Silent};
use crate::server::LspServer;
use crate::sync::Snapshot;

pub mod aliases;
pub mod capabilities;
mod config_reload;
mod diagnostics;
pub(crate) mod locations;
pub(crate) mod name_path;
pub mod outside_project;
pub(crate) mod packages;
pub mod project_errors;
mod projects;
mod restart;
mod route;
mod servers;
pub mod status;
mod symbols;
mod type_hierarchy;
pub mod validate;

pub use projects::ShareByConfig;
pub use servers::Servers;

/// How an [`Engine`] behaves.
#[derive(Clone)]
pub struct Options {
    /// The directory the user works in; files outside every project marker
    /// but inside it are served under it.
    pub root: Option<PathBuf>,
    /// The wait budgets of every server not given its own.
    pub budgets: Budgets,
    /// Where progress of long work (installs, starts, indexing) goes.
    pub progress: Arc<dyn Progress>,
    /// Directories searched for server executables before PATH.
    pub search_path: Vec<PathBuf>,
    /// Whether missing servers may be installed from npm; `None` follows
    /// `SIGHTLINE_DISABLE_LSP_DOWNLOAD`.
    pub downloads: Option<bool>,
    /// Servers consulted before the built-in ones, such as
    /// [`crate::catalog::FAKE`].
    pub servers: Vec<&'static ServerSpec>,
    /// Budgets for one server id, replacing [`Options::budgets`] for it.
    pub server_budgets: HashMap<String, Budgets>,
    /// The configuration (user and project files); see [`Config::load`].
    pub config: Config,
    /// The sandbox mode; `None` takes the configuration's (default
    /// `workspace-write`).
    pub sandbox: Option<crate::sandbox::Mode>,
    /// The `sightline` binary that launches sandboxed children; `None` finds
    /// it beside the running program or on PATH.
    pub launcher: Option<PathBuf>,
    /// The virtualenv the user works in (`VIRTUAL_ENV`): Python servers are
    /// pointed at its interpreter and get it in their environment. The
    /// default is this process's; the daemon passes each client's own.
    pub virtual_env: Option<PathBuf>,
    /// The rest of the user's environment that servers see
    /// (`pool::env::SERVER_ENV`), set or removed on every server; the
    /// default, none, leaves servers this process's own (the daemon passes
    /// each client's).
    pub server_env: crate::pool::env::ServerEnv,
    /// Servers to share with other engines made with the same handle (the
    /// daemon's, for clients that differ only in their workspace
    /// directory); `None` gives the engine servers of its own.
    pub shared_servers: Option<crate::pool::SharedServers>,
    /// At most this many directories per server are watched with inotify,
    /// the rest polled; `None` follows `SIGHTLINE_WATCH_LIMIT` (default: no
    /// cap but the kernel's).
    pub watch_limit: Option<usize>,
    /// Answer each file under the configuration of its own project (the
    /// nearest `sightline.json[c]` above it), as every face does, through
    /// [`Engine::for_path`]; `false` (the default) answers every file under
    /// `config`.
    pub project_configs: bool,
    /// With `project_configs`, the servers each project's engine shares, by
    /// its configuration's fingerprint (the daemon's groups); `None` gives
    /// each project engine `shared_servers`.
    pub share_by_config: Option<ShareByConfig>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root: None,
            budgets: Budgets::default(),
            progress: Arc::new(Silent),
            search_path: Vec::new(),
            downloads: None,
            servers: Vec::new(),
            server_budgets: HashMap::new(),
            config: Config::default(),
            sandbox: None,
            launcher: None,
            virtual_env: std::env::var_os("VIRTUAL_ENV")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            server_env: Vec::new(),
            shared_servers: None,
            watch_limit: None,
            project_configs: false,
            share_by_config: None,
        }
    }
}

/// The engine: every question of the tool contract, for files as they are
/// on disk now. One per session; its servers live until [`Engine::shutdown`].
///
/// A dry run's edit runs on a view of it ([`Engine::dry_run_view`]): the
/// same servers, its files read through the dry run's staged texts.
pub struct Engine {
    shared: Arc<Shared>,
    /// The files as this engine's calls read them.
    files: crate::sync::FileView,
    /// What the edit tools last saw of each file, in the session this view
    /// answers (`Engine::seen_by`): one session's reads never vouch for
    /// another's edit.
    last_read: Arc<crate::sync::LastRead>,
}

/// What every view of one engine shares.
struct Shared {
    root: Option<PathBuf>,
    pool: Pool,
    /// Servers consulted before the built-ins: the caller's, then custom
    /// servers from the configuration.
    servers: Vec<&'static ServerSpec>,
    resolved: Resolved,
    config: Config,
    progress: Arc<dyn Progress>,
    formatters: crate::format::Formatters,
    sandbox: crate::sandbox::Sandbox,
    /// The default budgets, for a configuration read again.
    budgets: Budgets,
    /// The configuration files as last seen (`config_reload`).
    config_stamp: std::sync::Mutex<config_reload::Stamp>,
    /// The directory whose project file the configuration reads (`config_reload`
    /// follows it): the project's, else the workspace root.
    config_dir: Option<PathBuf>,
    /// The engines of other projects' configurations, with
    /// [`Options::project_configs`].
    projects: Option<projects::Projects>,
}

impl Engine {
    /// An engine as `options` say; no server starts until a question needs it.
    pub fn new(options: Options) -> Engine {
        // With project configurations, the first engine's own is exactly
        // the one of its project file (the user file alone without one):
        // files under a project file that appears later go to that
        // project's engine (`for_path`).
        let config_dir = if options.project_configs {
            options.config.project.clone()
        } else {
            options
                .config
                .project
                .clone()
                .or_else(|| options.root.as_deref().map(sightline_lsp::normalize))
        };
        Engine::new_in(options, config_dir)
    }

    /// [`Engine::new`] following the configuration of `config_dir` (`None`:
    /// the user file alone) when its files change.
    pub(crate) fn new_in(options: Options, config_dir: Option<PathBuf>) -> Engine {
        let projects = options
            .project_configs
            .then(|| projects::Projects::new(options.clone()));
        let root = options.root.map(|r| sightline_lsp::normalize(&r));
        // The environment switch wins over the configuration, which wins
        // over the default (install).
        let downloads = options.downloads.unwrap_or_else(|| {
            !crate::catalog::install::downloads_disabled()
                && options.config.autoinstall.unwrap_or(true)
        });
        if let Some(note) = options.config.untrusted_note() {
            tracing::warn!("{note}");
        }
        let mut resolved = options.config.resolve(options.budgets);
        let mut servers = options.servers;
        for s in &servers {
            resolved.enabled.insert(s.id.to_owned());
        }
        servers.extend(resolved.custom.iter().copied());
        let progress = options.progress.clone();
        let mode = options
            .sandbox
            .or_else(|| {
                options
                    .config
                    .sandbox
                    .as_deref()
                    .and_then(crate::sandbox::Mode::parse)
            })
            .unwrap_or(crate::sandbox::Mode::WorkspaceWrite);
        // One list of writable roots for the edit tools and every child.
        let sandbox = crate::sandbox::Sandbox::new(
            mode,
            options.launcher.clone(),
            options.config.allow_unsandboxed,
        )
        // The user's other folders are written by the renames and moves
        // that reach them, as the workspace is.
        .confined_to(crate::sandbox::confine::Roots::new(
            root.as_deref(),
            &[
                options.config.writable_roots.clone(),
                options.config.folders.clone(),
            ]
            .concat(),
        ))
        .with_network_env(options.config.network_env.clone());
        let formatters = crate::format::Formatters::new(
            options.config.formatting(),
            options.search_path.clone(),
            sandbox.clone(),
        );
        let config_stamp = std::sync::Mutex::new(config_reload::stamp(config_dir.as_deref()));
        let pool = Pool::new(
            options.budgets,
            options.server_budgets,
            &resolved,
            sandbox.clone(),
            options.progress,
            options.search_path,
            downloads,
        )
        .with_virtual_env(options.virtual_env)
        .with_server_env(options.server_env)
        .with_shared(options.shared_servers)
        .with_watch_limit(options.watch_limit);
        let shared = Shared {
            root,
            pool,
            servers,
            resolved,
            config: options.config,
            progress,
            formatters,
            sandbox,
            budgets: options.budgets,
            config_stamp,
            config_dir,
            projects,
        };
        Engine {
            shared: Arc::new(shared),
            files: crate::sync::FileView::default(),
            last_read: Arc::default(),
        }
    }

    /// A view of this engine for one session: the same servers and files,
    /// the edit tools' memory of what was read (`LastRead`) the session's.
    pub(crate) fn seen_by(&self, last_read: &Arc<crate::sync::LastRead>) -> Engine {
        Engine {
            shared: self.shared.clone(),
            files: self.files.clone(),
            last_read: last_read.clone(),
        }
    }

    /// A view of this engine for a dry run whose edit stages its files in
    /// `files`: the same servers, its reads seeing the staged texts, its
    /// writes staging them.
    pub(crate) fn dry_run_view(&self, files: &crate::sync::DryRunFiles) -> Engine {
        Engine {
            shared: self.shared.clone(),
            files: crate::sync::FileView::dry_run(files),
            last_read: self.last_read.clone(),
        }
    }

    /// The files as this engine's calls read them.
    pub(crate) fn files(&self) -> &crate::sync::FileView {
        &self.files
    }

    /// Reads a question's file as this engine's calls see it: the disk's
    /// text, or a dry run's staged one ([`crate::sync::FileView::read`]).
    pub(crate) fn snapshot(&self, file: &Path) -> Result<Snapshot, ToolError> {
        self.files.read(file)
    }

    /// The sandbox every child starts in, and the edit tools' writes are judged by.
    pub(crate) fn sandbox(&self) -> &crate::sandbox::Sandbox {
        &self.shared.sandbox
    }

    /// The formatters, as configured.
    pub(crate) fn formatters(&self) -> &crate::format::Formatters {
        &self.shared.formatters
    }

    pub(crate) fn last_read(&self) -> &crate::sync::LastRead {
        &self.last_read
    }

    /// Starts the servers of `file` and opens it, so that the next question
    /// about it is fast. Failures are left for that question to report.
    pub(crate) async fn warm(&self, file: &Path) {
        let Ok(checked) = self.snapshot(file) else {
            return;
        };
        let Ok(routes) = self.route_all(&checked) else {
            return;
        };
        for (spec, root) in routes {
            if let Ok(server) = self.shared.pool.get(spec, &root).await {
                let _ = server.sync(&checked.path, &checked.index, self.files());
            }
        }
    }

    pub(crate) async fn pool_get(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        self.shared.pool.get(spec, root).await
    }

    /// The workspace directory given at start (`--root`).
    pub(crate) fn workspace_root(&self) -> Option<&Path> {
        self.shared.root.as_deref()
    }

    /// Whether some server handles files like `path`.
    pub(crate) fn handles(&self, path: &Path) -> bool {
        !crate::catalog::servers_for(path, &self.shared.servers).is_empty()
    }

    /// The configuration this workspace runs with.
    pub(crate) fn config(&self) -> &Config {
        &self.shared.config
    }

    pub(crate) fn running_servers(&self) -> Vec<Arc<LspServer>> {
        self.shared.pool.running()
    }

    /// The running servers that answer for `file`: those of its kind whose
    /// root holds it.
    pub(crate) fn servers_of(&self, file: &Path) -> Vec<Arc<LspServer>> {
        self.running_servers()
            .into_iter()
            .filter(|s| s.spec.handles(file) && file.starts_with(&s.root))
            .collect()
    }

    /// Shuts down the servers only this engine and its project engines hand
    /// out; servers shared with other engines (the daemon's groups) stay.
    pub(crate) async fn shutdown_unshared(&self) {
        for e in self.with_projects() {
            Box::pin(e.shutdown_unshared()).await;
        }
        if self.shared.pool.sole_holder() {
            self.shared.pool.shutdown().await;
        }
    }

    /// Shuts every server down, the project engines' too.
    pub async fn shutdown(&self) {
        for e in self.with_projects() {
            Box::pin(e.shutdown()).await;
        }
        self.shared.pool.shutdown().await;
    }
}
