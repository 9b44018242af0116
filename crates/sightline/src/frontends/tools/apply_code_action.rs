//! `apply_code_action`: one action of the `code_actions` list applied, all
//! files or none; the CLI's `apply-code-action`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edit::refactor::Pick;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli, parse_lines};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct ApplyCodeAction;

/// `apply_code_action` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApplyActionArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// The first line (1-based), as given to `code_actions`.
    #[schemars(range(min = 1))]
    pub(crate) line: usize,
    /// The last line, as given to `code_actions`.
    #[schemars(range(min = 1))]
    pub(crate) end_line: Option<usize>,
    /// The action's number in the `code_actions` list. Give `index` or
    /// `title`.
    #[schemars(range(min = 1))]
    pub(crate) index: Option<usize>,
    /// The action's title, exactly as listed.
    pub(crate) title: Option<String>,
    /// Only show what would change.
    pub(crate) dry_run: Option<bool>,
    /// Apply changes the server marks as needing confirmation.
    pub(crate) confirm: Option<bool>,
}

impl Tool for ApplyCodeAction {
    const NAME: &'static str = "apply_code_action";
    const TITLE: &'static str = "Apply a code action";
    const DESCRIPTION: &'static str = "Apply one code action from the code_actions list (by its number or title) for the same lines: the server's edit, and the edits of the command it runs, written all or nothing and formatted. Answers what changed and the errors the changed files now have; with dry_run, the changed lines only.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<ApplyCodeActionCommand>()];
    type Args = ApplyActionArgs;

    async fn run(session: &Session, a: ApplyActionArgs, json: bool) -> Result<Answered, ToolError> {
        let pick = match (a.index, a.title) {
            (Some(i), None) => Pick::Index(i),
            (None, Some(t)) => Pick::Title(t),
            _ => {
                return Err(ToolError::bad_input(
                    "give either `index` or `title` of the action",
                ));
            }
        };
        let (dry_run, confirm) = (a.dry_run.unwrap_or(false), a.confirm.unwrap_or(false));
        let file = PathBuf::from(a.file);
        let applied = session
            .editor()
            .apply_code_action(&file, a.line, a.end_line, pick, dry_run, confirm)
            .await;
        session.refactored(applied, json)
    }
}

/// Apply one code action for FILE:LINE[-END], by its number in the
/// `code-actions` list or its title (all files or none), and print the
/// errors the changed files now have.
#[derive(Debug, clap::Args)]
pub(crate) struct ApplyCodeActionCommand {
    /// The lines, as FILE:LINE or FILE:LINE-END (as given to `code-actions`).
    lines: String,
    /// The action's number in the list.
    #[arg(long, conflicts_with = "title", required_unless_present = "title")]
    index: Option<usize>,
    /// The action's title, exactly.
    #[arg(long)]
    title: Option<String>,
    /// Only print what would change.
    #[arg(long)]
    dry_run: bool,
    /// Apply changes the server marks as needing confirmation.
    #[arg(long)]
    confirm: bool,
}

impl CliCommand for ApplyCodeActionCommand {
    const NAME: &'static str = "apply-code-action";
    type Tool = ApplyCodeAction;

    fn args(self) -> Result<ApplyActionArgs, ToolError> {
        let (file, line, end_line) = parse_lines(&self.lines)?;
        Ok(ApplyActionArgs {
            file,
            line,
            end_line,
            index: self.index,
            title: self.title,
            dry_run: Some(self.dry_run),
            confirm: Some(self.confirm),
        })
    }
}
