//! `move`: a file or folder moved with the imports that name it, all files
//! or none; the CLI's `move`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Move;

/// `move` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveArgs {
    /// Absolute path of the file or folder to move.
    pub(crate) from: String,
    /// Absolute path it moves to; an existing folder: it moves into it.
    pub(crate) to: String,
    /// Only show what would change.
    pub(crate) dry_run: Option<bool>,
}

impl Tool for Move {
    const NAME: &'static str = "move";
    const TITLE: &'static str = "Move a file or folder";
    const DESCRIPTION: &'static str = "Move or rename a file or folder and update every import and module declaration that names it, as the language server computes them (TypeScript/JavaScript, Rust), in one change: all files are written or none. Use it instead of `mv` plus editing imports. Where the server cannot update imports (Python), a move that would break them is refused with the importing files named. With dry_run, answers the changed lines; without, writes, formats and answers the errors the change brought.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<MoveCommand>()];
    type Args = MoveArgs;

    async fn run(session: &Session, a: MoveArgs, json: bool) -> Result<Answered, ToolError> {
        let moved = session
            .editor()
            .move_path(
                &PathBuf::from(a.from),
                &PathBuf::from(a.to),
                a.dry_run.unwrap_or(false),
            )
            .await;
        session.refactored(moved, json)
    }
}

/// Move FROM to TO (into TO when it is a folder) and update the imports
/// that name it, as its language server does.
#[derive(Debug, clap::Args)]
pub(crate) struct MoveCommand {
    /// The file or folder.
    from: PathBuf,
    /// Where it goes.
    to: PathBuf,
    /// Only print what would change.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for MoveCommand {
    const NAME: &'static str = "move";
    type Tool = Move;

    fn args(self) -> Result<MoveArgs, ToolError> {
        Ok(MoveArgs {
            from: absolute(&self.from),
            to: absolute(&self.to),
            dry_run: Some(self.dry_run),
        })
    }
}
