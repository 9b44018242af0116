//! A tool's answer on the command line, as text or JSON with its exit
//! status; and `batch`, one question per stdin line.

use std::io::{BufRead, Write};

use crate::engine::Engine;
use crate::error::ToolError;
use crate::frontends::cli::terminal::print_out;
use crate::frontends::cli::{Command, EXIT_FAILED, EXIT_FINDINGS, EXIT_OK, OtherCommand};
use crate::frontends::tools::{Answered, Session, cli_command};
use crate::render;

/// One answer, rendered, with its exit status.
pub struct Rendered {
    /// What goes to stdout.
    pub text: String,
    /// The exit status.
    pub status: i32,
}

pub(super) fn failed(e: &ToolError, json: bool) -> Rendered {
    Rendered {
        text: if json {
            format!("{}\n", render::error_json(e))
        } else {
            render::error_text(e)
        },
        status: EXIT_FAILED,
    }
}

/// The command's name, as typed (for `internal error in <command>`).
pub(super) fn command_name(command: &Command) -> &'static str {
    let command = match command {
        Command::Tool(tool) => return tool.name(),
        Command::Other(other) => other,
    };
    match command {
        OtherCommand::Batch => "batch",
        OtherCommand::Servers => "servers",
        OtherCommand::Capabilities { .. } => "capabilities",
        OtherCommand::Doctor => "doctor",
        OtherCommand::Install { .. } => "install",
        OtherCommand::Config => "config",
        OtherCommand::Schema => "schema",
        OtherCommand::Trust { .. } => "trust",
        OtherCommand::Format { .. } => "format",
        OtherCommand::Formatters { .. } => "formatters",
        OtherCommand::Mcp { .. } => "mcp",
        OtherCommand::Daemon { .. } => "daemon",
        OtherCommand::Hook { .. } => "hook",
        OtherCommand::Setup { .. } => "setup",
    }
}

/// A tool's answer as the command line shows it, with its exit status: 1
/// when it lists an error, 2 for its error.
pub(super) fn rendered(answer: Result<Answered, ToolError>, json: bool) -> Rendered {
    match answer {
        Ok(a) => Rendered {
            status: if a.errors { EXIT_FINDINGS } else { EXIT_OK },
            text: match a.json {
                Some(value) if json => format!("{value}\n"),
                _ if json => format!("{}\n", serde_json::json!({ "text": a.text })),
                _ => a.text,
            },
        },
        Err(e) => failed(&e, json),
    }
}

/// The daemon's answer to a command's call, rendered as [`rendered`]
/// renders one answered in process: an answer through it, an error as the
/// daemon rendered it (`render::error_text`, `render::error_json`, the
/// same functions the process uses).
pub(super) fn rendered_from_daemon(
    a: crate::frontends::daemon::call::ToolAnswer,
    json: bool,
) -> Rendered {
    if !a.is_error {
        let answered = Answered {
            text: a.text,
            json: a.json,
            errors: a.errors,
        };
        return rendered(Ok(answered), json);
    }
    Rendered {
        text: match a.json {
            Some(value) if json => format!("{value}\n"),
            _ => format!("{}\n", a.text.trim_end()),
        },
        status: EXIT_FAILED,
    }
}

/// Prints a tool's answer: its text (with `--json`, its JSON) with status
/// 0, or 1 when it lists an error; or its error with 2.
pub(super) fn print_tool_answer(answer: Result<Answered, ToolError>, json: bool) -> i32 {
    let r = rendered(answer, json);
    print_out(&r.text, r.status)
}

/// The verbs `batch` answers with a tool.
const BATCH_VERBS: [&str; 3] = ["diagnostics", "definition", "references"];

/// One `batch` line's answer: `VERB REST`, REST being the command's one
/// argument (a file, or a position) whole, spaces included.
async fn batch_answer(session: &Session, verb: &str, rest: &str, json: bool) -> Rendered {
    let Some(entry) = cli_command(verb).filter(|_| BATCH_VERBS.contains(&verb)) else {
        return failed(
            &ToolError::bad_input(format!(
                "unknown command `{verb}`; use diagnostics, definition, references or servers"
            )),
            json,
        );
    };
    let args = entry
        .command()
        .try_get_matches_from([verb, rest])
        .map_err(|e| ToolError::bad_input(e.kind().to_string()))
        .and_then(|m| entry.args(&m));
    match args {
        Ok(args) => rendered(session.answer(verb, entry.tool, args, json).await, json),
        Err(e) => failed(&e, json),
    }
}

/// Reads commands from stdin until EOF, answering each in turn.
pub async fn batch(engine: &std::sync::Arc<Engine>, json: bool) -> i32 {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let session = Session::of_command(engine.clone());
    let mut worst = EXIT_OK;
    while let Some(line) = rx.recv().await {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rendered = if verb == "servers" {
            // In a long-lived session, `servers` shows the running ones.
            let here = std::env::current_dir().unwrap_or_default();
            let servers = OtherCommand::Servers;
            let (text, status) =
                crate::frontends::cli::servers::run(engine, &servers, &here, json).await;
            Rendered { text, status }
        } else {
            // Each question under its own file's project configuration.
            batch_answer(&session, verb, rest.trim(), json).await
        };
        worst = worst.max(rendered.status);
        let mut out = std::io::stdout().lock();
        let sep = if json { "" } else { "\n" };
        if write!(out, "{}{sep}", rendered.text)
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    worst
}
