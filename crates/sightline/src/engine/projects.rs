//! The engine of each project's configuration: a file's answers use the
//! user file merged with the nearest `sightline.json[c]` above the file
//! (`config::project_dir`), whatever the working directory and in every
//! face. An engine made with [`Options::project_configs`] answers files of
//! its own configuration itself and hands every other file to an engine of
//! that file's configuration, made on first use with the same options.
//!
//! Each of those engines follows its own files live (`live`), as the first
//! one does; a project whose trust changed gets a new engine, since its
//! servers were started under rules that no longer hold.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::config::Config;
use crate::engine::{Engine, Options, live};
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
    stamp: live::Stamp,
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
        let stamp = live::stamp(dir.as_deref());
        let trusted = dir.as_deref().is_some_and(crate::project::is_trusted);
        let mut map = self.by_dir.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = map.get_mut(&dir)
            && known.trusted == trusted
        {
            if known.stamp != stamp {
                // A broken file answers with its error line, as at start;
                // a good one is taken in by the engine's own `live` step.
                Config::load(dir.as_deref()).map_err(|e| ToolError::BadInput(e.to_string()))?;
                known.stamp = stamp;
            }
            return Ok(known.engine.clone());
        }
        let config =
            Config::load(dir.as_deref()).map_err(|e| ToolError::BadInput(e.to_string()))?;
        let shared = self
            .template
            .share_by_config
            .as_ref()
            .map(|share| share(crate::config::fingerprint(&config, trusted)));
        tracing::debug!(
            "a new engine for the configuration of {}",
            dir.as_deref()
                .map_or("the user file alone".into(), |d| d.display().to_string())
        );
        let engine = Arc::new(Engine::new(Options {
            config,
            shared_servers: shared.or_else(|| self.template.shared_servers.clone()),
            ..self.template.clone()
        }));
        let replaced = map.insert(
            dir,
            ProjectEngine {
                engine: engine.clone(),
                trusted,
                stamp,
            },
        );
        // The servers of the old trust go; shared ones stay with the
        // engines that still use them (the daemon's groups).
        if let Some(old) = replaced
            && self.template.share_by_config.is_none()
        {
            tokio::spawn(async move { old.engine.shutdown().await });
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
    pub fn for_path(self: &Arc<Self>, path: &Path) -> Result<Arc<Engine>, ToolError> {
        let Some(projects) = &self.projects else {
            return Ok(self.clone());
        };
        let start = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        let dir = crate::config::project_dir(start);
        if dir == self.config.project {
            return Ok(self.clone());
        }
        projects.engine_for(dir)
    }

    /// Every project engine this one made.
    pub(crate) fn with_projects(&self) -> Vec<Arc<Engine>> {
        self.projects
            .as_ref()
            .map(Projects::all)
            .unwrap_or_default()
    }
}
