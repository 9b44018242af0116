//! `safe_delete`: a symbol deleted only when nothing outside it uses it;
//! the CLI's `safe-delete`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct SafeDelete;

/// `safe_delete` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SafeDeleteArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// The symbol's name path in the file's outline (`Session/request`).
    pub(crate) symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    pub(crate) kind: Option<String>,
    /// Delete it even while it is used; the answer then lists what broke.
    pub(crate) force: Option<bool>,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(crate) dry_run: Option<bool>,
}

impl Tool for SafeDelete {
    const NAME: &'static str = "safe_delete";
    const TITLE: &'static str = "Delete a symbol";
    const DESCRIPTION: &'static str = "Delete a symbol (found by its name path) only when nothing outside it uses it: otherwise nothing is written and the answer lists the uses. With force, delete it anyway and answer the errors that broke.";
    const EFFECT: Effect = Effect::Writes { idempotent: false };
    const SERVED: Served = Served::WithEditTools;
    const CLI: &'static [CliEntry] = &[cli::<SafeDeleteCommand>()];
    type Args = SafeDeleteArgs;

    fn previews(a: &SafeDeleteArgs) -> bool {
        a.dry_run == Some(true)
    }

    async fn run(session: &Session, a: SafeDeleteArgs, json: bool) -> Result<Answered, ToolError> {
        let force = a.force.unwrap_or(false);
        let dry_run = Self::previews(&a);
        session
            .edit(
                dry_run,
                move |editor| {
                    Box::pin(async move {
                        let kind = a.kind.as_deref();
                        editor
                            .safe_delete(Path::new(&a.file), &a.symbol, kind, force)
                            .await
                    })
                },
                json,
            )
            .await
    }
}

/// Delete the symbol NAME_PATH from FILE when nothing outside it uses
/// it; otherwise print its uses and write nothing (exit 2). With
/// --force, delete it anyway and print the errors that broke.
#[derive(Debug, clap::Args)]
pub(crate) struct SafeDeleteCommand {
    /// The file.
    file: PathBuf,
    /// The symbol's name path in the outline (`Session/request`).
    symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// Delete it even while it is used.
    #[arg(long)]
    force: bool,
    /// Only print the errors it would bring; write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl CliCommand for SafeDeleteCommand {
    const NAME: &'static str = "safe-delete";
    type Tool = SafeDelete;

    fn args(self) -> Result<SafeDeleteArgs, ToolError> {
        Ok(SafeDeleteArgs {
            file: absolute(&self.file),
            symbol: self.symbol,
            kind: self.kind,
            force: Some(self.force),
            dry_run: Some(self.dry_run),
        })
    }
}
