//! `organize_imports`: a file's imports sorted and the unused ones dropped,
//! as its server does it; the CLI's `organize-imports`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct OrganizeImports;

/// `organize_imports` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OrganizeArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// Only show what would change.
    pub(crate) dry_run: Option<bool>,
}

impl Tool for OrganizeImports {
    const NAME: &'static str = "organize_imports";
    const TITLE: &'static str = "Organize imports";
    const DESCRIPTION: &'static str = "Sort the imports of a file and drop the unused ones, as the language server does it (its source.removeUnusedImports where it has one, then source.organizeImports). Answers what changed and the errors the file now has.";
    const EFFECT: Effect = Effect::Writes { idempotent: true };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<OrganizeImportsCommand>()];
    type Args = OrganizeArgs;

    async fn run(session: &Session, a: OrganizeArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let organized = session
            .editor()
            .organize_imports(&file, a.dry_run.unwrap_or(false))
            .await;
        session.refactored(organized, json)
    }
}

/// Sort FILE's imports and drop the unused ones, as its server does.
#[derive(Debug, clap::Args)]
pub(crate) struct OrganizeImportsCommand {
    /// The file.
    file: PathBuf,
    /// Only print what would change.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for OrganizeImportsCommand {
    const NAME: &'static str = "organize-imports";
    type Tool = OrganizeImports;

    fn args(self) -> Result<OrganizeArgs, ToolError> {
        Ok(OrganizeArgs {
            file: absolute(&self.file),
            dry_run: Some(self.dry_run),
        })
    }
}
