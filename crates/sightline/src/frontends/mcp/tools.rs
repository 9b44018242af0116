//! The tools `sightline mcp` lists: each tool's description, its argument
//! schema (from the argument types), and its annotations.

use std::sync::Arc;

use crate::frontends::mcp::tool_args::{
    ApplyActionArgs, CheckArgs, CheckpointArgs, CodeActionsArgs, DiagnosticsArgs, EditArgs,
    LspArgs, OrganizeArgs, PatchArgs, PositionArgs, ReadArgs, ReferencesArgs, RenameArgs,
    RestartArgs, SafeDeleteArgs, SymbolEditArgs, WriteArgs,
};
use crate::frontends::mcp::tool_name::ToolName;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::Value;

const DIAGNOSTICS: &str = "Errors and warnings that the project's real type checker (pyright, the TypeScript server, ...) reports for one file as it is on disk now. Use it right after editing a file, instead of running the build or the tests, to learn what the edit broke. Answers `PATH: N diagnostics`, then one `LINE:COL SEVERITY: MESSAGE [SOURCE]` line each; a `note:` line says when the server could not confirm fresh results in time. With `since` (a checkpoint), answers only what changed since it: `since cp3: N new errors in M files; F fixed; K were already there`.";
const CHECKPOINT: &str = "Remember the errors of a file, or of a whole project (default: the workspace), so that lsp_diagnostics or lsp_check with `since` later answer only what changed. Use it before a series of edits, to learn at the end what they broke and fixed in all. Every edit answer also names a checkpoint of the files as they were before it. Answers `checkpoint cpN: ...` with the errors it holds. A session keeps its last 32.";
const DEFINITION: &str = "Where the symbol at a position is really defined, resolved by the language server through imports, aliases and re-exports. Use it instead of grep when a name is common, imported or overloaded. Answers `N definitions`, then `PATH:LINE:COL SOURCE_LINE` each.";
const REFERENCES: &str = "Every place in the workspace that uses the symbol at a position, resolved by the language server: the same word in a comment or string is not listed, a call through an import alias is. Use it instead of grep before renaming a symbol or changing its signature. Answers `N references`, then `PATH:LINE:COL SOURCE_LINE` each (at most 50; narrow the question for more).";
const LSP: &str = "Ask the language server one of eleven questions: goToDefinition, findReferences, hover (the type and docs of a symbol), documentSymbol (the outline of a file), workspaceSymbol (find a class or function by name), goToImplementation (the concrete versions of an interface or abstract method), prepareCallHierarchy, incomingCalls (who calls this function), outgoingCalls (what it calls), supertypes and subtypes (a type's bases and the types deriving from it). Use it instead of grep and reading whole files when you need what the type checker knows. Answers compact text: locations as `PATH:LINE:COL TEXT`, outlines indented with kinds and line ranges.";
const CHECK: &str = "The errors of a whole project or subtree, from its real type checkers: every file a language server handles (what .gitignore leaves), checked as lsp_diagnostics checks one. Use it before finishing a task, to learn what is broken anywhere, not only in the files you touched. Answers `N errors in M files` first, then the files by error count with their errors. With `since` (a checkpoint), only the errors new since it.";
const RESTART: &str = "Restart the running language servers (all, or one by id) and answer once each is ready again. Use it when answers look stale after a change the server did not pick up (a package installed, a config file changed outside the project's usual files), or a server seems stuck. Answers one `restarted ID for ROOT: ready in N s` line each.";
const RENAME: &str = "Rename a symbol everywhere the language server knows it is used (through imports, aliases and re-exports; never the same word in a comment or string), in every file at once: all files are written or none. Use it instead of search and replace. A re-exported name is renamed for its importers too, unless public_names is `keep`, which keeps the old name as an alias in the re-export (the answer lists each alias kept). With dry_run, answers `rename OLD → NEW: N edits in M files` and each file's changed lines, old and new; without, writes them, formats them and answers the errors the changed files now have.";
const CODE_ACTIONS: &str = "List the fixes and refactorings the language server offers for a range of lines and the diagnostics on them: quick fixes (add a missing import, ...), refactorings (extract, inline, fill match arms, ...) and source actions (organize imports). Answers a numbered list `N. TITLE [KIND]`; apply one with apply_code_action.";
const APPLY_CODE_ACTION: &str = "Apply one code action from the code_actions list (by its number or title) for the same lines: the server's edit, and the edits of the command it runs, written all or nothing and formatted. Answers what changed and the errors the changed files now have; with dry_run, the changed lines only.";
const ORGANIZE_IMPORTS: &str = "Sort the imports of a file and drop the unused ones, as the language server does it (its source.removeUnusedImports where it has one, then source.organizeImports). Answers what changed and the errors the file now has.";
const READ: &str = "Print a file with numbered lines (1-based: the numbers the lsp tools take), and start its language server in the background so that the next question is fast. With `symbol` (a name path such as `Session/request`), only that symbol's lines.";
const REPLACE_SYMBOL_BODY: &str = "Replace a symbol's whole lines (found by its name path, such as `Session/request`, in the file's outline: from the first line of its header, decorators included, to its last) with `text`, written atomically and formatted. Refused when the file changed on disk since its outline was read. Answers the errors the change introduced, as edit does.";
const INSERT_BEFORE_SYMBOL: &str = "Put `text` as whole lines right before a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.";
const INSERT_AFTER_SYMBOL: &str = "Put `text` as whole lines right after a symbol (found by its name path, such as `Session/request`), written atomically and formatted. Answers the errors the change introduced, as edit does.";
const SAFE_DELETE: &str = "Delete a symbol (found by its name path) only when nothing outside it uses it: otherwise nothing is written and the answer lists the uses. With force, delete it anyway and answer the errors that broke.";
const WRITE: &str = "Create or replace a file with the given content, written atomically (permissions, byte-order mark and line endings kept), then formatted. Answers what was done and the errors the write introduced: in the file, and in the files that use what it changed (a signature, a name, a type), opened or not; errors already there are only counted. Ends with a checkpoint (for lsp_diagnostics `since`) of the files as they were.";
const EDIT: &str = "Replace an exact piece of text in a file (once, or every occurrence with replace_all), written atomically and formatted. Refused when the file changed on disk since you last read it. Answers the errors the edit introduced, in the file and in the files that use what it changed; errors already there are only counted.";
const APPLY_PATCH: &str = "Apply a multi-file patch (add, delete, update with context hunks, move) all at once: if any part does not apply, no file changes. Changed files are formatted, and the answer lists the errors the patch introduced, in them and in the files that use what it changed.";

fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    let value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    Arc::new(match value {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    })
}

pub(super) fn tools(edit_tools: bool) -> Vec<Tool> {
    ToolName::ALL
        .iter()
        .filter(|t| edit_tools || !t.is_edit_tool())
        .map(|t| listed(*t))
        .collect()
}

/// The tool as the tool list gives it: its description, its arguments'
/// schema and what it does to the workspace.
fn listed(tool: ToolName) -> Tool {
    let read_only = |title: &str| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    };
    let writes = |title: &str, idempotent: bool| {
        ToolAnnotations::with_title(title)
            .read_only(false)
            .destructive(true)
            .idempotent(idempotent)
            .open_world(false)
    };
    let (description, schema, annotations) = match tool {
        ToolName::Diagnostics => (
            DIAGNOSTICS,
            schema::<DiagnosticsArgs>(),
            read_only("Diagnostics of a file"),
        ),
        ToolName::Definition => (
            DEFINITION,
            schema::<PositionArgs>(),
            read_only("Go to definition"),
        ),
        ToolName::References => (
            REFERENCES,
            schema::<ReferencesArgs>(),
            read_only("Find references"),
        ),
        ToolName::Lsp => (
            LSP,
            schema::<LspArgs>(),
            read_only("Language server question"),
        ),
        ToolName::Check => (CHECK, schema::<CheckArgs>(), read_only("Check a project")),
        ToolName::Checkpoint => (
            CHECKPOINT,
            schema::<CheckpointArgs>(),
            read_only("Make a checkpoint"),
        ),
        ToolName::Restart => (
            RESTART,
            schema::<RestartArgs>(),
            ToolAnnotations::with_title("Restart language servers")
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        ToolName::Read => (READ, schema::<ReadArgs>(), read_only("Read a file")),
        ToolName::Write => (WRITE, schema::<WriteArgs>(), writes("Write a file", true)),
        ToolName::Edit => (EDIT, schema::<EditArgs>(), writes("Edit a file", false)),
        ToolName::ApplyPatch => (
            APPLY_PATCH,
            schema::<PatchArgs>(),
            writes("Apply a patch", false),
        ),
        ToolName::Rename => (
            RENAME,
            schema::<RenameArgs>(),
            writes("Rename a symbol", false),
        ),
        ToolName::CodeActions => (
            CODE_ACTIONS,
            schema::<CodeActionsArgs>(),
            read_only("Code actions"),
        ),
        ToolName::ApplyCodeAction => (
            APPLY_CODE_ACTION,
            schema::<ApplyActionArgs>(),
            writes("Apply a code action", false),
        ),
        ToolName::OrganizeImports => (
            ORGANIZE_IMPORTS,
            schema::<OrganizeArgs>(),
            writes("Organize imports", true),
        ),
        ToolName::ReplaceSymbolBody => (
            REPLACE_SYMBOL_BODY,
            schema::<SymbolEditArgs>(),
            writes("Replace a symbol", true),
        ),
        ToolName::InsertBeforeSymbol => (
            INSERT_BEFORE_SYMBOL,
            schema::<SymbolEditArgs>(),
            writes("Insert before a symbol", false),
        ),
        ToolName::InsertAfterSymbol => (
            INSERT_AFTER_SYMBOL,
            schema::<SymbolEditArgs>(),
            writes("Insert after a symbol", false),
        ),
        ToolName::SafeDelete => (
            SAFE_DELETE,
            schema::<SafeDeleteArgs>(),
            writes("Delete a symbol", false),
        ),
        // Not in the list (`ToolName::UNLISTED`); described for a client
        // that lists it anyway.
        ToolName::Hook => (
            "An agent hook's question (`sightline hook`); not for models.",
            Arc::new(JsonObject::new()),
            read_only("Agent hook"),
        ),
    };
    Tool::new(tool.name(), description, schema).annotate(annotations)
}
