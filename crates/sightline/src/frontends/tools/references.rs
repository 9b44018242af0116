//! `lsp_references`: every use of the symbol at a position across the
//! workspace; the CLI's `references`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::Context;
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct References;

/// `lsp_references` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReferencesArgs {
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
    /// Without `line`: the symbol's name path (`Session/request`); with
    /// `line`, its name on that line.
    pub(crate) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(crate) kind: Option<String>,
    /// Also list the declaration itself. Default false: only uses.
    pub(crate) include_declaration: Option<bool>,
    /// `symbol`: each place also names the symbol it sits in
    /// (`PATH:LINE:COL [Session.request] TEXT`).
    pub(crate) context: Option<Context>,
}

impl Tool for References {
    const NAME: &'static str = "lsp_references";
    const TITLE: &'static str = "Find references";
    const DESCRIPTION: &'static str = "Every place in the workspace that uses the symbol at a position, resolved by the language server: the same word in a comment or string is not listed, a call through an import alias is. Use it instead of grep before renaming a symbol or changing its signature. Answers `N references`, then `PATH:LINE:COL SOURCE_LINE` each (at most 50; narrow the question for more).";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<ReferencesCommand>()];
    type Args = ReferencesArgs;

    async fn run(session: &Session, a: ReferencesArgs, json: bool) -> Result<Answered, ToolError> {
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
            line: at.line,
            column: at.column,
            symbol: at.symbol,
            kind: at.kind,
            include_declaration: Some(self.include_declaration),
            context: self.context,
        })
    }
}
