//! What the three symbol edits share (`replace_symbol_body`,
//! `insert_before_symbol`, `insert_after_symbol`): their arguments, their
//! run, and their command's flags (the text on stdin).

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::edit::SymbolEdit;
use crate::error::ToolError;
use crate::frontends::tools::cli::{absolute, stdin_text};
use crate::frontends::tools::{Answered, Session};

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
    let engine = session.engine();
    let dry_run = a.dry_run.unwrap_or(false);
    let done = engine
        .editor()
        .edit_or_preview(dry_run, move |editor| {
            Box::pin(async move {
                let kind = a.kind.as_deref();
                editor
                    .edit_symbol(Path::new(&a.file), &a.symbol, kind, how, &a.text)
                    .await
            })
        })
        .await;
    session.edited(done, json)
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
