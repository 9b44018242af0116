//! The CLI's commands that mirror a tool: each builds the tool's typed
//! arguments from its flags (clap), so that a command and a tool call run
//! the same `run`; the command's `--help` comes from its doc comments.

use std::path::{Path, PathBuf};

use clap::{ArgMatches, FromArgMatches};
use serde_json::Value;

use crate::error::ToolError;
use crate::frontends::tools::args::SymbolPosition;
use crate::frontends::tools::{REGISTRY, Tool};

/// A CLI command's flags, turned into its tool's arguments.
pub(crate) trait CliCommand: clap::Args + FromArgMatches {
    /// The command's name, as typed.
    const NAME: &'static str;
    /// The tool it calls.
    type Tool: Tool;
    /// The tool's arguments: paths made absolute, stdin read where the
    /// command takes its text from it.
    fn args(self) -> Result<<Self::Tool as Tool>::Args, ToolError>;
}

/// A command with its types erased, as the command line looks it up.
#[derive(Debug)]
pub(crate) struct CliEntry {
    /// The command's name.
    pub(crate) name: &'static str,
    /// The tool it calls.
    pub(crate) tool: &'static str,
    command: fn() -> clap::Command,
    args: fn(&ArgMatches) -> Result<Value, ToolError>,
}

impl CliEntry {
    /// The clap command: its flags and `--help`.
    pub(crate) fn command(&self) -> clap::Command {
        (self.command)()
    }

    /// The tool's arguments as JSON, from the command's parsed flags.
    pub(crate) fn args(&self, matches: &ArgMatches) -> Result<Value, ToolError> {
        (self.args)(matches)
    }
}

/// The entry of a command.
pub(crate) const fn cli<C: CliCommand>() -> CliEntry {
    CliEntry {
        name: C::NAME,
        tool: <C::Tool as Tool>::NAME,
        command: command_of::<C>,
        args: args_of::<C>,
    }
}

fn command_of<C: CliCommand>() -> clap::Command {
    C::augment_args(clap::Command::new(C::NAME))
}

fn args_of<C: CliCommand>(matches: &ArgMatches) -> Result<Value, ToolError> {
    let command = C::from_arg_matches(matches).map_err(|e| ToolError::bad_input(e.to_string()))?;
    serde_json::to_value(command.args()?)
        .map_err(|e| ToolError::bad_input(format!("{}: {e}", C::NAME)))
}

/// Every command that mirrors a tool, in the registry's order.
pub(crate) fn cli_commands() -> impl Iterator<Item = &'static CliEntry> {
    REGISTRY.iter().flat_map(|t| t.cli.iter())
}

/// The command called `name`, if one mirrors a tool.
pub(crate) fn cli_command(name: &str) -> Option<&'static CliEntry> {
    cli_commands().find(|c| c.name == name)
}

/// A position as the CLI takes it: `FILE:LINE:COL`, or with `--symbol`
/// `FILE:LINE` (its name on the line) or `FILE` (its name path in the
/// outline).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Position {
    /// The file, absolute.
    pub(crate) file: String,
    /// The 1-based line, when given.
    pub(crate) line: Option<usize>,
    /// The 1-based column, when given.
    pub(crate) column: Option<usize>,
}

impl Position {
    /// Parses `spec`; `with_symbol` when `--symbol` names the symbol.
    pub(crate) fn parse(spec: &str, with_symbol: bool) -> Result<Position, ToolError> {
        if !with_symbol {
            let (file, line, column) = parse_position(spec)?;
            return Ok(Position {
                file: absolute(&file),
                line: Some(line),
                column: Some(column),
            });
        }
        let (file, line) = match spec.rsplit_once(':') {
            Some((file, line)) if line.trim().chars().all(|c| c.is_ascii_digit()) => {
                let line: usize = line.trim().parse().map_err(|_| {
                    ToolError::bad_input(format!("line must be a number, got `{line}`"))
                })?;
                (file, Some(line))
            }
            _ => (spec, None),
        };
        if file.is_empty() {
            return Err(ToolError::bad_input(format!(
                "expected FILE:LINE or FILE with --symbol, got `{spec}`"
            )));
        }
        Ok(Position {
            file: absolute(Path::new(file)),
            line,
            column: None,
        })
    }
}

/// `FILE:LINE` or `FILE:LINE-END`: the file (absolute) and the lines.
pub(crate) fn parse_lines(spec: &str) -> Result<(String, usize, Option<usize>), ToolError> {
    let bad = || ToolError::bad_input(format!("expected FILE:LINE or FILE:LINE-END, got `{spec}`"));
    let (file, lines) = spec.rsplit_once(':').ok_or_else(bad)?;
    if file.is_empty() {
        return Err(bad());
    }
    let (first, last) = match lines.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (lines, None),
    };
    let first: usize = first.trim().parse().map_err(|_| bad())?;
    let last = last
        .map(|l| l.trim().parse::<usize>().map_err(|_| bad()))
        .transpose()?;
    Ok((absolute(Path::new(file)), first, last))
}

/// A path as the tools take it: absolute, from the working directory.
pub(crate) fn absolute(path: &Path) -> String {
    absolute_path(path).display().to_string()
}

/// People type relative paths; the tools themselves require absolute ones.
pub(crate) fn absolute_path(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

/// Parses `FILE:LINE:COL` from the right, so a path may itself hold colons.
pub(crate) fn parse_position(spec: &str) -> Result<(PathBuf, usize, usize), ToolError> {
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

/// The text a command reads from stdin (a file's content, a patch).
pub(crate) fn stdin_text() -> Result<String, ToolError> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .map_err(|e| ToolError::bad_input(format!("cannot read stdin: {e}")))?;
    Ok(text)
}

// The symbol a command is about, as its flags give it. (No doc comment: a
// flattened struct's would replace the command's `--help` text.)
#[derive(Debug, clap::Args)]
pub(crate) struct SymbolAt {
    /// The position, as FILE:LINE:COL with the column on the symbol itself
    /// (or FILE:LINE or FILE with --symbol).
    position: String,
    /// The symbol's name on the line, in place of the column; with FILE
    /// alone, its name path in the outline (`Session/request`).
    #[arg(long, value_name = "NAME")]
    symbol: Option<String>,
    /// With --symbol: only symbols of this kind (function, method, class, ...).
    #[arg(long, value_name = "KIND", requires = "symbol")]
    kind: Option<String>,
}

/// A symbol's place as the tools take it.
pub(crate) struct SymbolPlace {
    /// The file, absolute.
    pub(crate) file: String,
    /// Where in it.
    pub(crate) at: SymbolPosition,
}

impl SymbolAt {
    /// The place the flags name.
    pub(crate) fn place(self) -> Result<SymbolPlace, ToolError> {
        let at = Position::parse(&self.position, self.symbol.is_some())?;
        Ok(SymbolPlace {
            file: at.file,
            at: SymbolPosition {
                line: at.line,
                column: at.column,
                symbol: self.symbol,
                kind: self.kind,
            },
        })
    }
}
