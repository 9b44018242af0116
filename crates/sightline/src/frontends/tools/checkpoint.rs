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
    /// Absolute path of a file or directory; default: the workspace.
    pub(crate) path: Option<String>,
}

impl Tool for Checkpoint {
    const NAME: &'static str = "checkpoint";
    const TITLE: &'static str = "Make a checkpoint";
    const DESCRIPTION: &'static str = "Remember the errors of a file or project, so that `since` in lsp_diagnostics or lsp_check later answers only what changed. Use it before a series of edits.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const CLI: &'static [CliEntry] = &[cli::<CheckpointCommand>()];
    type Args = CheckpointArgs;

    async fn run(session: &Session, a: CheckpointArgs, json: bool) -> Result<Answered, ToolError> {
        let path = a.path.map(PathBuf::from);
        let (cp, summary) = session.editor().checkpoint(path.as_deref()).await?;
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
