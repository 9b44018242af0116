//! One server per (workspace root, server id), started lazily: concurrent first
//! calls share one start, a dead server is replaced on the next call, and all of
//! them shut down together.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::error::ToolError;
use crate::install;
use crate::progress::Progress;
use crate::registry::{Budgets, ServerSpec, TYPESCRIPT};
use crate::server::LspServer;

type Slot = Arc<OnceCell<Arc<LspServer>>>;

pub struct Pool {
    slots: Mutex<HashMap<(PathBuf, &'static str), Slot>>,
    budgets: Budgets,
    progress: Arc<dyn Progress>,
    search_path: Vec<PathBuf>,
    downloads: bool,
}

impl Pool {
    pub fn new(
        budgets: Budgets,
        progress: Arc<dyn Progress>,
        search_path: Vec<PathBuf>,
        downloads: bool,
    ) -> Self {
        Pool {
            slots: Mutex::new(HashMap::new()),
            budgets,
            progress,
            search_path,
            downloads,
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, &'static str), Slot>> {
        match self.slots.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// The running server for `root`, started (and installed) if needed.
    pub async fn get(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        let key = (root.to_owned(), spec.id);
        for _ in 0..2 {
            let slot = self.slots().entry(key.clone()).or_default().clone();
            let server = slot
                .get_or_try_init(|| self.start(spec, root))
                .await?
                .clone();
            if server.is_alive() {
                return Ok(server);
            }
            // The server died since its last use: forget it and start anew.
            tracing::warn!(
                "{} for {} has exited; restarting it",
                spec.id,
                root.display()
            );
            let mut slots = self.slots();
            if slots.get(&key).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                slots.remove(&key);
            }
        }
        Err(ToolError::Server(format!(
            "{} exited right after starting",
            spec.id
        )))
    }

    async fn start(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        let program = match install::locate(spec, root, &self.search_path) {
            Some(p) => p,
            None if !self.downloads => return Err(unavailable(spec)),
            None => install::install(spec, self.progress.as_ref())
                .await
                .map_err(|e| ToolError::Unavailable(format!("{e}; {}", hint(spec))))?,
        };
        let options = initialization_options(spec, root, &program)?;
        let key = format!("start {}", spec.id);
        self.progress.begin(
            &key,
            &format!("starting {} for {}", spec.id, root.display()),
        );
        let result = LspServer::start(spec, root.to_owned(), program, options, self.budgets).await;
        match &result {
            Ok(s) => self.progress.end(
                &key,
                &format!("{} running (pid {})", spec.id, s.pid().unwrap_or(0)),
            ),
            Err(e) => self.progress.end(&key, &e.to_string()),
        }
        result
    }

    /// Every running server.
    pub fn running(&self) -> Vec<Arc<LspServer>> {
        self.slots()
            .values()
            .filter_map(|s| s.get().cloned())
            .collect()
    }

    /// Shuts every server down: `shutdown`, `exit`, then the process group.
    pub async fn shutdown(&self) {
        let servers: Vec<_> = self
            .slots()
            .drain()
            .filter_map(|(_, s)| s.get().cloned())
            .collect();
        futures_util::future::join_all(servers.iter().map(|s| s.shutdown())).await;
    }
}

fn hint(spec: &ServerSpec) -> String {
    format!(
        "install it with `{}` (provides {})",
        spec.install_command(),
        spec.command
    )
}

fn unavailable(spec: &ServerSpec) -> ToolError {
    ToolError::Unavailable(format!(
        "no {} language server found; {}, or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)",
        spec.language,
        hint(spec)
    ))
}

fn initialization_options(
    spec: &ServerSpec,
    root: &Path,
    program: &Path,
) -> Result<Value, ToolError> {
    if spec.id != TYPESCRIPT.id {
        return Ok(json!({}));
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
