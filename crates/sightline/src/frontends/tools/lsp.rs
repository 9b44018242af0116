//! `lsp`: one question picked by `operation`, each answered as its own tool
//! would be, in text; the CLI's `hover`, `symbols`, `workspace-symbols`,
//! `implementation`, `calls` and `types`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::answer::ItemsKind;
use crate::error::ToolError;
use crate::frontends::tools::args::SymbolPosition;
use crate::frontends::tools::cli::{CliCommand, CliEntry, SymbolAt, absolute, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};
use crate::render;

/// The tool.
pub(crate) struct Lsp;

/// The question the `lsp` tool asks.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
    Supertypes,
    Subtypes,
}

/// `lsp` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LspArgs {
    /// documentSymbol takes `file`; workspaceSymbol `query` (and `file`
    /// for the project); the others a position.
    pub(crate) operation: Operation,
    /// Absolute path.
    pub(crate) file: Option<String>,
    /// Where the symbol is.
    #[serde(flatten)]
    pub(crate) at: SymbolPosition,
    /// For workspaceSymbol: the name, or part of it.
    pub(crate) query: Option<String>,
}

impl LspArgs {
    /// The question `operation` about the symbol at a place.
    fn at(operation: Operation, at: SymbolAt) -> Result<LspArgs, ToolError> {
        let at = at.place()?;
        Ok(LspArgs {
            operation,
            file: Some(at.file),
            at: at.at,
            query: None,
        })
    }
}

impl Tool for Lsp {
    const NAME: &'static str = "lsp";
    const TITLE: &'static str = "Language server question";
    const DESCRIPTION: &'static str = "What the type checker knows: hover (type and docs), documentSymbol (a file's outline), workspaceSymbol (find a name), goToImplementation, incomingCalls (callers), outgoingCalls (callees), supertypes, subtypes, prepareCallHierarchy, goToDefinition, findReferences. Use it instead of grep and reading whole files.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Always;
    const RETRIED: bool = true;
    const CLI: &'static [CliEntry] = &[
        cli::<HoverCommand>(),
        cli::<SymbolsCommand>(),
        cli::<WorkspaceSymbolsCommand>(),
        cli::<ImplementationCommand>(),
        cli::<TypesCommand>(),
        cli::<CallsCommand>(),
    ];
    type Args = LspArgs;

    async fn run(session: &Session, a: LspArgs, json: bool) -> Result<Answered, ToolError> {
        answer(session, a)
            .await
            .map(|text| Answered::text(text, json))
    }
}

/// The text of one `lsp` call.
async fn answer(session: &Session, a: LspArgs) -> Result<String, ToolError> {
    let engine = session.engine();
    let need_file = || {
        a.file.as_ref().map(PathBuf::from).ok_or_else(|| {
            ToolError::bad_input(
                format!("{:?} needs `file` (an absolute path)", a.operation).replace('"', ""),
            )
        })
    };
    let position = || async {
        let file = need_file()?;
        let (line, col) = session.position_of(&file, &a.at).await?;
        Ok::<_, ToolError>((file, line, col))
    };
    match a.operation {
        Operation::GoToDefinition => {
            let (f, l, c) = position().await?;
            let found = engine.definition(&f, l, c).await?;
            Ok(render::locations_text(&found))
        }
        Operation::FindReferences => {
            let (f, l, c) = position().await?;
            let found = engine.references(&f, l, c, false).await?;
            Ok(render::locations_text(&found))
        }
        Operation::GoToImplementation => {
            let (f, l, c) = position().await?;
            let found = engine.implementation(&f, l, c).await?;
            Ok(render::locations_text(&found))
        }
        Operation::Hover => {
            let (f, l, c) = position().await?;
            Ok(render::hover_text(&engine.hover(&f, l, c).await?))
        }
        Operation::DocumentSymbol => {
            let f = need_file()?;
            if f.is_dir() {
                return engine.directory_symbols(&f).await;
            }
            Ok(render::items_text(&engine.document_symbols(&f).await?))
        }
        Operation::WorkspaceSymbol => {
            let query = a.query.clone().ok_or_else(|| {
                ToolError::bad_input("workspaceSymbol needs `query` (a name or part of one)")
            })?;
            let file = a.file.as_ref().map(PathBuf::from);
            let found = engine.workspace_symbols(&query, file.as_deref()).await?;
            Ok(render::items_text(&found))
        }
        op @ (Operation::PrepareCallHierarchy
        | Operation::IncomingCalls
        | Operation::OutgoingCalls) => {
            let (f, l, c) = position().await?;
            let kind = match op {
                Operation::IncomingCalls => ItemsKind::IncomingCalls,
                Operation::OutgoingCalls => ItemsKind::OutgoingCalls,
                _ => ItemsKind::CallItems,
            };
            Ok(render::items_text(
                &engine.call_hierarchy(&f, l, c, kind).await?,
            ))
        }
        op @ (Operation::Supertypes | Operation::Subtypes) => {
            let (f, l, c) = position().await?;
            let up = matches!(op, Operation::Supertypes);
            Ok(render::items_text(
                &engine.type_hierarchy(&f, l, c, up).await?,
            ))
        }
    }
}

/// Print the type and documentation of the symbol at FILE:LINE:COL.
#[derive(Debug, clap::Args)]
pub(crate) struct HoverCommand {
    #[command(flatten)]
    at: SymbolAt,
}

impl CliCommand for HoverCommand {
    const NAME: &'static str = "hover";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        LspArgs::at(Operation::Hover, self.at)
    }
}

/// Print the outline of FILE: its symbols, nested, with line ranges.
#[derive(Debug, clap::Args)]
pub(crate) struct SymbolsCommand {
    /// The file.
    file: PathBuf,
}

impl CliCommand for SymbolsCommand {
    const NAME: &'static str = "symbols";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        Ok(LspArgs {
            operation: Operation::DocumentSymbol,
            file: Some(absolute(&self.file)),
            at: SymbolPosition::default(),
            query: None,
        })
    }
}

/// Print the symbols of the workspace whose names match QUERY.
#[derive(Debug, clap::Args)]
pub(crate) struct WorkspaceSymbolsCommand {
    /// A name or part of one.
    query: String,
    /// A file of the workspace, to pick its servers (default: every
    /// running server).
    #[arg(long)]
    file: Option<PathBuf>,
}

impl CliCommand for WorkspaceSymbolsCommand {
    const NAME: &'static str = "workspace-symbols";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        Ok(LspArgs {
            operation: Operation::WorkspaceSymbol,
            file: self.file.as_deref().map(absolute),
            at: SymbolPosition::default(),
            query: Some(self.query),
        })
    }
}

/// Print where the symbol at FILE:LINE:COL is implemented (an interface's
/// or abstract method's concrete versions).
#[derive(Debug, clap::Args)]
pub(crate) struct ImplementationCommand {
    #[command(flatten)]
    at: SymbolAt,
}

impl CliCommand for ImplementationCommand {
    const NAME: &'static str = "implementation";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        LspArgs::at(Operation::GoToImplementation, self.at)
    }
}

/// Which way `types` looks.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum TypesDirection {
    /// Supertypes.
    Up,
    /// Subtypes.
    Down,
}

/// Print the supertypes (`up`: what the type at FILE:LINE:COL extends
/// or implements) or subtypes (`down`: what extends or implements it).
#[derive(Debug, clap::Args)]
pub(crate) struct TypesCommand {
    /// `up`: supertypes; `down`: subtypes.
    direction: TypesDirection,
    #[command(flatten)]
    at: SymbolAt,
}

impl CliCommand for TypesCommand {
    const NAME: &'static str = "types";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        let operation = match self.direction {
            TypesDirection::Up => Operation::Supertypes,
            TypesDirection::Down => Operation::Subtypes,
        };
        LspArgs::at(operation, self.at)
    }
}

/// Which way `calls` looks.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum CallsDirection {
    /// Who calls it.
    In,
    /// What it calls.
    Out,
}

/// Print the calls into (`in`) or out of (`out`) the function at
/// FILE:LINE:COL.
#[derive(Debug, clap::Args)]
pub(crate) struct CallsCommand {
    /// `in`: who calls it; `out`: what it calls.
    direction: CallsDirection,
    #[command(flatten)]
    at: SymbolAt,
}

impl CliCommand for CallsCommand {
    const NAME: &'static str = "calls";
    type Tool = Lsp;

    fn args(self) -> Result<LspArgs, ToolError> {
        let operation = match self.direction {
            CallsDirection::In => Operation::IncomingCalls,
            CallsDirection::Out => Operation::OutgoingCalls,
        };
        LspArgs::at(operation, self.at)
    }
}
