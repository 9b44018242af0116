//! `apply_patch`: a multi-file patch applied all at once, formatted, with
//! the errors it brought; the CLI's `apply-patch` (the patch on stdin).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli, stdin_text};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct ApplyPatch;

/// `apply_patch` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PatchArgs {
    /// A patch from `*** Begin Patch` to `*** End Patch` with `*** Add File:`,
    /// `*** Delete File:`, `*** Update File:` (with `*** Move to:` and `@@`
    /// hunks of ` `, `-`, `+` lines). Relative paths start at the workspace.
    pub(crate) patch: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(crate) dry_run: Option<bool>,
}

impl Tool for ApplyPatch {
    const NAME: &'static str = "apply_patch";
    const TITLE: &'static str = "Apply a patch";
    const DESCRIPTION: &'static str = "Apply a multi-file patch (add, delete, update with context hunks, move) all at once: if any part does not apply, no file changes. Changed files are formatted, and the answer lists the errors the patch introduced, in them and in the files that use what it changed.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<ApplyPatchCommand>()];
    type Args = PatchArgs;

    fn previews(a: &PatchArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: PatchArgs, json: bool) -> Result<Answered, ToolError> {
        let dry_run = Self::previews(&a);
        session
            .edit(
                dry_run,
                move |editor| Box::pin(async move { editor.apply_patch(&a.patch).await }),
                json,
            )
            .await
    }
}

/// Apply the `*** Begin Patch` patch on stdin (all of it or nothing), format
/// the changed files, and print their errors.
#[derive(Debug, clap::Args)]
pub(crate) struct ApplyPatchCommand {
    /// Only print the errors it would bring; write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for ApplyPatchCommand {
    const NAME: &'static str = "apply-patch";
    type Tool = ApplyPatch;

    fn args(self) -> Result<PatchArgs, ToolError> {
        Ok(PatchArgs {
            patch: stdin_text()?,
            dry_run: Some(self.dry_run),
        })
    }
}
