//! The three symbol edits, `replace_symbol_body`, `insert_before_symbol`
//! and `insert_after_symbol` (the CLI's `replace-symbol-body`, ...; the text
//! on stdin): one tool each, alike but for their names, words and
//! [`SymbolEdit`], so one macro writes them, with the arguments, run and
//! command flags they share.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edit::SymbolEdit;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli, stdin_text};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// `replace_symbol_body`, `insert_before_symbol` and
/// `insert_after_symbol` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SymbolEditArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// The symbol's name path in the file's outline (`Session/request`,
    /// `Outer/Inner/method`, or a bare name).
    pub(crate) symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    pub(crate) kind: Option<String>,
    /// The new text: for replace_symbol_body, the symbol's whole lines
    /// from the first line of its header (indentation, decorators and
    /// attributes included) to its last, as `read` with `symbol` shows them
    /// without the numbers; for the inserts, whole lines to put before or
    /// after it.
    pub(crate) text: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(crate) dry_run: Option<bool>,
}

/// Runs one symbol edit.
pub(crate) async fn run(
    session: &Session,
    how: SymbolEdit,
    a: SymbolEditArgs,
    json: bool,
) -> Result<Answered, ToolError> {
    let dry_run = a.dry_run == Some(true);
    session
        .edit(
            dry_run,
            move |editor| {
                Box::pin(async move {
                    let kind = a.kind.as_deref();
                    editor
                        .edit_symbol(Path::new(&a.file), &a.symbol, kind, how, &a.text)
                        .await
                })
            },
            json,
        )
        .await
}

// A symbol edit's flags. (No doc comment: a flattened struct's would
// replace the command's `--help` text.)
#[derive(Debug, clap::Args)]
pub(crate) struct SymbolEditFlags {
    /// The file.
    file: PathBuf,
    /// The symbol's name path in the outline (`Session/request`).
    symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// Only print the errors it would bring; write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl SymbolEditFlags {
    /// The arguments, with the text read from stdin.
    pub(crate) fn args(self) -> Result<SymbolEditArgs, ToolError> {
        Ok(SymbolEditArgs {
            file: absolute(&self.file),
            symbol: self.symbol,
            kind: self.kind,
            text: stdin_text()?,
            dry_run: Some(self.dry_run),
        })
    }
}

/// One symbol edit: its tool (`$tool`, named `$name`) and its command
/// (`$command`, named `$cli`, whose doc comment is its `--help`), which edit
/// as `$how` says.
macro_rules! symbol_edit_tool {
    (
        $tool:ident, $name:literal, $title:literal, $description:literal,
        idempotent: $idempotent:literal, how: $how:expr,
        $(#[doc = $help:literal])+ $command:ident, $cli:literal
    ) => {
        /// The tool.
        pub(crate) struct $tool;

        impl Tool for $tool {
            const NAME: &'static str = $name;
            const TITLE: &'static str = $title;
            const DESCRIPTION: &'static str = $description;
            const EFFECT: Effect = Effect::Writes {
                idempotent: $idempotent,
            };
            const SERVED: Served = Served::WithEditTools;
            const CLI: &'static [CliEntry] = &[cli::<$command>()];
            type Args = SymbolEditArgs;

            fn previews(a: &SymbolEditArgs) -> bool {
                a.dry_run == Some(true)
            }

            async fn run(
                session: &Session,
                a: SymbolEditArgs,
                json: bool,
            ) -> Result<Answered, ToolError> {
                run(session, $how, a, json).await
            }
        }

        $(#[doc = $help])+
        #[derive(Debug, clap::Args)]
        pub(crate) struct $command {
            #[command(flatten)]
            flags: SymbolEditFlags,
        }

        impl CliCommand for $command {
            const NAME: &'static str = $cli;
            type Tool = $tool;

            fn args(self) -> Result<SymbolEditArgs, ToolError> {
                self.flags.args()
            }
        }
    };
}

symbol_edit_tool!(
    ReplaceSymbolBody,
    "replace_symbol_body",
    "Replace a symbol",
    "Replace a symbol's whole lines (found by its name path, such as `Session/request`, in the file's outline: from the first line of its header, decorators included, to its last) with `text`, written atomically and formatted. Refused when the file changed on disk since its outline was read. Answers the errors the change introduced, as edit does.",
    idempotent: true,
    how: SymbolEdit::Replace,
    /// Replace the whole lines of the symbol NAME_PATH in FILE (from the
    /// first line of its header to its last, as `read --symbol` shows them)
    /// with the text on stdin, format it, and print the errors it brought.
    ReplaceSymbolBodyCommand,
    "replace-symbol-body"
);

symbol_edit_tool!(
    InsertBeforeSymbol,
    "insert_before_symbol",
    "Insert before a symbol",
    "Put `text` as whole lines right before a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.",
    idempotent: false,
    how: SymbolEdit::Before,
    /// Put the text on stdin, as whole lines, right before the symbol
    /// NAME_PATH in FILE; format it, and print the errors it brought.
    InsertBeforeSymbolCommand,
    "insert-before-symbol"
);

symbol_edit_tool!(
    InsertAfterSymbol,
    "insert_after_symbol",
    "Insert after a symbol",
    "Put `text` as whole lines right after a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.",
    idempotent: false,
    how: SymbolEdit::After,
    /// Put the text on stdin, as whole lines, right after the symbol
    /// NAME_PATH in FILE; format it, and print the errors it brought.
    InsertAfterSymbolCommand,
    "insert-after-symbol"
);
