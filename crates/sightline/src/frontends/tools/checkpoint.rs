//! `checkpoint`: remember the errors of a file or a project, for `since`
//! later in the same session; the CLI's `checkpoint`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Checkpoint;

/// `checkpoint` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointArgs {
    /// Absolute path of a file, or of a directory to check whole; default:
    /// the workspace.
    pub(crate) path: Option<String>,
}

impl Tool for Checkpoint {
    const NAME: &'static str = "checkpoint";
    const TITLE: &'static str = "Make a checkpoint";
    const DESCRIPTION: &'static str = "Remember the errors of a file, or of a whole project (default: the workspace), so that lsp_diagnostics or lsp_check with `since` later answer only what changed. Use it before a series of edits, to learn at the end what they broke and fixed in all. Every edit answer also names a checkpoint of the files as they were before it. Answers `checkpoint cpN: ...` with the errors it holds. A session keeps its last 32.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const CLI: &'static [CliEntry] = &[cli::<CheckpointCommand>()];
    type Args = CheckpointArgs;

    async fn run(session: &Session, a: CheckpointArgs, json: bool) -> Result<Answered, ToolError> {
        let path = a.path.map(PathBuf::from);
        let (cp, summary) = session.engine().checkpoint(path.as_deref()).await?;
        let name = session.keep(cp);
        Ok(Answered::text(
            format!("checkpoint {name}: {summary}\n"),
            json,
        ))
    }
}

/// Print the errors a checkpoint of FILE or DIR (default: --root, or the
/// current directory) would hold; a checkpoint lasts as long as its
/// session, so on the command line it only counts them.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckpointCommand {
    /// The file or directory.
    path: Option<PathBuf>,
}

impl CliCommand for CheckpointCommand {
    const NAME: &'static str = "checkpoint";
    type Tool = Checkpoint;

    fn args(self) -> Result<CheckpointArgs, ToolError> {
        Ok(CheckpointArgs {
            path: self.path.as_deref().map(absolute),
        })
    }
}
