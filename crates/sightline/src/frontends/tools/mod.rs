//! The tools, each defined once: a module per tool (the three symbol edits,
//! alike but for their words, share `symbol_edit.rs`) holds its arguments (the
//! MCP schema derives from them), its description, what it does to the
//! workspace, its `run`, and the CLI commands that build the same arguments
//! from their flags. `REGISTRY` lists them; the MCP dispatch, the tool list,
//! the CLI's commands, the daemon's retry rule and the docs' table all read it.
//!
//! A call goes the same way from every face: arguments as JSON (from the
//! MCP client, or serialized by a CLI command from its typed arguments), the
//! tool found by name, the arguments parsed into its type, and its `run`
//! answering with the session (`Session`) it was asked in.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;

mod answered;
mod args;
pub(crate) mod cli;
mod session;
mod toolset;

mod apply_code_action;
mod apply_patch;
mod check;
mod checkpoint;
mod code_actions;
#[cfg(test)]
mod contributing_example;
mod definition;
mod diagnostics;
mod edit;
mod hook;
mod impact;
mod lsp;
mod move_path;
mod organize_imports;
mod read;
mod references;
mod rename;
mod restart;
mod safe_delete;
mod symbol_edit;
mod write;

pub use answered::Answered;
pub(crate) use cli::{CliEntry, cli_command, cli_commands};
pub(crate) use session::Session;
pub use toolset::{PROFILES, Toolset};

/// The name of the tool an agent's hook calls (`sightline hook`).
pub(crate) const HOOK_TOOL: &str = <hook::Hook as Tool>::NAME;

/// Every tool, in the order the tool list gives them: the questions, then
/// the edit tools, then those a client of sightline's own calls. Adding a
/// tool is a module and one line here.
pub(crate) static REGISTRY: &[Entry] = &[
    entry::<diagnostics::Diagnostics>(),
    entry::<definition::Definition>(),
    entry::<references::References>(),
    entry::<lsp::Lsp>(),
    entry::<check::Check>(),
    entry::<checkpoint::Checkpoint>(),
    entry::<restart::Restart>(),
    entry::<read::Read>(),
    entry::<write::Write>(),
    entry::<edit::Edit>(),
    entry::<apply_patch::ApplyPatch>(),
    entry::<rename::Rename>(),
    entry::<move_path::Move>(),
    entry::<impact::Impact>(),
    entry::<code_actions::CodeActions>(),
    entry::<apply_code_action::ApplyCodeAction>(),
    entry::<organize_imports::OrganizeImports>(),
    entry::<symbol_edit::ReplaceSymbolBody>(),
    entry::<symbol_edit::InsertBeforeSymbol>(),
    entry::<symbol_edit::InsertAfterSymbol>(),
    entry::<safe_delete::SafeDelete>(),
    entry::<hook::Hook>(),
];

/// One tool of the contract.
pub(crate) trait Tool {
    /// The name a client calls it by.
    const NAME: &'static str;
    /// The tool list's title of it.
    const TITLE: &'static str;
    /// What the tool list says of it: what it answers and when to use it.
    const DESCRIPTION: &'static str;
    /// What it does to the workspace.
    const EFFECT: Effect;
    /// Which sessions serve it.
    const SERVED: Served;
    /// Whether a call may be asked again of a new daemon when the one
    /// answering it went away: it changes nothing, remembers nothing the
    /// client sees (a checkpoint's name would be lost), and is quick (a
    /// restart or a project check is left to the caller).
    const RETRIED: bool = false;
    /// The CLI commands that build its arguments.
    const CLI: &'static [CliEntry] = &[];
    /// Its arguments, as serde reads them and schemars describes them.
    type Args: DeserializeOwned + Serialize + JsonSchema + Send + 'static;

    /// Whether the tool takes the turns of its calls itself, never the
    /// shared one a call takes before its `run` (the hooks').
    const OWN_TURN: bool = false;

    /// Whether the call is a dry run (`Editor::preview`), which runs alone.
    fn previews(_args: &Self::Args) -> bool {
        false
    }

    /// Answers one call.
    fn run(
        session: &Session,
        args: Self::Args,
        json: bool,
    ) -> impl Future<Output = Result<Answered, ToolError>> + Send;
}

/// What a tool does to the workspace (the tool list's annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// It only reads.
    Reads,
    /// It restarts servers and writes nothing.
    Restarts,
    /// It writes files; `idempotent` when asking twice changes nothing more.
    Writes {
        /// Asking it twice changes nothing more than asking once.
        idempotent: bool,
    },
}

/// Which sessions serve a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Served {
    /// Every session: the questions.
    Always,
    /// Sessions with the edit tools on (`--edit-tools`), and the CLI.
    WithEditTools,
    /// Called by sightline's own clients only (the hooks), never listed.
    Unlisted,
}

/// A call that did not reach a tool's `run`, or its failure.
#[derive(Debug)]
pub(crate) enum CallError {
    /// No tool has this name, or the session does not serve it.
    UnknownTool(String),
    /// The arguments do not match the tool's schema.
    BadArguments(String),
    /// The tool answered with an error.
    Failed(ToolError),
}

impl From<ToolError> for CallError {
    fn from(e: ToolError) -> Self {
        CallError::Failed(e)
    }
}

impl CallError {
    /// The error a CLI prints: a call is a command there, so every kind is
    /// the tool's error line.
    pub(crate) fn into_tool_error(self) -> ToolError {
        match self {
            CallError::UnknownTool(m) | CallError::BadArguments(m) => ToolError::bad_input(m),
            CallError::Failed(e) => e,
        }
    }
}

/// A tool with its types erased: what the faces look up by name.
pub(crate) struct Entry {
    /// The name a client calls it by.
    pub(crate) name: &'static str,
    /// The tool list's title.
    pub(crate) title: &'static str,
    /// The tool list's description.
    pub(crate) description: &'static str,
    /// What it does to the workspace.
    pub(crate) effect: Effect,
    /// Which sessions serve it.
    pub(crate) served: Served,
    /// Whether a call may be asked again of a new daemon.
    pub(crate) retried: bool,
    /// The CLI commands that build its arguments.
    pub(crate) cli: &'static [CliEntry],
    schema: fn() -> JsonObject,
    #[cfg(test)]
    previews: fn(&JsonObject) -> bool,
    run: for<'a> fn(&'a Session, JsonObject, bool) -> BoxFuture<'a, Result<Answered, CallError>>,
}

impl Entry {
    /// The JSON Schema of its arguments.
    pub(crate) fn schema(&self) -> Arc<JsonObject> {
        Arc::new((self.schema)())
    }

    /// Whether these arguments make the call a dry run.
    #[cfg(test)]
    pub(crate) fn previews(&self, args: &JsonObject) -> bool {
        (self.previews)(args)
    }
}

const fn entry<T: Tool>() -> Entry {
    Entry {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        effect: T::EFFECT,
        served: T::SERVED,
        retried: T::RETRIED,
        cli: T::CLI,
        schema: schema_of::<T::Args>,
        #[cfg(test)]
        previews: previews_of::<T>,
        run: run_erased::<T>,
    }
}

fn schema_of<A: JsonSchema>() -> JsonObject {
    match serde_json::to_value(schemars::schema_for!(A)) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
fn previews_of<T: Tool>(args: &JsonObject) -> bool {
    parse::<T::Args>(T::NAME, args.clone()).is_ok_and(|a| T::previews(&a))
}

fn run_erased<T: Tool>(
    session: &Session,
    args: JsonObject,
    json: bool,
) -> BoxFuture<'_, Result<Answered, CallError>> {
    Box::pin(async move {
        let args = parse::<T::Args>(T::NAME, args)?;
        // A dry run tells the shared servers text that is not on disk, so
        // it runs alone (`Editor::preview` waits for the calls before it to
        // end), and a call of any session waits for it to end.
        let _turn = match T::OWN_TURN || T::previews(&args) {
            true => None,
            false => Some(crate::sync::file_view::shared_turn().await),
        };
        Ok(T::run(session, args, json).await?)
    })
}

/// The arguments as the tool's type, or why not. A field the schema does
/// not name is refused here, as serde's `deny_unknown_fields` would: serde
/// cannot refuse one through a flattened struct (`SymbolPosition`), and a
/// misspelt `colum` must not be dropped in silence.
fn parse<A: DeserializeOwned + JsonSchema>(tool: &str, args: JsonObject) -> Result<A, CallError> {
    let names = argument_names::<A>(tool);
    if let Some(known) = names.as_ref()
        && let Some(unknown) = args.keys().find(|k| !known.contains(*k))
    {
        let expected: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
        return Err(CallError::BadArguments(format!(
            "{tool}: unknown field `{unknown}`, expected one of {}",
            expected.join(", ")
        )));
    }
    serde_json::from_value(Value::Object(args))
        .map_err(|e| CallError::BadArguments(format!("{tool}: {e}")))
}

/// The names of `tool`'s arguments, from the schema of its type `A`, made
/// once per tool (none when the schema names no properties): every call
/// is checked against them, and deriving the schema is work a call need
/// not repeat. (A cache of what the types say, which never changes while
/// the process runs.)
fn argument_names<A: JsonSchema>(tool: &str) -> Arc<Option<Vec<String>>> {
    type Names = std::sync::Mutex<std::collections::HashMap<String, Arc<Option<Vec<String>>>>>;
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    let mut names = NAMES
        .get_or_init(Names::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    names
        .entry(tool.to_owned())
        .or_insert_with(|| {
            let schema = schema_of::<A>();
            Arc::new(match schema.get("properties") {
                Some(Value::Object(p)) => Some(p.keys().cloned().collect()),
                _ => None,
            })
        })
        .clone()
}

/// The tool called `name`, listed or not.
pub(crate) fn find(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|t| t.name == name)
}

/// The tools a session lists, in order.
pub(crate) fn listed(edit_tools: bool) -> impl Iterator<Item = &'static Entry> {
    Toolset::with_edit_tools(edit_tools).listed().into_iter()
}

/// Whether `tool` writes files.
pub(crate) fn writes(tool: &str) -> bool {
    find(tool).is_some_and(|t| matches!(t.effect, Effect::Writes { .. }))
}

/// Whether a call of `tool` may be asked again of a new daemon.
pub(crate) fn retried(tool: &str) -> bool {
    find(tool).is_some_and(|t| t.retried)
}

/// The error of a call of a tool a session of `tools` does not serve: it
/// names the tools the session lists.
fn unknown(tool: &str, tools: &Toolset) -> CallError {
    let served: Vec<&str> = tools.listed().iter().map(|t| t.name).collect();
    let named = match served.split_last() {
        Some((last, [])) => format!("the tool is {last}"),
        Some((last, rest)) => format!("the tools are {} and {last}", rest.join(", ")),
        None => "it serves none".to_owned(),
    };
    CallError::UnknownTool(format!("unknown tool `{tool}`; {named}"))
}

#[cfg(test)]
mod tests;
