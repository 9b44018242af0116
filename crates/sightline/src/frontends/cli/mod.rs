//! The command line: the arguments (`Cli`, and the commands in `commands`),
//! and `run`, which hands each command to the module of its group:
//! `local` (`schema`, `trust`: no engine), `daemon_command`, `mcp_command`
//! (`sightline mcp`, bridged to the daemon or served in process), and
//! `one_command` for the rest, which asks the daemon or answers in process:
//! a command that mirrors a tool (`tool_command`) through the tool's own
//! `run` (`frontends::tools`), `batch` (`questions`), `servers` and
//! `formatting`. `terminal` is the spinner and stdout.

use std::path::{Path, PathBuf};

use clap::Parser;

mod command_path;
mod commands;
mod daemon_command;
mod exit;
mod formatting;
mod hook_command;
mod local;
mod mcp_command;
mod one_command;
mod questions;
mod servers;
mod terminal;
mod tool_command;

pub(crate) use crate::frontends::tools::cli::absolute_path as absolute;
pub use commands::{DaemonAction, OtherCommand};
pub use terminal::Spinner;
use terminal::print_out;
pub use tool_command::{Command, ToolCommand};

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

impl Cli {
    /// Whether questions go through the shared daemon: unless `--no-daemon`
    /// or `SIGHTLINE_NO_DAEMON=1` says otherwise.
    pub fn uses_daemon(&self) -> bool {
        !self.no_daemon && !crate::frontends::daemon::disabled_by_env()
    }

    /// Whether this process is a daemon a client started (`daemon
    /// --ready-fd`), which writes its own log file.
    pub fn is_started_daemon(&self) -> bool {
        matches!(
            self.command,
            Command::Other(OtherCommand::Daemon {
                action: None,
                ready_fd: Some(_)
            })
        )
    }

    /// Whether this command line only talks to the daemon: `mcp`, a
    /// command that mirrors a tool (an edit's too), or `daemon status`/`stop`.
    pub fn daemon_client(&self) -> bool {
        match &self.command {
            Command::Other(OtherCommand::Daemon { action, .. }) => action.is_some(),
            Command::Other(OtherCommand::Mcp { .. } | OtherCommand::Hook { .. }) => {
                self.uses_daemon()
            }
            Command::Tool(tool) => self.uses_daemon() && one_command::through_daemon(tool),
            Command::Other(_) => false,
        }
    }
}

/// Runs one command line to its exit status, handing it to the module of
/// its group.
pub async fn run(cli: Cli) -> i32 {
    // An edit cut off by the death of the sightline making it (the daemon,
    // or a command in process) is finished or undone as a whole first.
    crate::edit::journal::recover();
    let workdir = cli
        .root
        .clone()
        .map(|r| absolute(&r))
        .or_else(|| std::env::current_dir().ok());
    let Command::Other(command) = &cli.command else {
        return one_command::run(&cli, workdir).await;
    };
    match command {
        OtherCommand::Schema => local::schema(),
        OtherCommand::Trust { dir, revoke } => local::trust(dir.as_deref(), *revoke, workdir),
        OtherCommand::Daemon { action, ready_fd } => {
            daemon_command::run(action.as_ref(), *ready_fd, cli.json).await
        }
        OtherCommand::Mcp {
            edit_tools,
            tools,
            folders,
            http,
            token_file,
            allow_remote,
            ..
        } => {
            let http = http
                .as_ref()
                .map(|addr| crate::frontends::mcp_http::HttpOptions {
                    addr: addr.clone(),
                    token_file: token_file.clone(),
                    allow_remote: *allow_remote,
                });
            let session = mcp_command::SessionArgs {
                edit_tools: *edit_tools,
                profile: tools.as_deref(),
                folders,
                http,
            };
            mcp_command::run(&cli, session, workdir).await
        }
        OtherCommand::Setup {
            agent,
            user,
            remove,
            plugin,
            http,
            ..
        } => local::setup(
            agent,
            local::SetupScope {
                user: *user,
                plugin: plugin.as_deref(),
            },
            http.as_deref(),
            *remove,
            workdir,
        ),
        OtherCommand::Hook { agent, budget_ms } => {
            // The variable is read here, not by clap: a value that is not
            // a number must not fail the hook.
            let budget =
                budget_ms.or_else(|| std::env::var("SIGHTLINE_HOOK_MS").ok()?.trim().parse().ok());
            hook_command::run(&cli, agent.as_deref(), budget).await
        }
        _ => one_command::run(&cli, workdir).await,
    }
}

/// The configuration of the working directory's project (a file of another
/// project is answered under that project's, `Engine::for_path`), or the
/// status after printing its error line. An MCP session starts whatever its
/// project file says; a command answers a broken one's error line at once.
fn load_config(command: &Command, workdir: Option<&Path>) -> Result<crate::config::Config, i32> {
    let project = workdir.and_then(crate::config::project_dir);
    let load = if matches!(command, Command::Other(OtherCommand::Mcp { .. })) {
        crate::config::Config::load_for_session
    } else {
        crate::config::Config::load
    };
    load(project.as_deref()).map_err(|e| print_out(&format!("error: {e}\n"), EXIT_FAILED))
}

/// `p` under `here` when it is relative.
fn abs(here: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_owned()
    } else {
        here.join(p)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::frontends::tools::cli::parse_position;

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
