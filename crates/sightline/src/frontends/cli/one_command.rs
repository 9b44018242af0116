//! A one-call command (a tool's, `servers`, `format`, `batch`, ...): a
//! question asked of the shared daemon when the daemon is on, otherwise
//! answered in process by an engine of the command's project configuration,
//! which is shut down after.

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::{Engine, Options};
use crate::frontends::cli::questions::{self, command_name, failed};
use crate::frontends::cli::terminal::{Spinner, print_out};
use crate::frontends::cli::{
    Cli, Command, EXIT_FAILED, EXIT_OK, OtherCommand, ToolCommand, absolute, formatting,
    load_config, servers,
};
use crate::frontends::signals::interrupted;
use crate::frontends::tools::{Served, Session, find};

/// Whether a tool's command asks the shared daemon (when it is on): every
/// tool's does, the edits too, so that they meet the daemon's warm servers
/// (a dry run stays a dry run; `--no-daemon` answers in process).
pub(super) fn through_daemon(tool: &ToolCommand) -> bool {
    find(tool.tool()).is_some_and(|t| t.served != Served::Unlisted)
}

/// Answers the command through the daemon, or in process; the exit status.
pub(super) async fn run(cli: &Cli, workdir: Option<PathBuf>) -> i32 {
    let engine = |config| {
        Arc::new(Engine::new(Options {
            root: cli.root.clone(),
            progress: Arc::new(Spinner::default()),
            config,
            sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
            project_configs: true,
            ..Options::default()
        }))
    };
    let command = match &cli.command {
        Command::Tool(tool) => return tool_command(cli, tool, workdir, engine).await,
        Command::Other(other) => other,
    };
    let config = match load_config(&cli.command, workdir.as_deref()) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let here = workdir.clone().unwrap_or_default();
    let engine = engine(config);
    // The engine of the command's own project configuration; the first one
    // still shuts every server down at the end.
    let answering = match command.path(&here).map(|p| engine.for_path(&p)) {
        None => engine.clone(),
        Some(Ok(e)) => e,
        Some(Err(e)) => return questions::print_tool_answer(Err(e), cli.json),
    };
    let status = in_process(cli, command, &engine, &answering, &here).await;
    engine.shutdown().await;
    status
}

/// A tool's command: asked of the daemon, or answered in process by the
/// tool's `run` in a session of its own; the exit status.
async fn tool_command(
    cli: &Cli,
    tool: &ToolCommand,
    workdir: Option<PathBuf>,
    engine: impl FnOnce(crate::config::Config) -> Arc<Engine>,
) -> i32 {
    let (name, args) = match tool.call() {
        Ok(call) => call,
        Err(e) => return questions::print_tool_answer(Err(e), cli.json),
    };
    // The command's project configuration is read here on either path: a
    // file that does not parse is this command's error line, as in
    // process, not a daemon's silent fallback to the user's file.
    let config = match load_config(&cli.command, workdir.as_deref()) {
        Ok(c) => c,
        Err(status) => return status,
    };
    if cli.uses_daemon() && through_daemon(tool) {
        // As in process, the root is `--root` alone: without it each file
        // is served under its own project's root.
        let root = cli.root.as_deref().map(absolute);
        let mut hello = crate::frontends::daemon::Hello::of_client(
            "cli",
            root.clone(),
            cli.sandbox.clone(),
            true,
        );
        hello.one_call = true;
        // A patch's relative paths start at the workspace: `--root`, which
        // the daemon's session has, or else this directory, which it has not.
        let sent = match root {
            Some(_) => args.clone(),
            None => patch_from_here(args.clone()),
        };
        // Ctrl-C or SIGTERM ends the call as in process (status 2); the
        // connection closing ends the daemon's side of it.
        let asked = tokio::select! {
            s = ask_daemon(&hello, name, sent, cli.json) => s,
            _ = interrupted() => Some(EXIT_FAILED),
        };
        if let Some(status) = asked {
            return status;
        }
        tracing::info!("the daemon has other settings; answering in process");
    }
    let engine = engine(config);
    let session = Session::of_command(engine.clone());
    let status = tokio::select! {
        r = session.answer(tool.name(), name, args, cli.json) => questions::print_tool_answer(r, cli.json),
        _ = interrupted() => EXIT_FAILED,
    };
    engine.shutdown().await;
    status
}

/// Answers a command that mirrors no tool with `answering` (the engine of
/// its project), or `batch` with `engine` (each line picks its own); the
/// exit status.
async fn in_process(
    cli: &Cli,
    command: &OtherCommand,
    engine: &Arc<Engine>,
    answering: &Arc<Engine>,
    here: &std::path::Path,
) -> i32 {
    let json = cli.json;
    if let OtherCommand::Batch = command {
        return tokio::select! {
            s = questions::batch(engine, json) => s,
            _ = interrupted() => EXIT_FAILED,
        };
    }
    let work = async {
        Ok(match command {
            OtherCommand::Format { .. } | OtherCommand::Formatters { .. } => {
                formatting::run(answering, command, here, json).await
            }
            _ => servers::run(answering, command, here, json).await,
        })
    };
    match crate::error::caught(command_name(&cli.command), work).await {
        Ok((text, status)) => print_out(&text, status),
        Err(e) => {
            let r = failed(&e, json);
            print_out(&r.text, r.status)
        }
    }
}

/// A call's arguments with its patch's relative paths made absolute from
/// this process's directory (arguments without a patch as they are).
fn patch_from_here(mut args: serde_json::Value) -> serde_json::Value {
    let here = std::env::current_dir().unwrap_or_default();
    if let Some(patch) = args.get_mut("patch")
        && let Some(text) = patch.as_str()
    {
        *patch = crate::edit::patch::with_absolute_paths(text, &here).into();
    }
    args
}

/// Asks one question of the daemon and prints the answer with the same
/// text (or `--json`), and exit status as in process; `None` (nothing
/// printed) when the running daemon has other settings than this process.
async fn ask_daemon(
    hello: &crate::frontends::daemon::Hello,
    tool: &str,
    args: serde_json::Value,
    json: bool,
) -> Option<i32> {
    let spinner = crate::frontends::cli::Spinner::default();
    let answer =
        crate::frontends::daemon::call::call_tool(hello, true, tool, args, json, &spinner).await;
    Some(match answer {
        Ok(Some(a)) => {
            let r = questions::rendered_from_daemon(a, json);
            print_out(&r.text, r.status)
        }
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
        // An edit whose daemon died during it: what became of its files
        // (the daemon's journal, finished or undone now).
        Err(e) if crate::frontends::tools::writes(tool) => {
            let recovered = crate::edit::journal::recover();
            let said = crate::frontends::daemon::bridge::cut_off_edit(&recovered);
            print_out(&format!("error: {e}{said}\n"), EXIT_FAILED)
        }
        Err(e) => print_out(&format!("error: {e}\n"), EXIT_FAILED),
    })
}
