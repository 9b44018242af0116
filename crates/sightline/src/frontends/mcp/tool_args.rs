//! The arguments of each tool, as serde reads them and schemars describes
//! them in the tool list (the doc comments are the descriptions).

use schemars::JsonSchema;
use serde::Deserialize;

/// `lsp_diagnostics` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DiagnosticsArgs {
    /// Absolute path of the file, e.g. /repo/src/app.py. The file is read from
    /// disk as it is now; save edits before asking. Needed unless `since`
    /// is given.
    pub(super) file: Option<String>,
    /// A checkpoint (`cp3`) from an edit answer or the `checkpoint` tool:
    /// answer only what changed since, for `file`, or without it for every
    /// file the checkpoint holds.
    pub(super) since: Option<String>,
    /// `symbol`: each finding also names the symbol it sits in
    /// (`LINE:COL [Session.request] SEVERITY: ...`).
    pub(super) context: Option<Context>,
}

/// What an answer's places carry besides their line (`context`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum Context {
    /// The name path of the symbol each place sits in.
    Symbol,
}

/// What a rename does to a re-exported name (`public_names`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum PublicNamesArg {
    /// Renamed everywhere, importers included.
    Rename,
    /// Kept as an alias of the new name.
    Keep,
}

impl From<PublicNamesArg> for crate::edit::refactor::PublicNames {
    fn from(a: PublicNamesArg) -> Self {
        match a {
            PublicNamesArg::Rename => Self::Rename,
            PublicNamesArg::Keep => Self::Keep,
        }
    }
}

/// `checkpoint` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CheckpointArgs {
    /// Absolute path of a file, or of a directory to check whole; default:
    /// the workspace.
    pub(super) path: Option<String>,
}

/// `lsp_definition` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PositionArgs {
    /// Absolute path of the file holding the symbol.
    pub(super) file: String,
    /// 1-based line number, as a `read` tool or a traceback shows it. Not
    /// needed with `symbol`.
    #[schemars(range(min = 1))]
    pub(super) line: Option<usize>,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    pub(super) column: Option<usize>,
    /// Without `line`: the symbol's name path in the file's outline
    /// (`Session/request`, `Outer/Inner/method`, or a bare name); with
    /// `line`, its name on that line. When it names none or several, the
    /// answer lists the candidates.
    pub(super) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class,
    /// ...).
    pub(super) kind: Option<String>,
    /// `symbol`: each place also names the symbol it sits in
    /// (`PATH:LINE:COL [Session.request] TEXT`).
    pub(super) context: Option<Context>,
}

/// `lsp_references` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ReferencesArgs {
    /// Absolute path of the file holding the symbol.
    pub(super) file: String,
    /// 1-based line number, as a `read` tool or a traceback shows it. Not
    /// needed with `symbol`.
    #[schemars(range(min = 1))]
    pub(super) line: Option<usize>,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    pub(super) column: Option<usize>,
    /// Without `line`: the symbol's name path (`Session/request`); with
    /// `line`, its name on that line.
    pub(super) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// Also list the declaration itself. Default false: only uses.
    pub(super) include_declaration: Option<bool>,
    /// `symbol`: each place also names the symbol it sits in
    /// (`PATH:LINE:COL [Session.request] TEXT`).
    pub(super) context: Option<Context>,
}

/// The question the `lsp` tool asks.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) enum Operation {
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
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LspArgs {
    /// goToDefinition, findReferences, hover (type and docs), goToImplementation,
    /// prepareCallHierarchy, incomingCalls (who calls it), outgoingCalls
    /// (what it calls), supertypes (what a type extends or implements) and
    /// subtypes (what extends or implements it) take `file`, `line` and
    /// `column` (or `symbol`);
    /// documentSymbol (the outline of a file, or of each file of a
    /// directory) takes `file`; workspaceSymbol
    /// takes `query` and optionally `file` to choose the language and project.
    pub(super) operation: Operation,
    /// Absolute path of the file.
    pub(super) file: Option<String>,
    /// 1-based line number, as a `read` tool or a traceback shows it.
    #[schemars(range(min = 1))]
    pub(super) line: Option<usize>,
    /// 1-based column in characters, pointing at the symbol itself (not the
    /// start of the line). Give either `column` or `symbol`.
    #[schemars(range(min = 1))]
    pub(super) column: Option<usize>,
    /// Without `line`: the symbol's name path (`Session/request`); with
    /// `line`, its name on that line.
    pub(super) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// For workspaceSymbol: the name, or part of it, to search for.
    pub(super) query: Option<String>,
}

/// `lsp_check` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CheckArgs {
    /// Absolute path of a directory to check; default: the workspace.
    pub(super) path: Option<String>,
    /// A checkpoint (`cp3`): answer only the errors new since it, and count
    /// those fixed and those already there.
    pub(super) since: Option<String>,
}

/// `lsp_restart` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RestartArgs {
    /// The server id (pyright, typescript, rust, clangd, ...); default: every
    /// running server.
    pub(super) server: Option<String>,
    /// Only servers of projects at or below this absolute directory;
    /// default: the session's workspace.
    pub(super) root: Option<String>,
}

/// `rename` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RenameArgs {
    /// Absolute path of the file holding the symbol.
    pub(super) file: String,
    /// 1-based line number. Not needed with `symbol`.
    #[schemars(range(min = 1))]
    pub(super) line: Option<usize>,
    /// 1-based column in characters, on the symbol. Give either `column` or
    /// `symbol`.
    #[schemars(range(min = 1))]
    pub(super) column: Option<usize>,
    /// Without `line`: the symbol's name path (`Session/request`); with
    /// `line`, its name on that line.
    pub(super) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// The new name.
    pub(super) new_name: String,
    /// A name that a module re-exports (`export { f } from "./util"`):
    /// `rename` (the default) renames it there and in every module
    /// importing it through it; `keep` keeps the old public name as an
    /// alias there (`export { g as f }`), leaving those importers as they
    /// are.
    pub(super) public_names: Option<PublicNamesArg>,
    /// Only show what would change: each file with its changed lines, old
    /// and new. Nothing is written.
    pub(super) dry_run: Option<bool>,
    /// Apply changes the server marks as needing confirmation (shown by
    /// `dry_run`).
    pub(super) confirm: Option<bool>,
}

/// `code_actions` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CodeActionsArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// The first line (1-based).
    #[schemars(range(min = 1))]
    pub(super) line: usize,
    /// The last line (default: `line`).
    #[schemars(range(min = 1))]
    pub(super) end_line: Option<usize>,
    /// Only actions of this kind: quickfix, refactor, refactor.extract,
    /// source.organizeImports, ...
    pub(super) kind: Option<String>,
}

/// `apply_code_action` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ApplyActionArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// The first line (1-based), as given to `code_actions`.
    #[schemars(range(min = 1))]
    pub(super) line: usize,
    /// The last line, as given to `code_actions`.
    #[schemars(range(min = 1))]
    pub(super) end_line: Option<usize>,
    /// The action's number in the `code_actions` list. Give `index` or
    /// `title`.
    #[schemars(range(min = 1))]
    pub(super) index: Option<usize>,
    /// The action's title, exactly as listed.
    pub(super) title: Option<String>,
    /// Only show what would change.
    pub(super) dry_run: Option<bool>,
    /// Apply changes the server marks as needing confirmation.
    pub(super) confirm: Option<bool>,
}

/// `organize_imports` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct OrganizeArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// Only show what would change.
    pub(super) dry_run: Option<bool>,
}

/// `read` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ReadArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// Only this symbol's lines, by its name path in the file's outline
    /// (`Session/request`, or a bare name).
    pub(super) symbol: Option<String>,
    /// With `symbol`: only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// The first line to show, 1-based (default 1).
    #[schemars(range(min = 1))]
    pub(super) offset: Option<usize>,
    /// How many lines to show (default 2000).
    #[schemars(range(min = 1))]
    pub(super) limit: Option<usize>,
}

/// `write` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct WriteArgs {
    /// Absolute path of the file to create or replace.
    pub(super) file: String,
    /// The whole new content of the file.
    pub(super) content: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(super) dry_run: Option<bool>,
}

/// `edit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct EditArgs {
    /// Absolute path of the file to change.
    pub(super) file: String,
    /// The exact text to replace; it must occur once unless `replace_all`.
    pub(super) old: String,
    /// The text to put in its place.
    pub(super) new: String,
    /// Replace every occurrence of `old`.
    pub(super) replace_all: Option<bool>,
    /// Format only the lines the edit touched (instead of the whole file),
    /// where the server or a formatter can.
    pub(super) format_range: Option<bool>,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(super) dry_run: Option<bool>,
}

/// `replace_symbol_body`, `insert_before_symbol` and
/// `insert_after_symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SymbolEditArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// The symbol's name path in the file's outline (`Session/request`,
    /// `Outer/Inner/method`, or a bare name).
    pub(super) symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// The new text: for replace_symbol_body, the symbol's whole lines
    /// from the first line of its header (indentation, decorators and
    /// attributes included) to its last, as `read` with `symbol` shows them
    /// without the numbers; for the inserts, whole lines to put before or
    /// after it.
    pub(super) text: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(super) dry_run: Option<bool>,
}

/// `safe_delete` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SafeDeleteArgs {
    /// Absolute path of the file.
    pub(super) file: String,
    /// The symbol's name path in the file's outline (`Session/request`).
    pub(super) symbol: String,
    /// Only symbols of this kind (function, method, class, ...).
    pub(super) kind: Option<String>,
    /// Delete it even while it is used; the answer then lists what broke.
    pub(super) force: Option<bool>,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(super) dry_run: Option<bool>,
}

/// `apply_patch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PatchArgs {
    /// A patch from `*** Begin Patch` to `*** End Patch` with `*** Add File:`,
    /// `*** Delete File:`, `*** Update File:` (with `*** Move to:` and `@@`
    /// hunks of ` `, `-`, `+` lines). Relative paths start at the workspace.
    pub(super) patch: String,
    /// Only compute the errors the change would bring: the servers are
    /// told the new text in memory and asked, and nothing is written.
    pub(super) dry_run: Option<bool>,
}
