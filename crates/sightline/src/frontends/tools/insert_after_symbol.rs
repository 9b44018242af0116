//! `insert_after_symbol`: whole lines put right after a symbol; the CLI's `insert-after-symbol` (the text on stdin).

use crate::edit::SymbolEdit;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli};
use crate::frontends::tools::symbol_edit::{self, SymbolEditArgs, SymbolEditFlags};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct InsertAfterSymbol;

impl Tool for InsertAfterSymbol {
    const NAME: &'static str = "insert_after_symbol";
    const TITLE: &'static str = "Insert after a symbol";
    const DESCRIPTION: &'static str = "Put `text` as whole lines right after a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<InsertAfterSymbolCommand>()];
    type Args = SymbolEditArgs;

    fn previews(a: &SymbolEditArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: SymbolEditArgs, json: bool) -> Result<Answered, ToolError> {
        symbol_edit::run(session, SymbolEdit::After, a, json).await
    }
}

/// Put the text on stdin, as whole lines, right after the symbol
/// NAME_PATH in FILE; format it, and print the errors it brought.
#[derive(Debug, clap::Args)]
pub(crate) struct InsertAfterSymbolCommand {
    #[command(flatten)]
    flags: SymbolEditFlags,
}

impl CliCommand for InsertAfterSymbolCommand {
    const NAME: &'static str = "insert-after-symbol";
    type Tool = InsertAfterSymbol;

    fn args(self) -> Result<SymbolEditArgs, ToolError> {
        self.flags.args()
    }
}
