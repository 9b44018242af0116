//! `read`: a file with numbered lines, or one symbol's lines; the CLI's
//! `read`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Read;

/// `read` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadArgs {
    /// Absolute path of the file.
    pub(crate) file: String,
    /// Only this symbol's lines, by its name path in the file's outline
    /// (`Session/request`, or a bare name).
    pub(crate) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(crate) kind: Option<String>,
    /// The first line to show, 1-based (default 1).
    #[schemars(range(min = 1))]
    pub(crate) offset: Option<usize>,
    /// How many lines to show (default 2000).
    #[schemars(range(min = 1))]
    pub(crate) limit: Option<usize>,
}

impl Tool for Read {
    const NAME: &'static str = "read";
    const TITLE: &'static str = "Read a file";
    const DESCRIPTION: &'static str = "Print a file with numbered lines (1-based: the numbers the lsp tools take), and start its language server in the background so that the next question is fast. With `symbol` (a name path such as `Session/request`), only that symbol's lines.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::WithEditTools;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<ReadCommand>()];
    type Args = ReadArgs;

    async fn run(session: &Session, a: ReadArgs, json: bool) -> Result<Answered, ToolError> {
        let engine = session.engine();
        let file = PathBuf::from(a.file);
        if let Some(name_path) = &a.symbol {
            let text = session
                .editor()
                .read_symbol(&file, name_path, a.kind.as_deref())
                .await?;
            return Ok(Answered::text(text, json));
        }
        let text = session.editor().read(&file, a.offset, a.limit)?;
        // The next question of a lasting session finds its server started.
        if session.lasting() {
            let engine = engine.clone();
            tokio::spawn(async move { engine.warm(&file).await });
        }
        Ok(Answered::text(text, json))
    }
}

/// Print FILE with numbered lines (the numbers the other commands take).
#[derive(Debug, clap::Args)]
pub(crate) struct ReadCommand {
    /// The file to print.
    file: PathBuf,
    /// The first line to print (1-based).
    #[arg(long)]
    offset: Option<usize>,
    /// How many lines to print (default 2000).
    #[arg(long)]
    limit: Option<usize>,
    /// Only this symbol's lines, by its name path in the outline
    /// (`Session/request`, or a bare name).
    #[arg(long, value_name = "NAME_PATH")]
    symbol: Option<String>,
    /// With --symbol: only symbols of this kind (function, method, class, ...).
    #[arg(long, value_name = "KIND", requires = "symbol")]
    kind: Option<String>,
}

impl CliCommand for ReadCommand {
    const NAME: &'static str = "read";
    type Tool = Read;

    fn args(self) -> Result<ReadArgs, ToolError> {
        Ok(ReadArgs {
            file: absolute(&self.file),
            symbol: self.symbol,
            kind: self.kind,
            offset: self.offset,
            limit: self.limit,
        })
    }
}
