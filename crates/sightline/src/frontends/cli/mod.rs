//! The command line: the arguments (`Cli`, and the commands in `commands`),
//! and `run`, which builds the engine and hands the command to the
//! questions (`answer`), the other commands (`admin`) or the MCP server.
//! `terminal` is the spinner and the signals. `main` only wires this up.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Parser;

use crate::engine::{Engine, Options};
use crate::error::ToolError;

pub mod admin;
mod answer;
mod commands;
mod exit;
mod terminal;

pub use answer::{Rendered, answer, batch};
use answer::{command_name, failed};
pub use commands::{Command, DaemonAction};
use terminal::print_out;
pub use terminal::{Spinner, interrupted};

/// Exit status: the command answered.
pub const EXIT_OK: i32 = 0;
/// Exit status: the diagnostics contain an error.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit status: bad input, an unsupported file, or no server available.
pub const EXIT_FAILED: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Ask real language servers what a type checker knows about your files on disk now",
    after_help = "Exit status: 0 answered, 1 diagnostics contain an error, 2 bad input or no server available.\n\
                  Logs go to stderr; set RUST_LOG=debug (or trace) for more.\n\
                  Servers missing from PATH are installed from npm into $SIGHTLINE_DATA_DIR unless SIGHTLINE_DISABLE_LSP_DOWNLOAD=1."
)]
/// The command line: global options and one command.
pub struct Cli {
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// The workspace directory; files outside every project marker but inside it are served under it.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Where servers, formatters and the edit tools may write:
    /// workspace-write (default), read-only, or danger-full-access (no sandbox).
    #[arg(long, global = true, value_name = "MODE", value_parser = ["workspace-write", "read-only", "danger-full-access"])]
    pub sandbox: Option<String>,
    /// Answer in this process, with servers of its own, instead of through
    /// the shared daemon (which starts when none runs); also
    /// `SIGHTLINE_NO_DAEMON=1`.
    #[arg(long, global = true)]
    pub no_daemon: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Parses `FILE:LINE:COL` from the right, so a path may itself hold colons.
pub fn parse_position(spec: &str) -> Result<(PathBuf, usize, usize), ToolError> {
    let bad = || ToolError::bad_input(format!("expected FILE:LINE:COL, got `{spec}`"));
    let mut parts = spec.rsplitn(3, ':');
    let col = parts.next().ok_or_else(bad)?;
    let line = parts.next().ok_or_else(bad)?;
    let file = parts.next().filter(|f| !f.is_empty()).ok_or_else(bad)?;
    let num = |s: &str, what: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| ToolError::bad_input(format!("{what} must be a number, got `{s}`")))
    };
    Ok((PathBuf::from(file), num(line, "line")?, num(col, "column")?))
}

/// People type relative paths; the tools themselves require absolute ones.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

impl Cli {
    /// Whether questions go through the shared daemon: unless `--no-daemon`
    /// or `SIGHTLINE_NO_DAEMON=1` says otherwise.
    pub fn uses_daemon(&self) -> bool {
        !self.no_daemon && !crate::frontends::daemon::disabled_by_env()
    }

    /// Whether this command line only talks to the daemon: `mcp`, a
    /// question that mirrors a tool, or `daemon status`/`stop`.
    pub fn daemon_client(&self) -> bool {
        match &self.command {
            Command::Daemon { action, .. } => action.is_some(),
            Command::Mcp { .. } => self.uses_daemon(),
            command => self.uses_daemon() && answer::as_tool_call(command).is_some(),
        }
    }
}

/// Runs one command line to its exit status: builds the engine, answers,
/// then shuts every server down.
pub async fn run(cli: Cli) -> i32 {
    let workdir = cli
        .root
        .clone()
        .map(|r| absolute(&r))
        .or_else(|| std::env::current_dir().ok());
    if let Command::Schema = cli.command {
        let text = serde_json::to_string_pretty(&crate::config::schema()).unwrap_or_default();
        return print_out(&format!("{text}\n"), EXIT_OK);
    }
    if let Command::Trust { dir, revoke } = &cli.command {
        let dir = dir
            .as_ref()
            .map(|d| absolute(d))
            .or(workdir.clone())
            .unwrap_or_default();
        return match crate::config::set_trusted(&dir, !revoke) {
            Ok(d) if *revoke => {
                print_out(&format!("{} is no longer trusted\n", d.display()), EXIT_OK)
            }
            Ok(d) => print_out(
                &format!(
                    "trusted {}: commands in its sightline.json may run\n",
                    d.display()
                ),
                EXIT_OK,
            ),
            Err(e) => print_out(&format!("error: cannot record trust: {e}\n"), EXIT_FAILED),
        };
    }
    if let Command::Daemon { action, ready_fd } = &cli.command {
        return crate::frontends::cli::admin::daemon(action.as_ref(), *ready_fd, cli.json).await;
    }
    if let Command::Mcp { edit_tools, .. } = cli.command
        && cli.uses_daemon()
    {
        let hello = crate::frontends::daemon::Hello::of_client(
            workdir.clone(),
            cli.sandbox.clone(),
            edit_tools,
        );
        // A daemon with other settings (data directory, configuration,
        // downloads) would answer with its own: serve in process instead.
        match crate::frontends::daemon::bridge::accepts(&hello).await {
            Ok(false) => tracing::info!("the daemon has other settings; serving in process"),
            _ => return crate::frontends::daemon::bridge::run(hello).await,
        }
    }
    if cli.uses_daemon()
        && let Some(call) = answer::as_tool_call(&cli.command)
    {
        match call {
            Ok((tool, args)) => {
                // As in process, the root is `--root` alone: without it each
                // file is served under its own project's root.
                let root = cli.root.as_deref().map(absolute);
                let hello =
                    crate::frontends::daemon::Hello::of_client(root, cli.sandbox.clone(), false);
                // Ctrl-C or SIGTERM ends the call as in process (status 2);
                // the connection closing ends the daemon's side of it.
                let asked = tokio::select! {
                    s = answer::through_daemon(&hello, tool, args, cli.json) => s,
                    _ = interrupted() => Some(EXIT_FAILED),
                };
                if let Some(status) = asked {
                    return status;
                }
                tracing::info!("the daemon has other settings; answering in process");
            }
            Err(e) => return answer::print_tool_answer(Err(e), cli.json),
        }
    }
    // The configuration of the working directory's project; a file of
    // another project is answered under that project's (`for_path`).
    let project = workdir.as_deref().and_then(crate::config::project_dir);
    // An MCP session starts whatever its project file says; a command
    // answers a broken one's error line at once.
    let load = if matches!(cli.command, Command::Mcp { .. }) {
        crate::config::Config::load_for_session
    } else {
        crate::config::Config::load
    };
    let config = match load(project.as_deref()) {
        Ok(c) => c,
        Err(e) => return print_out(&format!("error: {e}\n"), EXIT_FAILED),
    };
    if let Command::Mcp { edit_tools, .. } = cli.command {
        let edit_tools = edit_tools || config.edit_tools;
        // stdout carries the protocol: progress goes to the client, logs to stderr.
        let engine = Arc::new(Engine::new(Options {
            root: workdir,
            config,
            sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
            project_configs: true,
            ..Options::default()
        }));
        return tokio::select! {
            status = crate::frontends::mcp::serve(engine.clone(), edit_tools) => status,
            _ = interrupted() => {
                engine.shutdown().await;
                EXIT_FAILED
            }
        };
    }
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
        Some(Err(e)) => return answer::print_tool_answer(Err(e), cli.json),
    };
    if answer::through_face(&cli.command)
        && let Some(call) = answer::as_tool_call(&cli.command)
    {
        let (tool, args) = match call {
            Ok(c) => c,
            Err(e) => return answer::print_tool_answer(Err(e), cli.json),
        };
        let face = crate::frontends::mcp::McpServer::new(answering.clone(), false);
        let answered = tokio::select! {
            r = face.call(tool, args, cli.json) => answer::print_tool_answer(r, cli.json),
            _ = interrupted() => EXIT_FAILED,
        };
        engine.shutdown().await;
        return answered;
    }
    let status = match &cli.command {
        Command::Servers
        | Command::Install { .. }
        | Command::Config
        | Command::Format { .. }
        | Command::Formatters { .. }
        | Command::Read { .. }
        | Command::Write { .. }
        | Command::Edit { .. }
        | Command::Rename { .. }
        | Command::CodeActions { .. }
        | Command::ApplyCodeAction { .. }
        | Command::OrganizeImports { .. }
        | Command::ApplyPatch => {
            let work = async {
                Ok(
                    crate::frontends::cli::admin::run(&answering, &cli.command, &here, cli.json)
                        .await,
                )
            };
            match crate::error::caught(command_name(&cli.command), work).await {
                Ok((text, status)) => print_out(&text, status),
                Err(e) => {
                    let r = failed(&e, cli.json);
                    print_out(&r.text, r.status)
                }
            }
        }
        Command::Batch => {
            tokio::select! {
                s = batch(&engine, cli.json) => s,
                _ = interrupted() => EXIT_FAILED,
            }
        }
        command => {
            let r = tokio::select! {
                r = answer(&answering, command, cli.json) => r,
                _ = interrupted() => Rendered { text: String::new(), status: EXIT_FAILED },
            };
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(r.text.as_bytes()).and_then(|()| out.flush());
            r.status
        }
    };
    engine.shutdown().await;
    status
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn positions_parse_from_the_right() {
        assert_eq!(
            parse_position("/a:b/c.py:3:7").unwrap(),
            (PathBuf::from("/a:b/c.py"), 3, 7)
        );
        assert_eq!(
            parse_position("x.py:3").unwrap_err().to_string(),
            "error: expected FILE:LINE:COL, got `x.py:3`"
        );
        assert_eq!(
            parse_position("x.py:a:1").unwrap_err().to_string(),
            "error: line must be a number, got `a`"
        );
    }
}
