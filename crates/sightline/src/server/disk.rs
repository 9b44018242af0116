//! What changed on disk, told to the server: the watch is drained before
//! each question, and the changes the server's registered watchers ask for
//! (or, without any, the files of its languages) are sent as
//! `workspace/didChangeWatchedFiles`. A new or removed virtualenv makes a
//! Python server ask for its configuration again; a change to a file the
//! server reads only at start (`LifecycleQuirks::restart_on`) asks the pool for a
//! new server.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sightline_lsp::notification;
use sightline_lsp::path_to_uri_string;

use crate::catalog::OnInstall;
use crate::error::ToolError;
use crate::server::LspServer;
use crate::sync::watch::{Change, DiskWatch};

/// Changes drained from the watch and not yet told to the server.
#[derive(Default)]
pub(crate) struct UntoldChanges {
    pending: crate::sync::watch::Changes,
    /// `watchers_added` when the registered directories were last watched.
    watchers_seen: u64,
}

impl LspServer {
    /// Drains the watch into the pending changes; why the server must be
    /// restarted, when a file it reads only at start changed.
    pub(crate) fn restart_reason(&self) -> Option<String> {
        if let Some(why) = self
            .restart_wanted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            return Some(why);
        }
        let may = !self.spec.quirks.lifecycle.restart_on.is_empty()
            || matches!(self.spec.quirks.lifecycle.on_install, OnInstall::Restart(_));
        if !may {
            return None;
        }
        let watch = self.watch.as_ref()?;
        self.drain_watch(watch);
        let disk = self
            .disk
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.trigger(&disk.pending)
    }

    /// Why the pending changes call for a restart, if they do.
    fn trigger(&self, pending: &crate::sync::watch::Changes) -> Option<String> {
        if let OnInstall::Restart(dirs) = self.spec.quirks.lifecycle.on_install
            && let Some(dir) = self.installed_under(pending.iter(), dirs)
        {
            return Some(format!(
                "{} was restarted: packages changed under {dir}, which it does not see by itself",
                self.spec.id
            ));
        }
        let quirk = self.spec.quirks.lifecycle.restart_on;
        let (path, _) = pending
            .iter()
            .find(|(p, _)| p.file_name().is_some_and(|n| quirk.iter().any(|q| n == *q)))?;
        Some(format!(
            "{} was restarted: {} changed, and it reads that only at start",
            self.spec.id,
            path.strip_prefix(&self.root).unwrap_or(path).display()
        ))
    }

    /// The first of `dirs` (install directories' first components) that a
    /// change in `changes` is in, or is.
    fn installed_under<'a, 'b>(
        &self,
        mut changes: impl Iterator<Item = &'b (PathBuf, Change)>,
        dirs: &[&'a str],
    ) -> Option<&'a str> {
        changes.find_map(|(p, _)| {
            let first = p.strip_prefix(&self.root).ok()?.components().next()?;
            let first = first.as_os_str().to_str()?;
            dirs.iter().find(|d| **d == first).copied()
        })
    }

    /// Moves what the watch has queued into the pending changes.
    fn drain_watch(&self, watch: &DiskWatch) {
        self.watch_registered(watch);
        let drained = watch.drain();
        let mut disk = self
            .disk
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (p, c) in drained {
            disk.pending.record(p, c);
        }
    }

    /// Watches the directories the server's watchers name under its root
    /// that the watch leaves out (a `node_modules/@types` it asks for).
    fn watch_registered(&self, watch: &DiskWatch) {
        let (added, bases) = self.state.with(|s| {
            (
                s.registered.watchers_added,
                s.registered
                    .watchers
                    .values()
                    .flatten()
                    .filter_map(|w| w.base.clone())
                    .collect::<Vec<_>>(),
            )
        });
        let mut disk = self
            .disk
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if disk.watchers_seen == added {
            return;
        }
        disk.watchers_seen = added;
        drop(disk);
        for base in bases {
            if base != self.root && base.starts_with(&self.root) && !watch.covers(&base.join("_")) {
                tracing::debug!("{}: watching {} as it asked", self.spec.id, base.display());
                watch.add(&base);
            }
        }
    }

    /// Tells the server about files changed on disk since the last question;
    /// every changed path (for open documents to be read again), and those
    /// the server was told of (which can change its answers).
    pub(super) fn send_disk_changes(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), ToolError> {
        let Some(watch) = &self.watch else {
            return Ok((Vec::new(), Vec::new()));
        };
        self.drain_watch(watch);
        // A trigger that came after `Pool::get` looked: the next question
        // gets a new server.
        let trigger = {
            let disk = self
                .disk
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.trigger(&disk.pending)
        };
        if let Some(why) = trigger {
            self.want_restart(why);
        }
        let drained = std::mem::take(
            &mut self
                .disk
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .pending,
        )
        .into_vec();
        let watchers: Vec<crate::server::watchers::Watcher> = self
            .state
            .with(|s| s.registered.watchers.values().flatten().cloned().collect());
        // Without registered watchers, the files of the server's languages
        // (what it would have registered had it said).
        let wanted = |p: &Path, c: Change| {
            if watchers.is_empty() {
                self.spec.handles(p)
            } else {
                watchers.iter().any(|w| w.wants(p, c))
            }
        };
        // A virtualenv made or removed at the root, or a package installed
        // into one (`OnInstall::Reconfigure`).
        let reconfigure = match self.spec.quirks.lifecycle.on_install {
            OnInstall::Reconfigure(dirs) => self.installed_under(drained.iter(), dirs).is_some(),
            _ => false,
        };
        // Every changed path comes back, for the open documents to be read
        // again; only what the watchers ask for is told.
        let all: Vec<PathBuf> = drained.iter().map(|(p, _)| p.clone()).collect();
        let drained: Vec<(PathBuf, Change)> =
            drained.into_iter().filter(|(p, c)| wanted(p, *c)).collect();
        if reconfigure {
            tracing::info!(
                "{}: packages or the virtualenv changed; its configuration is sent again",
                self.spec.id
            );
            self.client
                .notify_of::<notification::DidChangeConfiguration>(
                    json!({ "settings": self.state.configuration(None) }),
                )?;
        }
        if drained.is_empty() && !reconfigure {
            return Ok((all, Vec::new()));
        }
        // The documents' lock is held until the server has been told and
        // the generation bumped, so that no answer asked in between is kept
        // (`answer_cache`).
        let mut docs = self.docs();
        // Open documents are the server's to hold: their content comes from
        // `didChange`, and telling pyright that one changed on disk as well
        // makes it re-read and re-check it for nothing.
        let open = docs.open_paths();
        let changes: Vec<Value> = drained
            .iter()
            .filter(|(p, c)| *c == Change::Deleted || !open.contains(p))
            .filter_map(|(p, c)| {
                Some(json!({ "uri": path_to_uri_string(p).ok()?, "type": *c as u8 }))
            })
            .collect();
        if !changes.is_empty() {
            tracing::debug!("{}: {} files changed on disk", self.spec.id, changes.len());
            self.client
                .notify_of::<notification::DidChangeWatchedFiles>(json!({ "changes": changes }))?;
            self.state.with(|s| s.told_changes = true);
        }
        docs.generation += 1;
        drop(docs);
        Ok((all, drained.into_iter().map(|(p, _)| p).collect()))
    }
}
