//! `replace_symbol_body`: a symbol's whole lines replaced; the CLI's `replace-symbol-body` (the text on stdin).

use crate::edit::SymbolEdit;
use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli};
use crate::frontends::tools::symbol_edit::{self, SymbolEditArgs, SymbolEditFlags};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct ReplaceSymbolBody;

impl Tool for ReplaceSymbolBody {
    const NAME: &'static str = "replace_symbol_body";
    const TITLE: &'static str = "Replace a symbol";
    const DESCRIPTION: &'static str = "Replace a symbol's whole lines (found by its name path, such as `Session/request`, in the file's outline: from the first line of its header, decorators included, to its last) with `text`, written atomically and formatted. Refused when the file changed on disk since its outline was read. Answers the errors the change introduced, as edit does.";
    const EFFECT: Effect = Effect::Writes { idempotent: true };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<ReplaceSymbolBodyCommand>()];
    type Args = SymbolEditArgs;

    fn previews(a: &SymbolEditArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: SymbolEditArgs, json: bool) -> Result<Answered, ToolError> {
        symbol_edit::run(session, SymbolEdit::Replace, a, json).await
    }
}

/// Replace the whole lines of the symbol NAME_PATH in FILE (from the
/// first line of its header to its last, as `read --symbol` shows them)
/// with the text on stdin, format it, and print the errors it brought.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplaceSymbolBodyCommand {
    #[command(flatten)]
    flags: SymbolEditFlags,
}

impl CliCommand for ReplaceSymbolBodyCommand {
    const NAME: &'static str = "replace-symbol-body";
    type Tool = ReplaceSymbolBody;

    fn args(self) -> Result<SymbolEditArgs, ToolError> {
        self.flags.args()
    }
}
