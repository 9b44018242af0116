//! `sightline restart` and `lsp_restart`: running servers stopped and
//! started again, answered once each is ready (its project loaded and, where
//! the server says so, indexed).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::engine::Servers;
use crate::error::ToolError;

impl Servers<'_> {
    /// Restarts the running servers with id `server` (any, when `None`)
    /// whose root is `root` or below it (any, when `None`); one line each.
    pub async fn restart(
        &self,
        server: Option<&str>,
        root: Option<&Path>,
    ) -> Result<String, ToolError> {
        if let Some(id) = server
            && !self.engine.all_servers().iter().any(|s| s.id == id)
        {
            return Err(ToolError::bad_input(format!(
                "no server is called `{id}`; `sightline servers` lists them"
            )));
        }
        let root = root.map(sightline_lsp::normalize);
        let pick = |s: &crate::server::LspServer| {
            server.is_none_or(|id| s.spec.id == id)
                && root.as_deref().is_none_or(|r| s.root.starts_with(r))
        };
        // This engine's servers and its project engines' (a root-less CLI
        // call's servers live in the engines of their projects).
        let projects = self.engine.with_projects();
        let pools = std::iter::once(&self.engine.shared.pool)
            .chain(projects.iter().map(|e| &e.shared.pool));
        let mut stopped = Vec::new();
        for pool in pools {
            for (spec, root) in pool.stop_where(pick).await {
                stopped.push((pool, spec, root));
            }
        }
        if stopped.is_empty() {
            let running: Vec<String> = std::iter::once(self.engine.running_servers())
                .chain(projects.iter().map(|e| e.running_servers()))
                .flatten()
                .map(|s| format!("{} for {}", s.spec.id, s.root.display()))
                .collect();
            return Err(ToolError::bad_input(if running.is_empty() {
                "no server is running; a question starts the servers it needs".to_owned()
            } else {
                format!("no running server matches; running: {}", running.join(", "))
            }));
        }
        let mut out = String::new();
        for (pool, spec, root) in stopped {
            let t = Instant::now();
            let server = pool.get(spec, &root).await?;
            server.wait_ready(true).await?;
            let _ = writeln!(
                out,
                "restarted {} for {}: ready in {:.1} s",
                spec.id,
                root.display(),
                t.elapsed().as_secs_f64()
            );
        }
        Ok(out)
    }
}
