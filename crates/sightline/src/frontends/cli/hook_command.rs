//! `sightline hook`: an agent's tool hook. The payload is read here and the
//! question asked of the shared daemon (the hidden tool `sightline_hook`),
//! which keeps the before-edit baseline until the after-edit call; within
//! the budget, or one line says why not. It always exits 0 and writes only
//! the agent's JSON (or nothing) to stdout.

use std::io::Read;
use std::time::Duration;

use serde_json::Value;

use crate::frontends::cli::terminal::print_out;
use crate::frontends::cli::{Cli, EXIT_OK, absolute};
use crate::frontends::hooks::{self, Agent, Call, Request};
use crate::frontends::tools::HOOK_TOOL;

/// Answers one hook within `budget_ms` (unsaid: the end of a turn's, or
/// every other event's); the exit status (always 0: a hook never fails the
/// agent's tool call).
pub(super) async fn run(cli: &Cli, agent: Option<&str>, budget_ms: Option<u64>) -> i32 {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        return EXIT_OK;
    }
    let Ok(payload) = serde_json::from_str::<Value>(&input) else {
        tracing::warn!("sightline hook: the payload on stdin is not JSON");
        return EXIT_OK;
    };
    let hook = hooks::read(&payload, agent.and_then(Agent::named));
    let Some(request) = hook.request.clone() else {
        return EXIT_OK;
    };
    // The end of a turn waits longer for late checks: nothing comes after
    // it to bring them.
    let budget_ms = budget_ms.unwrap_or(if hooks::end_of_turn(&hook.event) {
        hooks::END_OF_TURN_BUDGET_MS
    } else {
        hooks::DEFAULT_BUDGET_MS
    });
    let budget = Duration::from_millis(budget_ms);
    let call = Call {
        request: request.clone(),
        asker: hook.asker.clone(),
        budget_ms: Some(budget_ms),
    };
    let context = match tokio::time::timeout(budget, ask(cli, &call)).await {
        Ok(Some(text)) => text,
        Ok(None) => String::new(),
        // Only the answers the model waits for say so; a warm start that
        // did not finish changes nothing it sees. The daemon keeps the
        // check it was given (`hooks::late`).
        Err(_) if matches!(request, Request::AfterEdit { .. }) => format!(
            "sightline: the check of this edit did not finish within {:.1} s (the project's language servers are still starting or busy); its result comes with your next tool call if the daemon finishes it, else ask lsp_diagnostics for the file\n",
            budget.as_secs_f64()
        ),
        Err(_) => String::new(),
    };
    match hooks::output(&hook, &context) {
        Some(json) => print_out(&json, EXIT_OK),
        None => EXIT_OK,
    }
}

/// Asks the daemon (or, with `--no-daemon`, an engine in this process,
/// which has no record from the before-edit call) for the hook's context.
async fn ask(cli: &Cli, call: &Call) -> Option<String> {
    let request = &call.request;
    // Only a running daemon can hold a late check: any other event neither
    // starts one nor asks in process.
    let collects = matches!(request, Request::Collect { .. });
    let mut args = serde_json::to_value(call).ok()?;
    // The place whose project configuration answers (`Engine::for_path`).
    let place = match request {
        Request::BeforeEdit { edits, .. } => edits.first().and_then(|e| e.files().first().cloned()),
        Request::AfterEdit { files, .. } => files.first().cloned(),
        Request::BeforeSearch { cwd, .. } | Request::SessionStart { cwd } => Some(cwd.clone()),
        Request::Collect { .. } => None,
    };
    if let Some(p) = place {
        args["path"] = Value::String(absolute(&p).display().to_string());
    }
    // What the answer says first, when it is not the daemon's.
    let mut fallback_note = None;
    if cli.uses_daemon() {
        let hello = crate::frontends::daemon::Hello::of_client(
            "hook",
            cli.root.as_deref().map(absolute),
            cli.sandbox.clone(),
            false,
        );
        let answer = crate::frontends::daemon::call::call_tool(
            &hello,
            !collects,
            HOOK_TOOL,
            args.clone(),
            false,
            &crate::progress::Silent,
        )
        .await;
        match answer {
            Ok(Some(a)) if !a.is_error => return Some(a.text),
            Ok(_) => return None,
            // A daemon with other settings would answer with its own:
            // answer in process instead (without a before-edit baseline).
            Err(crate::frontends::daemon::DaemonError::OtherSettings(differ)) => {
                fallback_note = Some(crate::frontends::daemon::other_settings_note(&differ));
            }
            Err(e) => {
                tracing::warn!("sightline hook: {e}");
                return None;
            }
        }
    }
    // Servers started in this process stop with it: nothing to warm, and
    // no check of an earlier edit to hand over.
    if matches!(request, Request::SessionStart { .. }) || collects {
        return None;
    }
    // In process, nothing is kept for a later event.
    args["asker"] = Value::String(String::new());
    let config = crate::config::Config::load(None).ok()?;
    let engine = std::sync::Arc::new(crate::engine::Engine::new(crate::engine::Options {
        config,
        project_configs: true,
        ..crate::engine::Options::default()
    }));
    let session = crate::frontends::tools::Session::new(
        engine.clone(),
        crate::frontends::tools::Toolset::with_edit_tools(false),
    );
    let answer = session.answer(HOOK_TOOL, HOOK_TOOL, args, false).await;
    engine.shutdown().await;
    // Nothing to say stays nothing: the note comes only with a context.
    let text = answer
        .ok()
        .map(|a| a.text)
        .filter(|t| !t.trim().is_empty())?;
    Some(fallback_note.unwrap_or_default() + &text)
}
