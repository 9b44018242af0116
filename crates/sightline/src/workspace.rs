//! The engine's public face: the three questions of the contract, answered
//! for files as they are on disk now. The CLI, the MCP server and Rust callers
//! all go through [`Workspace`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::answer::{Diagnostics, Loc, LocKind, Locations};
use crate::config::{Config, Resolved};
use crate::error::ToolError;
use crate::pool::Pool;
use crate::progress::{Progress, Silent};
use crate::registry::{self, Budgets, ServerSpec};
use crate::roots;
use crate::server::LspServer;
use crate::validate::{self, Checked};

/// How a [`Workspace`] behaves.
#[derive(Clone)]
pub struct Options {
    /// The directory the user works in; files outside every project marker
    /// but inside it are served under it.
    pub root: Option<PathBuf>,
    pub budgets: Budgets,
    pub progress: Arc<dyn Progress>,
    /// Directories searched for server executables before PATH.
    pub search_path: Vec<PathBuf>,
    /// Whether missing servers may be installed from npm; `None` follows
    /// `SIGHTLINE_DISABLE_LSP_DOWNLOAD`.
    pub downloads: Option<bool>,
    /// Servers consulted before the built-in ones, such as
    /// [`crate::registry::FAKE`].
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
        }
    }
}

pub struct Workspace {
    root: Option<PathBuf>,
    pool: Pool,
    /// Servers consulted before the built-ins: the caller's, then custom
    /// servers from the configuration.
    servers: Vec<&'static ServerSpec>,
    resolved: Resolved,
    config: Config,
    progress: Arc<dyn Progress>,
    formatters: crate::format::Formatters,
    seen: crate::edit::Seen,
    sandbox: crate::sandbox::Sandbox,
}

impl Workspace {
    pub fn new(options: Options) -> Workspace {
        let root = options.root.map(|r| sightline_lsp::uri::normalize(&r));
        // The environment switch wins over the configuration, which wins
        // over the default (install).
        let downloads = options.downloads.unwrap_or_else(|| {
            !crate::install::downloads_disabled() && options.config.autoinstall.unwrap_or(true)
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
        .confined_to(crate::confine::Roots::new(
            root.as_deref(),
            &options.config.writable_roots,
        ));
        let formatters = crate::format::Formatters::new(
            &options.config,
            options.search_path.clone(),
            sandbox.clone(),
        );
        let pool = Pool::new(
            options.budgets,
            options.server_budgets,
            &resolved,
            sandbox.clone(),
            options.progress,
            options.search_path,
            downloads,
        );
        Workspace {
            root,
            pool,
            servers,
            resolved,
            config: options.config,
            progress,
            formatters,
            seen: crate::edit::Seen::default(),
            sandbox,
        }
    }

    pub fn sandbox(&self) -> &crate::sandbox::Sandbox {
        &self.sandbox
    }

    pub fn formatters(&self) -> &crate::format::Formatters {
        &self.formatters
    }

    pub(crate) fn seen(&self) -> &crate::edit::Seen {
        &self.seen
    }

    /// Starts the servers of `file` and opens it, so that the next question
    /// about it is fast. Failures are left for that question to report.
    pub async fn warm(&self, file: &Path) {
        let Ok(checked) = validate::check_file(file) else {
            return;
        };
        let Ok(routes) = self.route_all(&checked) else {
            return;
        };
        for (spec, root) in routes {
            if let Ok(server) = self.pool.get(spec, &root).await {
                let _ = server.sync(&checked.path, checked.text.clone());
            }
        }
    }

    pub(crate) async fn pool_get(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
    ) -> Result<Arc<LspServer>, ToolError> {
        self.pool.get(spec, root).await
    }

    /// The workspace directory given at start (`--root`).
    pub fn workspace_root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Other files the server of `file` holds open, under the same root.
    pub fn open_files_beside(&self, file: &Path) -> Vec<PathBuf> {
        let Ok(checked) = validate::check_file(file) else {
            return Vec::new();
        };
        let Ok((spec, root)) = self.route(&checked) else {
            return Vec::new();
        };
        self.pool
            .running()
            .into_iter()
            .filter(|s| s.spec.id == spec.id && s.root == root)
            .flat_map(|s| s.open_documents())
            .filter(|p| p != &checked.path && p.starts_with(&root))
            .collect()
    }

    /// The configuration this workspace runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The servers that handle `path`, configured ones first.
    pub(crate) fn servers_for(&self, path: &Path) -> Vec<&'static ServerSpec> {
        registry::servers_for(path, &self.servers)
    }

    /// Every server this workspace knows: configured ones, then built-ins.
    pub fn all_servers(&self) -> Vec<&'static ServerSpec> {
        self.servers
            .iter()
            .chain(registry::BUILTIN)
            .copied()
            .collect()
    }

    pub(crate) fn running_servers(&self) -> Vec<Arc<LspServer>> {
        self.pool.running()
    }

    pub(crate) fn broken_servers(&self) -> Vec<(&'static str, PathBuf, String)> {
        self.pool.broken()
    }

    /// The program that would run for `spec` under `root`, if found.
    pub fn locate_server(&self, spec: &ServerSpec, root: &Path) -> Option<PathBuf> {
        self.pool.locate(spec, root)
    }

    /// Why `spec` is off, or `None` when it may run.
    pub fn why_off(&self, spec: &ServerSpec) -> Option<String> {
        if let Some(why) = &self.resolved.all_off {
            return Some(why.clone());
        }
        if let Some(why) = self.resolved.blocked.get(spec.id) {
            return Some(why.clone());
        }
        if self.config.servers.get(spec.id).is_some_and(|e| e.disabled) {
            return Some("disabled in the configuration".into());
        }
        match spec.role {
            registry::Role::Alternative if !self.resolved.enabled.contains(spec.id) => {
                Some(format!(
                    "an alternative server; turn it on with \"lsp\": {{\"{}\": {{}}}}",
                    spec.id
                ))
            }
            _ => None,
        }
    }

    /// Installs `spec` now (for `sightline install`), reporting progress.
    pub async fn install(&self, spec: &'static ServerSpec) -> Result<PathBuf, ToolError> {
        crate::install::install(
            spec,
            &crate::progress::Tee::current(&self.progress),
            &self.sandbox,
        )
        .await
        .map_err(|e| ToolError::Unavailable(e.to_string()))
    }

    /// Whether `spec` is on for files it handles: primaries unless turned
    /// off, alternatives and linters only when configured, and linters also
    /// when they are already installed where sightline looks.
    fn is_on(&self, spec: &ServerSpec, root: &Path) -> bool {
        if self.resolved.explicit.contains(spec.id) {
            return true;
        }
        match spec.role {
            registry::Role::Linter => {
                !self.config.servers.get(spec.id).is_some_and(|e| e.disabled)
                    && linter_in_project(spec, root)
                    && (!spec.quirks.runs_project_code || crate::config::trusted_at(root))
                    && self.pool.locate(spec, root).is_some()
            }
            _ => self.resolved.enabled.contains(spec.id),
        }
    }

    /// Finds the first server and its root for a checked file.
    pub(crate) fn route(
        &self,
        file: &Checked,
    ) -> Result<(&'static ServerSpec, PathBuf), ToolError> {
        let (spec, root) = self.route_all(file)?.swap_remove(0);
        Ok((spec, root))
    }

    /// Every server attached to a checked file, with its root, in priority
    /// order; never empty.
    pub(crate) fn route_all(
        &self,
        file: &Checked,
    ) -> Result<Vec<(&'static ServerSpec, PathBuf)>, ToolError> {
        let specs = registry::servers_for(&file.path, &self.servers);
        if specs.is_empty() {
            let ext = registry::extension_of(&file.path).unwrap_or_else(|| "extension-less".into());
            return Err(ToolError::Unsupported(format!(
                "no language server handles {ext} files; supported: {}",
                registry::supported_summary()
            )));
        };
        if let Some(why) = &self.resolved.all_off {
            return Err(ToolError::Unavailable(why.clone()));
        }
        let mut routes = Vec::new();
        let mut off = Vec::new();
        for spec in specs {
            let Some(root) = roots::root_for_server(spec, &file.path, self.root.as_deref()) else {
                continue;
            };
            if self.is_on(spec, &root) {
                routes.push((spec, root));
            } else if spec.role != registry::Role::Linter {
                off.push(spec.id);
            }
        }
        // Questions go to the first server that is not a linter.
        if let Some(i) = routes
            .iter()
            .position(|(s, _)| s.role != registry::Role::Linter)
        {
            routes[..=i].rotate_right(1);
        }
        if routes.is_empty() {
            if !off.is_empty() {
                return Err(ToolError::Unavailable(format!(
                    "every server for this file is turned off in the configuration ({})",
                    off.join(", ")
                )));
            }
            return Err(ToolError::BadInput(format!(
                "{} is outside every workspace: no {} above it",
                file.path.display(),
                roots::DEFAULT_MARKERS.join(", ")
            )));
        }
        Ok(routes)
    }

    pub(crate) async fn server_for(&self, file: &Checked) -> Result<Arc<LspServer>, ToolError> {
        let (spec, root) = self.route(file)?;
        self.pool.get(spec, &root).await
    }

    /// The diagnostics of `file` as it is on disk now, from every server
    /// attached to it, merged.
    pub async fn diagnostics(&self, file: &Path) -> Result<Diagnostics, ToolError> {
        let checked = validate::check_file(file)?;
        let routes = self.route_all(&checked)?;
        let answers = futures_util::future::join_all(routes.iter().map(|(spec, root)| async {
            let server = self.pool.get(spec, root).await?;
            let doc = server.sync(&checked.path, checked.text.clone())?;
            let (findings, note) = server.diagnostics(&checked.path, &doc).await?;
            Ok::<_, ToolError>((server.root.clone(), findings, note))
        }))
        .await;
        let mut findings = Vec::new();
        let mut notes = Vec::new();
        let mut root = None;
        let mut first_error = None;
        let many = answers.len() > 1;
        for (answer, (spec, _)) in answers.into_iter().zip(&routes) {
            match answer {
                Ok((r, mut f, note)) => {
                    root.get_or_insert(r);
                    findings.append(&mut f);
                    notes.extend(note);
                }
                // With several servers, one that fails is a note, not the answer.
                Err(e) if many => {
                    notes.push(format!("{}: {e}", spec.id));
                    first_error.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        let Some(root) = root else {
            return Err(
                first_error.unwrap_or_else(|| ToolError::Server("no server answered".into()))
            );
        };
        tidy(&mut findings);
        // Until the project is trusted, say which of its keys were ignored.
        notes.extend(self.config().untrusted_note());
        Ok(Diagnostics {
            file: file.to_owned(),
            root,
            diagnostics: findings,
            notes,
        })
    }

    /// The diagnostics of every file in the workspace of `file`, from its
    /// first server's `workspace/diagnostic` (a full check, within that
    /// budget). A server without it answers for `file` alone.
    pub async fn workspace_diagnostics(&self, file: &Path) -> Result<Vec<Diagnostics>, ToolError> {
        let checked = validate::check_file(file)?;
        let (spec, root) = self.route(&checked)?;
        let server = self.pool.get(spec, &root).await?;
        server.sync(&checked.path, checked.text.clone())?;
        let Some(files) = server.workspace_diagnostics().await? else {
            return Ok(vec![self.diagnostics(file).await?]);
        };
        Ok(files
            .into_iter()
            .map(|(path, mut findings)| {
                tidy(&mut findings);
                Diagnostics {
                    file: path,
                    root: server.root.clone(),
                    diagnostics: findings,
                    notes: Vec::new(),
                }
            })
            .collect())
    }

    /// Where the symbol at `line`:`column` (1-based, characters) is defined.
    pub async fn definition(
        &self,
        file: &Path,
        line: usize,
        column: usize,
    ) -> Result<Locations, ToolError> {
        let (server, checked, pos) = self.prepare(file, line, column, false).await?;
        let found = server.definition(&checked.path, pos).await?;
        let mut texts = HashMap::new();
        Ok(self.finish(
            &server,
            LocKind::Definitions,
            server.to_locs(&found, &mut texts),
        ))
    }

    /// Every use of the symbol at `line`:`column`, across the workspace.
    pub async fn references(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        include_declaration: bool,
    ) -> Result<Locations, ToolError> {
        let (server, checked, pos) = self.prepare(file, line, column, true).await?;
        let mut found = server.references(&checked.path, pos).await?;
        // A server may announce indexing only after we asked (its progress
        // begins just after `initialized`); then the answer may be partial:
        // wait for the index and ask again.
        if server.indexing() {
            let doc = server.sync(&checked.path, checked.text.clone())?;
            server.wait_ready(&checked.path, &doc, true).await?;
            found = server.references(&checked.path, pos).await?;
        }
        if let Some(name) = crate::loose::name_to_open(&server, &checked, line, column) {
            for group in crate::loose::groups(&server, &checked, &name) {
                crate::loose::open(&server, &checked, &group).await?;
                found.extend(server.references(&checked.path, pos).await?);
            }
        }
        let mut texts = HashMap::new();
        if server.spec.quirks.follow_import_alias {
            found.extend(
                crate::aliases::alias_references(&server, &found, include_declaration, &mut texts)
                    .await?,
            );
        }
        // Every server was asked with the declaration included; take it out
        // here, and only it, so the use that was asked about always stays.
        if !include_declaration {
            found = server
                .without_declarations(&checked.path, pos, found)
                .await?;
        }
        Ok(self.finish(
            &server,
            LocKind::References,
            server.to_locs(&found, &mut texts),
        ))
    }

    pub(crate) async fn prepare(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        cross_file: bool,
    ) -> Result<(Arc<LspServer>, Checked, sightline_lsp::protocol::Position), ToolError> {
        let checked = validate::check_file(file)?;
        let index = sightline_lsp::LineIndex::new(checked.text.as_str());
        validate::check_position(&index, file, line, column)?;
        let server = self.server_for(&checked).await?;
        let doc = server.sync(&checked.path, checked.text.clone())?;
        server.wait_ready(&checked.path, &doc, cross_file).await?;
        let pos = server.position(&doc, line, column).ok_or_else(|| {
            ToolError::BadInput(format!("line {line} is past the end of {}", file.display()))
        })?;
        Ok((server, checked, pos))
    }

    pub(crate) fn finish(
        &self,
        server: &LspServer,
        kind: LocKind,
        mut locations: Vec<Loc>,
    ) -> Locations {
        locations.sort_by(|a, b| a.cmp_in(b, &server.root));
        locations.dedup();
        Locations {
            kind,
            root: server.root.clone(),
            locations,
        }
    }

    /// Process ids of every running server.
    pub fn server_pids(&self) -> Vec<u32> {
        self.pool.running().iter().filter_map(|s| s.pid()).collect()
    }

    /// Shuts every server down.
    pub async fn shutdown(&self) {
        self.pool.shutdown().await;
    }
}

/// Whether the project under `root` uses this linter: its package in the
/// project's `node_modules` (eslint needs the project's eslint), or its
/// config file.
fn linter_in_project(spec: &ServerSpec, root: &Path) -> bool {
    let package = match spec.id {
        "eslint" => "eslint",
        "biome" => "@biomejs/biome",
        "oxlint" => "oxlint",
        _ => return true,
    };
    let config: &[&str] = match spec.id {
        "biome" => &["biome.json", "biome.jsonc"],
        "oxlint" => &[".oxlintrc.json"],
        _ => &[],
    };
    root.ancestors().any(|d| {
        d.join("node_modules").join(package).is_dir() || config.iter().any(|c| d.join(c).is_file())
    })
}

/// Sorts findings by position and removes duplicates: the same finding
/// pushed and pulled, or reported by two servers, shows once.
fn tidy(findings: &mut Vec<crate::answer::Finding>) {
    findings.sort_by(|a, b| {
        (a.line, a.column, a.severity, &a.message, &a.source)
            .cmp(&(b.line, b.column, b.severity, &b.message, &b.source))
    });
    findings.dedup_by(|a, b| {
        a.line == b.line
            && a.column == b.column
            && a.message == b.message
            && a.severity == b.severity
    });
}
