//! Answering the questions on the command line: one command, or one per
//! stdin line in `batch`, each rendered as text or JSON with its exit status.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use crate::engine::Engine;
use crate::error::ToolError;
use crate::frontends::cli::terminal::print_out;
use crate::frontends::cli::{
    Command, EXIT_FAILED, EXIT_FINDINGS, EXIT_OK, absolute, parse_position,
};
use crate::frontends::mcp::tool_name::ToolName;
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
    match command {
        Command::Diagnostics { .. } => "diagnostics",
        Command::Definition { .. } => "definition",
        Command::References { .. } => "references",
        Command::Hover { .. } => "hover",
        Command::Symbols { .. } => "symbols",
        Command::WorkspaceSymbols { .. } => "workspace-symbols",
        Command::Implementation { .. } => "implementation",
        Command::Calls { .. } => "calls",
        Command::Types { .. } => "types",
        Command::Restart { .. } => "restart",
        Command::Check { .. } => "check",
        Command::Batch => "batch",
        Command::Servers => "servers",
        Command::Doctor => "doctor",
        Command::Install { .. } => "install",
        Command::Config => "config",
        Command::Schema => "schema",
        Command::Trust { .. } => "trust",
        Command::Format { .. } => "format",
        Command::Formatters { .. } => "formatters",
        Command::Read { .. } => "read",
        Command::Write { .. } => "write",
        Command::Edit { .. } => "edit",
        Command::ReplaceSymbolBody { .. } => "replace-symbol-body",
        Command::InsertBeforeSymbol { .. } => "insert-before-symbol",
        Command::InsertAfterSymbol { .. } => "insert-after-symbol",
        Command::SafeDelete { .. } => "safe-delete",
        Command::ApplyPatch { .. } => "apply-patch",
        Command::Rename { .. } => "rename",
        Command::CodeActions { .. } => "code-actions",
        Command::ApplyCodeAction { .. } => "apply-code-action",
        Command::OrganizeImports { .. } => "organize-imports",
        Command::Mcp { .. } => "mcp",
        Command::Daemon { .. } => "daemon",
        Command::Hook { .. } => "hook",
        Command::Setup { .. } => "setup",
    }
}

/// Answers one command; a panic inside it becomes an `error:` answer with
/// the failure status, never a crash.
pub async fn answer(engine: &Engine, command: &Command, json: bool) -> Rendered {
    let work = async { Ok(answer_inner(engine, command, json).await) };
    match crate::error::caught(command_name(command), work).await {
        Ok(r) => r,
        Err(e) => failed(&e, json),
    }
}

async fn answer_inner(engine: &Engine, command: &Command, json: bool) -> Rendered {
    let fail = |e: ToolError| failed(&e, json);
    match command {
        Command::Diagnostics { file, .. } => match engine.diagnostics(&absolute(file)).await {
            Ok(d) => Rendered {
                text: if json {
                    format!("{}\n", render::diagnostics_json(&d))
                } else {
                    render::diagnostics_text(&d)
                },
                status: if d.has_errors() {
                    EXIT_FINDINGS
                } else {
                    EXIT_OK
                },
            },
            Err(e) => fail(e),
        },
        Command::Definition { position, .. } | Command::References { position, .. } => {
            let (file, line, col) = match parse_position(position) {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            let file = absolute(&file);
            let result = match command {
                Command::References {
                    include_declaration,
                    ..
                } => {
                    engine
                        .references(&file, line, col, *include_declaration)
                        .await
                }
                _ => engine.definition(&file, line, col).await,
            };
            match result {
                Ok(l) => Rendered {
                    text: if json {
                        format!("{}\n", render::locations_json(&l))
                    } else {
                        render::locations_text(&l)
                    },
                    status: EXIT_OK,
                },
                Err(e) => fail(e),
            }
        }
        _ => fail(ToolError::bad_input(
            "only diagnostics, definition and references can be asked in batch",
        )),
    }
}

/// The `file`, `line` and `column` (or `symbol`, and `kind`) arguments of
/// a position: `FILE:LINE:COL`, or with `--symbol` `FILE:LINE` (its name
/// on the line) or `FILE` (its name path in the outline).
pub(super) fn position_args(
    position: &str,
    symbol: Option<&String>,
    kind: Option<&String>,
) -> Result<serde_json::Map<String, serde_json::Value>, ToolError> {
    use serde_json::json;
    let mut args = serde_json::Map::new();
    match symbol {
        Some(name) => {
            let bad = || {
                ToolError::bad_input(format!(
                    "expected FILE:LINE or FILE with --symbol, got `{position}`"
                ))
            };
            let (file, line) = match position.rsplit_once(':') {
                Some((file, line)) if line.trim().chars().all(|c| c.is_ascii_digit()) => {
                    let line: usize = line.trim().parse().map_err(|_| {
                        ToolError::bad_input(format!("line must be a number, got `{line}`"))
                    })?;
                    (file, Some(line))
                }
                _ => (position, None),
            };
            if file.is_empty() {
                return Err(bad());
            }
            args.insert("file".into(), json!(absolute(std::path::Path::new(file))));
            if let Some(line) = line {
                args.insert("line".into(), json!(line));
            }
            args.insert("symbol".into(), json!(name));
            if let Some(kind) = kind {
                args.insert("kind".into(), json!(kind));
            }
        }
        None => {
            let (file, line, column) = parse_position(position)?;
            args.insert("file".into(), json!(absolute(&file)));
            args.insert("line".into(), json!(line));
            args.insert("column".into(), json!(column));
        }
    }
    Ok(args)
}

/// The MCP tool and arguments of a command that mirrors a tool, or `None`
/// for every other command.
pub(super) fn as_tool_call(
    command: &Command,
) -> Option<Result<(&'static str, serde_json::Value), ToolError>> {
    use serde_json::{Value, json};
    let lsp = |operation: &str, position: &str, symbol: Option<&String>, kind: Option<&String>| {
        position_args(position, symbol, kind).map(|mut a| {
            a.insert("operation".into(), json!(operation));
            (ToolName::Lsp.name(), Value::Object(a))
        })
    };
    Some(match command {
        Command::Diagnostics { file, context } => Ok((
            ToolName::Diagnostics.name(),
            json!({ "file": absolute(file), "context": context }),
        )),
        Command::Definition {
            position,
            symbol,
            kind,
            context,
        } => position_args(position, symbol.as_ref(), kind.as_ref()).map(|mut a| {
            a.insert("context".into(), json!(context));
            (ToolName::Definition.name(), Value::Object(a))
        }),
        Command::References {
            position,
            include_declaration,
            symbol,
            kind,
            context,
        } => position_args(position, symbol.as_ref(), kind.as_ref()).map(|mut a| {
            a.insert("include_declaration".into(), json!(include_declaration));
            a.insert("context".into(), json!(context));
            (ToolName::References.name(), Value::Object(a))
        }),
        Command::Hover {
            position,
            symbol,
            kind,
        } => lsp("hover", position, symbol.as_ref(), kind.as_ref()),
        Command::Implementation {
            position,
            symbol,
            kind,
        } => lsp(
            "goToImplementation",
            position,
            symbol.as_ref(),
            kind.as_ref(),
        ),
        Command::Calls {
            direction,
            position,
            symbol,
            kind,
        } => lsp(
            if direction == "in" {
                "incomingCalls"
            } else {
                "outgoingCalls"
            },
            position,
            symbol.as_ref(),
            kind.as_ref(),
        ),
        Command::Types {
            direction,
            position,
            symbol,
            kind,
        } => lsp(
            if direction == "up" {
                "supertypes"
            } else {
                "subtypes"
            },
            position,
            symbol.as_ref(),
            kind.as_ref(),
        ),
        Command::Symbols { file } => Ok((
            ToolName::Lsp.name(),
            json!({ "operation": "documentSymbol", "file": absolute(file) }),
        )),
        Command::WorkspaceSymbols { query, file } => {
            let mut a = json!({ "operation": "workspaceSymbol", "query": query });
            if let Some(f) = file {
                a["file"] = json!(absolute(f));
            }
            Ok((ToolName::Lsp.name(), a))
        }
        Command::Restart { server } => Ok((ToolName::Restart.name(), json!({ "server": server }))),
        Command::Check { dir } => Ok((
            ToolName::Check.name(),
            json!({ "path": dir.as_ref().map(|d| absolute(d)) }),
        )),
        _ => return None,
    })
}

/// Whether a command is answered through the MCP face in process (its
/// text is the tool's): every tool-mirroring command but the three with
/// their own JSON, which take this path only with `--symbol`.
pub(super) fn through_face(command: &Command) -> bool {
    match command {
        Command::Diagnostics { context, .. } => context.is_some(),
        Command::Definition {
            symbol, context, ..
        }
        | Command::References {
            symbol, context, ..
        } => symbol.is_some() || context.is_some(),
        other => as_tool_call(other).is_some(),
    }
}

/// Prints a tool's answer: its text (with `--json`, its JSON) with status
/// 0, or 1 for diagnostics that list an error; or its error with 2.
pub(super) fn print_tool_answer(
    answer: Result<crate::frontends::mcp::Answered, ToolError>,
    json: bool,
) -> i32 {
    match answer {
        Ok(a) => {
            let status = if a.errors { EXIT_FINDINGS } else { EXIT_OK };
            match a.json {
                Some(value) if json => print_out(&format!("{value}\n"), status),
                _ if json => print_out(
                    &format!("{}\n", serde_json::json!({ "text": a.text })),
                    status,
                ),
                _ => print_out(&a.text, status),
            }
        }
        Err(e) => {
            let r = failed(&e, json);
            print_out(&r.text, r.status)
        }
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
    let mut worst = EXIT_OK;
    while let Some(line) = rx.recv().await {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim().to_owned();
        let command = match verb {
            "diagnostics" => Some(Command::Diagnostics {
                file: PathBuf::from(rest),
                context: None,
            }),
            "definition" => Some(Command::Definition {
                position: rest,
                symbol: None,
                kind: None,
                context: None,
            }),
            "references" => Some(Command::References {
                position: rest,
                include_declaration: false,
                symbol: None,
                kind: None,
                context: None,
            }),
            "servers" => Some(Command::Servers),
            _ => None,
        };
        let rendered = match command {
            // In a long-lived session, `servers` shows the running ones.
            Some(Command::Servers) => {
                let here = std::env::current_dir().unwrap_or_default();
                let (text, status) =
                    crate::frontends::cli::servers::run(engine, &Command::Servers, &here, json)
                        .await;
                Rendered { text, status }
            }
            // Each question under its own file's project configuration.
            Some(c) => {
                let here = std::env::current_dir().unwrap_or_default();
                match c.path(&here).map(|p| engine.for_path(&p)) {
                    Some(Err(e)) => failed(&e, json),
                    Some(Ok(engine)) => answer(&engine, &c, json).await,
                    None => answer(engine, &c, json).await,
                }
            }
            None => {
                let e = ToolError::bad_input(format!(
                    "unknown command `{verb}`; use diagnostics, definition, references or servers"
                ));
                Rendered {
                    text: if json {
                        format!("{}\n", render::error_json(&e))
                    } else {
                        render::error_text(&e)
                    },
                    status: EXIT_FAILED,
                }
            }
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
