//! `impact`: what a diff changes, who uses it, and the errors it brings;
//! the CLI's `impact`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edit::impact::Against;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Impact;

/// `impact` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImpactArgs {
    /// Absolute path of a directory in the git repository; default: the
    /// workspace.
    pub(crate) path: Option<String>,
    /// The revision the working tree is compared with (`HEAD~1`, a branch,
    /// a commit); default `HEAD`.
    pub(crate) rev: Option<String>,
    /// Compare the staged changes with `HEAD` instead.
    pub(crate) staged: Option<bool>,
}

impl Tool for Impact {
    const NAME: &'static str = "impact";
    const TITLE: &'static str = "Impact of a diff";
    const DESCRIPTION: &'static str = "What a git diff (the working tree against `rev`, default HEAD, or the staged changes) does: each declaration it adds, removes or changes, every place that uses a changed or removed one (file, line, enclosing symbol; tests marked), found by the language server's references across packages, and the errors the diff introduces now, compared with the revision's. Use it to review or finish a change you did not make, or to see what to re-run and update before committing.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<ImpactCommand>()];
    type Args = ImpactArgs;

    // It holds the revision's texts in memory (as a dry run does), which
    // runs alone; it takes the shared turn itself for the check after.
    const OWN_TURN: bool = true;

    async fn run(session: &Session, a: ImpactArgs, json: bool) -> Result<Answered, ToolError> {
        let against = match (a.staged.unwrap_or(false), a.rev) {
            (true, Some(_)) => {
                return Err(ToolError::bad_input(
                    "give `rev` or `staged`, not both: the staged changes are compared with HEAD",
                ));
            }
            (true, None) => Against::Index,
            (false, rev) => Against::WorkingTree(rev.unwrap_or_else(|| "HEAD".to_owned())),
        };
        let dir = a.path.map(PathBuf::from);
        if let Some(d) = dir.as_deref().filter(|d| !d.is_absolute()) {
            return Err(ToolError::bad_input(format!(
                "path must be absolute, got {}",
                d.display()
            )));
        }
        let impact = session
            .editor()
            .impact(dir.as_deref().map(Path::new), &against)
            .await?;
        let errors = impact.brought_errors();
        Ok(Answered {
            text: impact.text(),
            json: json.then(|| impact.json()),
            errors,
        })
    }
}

/// Print what the diff of the working tree against REV (default HEAD), or
/// of the staged changes, does: the declarations it adds, removes and
/// changes, the places using each (tests marked), and the errors it
/// introduces. Exits 1 when it introduces errors.
#[derive(Debug, clap::Args)]
pub(crate) struct ImpactCommand {
    /// The revision to compare with.
    rev: Option<String>,
    /// Compare the staged changes with HEAD.
    #[arg(long, conflicts_with = "rev")]
    staged: bool,
    /// A directory in the repository (default: the current one).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl CliCommand for ImpactCommand {
    const NAME: &'static str = "impact";
    type Tool = Impact;

    fn args(self) -> Result<ImpactArgs, ToolError> {
        Ok(ImpactArgs {
            path: Some(absolute(self.dir.as_deref().unwrap_or(Path::new(".")))),
            rev: self.rev,
            staged: Some(self.staged),
        })
    }
}
