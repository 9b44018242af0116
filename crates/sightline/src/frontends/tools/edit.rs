//! `edit`: replace an exact piece of a file, formatted, with the errors it
//! brought; the CLI's `edit`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Edit;

/// `edit` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditArgs {
    /// Absolute path of the file to change.
    pub(crate) file: String,
    /// The exact text to replace; it must occur once unless `replace_all`.
    pub(crate) old: String,
    /// The text to put in its place.
    pub(crate) new: String,
    /// Replace every occurrence of `old`.
    pub(crate) replace_all: Option<bool>,
    /// Format only the lines the edit touched (instead of the whole file),
    /// where the server or a formatter can.
    pub(crate) format_range: Option<bool>,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(crate) dry_run: Option<bool>,
    /// More replacements, in any files, each made on the text the ones
    /// before it left: all are one change (written all or none), and the
    /// answer (with `dry_run`, the preview) is the errors of all together.
    pub(crate) then: Option<Vec<NextEdit>>,
}

/// One more replacement of an `edit` chain.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NextEdit {
    /// Absolute path of the file to change.
    pub(crate) file: String,
    /// The exact text to replace; it must occur once unless `replace_all`.
    pub(crate) old: String,
    /// The text to put in its place.
    pub(crate) new: String,
    /// Replace every occurrence of `old`.
    pub(crate) replace_all: Option<bool>,
}

impl Tool for Edit {
    const NAME: &'static str = "edit";
    const TITLE: &'static str = "Edit a file";
    const DESCRIPTION: &'static str = "Replace an exact piece of text in a file (once, or every occurrence with replace_all), written atomically and formatted; `then` chains more replacements, in any files, as one change (with dry_run: the errors of all of them together, nothing written). Refused when the file changed on disk since you last read it. Answers the errors the edit introduced, in the file and in the files that use what it changed; errors already there are only counted.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<EditCommand>()];
    type Args = EditArgs;

    fn previews(a: &EditArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: EditArgs, json: bool) -> Result<Answered, ToolError> {
        let engine = session.engine();
        let dry_run = Self::previews(&a);
        // Unsaid, the configuration's `format_range` decides.
        let range = a.format_range.unwrap_or(engine.config().format_range);
        let file = PathBuf::from(a.file);
        let replace_all = a.replace_all.unwrap_or(false);
        match a.then {
            Some(then) => {
                let chain: Vec<(PathBuf, String, String, bool)> =
                    std::iter::once((file, a.old, a.new, replace_all))
                        .chain(then.into_iter().map(|e| {
                            let all = e.replace_all.unwrap_or(false);
                            (PathBuf::from(e.file), e.old, e.new, all)
                        }))
                        .collect();
                session
                    .edit(
                        dry_run,
                        move |editor| Box::pin(async move { editor.edit_chain(&chain).await }),
                        json,
                    )
                    .await
            }
            None => {
                session
                    .edit(
                        dry_run,
                        move |editor| {
                            Box::pin(async move {
                                editor
                                    .edit_with(&file, &a.old, &a.new, replace_all, range)
                                    .await
                            })
                        },
                        json,
                    )
                    .await
            }
        }
    }
}

/// Replace OLD with NEW in FILE, format it, and print the errors it now has.
#[derive(Debug, clap::Args)]
pub(crate) struct EditCommand {
    /// The file to edit.
    file: PathBuf,
    /// The text to replace.
    #[arg(long)]
    old: String,
    /// The text to put in its place.
    #[arg(long)]
    new: String,
    /// Replace every occurrence (otherwise OLD must occur once).
    #[arg(long)]
    replace_all: bool,
    /// Format only the lines the edit touched (`--format-range false`:
    /// the whole file; unsaid, the configuration's `format_range`).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    format_range: Option<bool>,
    /// Only print the errors it would bring; write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for EditCommand {
    const NAME: &'static str = "edit";
    type Tool = Edit;

    fn args(self) -> Result<EditArgs, ToolError> {
        Ok(EditArgs {
            file: absolute(&self.file),
            old: self.old,
            new: self.new,
            replace_all: Some(self.replace_all),
            format_range: self.format_range,
            dry_run: Some(self.dry_run),
            then: None,
        })
    }
}
