//! `insert_before_symbol`: whole lines put right before a symbol; the CLI's `insert-before-symbol` (the text on stdin).

use crate::edit::SymbolEdit;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli};
use crate::frontends::tools::symbol_edit::{self, SymbolEditArgs, SymbolEditFlags};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct InsertBeforeSymbol;

impl Tool for InsertBeforeSymbol {
    const NAME: &'static str = "insert_before_symbol";
    const TITLE: &'static str = "Insert before a symbol";
    const DESCRIPTION: &'static str = "Put `text` as whole lines right before a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<InsertBeforeSymbolCommand>()];
    type Args = SymbolEditArgs;

    fn previews(a: &SymbolEditArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: SymbolEditArgs, json: bool) -> Result<Answered, ToolError> {
        symbol_edit::run(session, SymbolEdit::Before, a, json).await
    }
}

/// Put the text on stdin, as whole lines, right before the symbol
/// NAME_PATH in FILE; format it, and print the errors it brought.
#[derive(Debug, clap::Args)]
pub(crate) struct InsertBeforeSymbolCommand {
    #[command(flatten)]
    flags: SymbolEditFlags,
}

impl CliCommand for InsertBeforeSymbolCommand {
    const NAME: &'static str = "insert-before-symbol";
    type Tool = InsertBeforeSymbol;

    fn args(self) -> Result<SymbolEditArgs, ToolError> {
        self.flags.args()
    }
}
