//! The engine of each project's configuration: a file's answers use the
//! user file merged with the nearest `sightline.json[c]` above the file
//! (`config::project_dir`), whatever the working directory and in every
//! face. An engine made with [`Options::project_configs`] answers files of
//! its own configuration itself and hands every other file to an engine of
//! that file's configuration, made on first use with the same options.
//!
//! A project whose configuration or trust changed gets a new engine, since
//! an engine reads most keys once and its servers were started under rules
//! that no longer hold; one whose directory is gone loses its engine.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::config::Config;
use crate::engine::{Engine, Options, config_reload};
use crate::error::ToolError;

/// Hands out the servers that engines of one configuration share, by the
/// configuration's fingerprint (`config::fingerprint`): the daemon's, so
/// that every client place with the same rules gets one pyright.
pub type ShareByConfig = Arc<dyn Fn(u64) -> crate::pool::SharedServers + Send + Sync>;

/// One project's engine, with what it was made from.
struct ProjectEngine {
    engine: Arc<Engine>,
    /// Whether the project was trusted when the engine was made.
    trusted: bool,
    /// The configuration files as last read.
    stamp: config_reload::Stamp,
    /// The fingerprint of the configuration it was made with.
    fingerprint: u64,
}

/// Lets a replaced engine go: the servers only it hands out shut down; the
/// ones it shares (the daemon's groups) stay with the engines that use
/// them, until they are idle or their root is gone. Outside a runtime (a
/// library caller's thread) they go when the engine is dropped.
fn retire(engine: Arc<Engine>) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move { engine.shutdown_unshared().await });
    }
}

/// The engines of the other projects' configurations (module docs).
pub(super) struct Projects {
    /// The options the first engine was made with, its configuration aside.
    template: Options,
    by_dir: Mutex<HashMap<Option<PathBuf>, ProjectEngine>>,
}

impl Projects {
    pub(super) fn new(template: Options) -> Projects {
        Projects {
            template: Options {
                config: Config::default(),
                project_configs: false,
                ..template
            },
            by_dir: Mutex::default(),
        }
    }

    /// The engine for the configuration of `dir` (`None`: the user file
    /// alone), made or remade as the module docs say.
    fn engine_for(&self, dir: Option<PathBuf>) -> Result<Arc<Engine>, ToolError> {
        let stamp = config_reload::stamp(dir.as_deref());
        let trusted = dir.as_deref().is_some_and(crate::project::trusted_at);
        let mut map = self.by_dir.lock().unwrap_or_else(PoisonError::into_inner);
        // A project deleted since (a worktree removed) takes its engine
        // with it.
        let gone: Vec<Option<PathBuf>> = map
            .keys()
            .filter(|d| d.as_deref().is_some_and(|d| !d.is_dir()))
            .cloned()
            .collect();
        for d in gone {
            if let Some(old) = map.remove(&d) {
                retire(old.engine);
            }
        }
        let mut loaded = None;
        if let Some(known) = map.get_mut(&dir)
            && known.trusted == trusted
        {
            if known.stamp == stamp {
                return Ok(known.engine.clone());
            }
            // A broken file answers with its error line, as at start.
            let config =
                Config::load(dir.as_deref()).map_err(|e| ToolError::bad_input(e.to_string()))?;
            known.stamp = stamp.clone();
            if crate::config::fingerprint(&config, trusted) == known.fingerprint {
                return Ok(known.engine.clone());
            }
            loaded = Some(config);
        }
        // New, or its configuration or trust changed: a new engine, since
        // an engine reads most keys once (as a daemon engine of a client
        // place does, `frontends::daemon::engines`).
        let config = match loaded {
            Some(c) => c,
            None => {
                Config::load(dir.as_deref()).map_err(|e| ToolError::bad_input(e.to_string()))?
            }
        };
        let fingerprint = crate::config::fingerprint(&config, trusted);
        let shared = self
            .template
            .share_by_config
            .as_ref()
            .map(|share| share(fingerprint));
        tracing::debug!(
            "a new engine for the configuration of {}",
            dir.as_deref()
                .map_or("the user file alone".into(), |d| d.display().to_string())
        );
        let engine = Arc::new(Engine::new_in(
            Options {
                config,
                shared_servers: shared.or_else(|| self.template.shared_servers.clone()),
                ..self.template.clone()
            },
            dir.clone(),
        ));
        let replaced = map.insert(
            dir,
            ProjectEngine {
                engine: engine.clone(),
                trusted,
                stamp,
                fingerprint,
            },
        );
        if let Some(old) = replaced {
            retire(old.engine);
        }
        Ok(engine)
    }

    /// Every project engine made so far.
    pub(super) fn all(&self) -> Vec<Arc<Engine>> {
        self.by_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|p| p.engine.clone())
            .collect()
    }
}

impl Engine {
    /// The engine whose configuration applies to `path` (a file or a
    /// directory): this one when the nearest project file above `path` is
    /// the one it was made with (or it was made without
    /// [`Options::project_configs`]), else that project's. A project file
    /// that does not parse is an error naming its file and line.
    pub(crate) fn for_path(self: &Arc<Self>, path: &Path) -> Result<Arc<Engine>, ToolError> {
        let Some(projects) = &self.shared.projects else {
            return Ok(self.clone());
        };
        // `a/../b` must not look in `a`.
        let path = sightline_lsp::normalize(path);
        let start = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(&path)
        };
        let dir = crate::config::project_dir(start);
        if dir == self.shared.config.project {
            return Ok(self.clone());
        }
        projects.engine_for(dir)
    }

    /// Every project engine this one made.
    pub(crate) fn with_projects(&self) -> Vec<Arc<Engine>> {
        self.shared
            .projects
            .as_ref()
            .map(Projects::all)
            .unwrap_or_default()
    }
}
