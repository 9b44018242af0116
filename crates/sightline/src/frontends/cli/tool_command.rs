//! The command line's commands: those that mirror a tool, which the tools
//! define (`frontends::tools`), and the others (`OtherCommand`); clap is
//! given both through one `Command`.

use clap::{ArgMatches, FromArgMatches, Subcommand};
use serde_json::Value;

use crate::error::ToolError;
use crate::frontends::cli::commands::OtherCommand;
use crate::frontends::tools::{CliEntry, cli_command, cli_commands};

/// One command.
#[derive(Debug)]
pub enum Command {
    /// A command that calls a tool with the arguments its flags build.
    Tool(ToolCommand),
    /// Every other command.
    Other(OtherCommand),
}

/// A command that calls a tool.
#[derive(Debug)]
pub struct ToolCommand {
    entry: &'static CliEntry,
    matches: ArgMatches,
}

impl ToolCommand {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }

    /// The name of the tool it calls.
    pub fn tool(&self) -> &'static str {
        self.entry.tool
    }

    /// The tool it calls and the arguments its flags build (reading stdin
    /// for a command that takes its text from there).
    pub fn call(&self) -> Result<(&'static str, Value), ToolError> {
        Ok((self.entry.tool, self.entry.args(&self.matches)?))
    }
}

impl FromArgMatches for Command {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        if let Some((name, sub)) = matches.subcommand()
            && let Some(entry) = cli_command(name)
        {
            return Ok(Command::Tool(ToolCommand {
                entry,
                matches: sub.clone(),
            }));
        }
        OtherCommand::from_arg_matches(matches).map(Command::Other)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Command::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for Command {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        let command = cli_commands().fold(command, |c, entry| c.subcommand(entry.command()));
        OtherCommand::augment_subcommands(command)
    }

    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        Command::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        cli_command(name).is_some() || OtherCommand::has_subcommand(name)
    }
}
