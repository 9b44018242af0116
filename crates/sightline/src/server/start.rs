//! Starting a server: spawning its process (already wrapped in the sandbox
//! by the pool), `initialize` with the capabilities sightline supports, and
//! reading what the server declared back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};
use sightline_lsp::notification;
use sightline_lsp::path_to_uri_string;
use sightline_lsp::{Client, ClientError, Encoding, SpawnConfig};

use crate::catalog::{Budgets, ServerSpec};
use crate::error::ToolError;
use crate::server::documents::Documents;
use crate::server::inbox::Inbox;
use crate::server::pull::PullCache;
use crate::server::{LspServer, with_denial_hint};

/// How to start a server: its program, arguments, environment and
/// `initializationOptions`, after configuration.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The executable (the sandbox launcher, when sandboxed).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// `initializationOptions`.
    pub init: Value,
    /// The server's private temporary directory, removed when it stops.
    pub tmp: Option<PathBuf>,
    /// The user's virtualenv, whose interpreter pyright is pointed at.
    pub virtual_env: Option<PathBuf>,
    /// The configured settings, merged over the built-in answers to
    /// `workspace/configuration`.
    pub settings: Value,
    /// Variables removed from its environment (the client has none).
    pub env_remove: Vec<String>,
    /// At most this many directories are watched with inotify; the rest
    /// are polled.
    pub watch_limit: usize,
    /// The server's version as its installed package says, when the
    /// server does not say it in `initialize`.
    pub version: Option<String>,
}

/// The `initialize` params sightline sends; public so that the benchmarks'
/// direct client sends the very same capabilities.
pub fn initialize_params(root: &Path, initialization_options: Value) -> Value {
    let uri = path_to_uri_string(root).unwrap_or_default();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({
        "processId": std::process::id(),
        "clientInfo": { "name": "sightline", "version": env!("CARGO_PKG_VERSION") },
        "rootUri": uri,
        "rootPath": root,
        "workspaceFolders": [{ "uri": uri, "name": name }],
        "initializationOptions": initialization_options,
        "capabilities": {
            "general": { "positionEncodings": ["utf-8", "utf-16", "utf-32"] },
            "window": { "workDoneProgress": true },
            // rust-analyzer sends `experimental/serverStatus` only when asked.
            "experimental": { "serverStatusNotification": true },
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": true },
                "diagnostics": { "refreshSupport": true },
                "executeCommand": { "dynamicRegistration": false },
                "symbol": {},
                // `sightline move` asks for the edits a file's move needs
                // and tells the server once it is done.
                "fileOperations": { "willRename": true, "didRename": true },
                // Edits are applied only for a command sightline runs
                // (`LspServer::run_command`), all or nothing with the rest.
                "applyEdit": true,
                "workspaceEdit": {
                    "documentChanges": true,
                    "resourceOperations": ["create", "rename", "delete"],
                    "failureHandling": "abort",
                    "changeAnnotationSupport": { "groupsOnLabel": false },
                },
            },
            "textDocument": {
                "synchronization": { "dynamicRegistration": true, "didSave": true },
                "publishDiagnostics": { "versionSupport": true, "relatedInformation": false, "tagSupport": { "valueSet": [1, 2] } },
                "diagnostic": { "dynamicRegistration": true, "relatedDocumentSupport": false },
                "definition": { "linkSupport": true },
                "references": {},
                "implementation": { "linkSupport": true },
                "hover": { "contentFormat": ["markdown", "plaintext"] },
                "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
                "callHierarchy": {},
                "typeHierarchy": {},
                "rename": { "prepareSupport": true },
                // rust-analyzer answers no code actions to a client without
                // literal support.
                "codeAction": {
                    "codeActionLiteralSupport": { "codeActionKind": { "valueSet": [
                        "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                        "refactor.rewrite", "source", "source.organizeImports",
                    ] } },
                    "resolveSupport": { "properties": ["edit"] },
                    "dataSupport": true,
                    "isPreferredSupport": true,
                },
            },
        },
    })
}

/// What `initialize` needs beyond the connected client.
struct Setup {
    /// `initializationOptions`.
    init: Value,
    /// The server's private temporary directory, removed when it stops.
    tmp: Option<PathBuf>,
    /// The cap on inotify watches.
    watch_limit: usize,
    /// Its options turn its check on save off.
    check_off: bool,
    /// Its installed package's version (`Launch::version`).
    version: Option<String>,
}

/// What the server says of itself in its `initialize` answer `init`, its
/// installed package's version standing in for one it does not give.
fn server_info(init: &Value, installed_version: Option<String>) -> crate::server::ServerInfo {
    let said = |key: &str| {
        init.pointer(&format!("/serverInfo/{key}"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    crate::server::ServerInfo {
        name: said("name"),
        version: said("version").or(installed_version),
    }
}

/// Whether rust-analyzer's options turn its check on save off: `checkOnSave`
/// is `false`, or (before 2023) `checkOnSave.enable` is.
fn check_turned_off(init: &Value) -> bool {
    init.get("checkOnSave") == Some(&Value::Bool(false))
        || init.pointer("/checkOnSave/enable") == Some(&Value::Bool(false))
}

impl LspServer {
    /// Spawns and initializes the server.
    pub async fn start(
        spec: &'static ServerSpec,
        root: PathBuf,
        launch: Launch,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let (relay_queue, relayed) = tokio::sync::mpsc::unbounded_channel();
        let state = Arc::new(
            Inbox::new(spec, root.clone())
                .with_virtual_env(launch.virtual_env.clone())
                .with_settings(launch.settings.clone())
                .with_relay(spec.quirks.relay.map(|_| relay_queue)),
        );
        let mut config = SpawnConfig::new(spec.id, launch.program, root.clone());
        config.args = launch.args;
        config.env = launch.env;
        // A daemon serves clients with and without a virtualenv: a server
        // for one without gets none, whatever the daemon's own environment.
        if launch.virtual_env.is_none() {
            config.env_remove.push("VIRTUAL_ENV".to_owned());
        }
        config.env_remove.extend(launch.env_remove);
        let check_off = check_turned_off(&launch.init);
        let client = Client::spawn(config, state.clone())
            .await
            .map_err(|e| ToolError::unavailable(e.to_string()))?;
        let setup = Setup {
            init: launch.init,
            tmp: launch.tmp,
            watch_limit: launch.watch_limit,
            check_off,
            version: launch.version,
        };
        Self::initialize(spec, root, client, state, relayed, setup, budgets).await
    }

    /// Starts the fake server in this process (`sightline_fake_lsp`), over
    /// an in-memory pipe, following `script`, for the unit tests of this
    /// layer.
    #[cfg(test)]
    pub(crate) async fn start_in_memory(
        spec: &'static ServerSpec,
        root: PathBuf,
        script: Value,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let (relay_queue, relayed) = tokio::sync::mpsc::unbounded_channel();
        let state = Arc::new(
            Inbox::new(spec, root.clone()).with_relay(spec.quirks.relay.map(|_| relay_queue)),
        );
        let (reader, writer) = sightline_fake_lsp::in_memory(root.clone(), script);
        let client = Client::over_streams(spec.id, reader, writer, state.clone());
        let setup = Setup {
            init: json!({}),
            tmp: None,
            watch_limit: 64,
            check_off: false,
            version: None,
        };
        Self::initialize(spec, root, client, state, relayed, setup, budgets).await
    }

    /// `initialize` on a connected client, then the server as sightline
    /// holds it.
    async fn initialize(
        spec: &'static ServerSpec,
        root: PathBuf,
        client: Client,
        state: Arc<Inbox>,
        relayed: tokio::sync::mpsc::UnboundedReceiver<Value>,
        setup: Setup,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let Setup {
            init: initialization_options,
            tmp,
            watch_limit,
            check_off,
            version: installed_version,
        } = setup;
        let check_on_save = spec.quirks.diagnostics.save_check.is_some() && !check_off;
        let init = client
            .request_of::<sightline_lsp::request::Initialize>(
                initialize_params(&root, initialization_options),
                budgets.initialize,
            )
            .await;
        let init = match init {
            Ok(v) => v,
            Err(e) => {
                return Err(initialize_failed(
                    spec,
                    &client,
                    tmp.as_deref(),
                    &budgets,
                    e,
                ));
            }
        };
        let caps = init.get("capabilities").cloned().unwrap_or(Value::Null);
        let encoding = Encoding::from_server(caps.get("positionEncoding").and_then(Value::as_str));
        let static_pull = caps
            .get("diagnosticProvider")
            .filter(|d| d.is_object())
            .map(|d| {
                d.get("identifier")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        let workspace_pull = caps
            .pointer("/diagnosticProvider/workspaceDiagnostics")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        client.notify_of::<notification::Initialized>(json!({}))?;
        let watch = crate::sync::watch::DiskWatch::with_limit(&root, watch_limit)
            .map_err(|e| tracing::warn!("cannot watch {} for external edits: {e}", root.display()))
            .ok();
        tracing::info!(
            "{} started for {} (pid {:?}, {encoding:?})",
            spec.id,
            root.display(),
            client.pid()
        );
        let server = Arc::new(LspServer {
            spec,
            root,
            client,
            state,
            encoding,
            static_pull,
            workspace_pull,
            capabilities: caps,
            info: server_info(&init, installed_version),
            budgets,
            check_on_save,
            docs: Mutex::new(Documents::default()),
            watch,
            disk: Default::default(),
            note: Default::default(),
            restart_wanted: Default::default(),
            pulled: PullCache::default(),
            last_used: Mutex::new(Instant::now()),
            served: Default::default(),
            tmp,
            answer_cache: Default::default(),
            relay_target: Default::default(),
        });
        if let Some(relay) = spec.quirks.relay {
            server.start_relay(relay, relayed);
        }
        if spec.quirks.readiness == crate::catalog::Readiness::AfterFirstRefresh
            && !server
                .wait_until(budgets.ready, |s| s.load.refreshes > 0)
                .await
        {
            tracing::warn!(
                "{} did not ask for its diagnostics again within {:.0} s of starting",
                spec.id,
                budgets.ready.as_secs_f64()
            );
        }
        if spec.quirks.readiness.progress_title().is_some()
            && !server.wait_until(budgets.ready, |s| s.load.loaded).await
        {
            tracing::warn!(
                "{} did not finish scanning its project within {:.0} s",
                spec.id,
                budgets.ready.as_secs_f64()
            );
        }
        Ok(server)
    }
}

/// An `initialize` that failed or timed out: the server is killed, its
/// temporary directory removed, and the error says which.
fn initialize_failed(
    spec: &'static ServerSpec,
    client: &Client,
    tmp: Option<&std::path::Path>,
    budgets: &Budgets,
    e: ClientError,
) -> ToolError {
    client.kill();
    if let Some(t) = tmp {
        let _ = std::fs::remove_dir_all(t);
    }
    let stderr = client.stderr_tail(usize::MAX);
    if let Some(install) = super::launcher_errors::install_command(&stderr) {
        return ToolError::unavailable(format!(
            "{} is not installed: its launcher lacks it; run `{install}`",
            spec.id
        ));
    }
    if let Some(why) = super::launcher_errors::error_before_backtrace(&stderr) {
        return ToolError::server(with_denial_hint(
            format!("{} failed to start: {why}", spec.id),
            client,
        ));
    }
    match e {
        ClientError::Timeout { .. } => ToolError::server(format!(
            "{} did not finish initializing within {:.0} s",
            spec.id,
            budgets.initialize.as_secs_f64()
        )),
        other => ToolError::server(with_denial_hint(
            format!("{} failed to initialize: {other}", spec.id),
            client,
        )),
    }
}
