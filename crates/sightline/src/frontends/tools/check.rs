//! `lsp_check`: the errors of a whole project or subtree, or those new
//! since a checkpoint; the CLI's `check`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Check;

/// `lsp_check` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckArgs {
    /// Absolute path of a directory to check; default: the workspace.
    pub(crate) path: Option<String>,
    /// A checkpoint (`cp3`): only the errors new since it.
    pub(crate) since: Option<String>,
}

impl Tool for Check {
    const NAME: &'static str = "lsp_check";
    const TITLE: &'static str = "Check a project";
    const DESCRIPTION: &'static str = "The errors of a whole project or directory. Use it before finishing a task, to learn what is broken anywhere, not only in the files you touched. With `since` (a checkpoint): only the new ones.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const CLI: &'static [CliEntry] = &[cli::<CheckCommand>()];
    type Args = CheckArgs;

    async fn run(session: &Session, a: CheckArgs, json: bool) -> Result<Answered, ToolError> {
        if let Some(name) = a.since {
            return session
                .since(&name, a.path.as_deref().map(Path::new), json)
                .await;
        }
        let path = a.path.map(PathBuf::from);
        let checked = session.engine().check(path.as_deref()).await?;
        Ok(Answered::text(checked.text(), json).with_errors(checked.errors() > 0))
    }
}

/// Print the errors of every file under DIR (default: --root, or the
/// current directory) that a server handles: `N errors in M files`
/// first, then the files by error count. Exits 1 when there are errors.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckCommand {
    /// The directory.
    dir: Option<PathBuf>,
}

impl CliCommand for CheckCommand {
    const NAME: &'static str = "check";
    type Tool = Check;

    fn args(self) -> Result<CheckArgs, ToolError> {
        Ok(CheckArgs {
            path: self.dir.as_deref().map(absolute),
            since: None,
        })
    }
}
