//! `lsp_implementation`: where the symbol at a position is implemented (an
//! interface's or an abstract method's concrete versions); the CLI's
//! `implementations`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::SymbolPosition;
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Implementation;

/// `lsp_implementation` arguments (the doc comments are the schema's
/// descriptions).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImplementationArgs {
    /// Absolute path of the file holding the symbol.
    pub(crate) file: String,
    /// Where the symbol is: the fields every position tool shares.
    #[serde(flatten)]
    pub(crate) at: SymbolPosition,
}

impl Tool for Implementation {
    const NAME: &'static str = "lsp_implementation";
    const TITLE: &'static str = "Go to implementation";
    const DESCRIPTION: &'static str =
        "The concrete versions of the interface or abstract method at a position. Use it ...";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always; // `WithEditTools` for an edit tool
    const RETRIED: bool = true; // quick and changes nothing: asked again of a new daemon
    const CLI: &'static [CliEntry] = &[cli::<ImplementationCommand>()];
    type Args = ImplementationArgs;

    async fn run(
        session: &Session,
        a: ImplementationArgs,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let (line, col) = session.position_of(&file, &a.at).await?;
        let found = session.engine().implementation(&file, line, col).await?;
        Ok(Answered::locations(&found, json))
    }
}

/// Print the concrete versions of the interface or abstract method at
/// FILE:LINE:COL.
#[derive(Debug, clap::Args)]
pub(crate) struct ImplementationCommand {
    #[command(flatten)]
    at: SymbolAt,
}

impl CliCommand for ImplementationCommand {
    const NAME: &'static str = "implementations";
    type Tool = Implementation;

    fn args(self) -> Result<ImplementationArgs, ToolError> {
        let at = self.at.place()?;
        Ok(ImplementationArgs {
            file: at.file,
            at: at.at,
        })
    }
}
