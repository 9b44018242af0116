//! `lsp_diagnostics`: the errors and warnings of one file as it is on disk
//! now, or what changed since a checkpoint; the CLI's `diagnostics`.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::args::Context;
use crate::frontends::tools::cli::{CliCommand, CliEntry, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};
use crate::render;

/// The tool.
pub(crate) struct Diagnostics;

/// `lsp_diagnostics` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiagnosticsArgs {
    /// Absolute path; needed unless `since` is given.
    pub(crate) file: Option<String>,
    /// A checkpoint (`cp3`): only what changed since, in `file` or all.
    pub(crate) since: Option<String>,
    /// `symbol`: also name the symbol each finding sits in.
    pub(crate) context: Option<Context>,
}

impl Tool for Diagnostics {
    const NAME: &'static str = "lsp_diagnostics";
    const TITLE: &'static str = "Diagnostics of a file";
    const DESCRIPTION: &'static str = "The errors and warnings the type checker (pyright, tsserver...) reports for one file as it is on disk now. Use it right after an edit, instead of a build or the tests, to learn what broke. With `since` (a checkpoint): only what changed.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[cli::<DiagnosticsCommand>()];
    type Args = DiagnosticsArgs;

    async fn run(session: &Session, a: DiagnosticsArgs, json: bool) -> Result<Answered, ToolError> {
        match (a.file.map(PathBuf::from), a.since) {
            (file, Some(name)) => session.since(&name, file.as_deref(), json).await,
            (Some(file), None) => diagnostics(session, &file, a.context, json).await,
            (None, None) => Err(ToolError::bad_input(
                "give `file` (an absolute path), or `since` (a checkpoint)",
            )),
        }
    }
}

/// A diagnostics answer, with the symbol each finding sits in when
/// `context` asks for it.
async fn diagnostics(
    session: &Session,
    file: &Path,
    context: Option<Context>,
    json: bool,
) -> Result<Answered, ToolError> {
    let engine = session.engine();
    let mut d = engine.diagnostics(file).await?;
    if context == Some(Context::Symbol) {
        let places: Vec<_> = d
            .diagnostics
            .iter()
            .map(|f| (d.file.clone(), f.line))
            .collect();
        d.enclosing = engine.enclosing_symbols(&places).await;
    }
    Ok(Answered {
        text: render::diagnostics_text(&d),
        json: json.then(|| render::diagnostics_json(&d)),
        errors: d.has_errors(),
    })
}

/// Print the errors and warnings of FILE as it is on disk now.
#[derive(Debug, clap::Args)]
pub(crate) struct DiagnosticsCommand {
    /// The file to check.
    file: PathBuf,
    /// `symbol`: each finding also names the symbol it sits in.
    #[arg(long)]
    context: Option<Context>,
}

impl CliCommand for DiagnosticsCommand {
    const NAME: &'static str = "diagnostics";
    type Tool = Diagnostics;

    fn args(self) -> Result<DiagnosticsArgs, ToolError> {
        Ok(DiagnosticsArgs {
            file: Some(absolute(&self.file)),
            since: None,
            context: self.context,
        })
    }
}
