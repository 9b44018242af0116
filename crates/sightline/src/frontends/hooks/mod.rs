//! `sightline hook`: what an agent's tool hook asks, in Claude Code's,
//! Codex's or Gemini CLI's shape, and the answer in that agent's words.
//!
//! - Before the agent's own edit tool runs (Claude Code `Edit`, `MultiEdit`,
//!   `Write`; Codex `apply_patch`; Gemini CLI `replace`, `write_file`), the
//!   text of the files it will change is recorded; no server is asked, so
//!   the tool is never held up (`before_agent_edit`).
//! - After it ran, the errors the edit introduced, in those files and in the
//!   files using what changed, go back to the model as added context.
//!   Nothing is said when it introduced none. A check that outlasts the
//!   hook's budget goes on in the daemon, and its result comes with the
//!   same agent's next event (`pending`), or keeps it going at the end of its
//!   turn.
//! - Before a search (`Grep`, `grep`/`rg` in a shell) for a bare identifier
//!   the project's server resolves, its exact uses are added as context; the
//!   search still runs.
//! - At session start, the project's servers are started in the daemon.
//!
//! The CLI (`frontends/cli/hook_command.rs`) reads the payload and asks the
//! daemon (`Request`, as the hidden tool `sightline_hook`); the daemon
//! answers with `answer`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::NewErrors;
use crate::edit::agent_edits::{AgentEdit, texts_before};

use crate::engine::Engine;
pub(crate) use pending::PendingChecks;

pub use payload::read;

/// The agents whose hooks `sightline hook` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Claude Code (`PreToolUse`, `PostToolUse`, `SessionStart`,
    /// `SubagentStart`).
    ClaudeCode,
    /// Codex (Claude Code's hook shape).
    Codex,
    /// Gemini CLI (`BeforeTool`, `AfterTool`, `SessionStart`).
    Gemini,
}

impl Agent {
    /// The agent a `--agent` value names.
    pub fn named(name: &str) -> Option<Agent> {
        match name {
            "claude-code" | "claude" => Some(Agent::ClaudeCode),
            "codex" => Some(Agent::Codex),
            "gemini" | "gemini-cli" => Some(Agent::Gemini),
            _ => None,
        }
    }

    /// The agent whose hook sent `payload`: Gemini CLI's events are
    /// `BeforeTool`/`AfterTool` and carry a `timestamp`; Codex's tools are
    /// `apply_patch` and `shell`/`exec_command`, and its events carry a
    /// `turn_id` (its `Stop` names no tool); the rest is Claude Code's.
    pub fn detect(payload: &Value) -> Agent {
        let event = payload["hook_event_name"].as_str().unwrap_or("");
        let tool = payload["tool_name"].as_str().unwrap_or("");
        if matches!(event, "BeforeTool" | "AfterTool") || payload.get("timestamp").is_some() {
            Agent::Gemini
        } else if matches!(
            tool,
            "apply_patch" | "shell" | "exec_command" | "local_shell"
        ) || payload.get("turn_id").is_some()
        {
            Agent::Codex
        } else {
            Agent::ClaudeCode
        }
    }
}

/// What a hook asks of the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Request {
    /// The agent's tool is about to make these edits.
    BeforeEdit {
        /// The agent's session.
        session: String,
        /// The edits.
        edits: Vec<AgentEdit>,
    },
    /// The agent's tool changed these files.
    AfterEdit {
        /// The agent's session.
        session: String,
        /// The files.
        files: Vec<PathBuf>,
        /// Each file's text before the edit, where the agent said it
        /// (Claude Code's `originalFile`) or the replacement can be undone.
        #[serde(default)]
        originals: Vec<(PathBuf, String)>,
    },
    /// The agent is about to search for `name`.
    BeforeSearch {
        /// The bare identifier searched for.
        name: String,
        /// The agent's working directory.
        cwd: PathBuf,
    },
    /// A session starts in `cwd`.
    SessionStart {
        /// The agent's working directory.
        cwd: PathBuf,
    },
    /// Any other event of the agent's: only the late checks of its edits
    /// are handed over (`pending`); at the end of its turn (`settle`), after
    /// waiting for them within the budget.
    Collect {
        /// The end of the agent's turn.
        settle: bool,
    },
}

/// A hook's question as the daemon gets it: the request, whose it is, and
/// the hook's budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// What is asked.
    #[serde(flatten)]
    pub request: Request,
    /// The agent the answer goes to (its session, and the subagent within
    /// it), whose late checks come with it; "" hands over none.
    #[serde(default)]
    pub asker: String,
    /// The hook's budget in milliseconds.
    #[serde(default)]
    pub budget_ms: Option<u64>,
}

/// A hook's payload, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// The agent that sent it.
    pub agent: Agent,
    /// Its event name, echoed in the answer (`PostToolUse`, `AfterTool`).
    pub event: String,
    /// What to ask the daemon; `None` for an event sightline has nothing
    /// to add to.
    pub request: Option<Request>,
    /// The agent the answer goes to (`agent_of`), or "" where the event
    /// takes no added context (a Codex or Gemini CLI before-tool event).
    pub asker: String,
}

/// The daemon's answer to a hook: the context for the model, or nothing;
/// the late checks of the asker's earlier edits first.
pub async fn answer(
    engine: &std::sync::Arc<Engine>,
    pending: &std::sync::Arc<PendingChecks>,
    call: Call,
) -> String {
    let budget = Duration::from_millis(call.budget_ms.unwrap_or(DEFAULT_BUDGET_MS));
    let settle = matches!(call.request, Request::Collect { settle: true });
    if settle {
        pending.settle(&call.asker, within(budget)).await;
    }
    let now = match call.request {
        Request::BeforeEdit { session, edits } => match engine.editor().before_agent_edit(&edits) {
            Ok(Some(texts)) => {
                let denial = if engine.config().agent_new_errors == NewErrors::Deny {
                    deny_policy::denial(engine, &texts, within(budget)).await
                } else {
                    None
                };
                pending.record(&session, texts);
                denial.unwrap_or_default()
            }
            Ok(None) => String::new(),
            Err(e) => {
                tracing::info!("hook: nothing recorded before the edit: {e}");
                String::new()
            }
        },
        Request::AfterEdit {
            session,
            files,
            originals,
        } => {
            let edit = EditCall {
                session,
                files,
                originals,
            };
            after_edit(engine, pending, &call.asker, edit, budget).await
        }
        Request::BeforeSearch { name, cwd } => {
            // Within the budget: the late results below are taken only by
            // an answer that reaches the agent.
            let uses = async {
                // The hook tool takes its own turns (`Tool::OWN_TURN`): a
                // search takes the shared one here, as any call does.
                let _turn = crate::sync::file_view::shared_turn().await;
                search::uses(engine, &name, &cwd).await.unwrap_or_default()
            };
            tokio::time::timeout(within(budget), uses)
                .await
                .unwrap_or_default()
        }
        Request::SessionStart { cwd } => session_start::warm(engine, &cwd),
        Request::Collect { .. } => String::new(),
    };
    // Taken last, so that an answer that did not reach the agent in time
    // took none. A subagent's check still running at its end goes to its
    // session, whose next event brings it.
    let earlier: Vec<pending::Done> = if call.asker.is_empty() {
        Vec::new()
    } else {
        pending.ended(&call.asker)
    };
    if settle {
        pending.hand_to_session(&call.asker);
    }
    let earlier: String = earlier
        .into_iter()
        // Only errors are worth holding up the end of a turn for.
        .filter(|d| !settle || d.errors)
        .map(|d| d.text)
        .collect();
    earlier + &now
}

/// How long a hook may take when its call does not say (`sightline hook
/// --budget-ms`).
pub const DEFAULT_BUDGET_MS: u64 = 8000;

/// How long the daemon waits for an answer within a hook's `budget`: the
/// rest is left for the hook's own start and its way to the daemon.
fn within(budget: Duration) -> Duration {
    budget.saturating_sub((budget / 4).min(Duration::from_millis(500)))
}

/// An after-edit call's edit: the agent's tool call (`session`), the files
/// it changed, and their texts before it where the agent said them.
struct EditCall {
    session: String,
    files: Vec<PathBuf>,
    originals: Vec<(PathBuf, String)>,
}

/// The check of an agent's edit: its context within the hook's budget, or
/// one line saying it goes on, its result kept for the agent's next event
/// (`pending`).
async fn after_edit(
    engine: &std::sync::Arc<Engine>,
    pending: &std::sync::Arc<PendingChecks>,
    asker: &str,
    edit: EditCall,
    budget: Duration,
) -> String {
    let EditCall {
        session,
        files,
        originals,
    } = edit;
    // An earlier edit of these files whose check has not reached the agent
    // is counted in this one's: its result would be of a text gone now.
    let earlier = if asker.is_empty() {
        Vec::new()
    } else {
        pending.take_over(asker, &files)
    };
    let recorded = pending.recorded(&session, &files);
    let befores = texts_before(recorded.as_ref(), &originals, &earlier);
    let (id, outcome) = pending.start(asker, &files, befores);
    let engine = engine.clone();
    let task = tokio::spawn(async move {
        let answer = engine
            .editor()
            .after_agent_edit(recorded, &files, &originals, &earlier)
            .await;
        let mut text = after_edit::context(&answer, engine.config().untrusted_note().as_deref());
        if answer.brought_errors() && !earlier.is_empty() {
            text.push_str(
                "note: counted from before your earlier edit of these files, whose check had not reached you\n",
            );
        }
        // Without a project, the heading names the files alone.
        let named = answer.root.as_ref().map_or_else(String::new, |root| {
            files
                .iter()
                .map(|p| crate::render::shown(root, p))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let errors = answer.brought_errors();
        let _ = outcome.send(Some(pending::Done {
            text,
            errors,
            named,
        }));
    });
    pending.running_in(id, task.abort_handle());
    let started = std::time::Instant::now();
    let done = pending.within(id, within(budget)).await;
    tracing::debug!(
        "hook: the check of an edit by {asker:?} {} after {:.1} s: {:?}",
        if done.is_some() {
            "answered"
        } else {
            "goes on"
        },
        started.elapsed().as_secs_f64(),
        done.as_ref().map(|d| d.text.as_str())
    );
    match done {
        Some(done) => done.text,
        // In process (`--no-daemon`), nothing is left to bring it later.
        None if asker.is_empty() => format!(
            "sightline: the check of this edit did not finish within {:.1} s (the project's language servers are still starting or busy); ask lsp_diagnostics for the file later\n",
            budget.as_secs_f64()
        ),
        None => unfinished(budget),
    }
}

/// The line an edit's check that outlasts the hook's `budget` answers.
fn unfinished(budget: Duration) -> String {
    format!(
        "sightline: the check of this edit did not finish within {:.1} s (the project's language servers are still starting or busy); it goes on, and its result comes with your next tool call\n",
        budget.as_secs_f64()
    )
}

/// One file under `cwd` per server that handles it, the first met.
pub(super) fn anchors(engine: &Engine, cwd: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(Vec<&'static str>, PathBuf)> = Vec::new();
    for path in crate::sync::walk::files_under(cwd).into_iter().take(5000) {
        let ids: Vec<&'static str> = engine.servers_for(&path).iter().map(|s| s.id).collect();
        if !ids.is_empty() && !found.iter().any(|(i, _)| *i == ids) {
            found.push((ids, path));
        }
    }
    found.into_iter().map(|(_, p)| p).collect()
}

/// The hook's answer in the agent's words: its JSON line, or `None` when
/// there is nothing to add (the agent then goes on as if no hook ran).
pub fn output(hook: &Hook, context: &str) -> Option<String> {
    if context.trim().is_empty() {
        return None;
    }
    if deny_policy::is_denial(context) {
        return Some(format!("{}\n", deny_policy::output(hook, context)));
    }
    if end_of_turn(&hook.event) {
        return Some(format!("{}\n", end_of_turn_output(hook, context)));
    }
    // Claude Code, Codex and Gemini CLI all take added context here.
    Some(format!(
        "{}\n",
        json!({ "hookSpecificOutput": {
            "hookEventName": hook.event,
            "additionalContext": context,
        } })
    ))
}

/// Whether `event` ends the agent's turn (or a Claude Code subagent's):
/// nothing comes after it to bring a late check, so the errors one found
/// keep the agent going.
pub(crate) fn end_of_turn(event: &str) -> bool {
    matches!(event, "Stop" | "SubagentStop" | "AfterAgent")
}

/// How long an end-of-turn hook may wait for its late checks when its call
/// does not say: `setup` gives each agent's hooks 30 s.
pub const END_OF_TURN_BUDGET_MS: u64 = 25_000;

/// The end of a turn's output, in the words that hand `context` to the
/// model once and let it go on:
/// - Claude Code (`Stop`, `SubagentStop`): added context. Its
///   `decision: block` reached the model twice in 2.1.328, as "Stop hook
///   feedback" and as "Stop hook blocking error"; its `Stop` takes
///   `additionalContext` as "non-error feedback delivered to the model; the
///   conversation continues so the model can act on it".
/// - Codex 0.169 (`Stop`): `decision: block` with the text as `reason`,
///   which it records as one prompt and continues the turn with (its stop
///   output takes no `additionalContext`).
/// - Gemini CLI 0.61 (`AfterAgent`): `decision: block` with the `reason`,
///   "sent to the agent as a new prompt".
fn end_of_turn_output(hook: &Hook, context: &str) -> Value {
    match hook.agent {
        Agent::ClaudeCode => json!({ "hookSpecificOutput": {
            "hookEventName": hook.event,
            "additionalContext": context,
        } }),
        Agent::Codex | Agent::Gemini => json!({ "decision": "block", "reason": context }),
    }
}

mod after_edit;
mod deny_policy;
mod payload;
mod pending;
mod search;
mod session_start;
#[cfg(test)]
mod tests;
