//! Routing: which servers a file goes to, under which root, and whether
//! each is on (primaries unless turned off, alternatives when configured,
//! linters when the project uses them).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::{self, ServerSpec, roots};
use crate::engine::Engine;
use crate::error::ToolError;
use crate::server::LspServer;
use crate::sync::Snapshot;

impl Engine {
    /// The servers that handle `path`, configured ones first.
    pub(crate) fn servers_for(&self, path: &Path) -> Vec<&'static ServerSpec> {
        catalog::servers_for(path, &self.shared.servers)
    }

    /// Every server this workspace knows: configured ones, then built-ins.
    pub(crate) fn all_servers(&self) -> Vec<&'static ServerSpec> {
        self.shared
            .servers
            .iter()
            .chain(catalog::BUILTIN)
            .copied()
            .collect()
    }

    /// Why `spec` is off, or `None` when it may run.
    pub(crate) fn why_off(&self, spec: &ServerSpec) -> Option<String> {
        if let Some(why) = &self.shared.resolved.all_off {
            return Some(why.clone());
        }
        if let Some(why) = self.shared.resolved.blocked.get(spec.id) {
            return Some(why.clone());
        }
        if self
            .shared
            .config
            .servers
            .get(spec.id)
            .is_some_and(|e| e.disabled)
        {
            return Some("disabled in the configuration".into());
        }
        match spec.role {
            catalog::Role::Alternative if !self.shared.resolved.enabled.contains(spec.id) => {
                Some(format!(
                    "an alternative server; turn it on with \"lsp\": {{\"{}\": {{}}}}",
                    spec.id
                ))
            }
            _ => None,
        }
    }

    /// Whether `spec` is on for files it handles: primaries unless turned
    /// off, alternatives and linters only when configured, and linters also
    /// when they are already installed where sightline looks.
    fn is_on(&self, spec: &ServerSpec, root: &Path) -> bool {
        if self.shared.resolved.explicit.contains(spec.id) {
            return true;
        }
        match spec.role {
            catalog::Role::Linter => {
                !self
                    .shared
                    .config
                    .servers
                    .get(spec.id)
                    .is_some_and(|e| e.disabled)
                    && spec
                        .quirks
                        .linter
                        .used_by_project
                        .is_none_or(|u| u.in_project(root))
                    && (!spec.quirks.linter.runs_project_code || crate::project::trusted_at(root))
                    && self.shared.pool.locate(spec, root).is_some()
            }
            _ => self.shared.resolved.enabled.contains(spec.id),
        }
    }

    /// Whether `spec` has the plugin it needs for `path`'s extension, when
    /// it needs one (`LaunchQuirks::plugin_extensions`).
    fn plugin_present(&self, spec: &ServerSpec, path: &Path, root: &Path) -> bool {
        let Some(plugin) = spec.quirks.launch.plugin_extensions else {
            return true;
        };
        let ext = crate::files::extension_of(path).unwrap_or_default();
        if !plugin.extensions.contains(&ext.as_str()) {
            return true;
        }
        self.shared
            .pool
            .locate(spec, root)
            .is_some_and(|program| (plugin.found)(root, &program))
    }

    /// Finds the first server and its root for a checked file.
    pub(crate) fn route(
        &self,
        file: &Snapshot,
    ) -> Result<(&'static ServerSpec, PathBuf), ToolError> {
        let (spec, root) = self.route_all(file)?.swap_remove(0);
        Ok((spec, root))
    }

    /// Every server attached to a checked file, with its root, in priority
    /// order; never empty.
    pub(crate) fn route_all(
        &self,
        file: &Snapshot,
    ) -> Result<Vec<(&'static ServerSpec, PathBuf)>, ToolError> {
        self.follow_config();
        let specs = catalog::servers_for(&file.path, &self.shared.servers);
        if specs.is_empty() {
            let ext =
                crate::files::extension_of(&file.path).unwrap_or_else(|| "extension-less".into());
            return Err(ToolError::unsupported(format!(
                "no language server handles {ext} files; supported: {}",
                catalog::supported_summary()
            )));
        };
        if let Some(why) = &self.shared.resolved.all_off {
            return Err(ToolError::unavailable(why.clone()));
        }
        let mut routes = Vec::new();
        let mut off = Vec::new();
        for spec in specs {
            let Some(root) = roots::root_for_server(spec, &file.path, self.shared.root.as_deref())
            else {
                continue;
            };
            if !self.plugin_present(spec, &file.path, &root) {
                continue;
            }
            if self.is_on(spec, &root) {
                routes.push((spec, root));
            } else if spec.role != catalog::Role::Linter {
                off.push(spec.id);
            }
        }
        // Questions go to the first server that is not a linter.
        if let Some(i) = routes
            .iter()
            .position(|(s, _)| s.role != catalog::Role::Linter)
        {
            routes[..=i].rotate_right(1);
        }
        if routes.is_empty() {
            if !off.is_empty() {
                return Err(ToolError::unavailable(format!(
                    "every server for this file is turned off in the configuration ({})",
                    off.join(", ")
                )));
            }
            return Err(ToolError::bad_input(format!(
                "{} is outside every workspace: no {} above it",
                file.path.display(),
                crate::project::DEFAULT_MARKERS.join(", ")
            )));
        }
        Ok(routes)
    }

    pub(crate) async fn server_for(&self, file: &Snapshot) -> Result<Arc<LspServer>, ToolError> {
        let (spec, root) = self.route(file)?;
        self.shared.pool.get(spec, &root).await
    }
}
