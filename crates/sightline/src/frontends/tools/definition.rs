//! `lsp_definition`: where the symbol at a position is defined; the CLI's
//! `definition`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::{Context, SymbolPosition};
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Definition;

/// `lsp_definition` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PositionArgs {
    /// Absolute path.
    pub(crate) file: String,
    /// Where the symbol is.
    #[serde(flatten)]
    pub(crate) at: SymbolPosition,
    /// `symbol`: also name the symbol each place sits in.
    pub(crate) context: Option<Context>,
}

impl Tool for Definition {
    const NAME: &'static str = "lsp_definition";
    const TITLE: &'static str = "Go to definition";
    const DESCRIPTION: &'static str = "Where the symbol at a position is really defined, resolved by the language server through imports, aliases and re-exports. Use it instead of grep when a name is common, imported or overloaded.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<DefinitionCommand>()];
    type Args = PositionArgs;

    async fn run(session: &Session, a: PositionArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let (line, col) = session.position_of(&file, &a.at).await?;
        let found = session.engine().definition(&file, line, col).await?;
        Ok(session.with_context(found, a.context, json).await)
    }
}

/// Print where the symbol at FILE:LINE:COL is defined (1-based line and character column).
#[derive(Debug, clap::Args)]
pub(crate) struct DefinitionCommand {
    #[command(flatten)]
    at: SymbolAt,
    /// `symbol`: each place also names the symbol it sits in.
    #[arg(long)]
    context: Option<Context>,
}

impl CliCommand for DefinitionCommand {
    const NAME: &'static str = "definition";
    type Tool = Definition;

    fn args(self) -> Result<PositionArgs, ToolError> {
        let at = self.at.place()?;
        Ok(PositionArgs {
            file: at.file,
            at: at.at,
            context: self.context,
        })
    }
}
