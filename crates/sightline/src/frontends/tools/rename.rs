//! `rename`: a symbol renamed everywhere the server knows it is used, all
//! files or none; the CLI's `rename`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edit::refactor::PublicNames;
use crate::error::ToolError;
use crate::frontends::tools::args::SymbolPosition;
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Rename;

/// What a rename does to a re-exported name (`public_names`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PublicNamesArg {
    /// Renamed everywhere, importers included.
    Rename,
    /// Kept as an alias of the new name.
    Keep,
}

impl From<PublicNamesArg> for PublicNames {
    fn from(a: PublicNamesArg) -> Self {
        match a {
            PublicNamesArg::Rename => Self::Rename,
            PublicNamesArg::Keep => Self::Keep,
        }
    }
}

/// `rename` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenameArgs {
    /// Absolute path of the file holding the symbol.
    pub(crate) file: String,
    /// Where the symbol is.
    #[serde(flatten)]
    pub(crate) at: SymbolPosition,
    /// The new name.
    pub(crate) new_name: String,
    /// A name that a module re-exports (`export { f } from "./util"`):
    /// `rename` (the default) renames it there and in every module
    /// importing it through it; `keep` keeps the old public name as an
    /// alias there (`export { g as f }`), leaving those importers as they
    /// are.
    pub(crate) public_names: Option<PublicNamesArg>,
    /// Only show what would change: each file with its changed lines, old
    /// and new. Nothing is written.
    pub(crate) dry_run: Option<bool>,
    /// Apply changes the server marks as needing confirmation (shown by
    /// `dry_run`).
    pub(crate) confirm: Option<bool>,
}

impl Tool for Rename {
    const NAME: &'static str = "rename";
    const TITLE: &'static str = "Rename a symbol";
    const DESCRIPTION: &'static str = "Rename a symbol everywhere the language server knows it is used (through imports, aliases and re-exports; never the same word in a comment or string), in every file at once: all files are written or none. Use it instead of search and replace. A re-exported name is renamed for its importers too, unless public_names is `keep`, which keeps the old name as an alias in the re-export (the answer lists each alias kept). With dry_run, answers `rename OLD → NEW: N edits in M files` and each file's changed lines, old and new; without, writes them, formats them and answers the errors the changed files now have.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<RenameCommand>()];
    type Args = RenameArgs;

    async fn run(session: &Session, a: RenameArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let (line, col) = session.position_of(&file, &a.at).await?;
        let options = crate::edit::refactor::RenameOptions {
            public_names: a.public_names.map(Into::into).unwrap_or_default(),
            dry_run: a.dry_run.unwrap_or(false),
            confirm: a.confirm.unwrap_or(false),
        };
        let renamed = session
            .editor()
            .rename(&file, line, col, &a.new_name, options)
            .await;
        session.refactored(renamed, json)
    }
}

/// Rename the symbol at FILE:LINE:COL to NEW_NAME in every file the
/// server knows uses it (all files or none), format them, and print the
/// errors they now have; --dry-run prints the changed lines instead.
#[derive(Debug, clap::Args)]
pub(crate) struct RenameCommand {
    #[command(flatten)]
    at: SymbolAt,
    /// The new name.
    new_name: String,
    /// Keep a re-exported name as an alias of the new one (`export { g
    /// as f }`) instead of renaming it for its importers too.
    #[arg(long)]
    keep_public_names: bool,
    /// Only print what would change.
    #[arg(long)]
    dry_run: bool,
    /// Apply changes the server marks as needing confirmation.
    #[arg(long)]
    confirm: bool,
}

impl CliCommand for RenameCommand {
    const NAME: &'static str = "rename";
    type Tool = Rename;

    fn args(self) -> Result<RenameArgs, ToolError> {
        let at = self.at.place()?;
        Ok(RenameArgs {
            file: at.file,
            at: at.at,
            new_name: self.new_name,
            public_names: self.keep_public_names.then_some(PublicNamesArg::Keep),
            dry_run: Some(self.dry_run),
            confirm: Some(self.confirm),
        })
    }
}
