//! `"agent": {"new_errors": "deny"}`: before an agent's own edit tool runs,
//! the edit is previewed in memory (as the edit tools' `dry_run` does) and,
//! when it would add errors, denied in the agent's own words with the new
//! errors as the reason, so that the model fixes the edit before it lands.
//! A preview that does not finish within the hook's budget lets the edit
//! through; its errors are told after it, as with `tell`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::edit::agent_edits::EditTexts;
use crate::engine::Engine;
use crate::frontends::hooks::{Agent, Hook};

/// The first line of a denial: the hook's answer is a denial when it holds
/// this line (the late checks of earlier edits may come before it).
const HEADING: &str = "sightline denied this edit: it would add these errors (agent.new_errors is \"deny\"); fix the edit and make it again:";

/// The denial of the edit whose texts are `texts`, when its preview
/// finishes within `budget` and adds errors.
pub(super) async fn denial(engine: &Engine, texts: &EditTexts, budget: Duration) -> Option<String> {
    let previewed = tokio::time::timeout(budget, engine.editor().preview_agent_edit(texts)).await;
    match previewed {
        Ok(Ok(answer)) if answer.brought_errors() => Some(format!("{HEADING}\n{}", answer.text())),
        Ok(Ok(_)) => None,
        Ok(Err(e)) => {
            tracing::info!("hook: the edit's preview failed, so it is let through: {e}");
            None
        }
        Err(_) => {
            tracing::info!(
                "hook: the edit's preview did not finish within {:.1} s, so it is let through",
                budget.as_secs_f64()
            );
            None
        }
    }
}

/// Whether the hook's answer denies the edit.
pub(super) fn is_denial(context: &str) -> bool {
    context.lines().any(|l| l == HEADING)
}

/// The denial in the agent's words: Claude Code's and Codex's
/// `permissionDecision: "deny"` (Codex 0.169 takes Claude Code's
/// `hookSpecificOutput` for `PreToolUse`), Gemini CLI's `decision: "deny"`
/// (`BeforeTool`). The reason reaches the model in each.
pub(super) fn output(hook: &Hook, context: &str) -> Value {
    match hook.agent {
        Agent::ClaudeCode | Agent::Codex => json!({ "hookSpecificOutput": {
            "hookEventName": hook.event,
            "permissionDecision": "deny",
            "permissionDecisionReason": context,
        } }),
        Agent::Gemini => json!({ "decision": "deny", "reason": context }),
    }
}
