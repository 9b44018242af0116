//! The pending checks of agents' edits, one value the daemon holds
//! ([`PendingChecks`]) and every hook call of its sessions shares: the
//! texts a before-edit call recorded, waiting for their after-edit call,
//! and the checks that outlast the hook's budget. Those keep running in
//! the daemon, and their result reaches the same agent (its session, and
//! within it the subagent) at its next hook event, headed with the edit it
//! belongs to. When the agent edits the same files again before the result
//! reached it, the new edit's check takes the earlier one over: it counts
//! from the text before the earlier edit, so the model hears the delta of
//! both, once. A result whose files changed otherwise since (another edit
//! of more files) is dropped, said in one line.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::edit::agent_edits::{EditTexts, normalized, sorted};

/// How long a finished result waits for its agent's next hook event.
const KEPT_FOR: Duration = Duration::from_secs(1800);
/// At most this many checks are kept at once; the oldest go first.
const KEPT_AT_MOST: usize = 64;
/// How long a before-edit call's texts wait for their after-edit call.
const RECORDED_FOR: Duration = Duration::from_secs(600);
/// At most this many recorded edits wait at once; the oldest go first.
const RECORDED_AT_MOST: usize = 64;

/// The pending checks of one daemon (or of one `--no-daemon` hook call).
#[derive(Default)]
pub(crate) struct PendingChecks {
    /// Before-edit texts waiting for their after-edit call, oldest first.
    recorded: Mutex<Vec<Recorded>>,
    /// The checks, running or ended, oldest first.
    checks: Mutex<Vec<Check>>,
    next_id: AtomicU64,
}

/// An edit's texts waiting for its after-edit call, keyed by the agent's
/// edit (its session and tool call) and the files.
struct Recorded {
    session: String,
    texts: EditTexts,
    at: Instant,
}

/// One check of an agent's edit, running or done.
struct Check {
    id: u64,
    /// Whose edit it is (`hooks::agent_of`).
    agent: String,
    /// The edited files as the check read them (`None`: absent).
    files: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// The files' texts before the edit, which the check compares with
    /// (`None`: the edit created the file); a file with none is left out.
    befores: Vec<(PathBuf, Option<String>)>,
    /// The check's task, stopped when a later check takes it over.
    task: Option<tokio::task::AbortHandle>,
    /// The check's answer once it ended.
    result: watch::Receiver<Option<Done>>,
    at: Instant,
}

/// A check's answer: the context for the model, and whether it names
/// errors the edit brought.
#[derive(Debug, Clone, Default)]
pub(super) struct Done {
    pub(super) text: String,
    pub(super) errors: bool,
    /// The edited files as its heading names them (under their project).
    pub(super) named: String,
}

/// Where a check's answer goes when it ends.
pub(super) type Outcome = watch::Sender<Option<Done>>;

impl PendingChecks {
    /// Keeps the texts an agent's before-edit call in `session` recorded,
    /// for its after-edit call ([`PendingChecks::recorded`]); a later
    /// record of the same edit replaces it.
    pub(super) fn record(&self, session: &str, texts: EditTexts) {
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        recorded.retain(|r| {
            r.at.elapsed() < RECORDED_FOR && !(r.session == session && r.texts.files == texts.files)
        });
        if recorded.len() >= RECORDED_AT_MOST {
            recorded.remove(0);
        }
        recorded.push(Recorded {
            session: session.to_owned(),
            texts,
            at: Instant::now(),
        });
    }

    /// The texts recorded before session `session`'s edit of `files`,
    /// taken out: its after-edit call has come.
    pub(super) fn recorded(&self, session: &str, files: &[PathBuf]) -> Option<EditTexts> {
        let key = sorted(files);
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        recorded.retain(|r| r.at.elapsed() < RECORDED_FOR);
        let at = recorded
            .iter()
            .position(|r| r.session == session && r.texts.files == key)?;
        Some(recorded.remove(at).texts)
    }

    fn checks(&self) -> MutexGuard<'_, Vec<Check>> {
        self.checks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a check of `agent`'s edit of `files`, about to start, which
    /// compares with `befores`; its id, and where its result goes.
    pub(super) fn start(
        &self,
        agent: &str,
        files: &[PathBuf],
        befores: Vec<(PathBuf, Option<String>)>,
    ) -> (u64, Outcome) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = watch::channel(None);
        // Named as the edit's baseline names them (a symlinked working
        // directory, `..`), so that a later edit of the same file meets them.
        let files = files
            .iter()
            .map(|p| {
                let path = normalized(p);
                let now = std::fs::read(&path).ok();
                (path, now)
            })
            .collect();
        let mut checks = self.checks();
        checks.retain(|c| c.at.elapsed() < KEPT_FOR);
        if checks.len() >= KEPT_AT_MOST {
            // The oldest ended one goes first; a running one only when all are.
            let ended = checks.iter().position(|c| c.result.borrow().is_some());
            checks.remove(ended.unwrap_or(0));
        }
        checks.push(Check {
            id,
            agent: agent.to_owned(),
            files,
            befores,
            task: None,
            result: rx,
            at: Instant::now(),
        });
        (id, tx)
    }

    /// Check `id`'s task, stopped if a later check takes it over.
    pub(super) fn running_in(&self, id: u64, task: tokio::task::AbortHandle) {
        let mut checks = self.checks();
        match checks.iter_mut().find(|c| c.id == id) {
            Some(c) => c.task = Some(task),
            // Taken over already, before its task was recorded.
            None => task.abort(),
        }
    }

    /// Takes over `agent`'s checks, running or ended, whose result has not
    /// reached it and whose files are all among `files` (edited again): they
    /// are stopped and taken out, and the texts they compare with returned
    /// (the earliest for each file), for the new edit's check to compare with.
    pub(super) fn take_over(
        &self,
        agent: &str,
        files: &[PathBuf],
    ) -> Vec<(PathBuf, Option<String>)> {
        let files: Vec<PathBuf> = files.iter().map(|p| normalized(p)).collect();
        let mut checks = self.checks();
        let mut befores: Vec<(PathBuf, Option<String>)> = Vec::new();
        let mut i = 0;
        while i < checks.len() {
            let c = &checks[i];
            // Only a check that knows each file's text before its edit: the
            // new one counts from there, or it would lose the earlier edit's
            // errors without a word (the check is left, to be dropped in one
            // line if its file changed).
            let covered = c.agent == agent
                && c.files
                    .iter()
                    .all(|(p, _)| files.contains(p) && c.befores.iter().any(|(b, _)| b == p));
            if !covered {
                i += 1;
                continue;
            }
            let check = checks.remove(i);
            if let Some(task) = &check.task {
                task.abort();
            }
            // Oldest first: a file's first text before is the earliest.
            for (path, text) in check.befores {
                if !befores.iter().any(|(p, _)| *p == path) {
                    befores.push((path, text));
                }
            }
        }
        befores
    }

    /// Check `id`'s result within `budget`, taken out of the kept ones; `None`
    /// when it is still running (it stays, for a later event).
    pub(super) async fn within(&self, id: u64, budget: Duration) -> Option<Done> {
        let mut rx = {
            let checks = self.checks();
            checks.iter().find(|c| c.id == id)?.result.clone()
        };
        let done = tokio::time::timeout(budget, rx.wait_for(Option::is_some)).await;
        let text = match done {
            Ok(Ok(done)) => done.clone().unwrap_or_default(),
            // The check's task ended without a result (it panicked): nothing
            // will come later either.
            Ok(Err(_)) => Done::default(),
            Err(_) => return None,
        };
        // Taken out under the lock: a parallel event of the same agent that
        // took it first (`ended`) has handed it over already.
        let mut checks = self.checks();
        let at = checks.iter().position(|c| c.id == id)?;
        checks.remove(at);
        Some(text)
    }

    /// Hands `agent`'s checks still running to its session (`s/agent` to
    /// `s`): a Claude Code subagent that ended has no next event, and its
    /// parent's brings them.
    pub(super) fn hand_to_session(&self, agent: &str) {
        let Some((session, _)) = agent.split_once('/') else {
            return;
        };
        let mut checks = self.checks();
        for c in checks.iter_mut().filter(|c| c.agent == agent) {
            c.agent = session.to_owned();
        }
    }

    /// Waits, within `budget`, for `agent`'s running checks to end (the end of
    /// its turn: nothing comes after to hand them to).
    pub(super) async fn settle(&self, agent: &str, budget: Duration) {
        let running: Vec<watch::Receiver<Option<Done>>> = self
            .checks()
            .iter()
            .filter(|c| c.agent == agent)
            .map(|c| c.result.clone())
            .collect();
        let all = futures_util::future::join_all(running.into_iter().map(|mut rx| async move {
            let _ = rx.wait_for(Option::is_some).await;
        }));
        let _ = tokio::time::timeout(budget, all).await;
    }

    /// The ended checks of `agent`'s edits, taken out, oldest first: each
    /// headed with its edit, or one line when its files changed since.
    pub(super) fn ended(&self, agent: &str) -> Vec<Done> {
        let mut checks = self.checks();
        checks.retain(|c| c.at.elapsed() < KEPT_FOR);
        let mut out = Vec::new();
        let mut i = 0;
        while i < checks.len() {
            let c = &checks[i];
            let result = c.result.borrow().clone();
            let (Some(result), true) = (result, c.agent == agent) else {
                i += 1;
                continue;
            };
            let check = checks.remove(i);
            out.push(heading(&check, &result));
        }
        out
    }
}

/// A result as the model hears it later.
fn heading(check: &Check, result: &Done) -> Done {
    let named = if result.named.is_empty() {
        check
            .files
            .iter()
            .filter_map(|(p, _)| p.file_name())
            .map(|n| n.to_string_lossy())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        result.named.clone()
    };
    let changed = check
        .files
        .iter()
        .any(|(p, was)| std::fs::read(p).ok() != *was);
    if changed {
        return Done {
            text: format!(
                "sightline: the late check of your earlier edit of {} was dropped: the file changed since (ask lsp_diagnostics for it)\n",
                named
            ),
            errors: false,
            named: String::new(),
        };
    }
    if result.text.trim().is_empty() {
        return Done {
            text: format!(
                "sightline: the check of your earlier edit of {} finished: the edit brought no error\n",
                named
            ),
            errors: false,
            named: String::new(),
        };
    }
    Done {
        text: format!(
            "sightline: the check of your earlier edit of {} finished late:\n{}",
            named, result.text
        ),
        errors: result.errors,
        named: String::new(),
    }
}
