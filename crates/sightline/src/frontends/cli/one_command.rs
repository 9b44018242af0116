//! A one-call command (a question, an edit tool, `servers`, ...): asked of
//! the shared daemon when the command mirrors a tool and the daemon is on,
//! otherwise answered in process by an engine of the command's project
//! configuration, which is shut down after.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::{Engine, Options};
use crate::frontends::cli::questions::{self, Rendered, as_tool_call, command_name, failed};
use crate::frontends::cli::terminal::{Spinner, print_out};
use crate::frontends::cli::{
    Cli, Command, EXIT_FAILED, EXIT_FINDINGS, EXIT_OK, absolute, edits, formatting, load_config,
    servers,
};
use crate::frontends::signals::interrupted;

/// Answers the command through the daemon, or in process; the exit status.
pub(super) async fn run(cli: &Cli, workdir: Option<PathBuf>) -> i32 {
    if cli.uses_daemon()
        && let Some(call) = as_tool_call(&cli.command)
    {
        match call {
            Ok((tool, args)) => {
                // As in process, the root is `--root` alone: without it each
                // file is served under its own project's root.
                let root = cli.root.as_deref().map(absolute);
                let hello = crate::frontends::daemon::Hello::of_client(
                    "cli",
                    root,
                    cli.sandbox.clone(),
                    false,
                );
                // Ctrl-C or SIGTERM ends the call as in process (status 2);
                // the connection closing ends the daemon's side of it.
                let asked = tokio::select! {
                    s = through_daemon(&hello, tool, args, cli.json) => s,
                    _ = interrupted() => Some(EXIT_FAILED),
                };
                if let Some(status) = asked {
                    return status;
                }
                tracing::info!("the daemon has other settings; answering in process");
            }
            Err(e) => return questions::print_tool_answer(Err(e), cli.json),
        }
    }
    let config = match load_config(&cli.command, workdir.as_deref()) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let options = Options {
        root: cli.root.clone(),
        progress: Arc::new(Spinner::default()),
        config,
        sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
        project_configs: true,
        ..Options::default()
    };
    let here = workdir.clone().unwrap_or_default();
    let engine = Arc::new(Engine::new(options));
    // The engine of the command's own project configuration; the first one
    // still shuts every server down at the end.
    let answering = match cli.command.path(&here).map(|p| engine.for_path(&p)) {
        None => engine.clone(),
        Some(Ok(e)) => e,
        Some(Err(e)) => return questions::print_tool_answer(Err(e), cli.json),
    };
    let status = in_process(cli, &engine, &answering, &here).await;
    engine.shutdown().await;
    status
}

/// Answers the command with `answering` (the engine of its project), or
/// `batch` with `engine` (each line picks its own); the exit status.
async fn in_process(
    cli: &Cli,
    engine: &Arc<Engine>,
    answering: &Arc<Engine>,
    here: &std::path::Path,
) -> i32 {
    if questions::through_face(&cli.command)
        && let Some(call) = as_tool_call(&cli.command)
    {
        let (tool, args) = match call {
            Ok(c) => c,
            Err(e) => return questions::print_tool_answer(Err(e), cli.json),
        };
        let face = crate::frontends::mcp::McpServer::new(answering.clone(), false);
        return tokio::select! {
            r = face.call(tool, args, cli.json) => questions::print_tool_answer(r, cli.json),
            _ = interrupted() => EXIT_FAILED,
        };
    }
    let (command, json) = (&cli.command, cli.json);
    let group = match command {
        Command::Servers | Command::Install { .. } | Command::Config | Command::Doctor => {
            Some(Group::Servers)
        }
        Command::Format { .. } | Command::Formatters { .. } => Some(Group::Formatting),
        Command::Read { .. }
        | Command::Write { .. }
        | Command::Edit { .. }
        | Command::ReplaceSymbolBody { .. }
        | Command::InsertBeforeSymbol { .. }
        | Command::InsertAfterSymbol { .. }
        | Command::SafeDelete { .. }
        | Command::Rename { .. }
        | Command::CodeActions { .. }
        | Command::ApplyCodeAction { .. }
        | Command::OrganizeImports { .. }
        | Command::ApplyPatch { .. } => Some(Group::Edits),
        _ => None,
    };
    if let Some(group) = group {
        let work = async {
            Ok(match group {
                Group::Servers => servers::run(answering, command, here, json).await,
                Group::Formatting => formatting::run(answering, command, here, json).await,
                Group::Edits => edits::run(answering, command, here).await,
            })
        };
        return match crate::error::caught(command_name(command), work).await {
            Ok((text, status)) => print_out(&text, status),
            Err(e) => {
                let r = failed(&e, json);
                print_out(&r.text, r.status)
            }
        };
    }
    if let Command::Batch = command {
        return tokio::select! {
            s = questions::batch(engine, json) => s,
            _ = interrupted() => EXIT_FAILED,
        };
    }
    let r = tokio::select! {
        r = questions::answer(answering, command, json) => r,
        _ = interrupted() => Rendered { text: String::new(), status: EXIT_FAILED },
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(r.text.as_bytes()).and_then(|()| out.flush());
    r.status
}

/// The command groups beyond the questions, each a module of its own.
enum Group {
    Servers,
    Formatting,
    Edits,
}

/// Asks one question of the daemon and prints the answer with the same
/// text (or `--json`), and exit status as in process; `None` (nothing
/// printed) when the running daemon has other settings than this process.
async fn through_daemon(
    hello: &crate::frontends::daemon::Hello,
    tool: &str,
    args: serde_json::Value,
    json: bool,
) -> Option<i32> {
    let spinner = crate::frontends::cli::Spinner::default();
    let answer =
        crate::frontends::daemon::call::call_tool(hello, true, tool, args, json, &spinner).await;
    let status = |a: &crate::frontends::daemon::call::ToolAnswer| {
        if a.is_error {
            EXIT_FAILED
        } else if a.errors {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    };
    Some(match answer {
        Ok(Some(a)) if json => {
            let value = a
                .json
                .clone()
                .unwrap_or_else(|| serde_json::json!({ "text": a.text }));
            print_out(&format!("{value}\n"), status(&a))
        }
        Ok(Some(a)) if a.is_error => print_out(&format!("{}\n", a.text.trim_end()), EXIT_FAILED),
        Ok(Some(a)) => print_out(&a.text, status(&a)),
        Ok(None) => print_out("error: no daemon answered\n", EXIT_FAILED),
        // A daemon with other settings: this call answers in process.
        Err(crate::frontends::daemon::DaemonError::OtherSettings(differ)) => {
            // Said first: this call's answer is not the daemon's.
            let note = crate::frontends::daemon::other_settings_note(&differ);
            if json {
                let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
            } else {
                print_out(&note, EXIT_OK);
            }
            return None;
        }
        Err(e) if json => print_out(
            &format!(
                "{}\n",
                serde_json::json!({ "error": { "kind": "unavailable", "message": e.to_string() } })
            ),
            EXIT_FAILED,
        ),
        Err(e) => print_out(&format!("error: {e}\n"), EXIT_FAILED),
    })
}
