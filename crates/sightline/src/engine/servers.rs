//! An engine's servers as a whole, apart from the questions they answer:
//! their states (`sightline servers`, `daemon status`), their process ids,
//! restarts (`lsp_restart`), installs, the capabilities report and the
//! daemon's memory limit. [`Servers`] borrows the engine, as the edit
//! tools' `Editor` does (the engine's modules never name the edits).

use std::path::{Path, PathBuf};

use crate::catalog::ServerSpec;
use crate::engine::Engine;
use crate::error::ToolError;

/// The servers of one engine and of its project engines, as a whole.
#[derive(Clone, Copy)]
pub struct Servers<'e> {
    pub(super) engine: &'e Engine,
}

impl Engine {
    /// This engine's servers as a whole.
    pub fn servers(&self) -> Servers<'_> {
        Servers { engine: self }
    }
}

impl Servers<'_> {
    /// What happens to this engine's servers from now on.
    pub(crate) fn events(
        &self,
    ) -> tokio::sync::broadcast::Receiver<crate::pool::events::ServerEvent> {
        self.engine.shared.pool.events()
    }

    pub(crate) fn broken(&self) -> Vec<(&'static str, PathBuf, String)> {
        self.engine.shared.pool.broken()
    }

    /// The program that would run for `spec` under `root`, if found.
    pub(crate) fn locate(&self, spec: &ServerSpec, root: &Path) -> Option<PathBuf> {
        self.engine.shared.pool.locate(spec, root)
    }

    /// Whether the first question about a file `spec` serves would install
    /// it, `locate` finding none.
    pub(crate) fn installs(&self, spec: &ServerSpec) -> bool {
        self.engine.shared.pool.installs(spec)
    }

    /// Installs `spec` now (for `sightline install`), reporting progress.
    pub(crate) async fn install(&self, spec: &'static ServerSpec) -> Result<PathBuf, ToolError> {
        crate::catalog::install::install(
            spec,
            &crate::progress::Tee::current(&self.engine.shared.progress),
            &self.engine.shared.sandbox,
        )
        .await
        .map_err(|e| ToolError::unavailable(e.to_string()))
    }

    /// Process ids of every running server, the project engines' too.
    pub fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self
            .engine
            .shared
            .pool
            .running()
            .iter()
            .filter_map(|s| s.pid())
            .collect();
        for e in self.engine.with_projects() {
            pids.extend(e.servers().pids());
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }
}
