//! `code_actions`: the fixes and refactorings a server offers for lines,
//! numbered; the CLI's `code-actions`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli, parse_lines};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct CodeActions;

/// `code_actions` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeActionsArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// The first line (1-based).
    #[schemars(range(min = 1))]
    pub(crate) line: usize,
    /// The last line (default: `line`).
    #[schemars(range(min = 1))]
    pub(crate) end_line: Option<usize>,
    /// Only actions of this kind: quickfix, refactor, refactor.extract,
    /// source.organizeImports, ...
    pub(crate) kind: Option<String>,
}

impl Tool for CodeActions {
    const NAME: &'static str = "code_actions";
    const TITLE: &'static str = "Code actions";
    const DESCRIPTION: &'static str = "List the fixes and refactorings the language server offers for a range of lines and the diagnostics on them: quick fixes (add a missing import, ...), refactorings (extract, inline, fill match arms, ...) and source actions (organize imports). Answers a numbered list `N. TITLE [KIND]`; apply one with apply_code_action.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<CodeActionsCommand>()];
    type Args = CodeActionsArgs;

    async fn run(session: &Session, a: CodeActionsArgs, json: bool) -> Result<Answered, ToolError> {
        let file = PathBuf::from(a.file);
        let offered = session
            .editor()
            .code_actions(&file, a.line, a.end_line, a.kind.as_deref())
            .await;
        session.refactored(offered, json)
    }
}

/// List the code actions (quick fixes, refactorings, source actions)
/// the server offers for FILE:LINE or FILE:LINE-END, numbered.
#[derive(Debug, clap::Args)]
pub(crate) struct CodeActionsCommand {
    /// The lines, as FILE:LINE or FILE:LINE-END.
    lines: String,
    /// Only actions of this kind (quickfix, refactor.extract, ...).
    #[arg(long)]
    kind: Option<String>,
}

impl CliCommand for CodeActionsCommand {
    const NAME: &'static str = "code-actions";
    type Tool = CodeActions;

    fn args(self) -> Result<CodeActionsArgs, ToolError> {
        let (file, line, end_line) = parse_lines(&self.lines)?;
        Ok(CodeActionsArgs {
            file,
            line,
            end_line,
            kind: self.kind,
        })
    }
}
