//! The session a tool runs in: the engine, whether the edit tools are on,
//! the checkpoints it keeps; and `call`, the one way every face runs a tool.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::answer::Locations;
use crate::edit::checkpoint::{Checkpoint, Checkpoints};
use crate::engine::Engine;
use crate::error::ToolError;
use crate::frontends::tools::args::Context;
use crate::frontends::tools::{Answered, CallError, find, unknown};
use crate::render;

/// One client's session: an MCP session, a CLI command, a hook's call.
#[derive(Clone)]
pub(crate) struct Session {
    engine: Arc<Engine>,
    /// The tools it serves.
    tools: super::Toolset,
    /// Whether the session outlives its calls (MCP), so that warming a
    /// server for the next question is worth it, and an edit's checkpoint
    /// can be asked about later (`since`).
    lasting: bool,
    /// This session's checkpoints (`checkpoint`, edit answers, `since`).
    checkpoints: Arc<std::sync::Mutex<Checkpoints>>,
    /// What this session's edit tools last saw of each file: an edit is
    /// refused when its file changed since this session read it, whoever
    /// changed it (another session of the daemon, a command, the user).
    last_read: Arc<crate::sync::LastRead>,
    /// The pending checks of agents' edits its hook calls share: the
    /// daemon's one value (`Session::sharing_checks`), else this session's.
    pending: Arc<crate::frontends::hooks::PendingChecks>,
}

impl Session {
    /// A session over `engine` that outlives its calls, serving `tools`.
    pub(crate) fn new(engine: Arc<Engine>, tools: super::Toolset) -> Session {
        Session {
            engine,
            tools,
            lasting: true,
            checkpoints: Arc::default(),
            last_read: Arc::default(),
            pending: Arc::default(),
        }
    }

    /// The same session, its hook calls sharing `pending` (the daemon's).
    pub(crate) fn sharing_checks(
        self,
        pending: Arc<crate::frontends::hooks::PendingChecks>,
    ) -> Session {
        Session { pending, ..self }
    }

    /// The pending checks of agents' edits this session's hook calls share.
    pub(crate) fn pending_checks(&self) -> &Arc<crate::frontends::hooks::PendingChecks> {
        &self.pending
    }

    /// A session of one CLI command: the edit tools served, nothing warmed.
    pub(crate) fn of_command(engine: Arc<Engine>) -> Session {
        Session {
            lasting: false,
            ..Session::new(engine, super::Toolset::with_edit_tools(true))
        }
    }

    /// The engine that answers.
    pub(crate) fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The engine's edits, for the edit tools.
    pub(crate) fn editor(&self) -> crate::edit::Editor<'_> {
        self.engine.editor()
    }

    /// Whether warming a server now serves a later call of this session.
    pub(crate) fn lasting(&self) -> bool {
        self.lasting
    }

    /// Runs one call of `tool` with the engine of the project configuration
    /// of the file or directory it names (`Engine::for_path`); the tool's
    /// entry parses the arguments once and takes the call's turn beside a
    /// dry run.
    pub(crate) async fn call(
        &self,
        tool: &str,
        args: JsonObject,
        json: bool,
    ) -> Result<Answered, CallError> {
        let entry = find(tool)
            .filter(|t| self.tools.serves(t))
            .ok_or_else(|| unknown(tool, &self.tools))?;
        let engine = match self.path_of(&args).map(|p| self.engine.for_path(&p)) {
            None => self.engine.clone(),
            Some(Ok(engine)) => engine,
            Some(Err(e)) => return Err(e.into()),
        };
        let session = Session {
            engine: Arc::new(engine.seen_by(&self.last_read)),
            ..self.clone()
        };
        (entry.run)(&session, args, json).await
    }

    /// Runs one call as a command does: a panic inside it, or arguments
    /// that break the schema, become its error line, which names the
    /// command as it was typed (`internal error in diagnostics`).
    pub(crate) async fn answer(
        &self,
        command: &str,
        tool: &str,
        args: Value,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let args = match args {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        };
        let call = async { Ok(self.call(tool, args, json).await) };
        crate::error::caught(command, call)
            .await?
            .map_err(CallError::into_tool_error)
    }

    /// The absolute file or directory a call names: `file`, `path`, or the
    /// first file of a patch; relative ones start at the workspace root.
    fn path_of(&self, args: &JsonObject) -> Option<PathBuf> {
        let named = ["file", "path"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str).map(str::to_owned))
            .or_else(|| {
                let patch = args.get("patch").and_then(Value::as_str)?;
                patch.lines().find_map(|l| {
                    ["*** Add File: ", "*** Delete File: ", "*** Update File: "]
                        .iter()
                        .find_map(|p| l.trim().strip_prefix(p))
                        .map(str::to_owned)
                })
            })?;
        let path = PathBuf::from(named.trim());
        if path.is_absolute() {
            Some(path)
        } else {
            self.engine.workspace_root().map(|r| r.join(path))
        }
    }

    /// Keeps a checkpoint for this session and returns its name.
    pub(crate) fn keep(&self, cp: Checkpoint) -> String {
        self.checkpoints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .add(cp)
    }

    /// What changed since the checkpoint `name`, in `path` (a file, or a
    /// directory, or every file the checkpoint holds).
    pub(crate) async fn since(
        &self,
        name: &str,
        path: Option<&Path>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let cp = self
            .checkpoints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)?;
        let file = path.filter(|p| !p.is_dir());
        let dir = path.filter(|p| p.is_dir());
        let since = self.editor().since(name, &cp, file, dir).await?;
        Ok(Answered::text(since.text(), json).with_errors(since.new_errors() > 0))
    }

    /// An edit tool's call: `edit` run by this session's editor, or with
    /// `dry_run` its preview (`Editor::edit_or_preview`), answered as
    /// [`Session::edited`] says.
    pub(crate) async fn edit(
        &self,
        dry_run: bool,
        edit: impl for<'e> FnOnce(crate::edit::Editor<'e>) -> crate::edit::BoxedEdit<'e>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let done = self.editor().edit_or_preview(dry_run, edit).await;
        self.edited(done, json)
    }

    /// An edit's answer, ending in a lasting session with the checkpoint of
    /// the files as they were before it (a command's session ends with the
    /// call: no later call could name it); it lists errors when the edit
    /// brought some.
    pub(crate) fn edited(
        &self,
        answer: Result<crate::edit::EditAnswer, ToolError>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let answer = answer?;
        let errors = answer.brought_errors();
        let mut text = answer.text();
        if self.lasting && !answer.preview && !answer.baseline.states.is_empty() {
            let name = self.keep(Checkpoint {
                dir: None,
                files: answer.baseline.states,
            });
            text.push_str(&format!("checkpoint: {name} (before this edit)\n"));
        }
        Ok(Answered::text(text, json).with_errors(errors))
    }

    /// A refactoring's answer, ending in a lasting session with the
    /// checkpoint of the files as they were before it; it lists errors when
    /// a changed file has some.
    pub(crate) fn refactored(
        &self,
        r: Result<crate::edit::refactor::Refactored, ToolError>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let r = r?;
        let mut text = r.text;
        if self.lasting && !r.before.is_empty() {
            let name = self.keep(Checkpoint {
                dir: None,
                files: r.before,
            });
            text.push_str(&format!("checkpoint: {name} (before this change)\n"));
        }
        Ok(Answered::text(text, json).with_errors(r.errors))
    }

    /// The line and column `at` names in `file` (see [`Session::position`]).
    pub(crate) async fn position_of(
        &self,
        file: &Path,
        at: &super::args::SymbolPosition,
    ) -> Result<(usize, usize), ToolError> {
        self.position(
            file,
            at.line,
            at.column,
            at.symbol.as_deref(),
            at.kind.as_deref(),
        )
        .await
    }

    /// The line and column of a call: `line` and `column` (or `symbol` on
    /// the line), or without `line` the symbol its name path names in the
    /// file's outline.
    pub(crate) async fn position(
        &self,
        file: &Path,
        line: Option<usize>,
        column: Option<usize>,
        symbol: Option<&str>,
        kind: Option<&str>,
    ) -> Result<(usize, usize), ToolError> {
        match (line, column, symbol) {
            (Some(line), Some(column), _) => Ok((line, column)),
            (Some(line), None, Some(name)) => {
                Ok((line, self.engine.symbol_column(file, line, name)?))
            }
            (Some(_), None, None) => Err(ToolError::bad_input(
                "give `column` (1-based, on the symbol) or `symbol` (its name on the line)",
            )),
            (None, _, Some(name_path)) => {
                let found = self.engine.find_symbol(file, name_path, kind).await?;
                Ok((found.item.loc.line, found.item.loc.column))
            }
            (None, _, None) => Err(ToolError::bad_input(
                "give `line` and `column`, or `symbol` (a name path such as `Session/request`)",
            )),
        }
    }

    /// A locations answer, with the symbol each place sits in when
    /// `context` asks for it (the places shown only: at most 50).
    pub(crate) async fn with_context(
        &self,
        mut l: Locations,
        context: Option<Context>,
        json: bool,
    ) -> Answered {
        if context == Some(Context::Symbol) {
            let places: Vec<_> = l
                .locations
                .iter()
                .take(if json { usize::MAX } else { render::CAP })
                .map(|loc| (loc.path.clone(), loc.line))
                .collect();
            l.enclosing = self.engine.enclosing_symbols(&places).await;
        }
        Answered::locations(&l, json)
    }
}
