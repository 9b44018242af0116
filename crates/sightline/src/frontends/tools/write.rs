//! `write`: create or replace a file, formatted, with the errors it brought;
//! the CLI's `write` (the content on stdin).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli, stdin_text};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Write;

/// `write` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteArgs {
    /// Absolute path of the file to create or replace.
    pub(crate) file: String,
    /// The whole new content of the file.
    pub(crate) content: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(crate) dry_run: Option<bool>,
}

impl Tool for Write {
    const NAME: &'static str = "write";
    const TITLE: &'static str = "Write a file";
    const DESCRIPTION: &'static str = "Create or replace a file with the given content, written atomically (permissions, byte-order mark and line endings kept), then formatted. Answers what was done and the errors the write introduced: in the file, and in the files that use what it changed (a signature, a name, a type), opened or not; errors already there are only counted. Ends with a checkpoint (for lsp_diagnostics `since`) of the files as they were.";
    const EFFECT: Effect = Effect::Writes { idempotent: true };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<WriteCommand>()];
    type Args = WriteArgs;

    fn previews(a: &WriteArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: WriteArgs, json: bool) -> Result<Answered, ToolError> {
        let dry_run = Self::previews(&a);
        let file = PathBuf::from(a.file);
        session
            .edit(
                dry_run,
                move |editor| Box::pin(async move { editor.write(&file, &a.content).await }),
                json,
            )
            .await
    }
}

/// Replace (or create) FILE with the text on stdin, format it, and print
/// the errors it now has.
#[derive(Debug, clap::Args)]
pub(crate) struct WriteCommand {
    /// The file to write.
    file: PathBuf,
    /// Only print the errors it would bring; write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for WriteCommand {
    const NAME: &'static str = "write";
    type Tool = Write;

    fn args(self) -> Result<WriteArgs, ToolError> {
        Ok(WriteArgs {
            file: absolute(&self.file),
            content: stdin_text()?,
            dry_run: Some(self.dry_run),
        })
    }
}
