//! A configuration file edited while the engine runs: before each question
//! the user and project files are stat-ed, and when one changed (or
//! appeared, or went) the configuration is read again. A server whose
//! `settings` changed is told (`workspace/didChangeConfiguration`, then it
//! asks for the new ones); one whose command, environment, network or
//! `initialization` changed is restarted at its next question, since a
//! server reads those only at start. Other keys take effect in the next
//! session (or, with the daemon, the next CLI call).

use std::path::PathBuf;
use std::time::SystemTime;

use crate::config::Config;
use crate::engine::Engine;

/// Each configuration file that could be read, with its modification time
/// and length when it exists.
pub(super) type Stamp = Vec<(PathBuf, Option<(Option<SystemTime>, u64)>)>;

/// The stamp of the files `Config::load` reads for `root`.
pub(super) fn stamp(root: Option<&std::path::Path>) -> Stamp {
    let mut files: Vec<PathBuf> = Vec::new();
    match std::env::var_os("SIGHTLINE_CONFIG").filter(|p| !p.is_empty()) {
        Some(p) => files.push(PathBuf::from(p)),
        None => {
            if let Some(dir) = dirs::config_dir() {
                files
                    .extend(["config.jsonc", "config.json"].map(|n| dir.join("sightline").join(n)));
            }
        }
    }
    if let Some(r) = root {
        files.extend(["sightline.jsonc", "sightline.json"].map(|n| r.join(n)));
    }
    files
        .into_iter()
        .map(|f| {
            let meta = std::fs::metadata(&f)
                .ok()
                .map(|m| (m.modified().ok(), m.len()));
            (f, meta)
        })
        .collect()
}

impl Engine {
    /// Reads the configuration again when its files changed, and brings the
    /// servers in line (module docs). A file that no longer parses leaves
    /// everything as it was (logged).
    pub(super) fn follow_config(&self) {
        let now = stamp(self.shared.config_dir.as_deref());
        {
            let mut seen = self
                .shared
                .config_stamp
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if *seen == now {
                return;
            }
            *seen = now;
        }
        let config = match Config::load(self.shared.config_dir.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("the changed configuration is not used: {e}");
                return;
            }
        };
        let resolved = config.resolve(self.shared.budgets);
        let changed = self
            .shared
            .pool
            .set_settings(resolved.settings, resolved.blocked);
        for (id, only_settings) in changed {
            for server in self.running_servers().iter().filter(|s| s.spec.id == id) {
                if only_settings {
                    let settings = self
                        .shared
                        .pool
                        .settings_of(&id)
                        .and_then(|s| s.settings)
                        .map_or(serde_json::Value::Null, serde_json::Value::Object);
                    tracing::info!("{id}: its settings changed; told to ask for them again");
                    if let Err(e) = server.set_settings(settings) {
                        tracing::debug!("{id}: {e}");
                    }
                } else {
                    let why = format!(
                        "{id} was restarted: its configuration entry changed, and it reads that only at start"
                    );
                    tracing::info!("{why}");
                    server.want_restart(why);
                }
            }
        }
    }
}
