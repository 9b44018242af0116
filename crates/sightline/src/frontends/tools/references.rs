//! `lsp_references`: every use of the symbol at a position across the
//! workspace; the CLI's `references`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::{Context, SymbolPosition};
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct References;

/// `lsp_references` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReferencesArgs {
    /// Absolute path.
    pub(crate) file: String,
    /// Where the symbol is.
    #[serde(flatten)]
    pub(crate) at: SymbolPosition,
    /// Also list the declaration.
    pub(crate) include_declaration: Option<bool>,
    /// `symbol`: also name the symbol each place sits in.
    pub(crate) context: Option<Context>,
}

impl Tool for References {
    const NAME: &'static str = "lsp_references";
    const TITLE: &'static str = "Find references";
    const DESCRIPTION: &'static str = "Every use of the symbol at a position in the workspace, as the type checker resolves it: through import aliases, never the same word in a comment or string. Use it instead of grep before renaming a symbol or changing its signature.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<ReferencesCommand>()];
    type Args = ReferencesArgs;

    async fn run(session: &Session, a: ReferencesArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let (line, col) = session.position_of(&file, &a.at).await?;
        let declaration = a.include_declaration.unwrap_or(false);
        let found = session
            .engine()
            .references(&file, line, col, declaration)
            .await?;
        Ok(session.with_context(found, a.context, json).await)
    }
}

/// Print every use of the symbol at FILE:LINE:COL across the workspace.
#[derive(Debug, clap::Args)]
pub(crate) struct ReferencesCommand {
    #[command(flatten)]
    at: SymbolAt,
    /// Also list the declaration itself.
    #[arg(long)]
    include_declaration: bool,
    /// `symbol`: each place also names the symbol it sits in.
    #[arg(long)]
    context: Option<Context>,
}

impl CliCommand for ReferencesCommand {
    const NAME: &'static str = "references";
    type Tool = References;

    fn args(self) -> Result<ReferencesArgs, ToolError> {
        let at = self.at.place()?;
        Ok(ReferencesArgs {
            file: at.file,
            at: at.at,
            include_declaration: Some(self.include_declaration),
            context: self.context,
        })
    }
}
