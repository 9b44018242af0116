//! The pool's record of each server's health: recent failures, the
//! back-off before a restart, the broken state after too many, and the
//! reaper that lets idle servers and documents go.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

use crate::catalog::Budgets;
use crate::error::ToolError;
use crate::pool::Pool;
use crate::server::LspServer;

/// The longest the reaper waits between looks at the servers: a server
/// whose root is gone stops within this.
const ROOT_CHECK: Duration = Duration::from_secs(2);

/// A server's root, its id, and the directories it may write: engines that
/// share their servers (the daemon's, for clients whose servers would be
/// identical) share one only where it would be confined alike.
pub(super) type Key = (PathBuf, &'static str, Vec<PathBuf>);
pub(super) type Slot = Arc<OnceCell<Arc<LspServer>>>;

/// Recent failures of one (root, server): crashes and failed starts.
#[derive(Default)]
struct Health {
    failures: Vec<Instant>,
    last_error: Option<ToolError>,
}

#[derive(Default)]
pub(super) struct Shared {
    pub(super) slots: Mutex<HashMap<Key, Slot>>,
    health: Mutex<HashMap<Key, Health>>,
    /// Set when the reaper runs: one for all the pools sharing these servers.
    reaper: std::sync::OnceLock<()>,
    /// What happens to these servers, for the sessions that listen.
    pub(super) events: crate::pool::events::Events,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

impl Shared {
    pub(super) fn slot(&self, key: &Key) -> Slot {
        lock(&self.slots).entry(key.clone()).or_default().clone()
    }

    /// Forgets `slot` if it is still the one registered for `key`.
    pub(super) fn forget(&self, key: &Key, slot: &Slot) {
        let mut slots = lock(&self.slots);
        if slots.get(key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            slots.remove(key);
        }
    }

    pub(super) fn record_failure(&self, key: &Key, error: ToolError) {
        let mut health = lock(&self.health);
        let h = health.entry(key.clone()).or_default();
        h.failures.push(Instant::now());
        h.last_error = Some(error);
    }

    /// Shuts down servers idle past their budget or whose root is gone, and
    /// closes idle documents.
    fn reap(&self) {
        let servers: Vec<(Key, Slot)> = lock(&self.slots)
            .iter()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        for (key, slot) in servers {
            let Some(server) = slot.get().cloned() else {
                continue;
            };
            // Agents make and delete worktrees and temporary checkouts all
            // day: a server whose root was deleted or moved away serves
            // nothing any more, so it stops now rather than at its idle
            // time. A call still using it ends as on any server exit.
            if !key.0.is_dir() {
                tracing::info!(
                    "{} for {}: its root is gone; shutting it down",
                    key.1,
                    key.0.display()
                );
                self.forget(&key, &slot);
                tokio::spawn(async move { server.shutdown().await });
                continue;
            }
            // The slot and this clone are the only holders when no call is
            // using the server.
            let unused = Arc::strong_count(&server) <= 2;
            if unused && server.idle_for() >= server.budgets.idle_server {
                tracing::info!(
                    "{} for {} idle for {:.0} s; shutting it down",
                    key.1,
                    key.0.display(),
                    server.idle_for().as_secs_f64()
                );
                self.forget(&key, &slot);
                tokio::spawn(async move { server.shutdown().await });
            } else if let Err(e) = server.close_idle_documents() {
                tracing::debug!("{}: closing idle documents failed: {e}", key.1);
            }
        }
    }
}

impl Pool {
    /// Waits out the back-off after recent failures, or answers that the
    /// server is broken when it failed too often.
    pub(super) async fn wait_out_failures(
        &self,
        key: &Key,
        budgets: &Budgets,
    ) -> Result<(), ToolError> {
        let wait = {
            let mut health = lock(&self.shared.health);
            let Some(h) = health.get_mut(key) else {
                return Ok(());
            };
            let now = Instant::now();
            h.failures
                .retain(|t| now.duration_since(*t) < budgets.cooldown);
            let n = h.failures.len() as u32;
            let Some(&newest) = h.failures.last() else {
                return Ok(());
            };
            if n >= budgets.max_failures.max(1) {
                let retry = (newest + budgets.cooldown).saturating_duration_since(now);
                return Err(ToolError::server(format!(
                    "{} is broken: it failed {n} times in {:.0} s; last failure: {}; sightline tries it again in {:.0} s",
                    key.1,
                    budgets.cooldown.as_secs_f64(),
                    h.last_error
                        .as_ref()
                        .map(|e| e.message.clone())
                        .unwrap_or_default(),
                    retry.as_secs_f64().ceil()
                )));
            }
            if n < 2 {
                return Ok(());
            }
            let backoff = budgets.backoff * 2u32.saturating_pow(n - 2);
            (newest + backoff).saturating_duration_since(now)
        };
        if !wait.is_zero() {
            tracing::info!(
                "{}: waiting {:.1} s before restarting it",
                key.1,
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
        }
        Ok(())
    }

    /// Lets go of idle servers and documents in the background, for as long
    /// as the pool lives.
    pub(super) fn start_reaper(&self) {
        self.shared.reaper.get_or_init(|| {
            let shortest = self
                .server_budgets
                .values()
                .chain([&self.budgets])
                .map(|b| b.idle_document.min(b.idle_server))
                .min()
                .unwrap_or(Duration::from_secs(60));
            // At least every ROOT_CHECK, so that a server whose root went
            // away stops within seconds.
            let tick = (shortest / 4).clamp(Duration::from_millis(50), ROOT_CHECK);
            let shared: Weak<Shared> = Arc::downgrade(&self.shared);
            tokio::spawn(async move {
                let mut interval = tokio::time::interval(tick);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    interval.tick().await;
                    let Some(shared) = shared.upgrade() else {
                        break;
                    };
                    shared.reap();
                }
            });
        });
    }

    /// Servers reported broken now: (id, root, last failure).
    pub fn broken(&self) -> Vec<(&'static str, PathBuf, String)> {
        let now = Instant::now();
        lock(&self.shared.health)
            .iter()
            .filter_map(|((root, id, _), h)| {
                let b = self
                    .server_budgets
                    .get(*id)
                    .copied()
                    .unwrap_or(self.budgets);
                let recent = h
                    .failures
                    .iter()
                    .filter(|t| now.duration_since(**t) < b.cooldown)
                    .count();
                (recent as u32 >= b.max_failures.max(1)).then(|| {
                    let why = h.last_error.as_ref().map(|e| e.message.clone());
                    (*id, root.clone(), why.unwrap_or_default())
                })
            })
            .collect()
    }
}
