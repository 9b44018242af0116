//! `lsp_definition`: where the symbol at a position is defined; the CLI's
//! `definition`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::Context;
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Definition;

/// `lsp_definition` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PositionArgs {
    /// Absolute path of the file holding the symbol.
    pub(crate) file: String,
    /// 1-based line number, as a `read` tool or a traceback shows it. Not
    /// needed with `symbol`.
    #[schemars(range(min = 1))]
    pub(crate) line: Option<usize>,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    pub(crate) column: Option<usize>,
    /// Without `line`: the symbol's name path in the file's outline
    /// (`Session/request`, `Outer/Inner/method`, or a bare name); with
    /// `line`, its name on that line. When it names none or several, the
    /// answer lists the candidates.
    pub(crate) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class,
    /// ...).
    pub(crate) kind: Option<String>,
    /// `symbol`: each place also names the symbol it sits in
    /// (`PATH:LINE:COL [Session.request] TEXT`).
    pub(crate) context: Option<Context>,
}

impl Tool for Definition {
    const NAME: &'static str = "lsp_definition";
    const TITLE: &'static str = "Go to definition";
    const DESCRIPTION: &'static str = "Where the symbol at a position is really defined, resolved by the language server through imports, aliases and re-exports. Use it instead of grep when a name is common, imported or overloaded. Answers `N definitions`, then `PATH:LINE:COL SOURCE_LINE` each.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<DefinitionCommand>()];
    type Args = PositionArgs;

    async fn run(session: &Session, a: PositionArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let (line, col) = session
            .position(
                &file,
                a.line,
                a.column,
                a.symbol.as_deref(),
                a.kind.as_deref(),
            )
            .await?;
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
            line: at.line,
            column: at.column,
            symbol: at.symbol,
            kind: at.kind,
            context: self.context,
        })
    }
}
