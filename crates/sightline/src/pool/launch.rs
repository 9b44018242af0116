//! Starting a server for the pool: finding its program (the configured
//! command, or discovery, or an install), its options and environment, and
//! the sandboxed command line it runs under.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::catalog::install;
use crate::catalog::{Budgets, Install, ServerSpec};
use crate::error::ToolError;
use crate::pool::Pool;
use crate::progress::Progress;
use crate::server::{Launch, LspServer};

impl Pool {
    #[allow(
        clippy::too_many_lines,
        reason = "the steps of a launch share the program found, its settings and the sandbox; each is a few lines with the reason beside it"
    )]
    pub(super) async fn start(
        &self,
        spec: &'static ServerSpec,
        root: &Path,
        budgets: Budgets,
    ) -> Result<Arc<LspServer>, ToolError> {
        let blocked = self
            .blocked
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(spec.id)
            .cloned();
        if let Some(why) = blocked {
            return Err(ToolError::unavailable(why));
        }
        let settings = self.settings_of(spec.id);
        let settings = settings.as_ref();
        let command = settings.and_then(|s| s.command.clone());
        let progress = crate::progress::Tee::current(&self.progress);
        let program = match self.locate(spec, root) {
            Some(p) => p,
            None if command.is_some() => {
                let program = command.as_ref().map(|c| c[0].clone()).unwrap_or_default();
                return Err(ToolError::unavailable(format!(
                    "the configured command of {} (`{program}`) is not found",
                    spec.id
                )));
            }
            None if !self.downloads || !spec.installable() => return Err(unavailable(spec)),
            None => install::install(spec, &progress, &self.sandbox)
                .await
                .map_err(|e| ToolError::unavailable(format!("{e}; {}", hint(spec))))?,
        };
        // A configured command brings its own runtime (a launcher with a
        // bundled JRE); the built-in one needs the machine's.
        if let Some(runtime) = spec
            .quirks
            .launch
            .runtime
            .as_ref()
            .filter(|_| command.is_none())
        {
            super::runtime::check(spec.id, runtime, &self.search_path).await?;
        }
        // Told without running it (its npm or PyPI package), for answers
        // to name when the server does not say (pyright gives no
        // `serverInfo`).
        let version = install::version_of(spec, &program);
        let mut init = initialization_options(spec, root, &program)?;
        if let (Some(extra), Some(base)) = (
            settings.and_then(|s| s.initialization.clone()),
            init.as_object_mut(),
        ) {
            base.extend(extra);
        }
        let args = match &command {
            Some(c) => c[1..].to_vec(),
            None => {
                let mut args: Vec<String> = spec.args.iter().map(|a| a.to_string()).collect();
                if let Some(extra) = spec.quirks.launch.extra_args {
                    args.extend(extra(&self.server_env).map_err(ToolError::unavailable)?);
                }
                args
            }
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
        writable.extend(crate::sandbox::cache_paths(
            spec.quirks.launch.caches,
            &self.server_env,
        ));
        let network = settings.and_then(|s| s.network).unwrap_or(spec.network);
        let (program, args) = self
            .sandbox
            .command(&program, &args, &writable, &tmp, network)?;
        // ty finds the virtualenv by this variable; the daemon's own
        // environment is no guide (it serves clients with different ones).
        // It comes first, so that an entry's own `env` still wins.
        let mut env: Vec<(String, String)> = self
            .virtual_env
            .iter()
            .map(|v| ("VIRTUAL_ENV".to_owned(), v.display().to_string()))
            .collect();
        let (client_env, mut env_remove) = super::env::split(&self.server_env);
        // By the sandbox's rule (no credential, the user's network
        // settings); an entry's own `env` is set after, and still wins.
        let child_env = self.sandbox.child_env(network);
        env_remove.extend(child_env.remove);
        env.extend(client_env);
        env.extend(child_env.set);
        // Without the network, the build tool resolves from its cache
        // (`LaunchQuirks::offline`).
        if !network {
            let offline = spec.quirks.launch.offline.map_or(&[][..], |o| o.env);
            env.extend(
                offline
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            );
        }
        env.extend(settings.map(|s| s.env.clone()).unwrap_or_default());
        env.extend(crate::sandbox::private_env(
            &tmp,
            spec.quirks.launch.private_env,
        ));
        let launch = Launch {
            program,
            args,
            env,
            init,
            tmp: Some(tmp),
            virtual_env: self.virtual_env.clone(),
            settings: settings
                .and_then(|s| s.settings.clone())
                .map_or(Value::Null, Value::Object),
            env_remove,
            watch_limit: self.watch_limit,
            version,
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
}

fn hint(spec: &ServerSpec) -> String {
    match spec.install {
        Install::Path => format!("put `{}` on PATH", spec.command),
        Install::Download(from) => {
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
        return ToolError::unavailable(format!(
            "no {} language server found ({}); {}",
            spec.language,
            spec.id,
            hint(spec)
        ));
    }
    ToolError::unavailable(format!(
        "no {} language server found; {}, or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)",
        spec.language,
        hint(spec)
    ))
}

/// A configured program: a path (relative to the root) or a name on PATH.
pub(super) fn resolve_program(program: &str, root: &Path) -> Option<PathBuf> {
    if Path::new(program).components().count() > 1 {
        let p = root.join(program);
        let (dir, name) = (p.parent()?, p.file_name()?.to_str()?);
        return sightline_lsp::find_in(dir, name);
    }
    which::which(program).ok()
}

/// The server's `initializationOptions`: made by its quirk for the root and
/// the program found, or its spec's `init` text.
fn initialization_options(
    spec: &ServerSpec,
    root: &Path,
    program: &Path,
) -> Result<Value, ToolError> {
    match spec.quirks.launch.init_options {
        Some(make) => make(root, program).map_err(ToolError::unavailable),
        None => Ok(serde_json::from_str(spec.init).unwrap_or_else(|_| json!({}))),
    }
}
