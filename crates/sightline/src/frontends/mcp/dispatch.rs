//! Running one well-formed tool call against the engine and rendering its
//! text: the arguments are parsed by their schema type, a `symbol` becomes
//! its position (`by_symbol`), and `lsp` asks by `operation` (`lsp_operation`).

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::JsonObject;
use serde_json::Value;

use crate::error::ToolError;
use crate::frontends::mcp::McpServer;
use crate::frontends::mcp::tool_args::{
    ApplyActionArgs, CheckArgs, CheckpointArgs, CodeActionsArgs, DiagnosticsArgs, EditArgs,
    LspArgs, OrganizeArgs, PatchArgs, PositionArgs, ReadArgs, ReferencesArgs, RenameArgs,
    RestartArgs, WriteArgs,
};
use crate::frontends::mcp::tool_name::ToolName;
use crate::render;

pub(super) fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: Option<JsonObject>,
) -> Result<T, ErrorData> {
    serde_json::from_value(Value::Object(args.unwrap_or_default()))
        .map_err(|e| ErrorData::invalid_params(format!("{tool}: {e}"), None))
}

/// Whether the call is an edit tool's dry run (`Engine::preview`).
fn previews(tool: &str, args: Option<&JsonObject>) -> bool {
    // An agent's hook takes its turns itself: its before-edit baseline is
    // asked of the text before the edit, held in memory, in a task of its
    // own that the after-edit call waits for (`edit::agent_edits`).
    if ToolName::from_name(tool) == Some(ToolName::Hook) {
        return true;
    }
    let dry_run = args.and_then(|a| a.get("dry_run")) == Some(&Value::Bool(true));
    dry_run
        && matches!(
            ToolName::from_name(tool),
            Some(
                ToolName::Edit
                    | ToolName::Write
                    | ToolName::ApplyPatch
                    | ToolName::ReplaceSymbolBody
                    | ToolName::InsertBeforeSymbol
                    | ToolName::InsertAfterSymbol
                    | ToolName::SafeDelete
            )
        )
}

/// A tool's answer: its text, and with `json` asked, the JSON the CLI's
/// `--json` prints for it (the tool result's structured content).
pub struct Answered {
    /// The tool's text.
    pub text: String,
    /// The CLI's JSON of it, when asked for.
    pub json: Option<Value>,
    /// Whether the answer lists an error diagnostic (the CLI's exit status).
    pub errors: bool,
}

impl Answered {
    pub(super) fn text(text: String, json: bool) -> Answered {
        Answered {
            json: json.then(|| serde_json::json!({ "text": text })),
            text,
            errors: false,
        }
    }

    pub(super) fn locations(l: &crate::answer::Locations, json: bool) -> Answered {
        Answered {
            text: render::locations_text(l),
            json: json.then(|| render::locations_json(l)),
            errors: false,
        }
    }
}

impl McpServer {
    /// Runs one well-formed call and renders its text (and with `json`,
    /// its JSON), with the engine of the project configuration of the file
    /// or directory it names (`Engine::for_path`).
    pub(super) async fn run(
        &self,
        tool: &str,
        args: Option<JsonObject>,
        json: bool,
    ) -> Result<Result<Answered, ToolError>, ErrorData> {
        // A dry run tells the shared servers text that is not on disk, so
        // it runs alone (`Engine::preview` waits for the calls before it to
        // end), and a call of any session waits for it to end.
        let _turn = match previews(tool, args.as_ref()) {
            true => None,
            false => Some(crate::sync::preview::shared_turn().await),
        };
        let Some(path) = args.as_ref().and_then(|a| self.path_of(a)) else {
            return self.run_in(tool, args, json).await;
        };
        match self.engine.for_path(&path) {
            Ok(engine) if Arc::ptr_eq(&engine, &self.engine) => self.run_in(tool, args, json).await,
            Ok(engine) => {
                let face = McpServer {
                    engine,
                    ..self.clone()
                };
                Box::pin(face.run_in(tool, args, json)).await
            }
            Err(e) => Ok(Err(e)),
        }
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

    async fn run_in(
        &self,
        tool: &str,
        args: Option<JsonObject>,
        json: bool,
    ) -> Result<Result<Answered, ToolError>, ErrorData> {
        let engine = &self.engine;
        let text = |r: Result<String, ToolError>| r.map(|t| Answered::text(t, json));
        Ok(match ToolName::from_name(tool) {
            Some(ToolName::Diagnostics) => {
                let a: DiagnosticsArgs = parse(tool, args)?;
                match (a.file.map(PathBuf::from), a.since) {
                    (file, Some(name)) => self.since(&name, file.as_deref(), json).await,
                    (Some(file), None) => self.diagnostics(&file, a.context, json).await,
                    (None, None) => Err(ToolError::bad_input(
                        "give `file` (an absolute path), or `since` (a checkpoint)",
                    )),
                }
            }
            Some(ToolName::Checkpoint) => {
                let a: CheckpointArgs = parse(tool, args)?;
                match engine
                    .checkpoint(a.path.map(PathBuf::from).as_deref())
                    .await
                {
                    Ok((cp, summary)) => {
                        let name = self.keep(cp);
                        Ok(Answered::text(
                            format!("checkpoint {name}: {summary}\n"),
                            json,
                        ))
                    }
                    Err(e) => Err(e),
                }
            }
            Some(ToolName::Definition) => {
                let a: PositionArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                let at = self
                    .position(
                        &file,
                        a.line,
                        a.column,
                        a.symbol.as_deref(),
                        a.kind.as_deref(),
                    )
                    .await;
                match at {
                    Ok((line, col)) => match engine.definition(&file, line, col).await {
                        Ok(l) => Ok(self.with_context(l, a.context, json).await),
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(e),
                }
            }
            Some(ToolName::References) => {
                let a: ReferencesArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                let at = self
                    .position(
                        &file,
                        a.line,
                        a.column,
                        a.symbol.as_deref(),
                        a.kind.as_deref(),
                    )
                    .await;
                match at {
                    Ok((line, col)) => match engine
                        .references(&file, line, col, a.include_declaration.unwrap_or(false))
                        .await
                    {
                        Ok(l) => Ok(self.with_context(l, a.context, json).await),
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(e),
                }
            }
            Some(ToolName::Lsp) => {
                let a: LspArgs = parse(tool, args)?;
                text(self.lsp(a).await)
            }
            Some(ToolName::Check) => {
                let a: CheckArgs = parse(tool, args)?;
                match a.since {
                    Some(name) => {
                        self.since(&name, a.path.as_deref().map(std::path::Path::new), json)
                            .await
                    }
                    None => engine
                        .check(a.path.map(PathBuf::from).as_deref())
                        .await
                        .map(|c| {
                            let mut a = Answered::text(c.text(), json);
                            a.errors = c.errors() > 0;
                            a
                        }),
                }
            }
            Some(ToolName::Restart) => {
                let a: RestartArgs = parse(tool, args)?;
                let root = a
                    .root
                    .map(PathBuf::from)
                    .or_else(|| engine.workspace_root().map(ToOwned::to_owned));
                text(engine.restart(a.server.as_deref(), root.as_deref()).await)
            }
            Some(ToolName::Read) if self.edit_tools => {
                let a: ReadArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                if let Some(name_path) = &a.symbol {
                    return Ok(text(
                        engine
                            .read_symbol(&file, name_path, a.kind.as_deref())
                            .await,
                    ));
                }
                let read = engine.read(&file, a.offset, a.limit);
                if read.is_ok() {
                    let engine = self.engine.clone();
                    tokio::spawn(async move { engine.warm(&file).await });
                }
                text(read)
            }
            Some(ToolName::Write) if self.edit_tools => {
                let a: WriteArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                let write = engine.write(&file, &a.content);
                text(
                    engine
                        .edit_or_preview(a.dry_run.unwrap_or(false), Box::pin(write))
                        .await
                        .map(|r| self.edited(r)),
                )
            }
            Some(ToolName::Edit) if self.edit_tools => {
                let a: EditArgs = parse(tool, args)?;
                let range = a.format_range.unwrap_or(engine.config().format_range);
                let file = PathBuf::from(a.file);
                let edit =
                    engine.edit_with(&file, &a.old, &a.new, a.replace_all.unwrap_or(false), range);
                text(
                    engine
                        .edit_or_preview(a.dry_run.unwrap_or(false), Box::pin(edit))
                        .await
                        .map(|r| self.edited(r)),
                )
            }
            Some(ToolName::Rename) if self.edit_tools => {
                let a: RenameArgs = parse(tool, args)?;
                let file = PathBuf::from(a.file);
                let at = self
                    .position(
                        &file,
                        a.line,
                        a.column,
                        a.symbol.as_deref(),
                        a.kind.as_deref(),
                    )
                    .await;
                match at {
                    Ok((line, col)) => self.refactored(
                        engine
                            .rename(
                                &file,
                                line,
                                col,
                                &a.new_name,
                                a.public_names.map(Into::into).unwrap_or_default(),
                                a.dry_run.unwrap_or(false),
                                a.confirm.unwrap_or(false),
                            )
                            .await,
                        json,
                    ),
                    Err(e) => Err(e),
                }
            }
            Some(ToolName::CodeActions) if self.edit_tools => {
                let a: CodeActionsArgs = parse(tool, args)?;
                self.refactored(
                    engine
                        .code_actions(
                            &PathBuf::from(a.file),
                            a.line,
                            a.end_line,
                            a.kind.as_deref(),
                        )
                        .await,
                    json,
                )
            }
            Some(ToolName::ApplyCodeAction) if self.edit_tools => {
                let a: ApplyActionArgs = parse(tool, args)?;
                let pick = match (a.index, a.title) {
                    (Some(i), None) => Ok(crate::edit::refactor::Pick::Index(i)),
                    (None, Some(t)) => Ok(crate::edit::refactor::Pick::Title(t)),
                    _ => Err(ToolError::bad_input(
                        "give either `index` or `title` of the action",
                    )),
                };
                match pick {
                    Ok(pick) => self.refactored(
                        engine
                            .apply_code_action(
                                &PathBuf::from(a.file),
                                a.line,
                                a.end_line,
                                pick,
                                a.dry_run.unwrap_or(false),
                                a.confirm.unwrap_or(false),
                            )
                            .await,
                        json,
                    ),
                    Err(e) => Err(e),
                }
            }
            Some(
                t @ (ToolName::ReplaceSymbolBody
                | ToolName::InsertBeforeSymbol
                | ToolName::InsertAfterSymbol
                | ToolName::SafeDelete),
            ) if self.edit_tools => text(
                self.symbol_edit(t, tool, args)
                    .await?
                    .map(|r| self.edited(r)),
            ),
            Some(ToolName::OrganizeImports) if self.edit_tools => {
                let a: OrganizeArgs = parse(tool, args)?;
                self.refactored(
                    engine
                        .organize_imports(&PathBuf::from(a.file), a.dry_run.unwrap_or(false))
                        .await,
                    json,
                )
            }
            Some(ToolName::Hook) => {
                let call: crate::frontends::hooks::Call = parse(tool, args)?;
                Ok(Answered::text(
                    crate::frontends::hooks::answer(engine, call).await,
                    json,
                ))
            }
            Some(ToolName::ApplyPatch) if self.edit_tools => {
                let a: PatchArgs = parse(tool, args)?;
                let patch = engine.apply_patch(&a.patch);
                text(
                    engine
                        .edit_or_preview(a.dry_run.unwrap_or(false), Box::pin(patch))
                        .await
                        .map(|r| self.edited(r)),
                )
            }
            _ => {
                let served: Vec<&str> = ToolName::ALL
                    .iter()
                    .filter(|t| !t.is_edit_tool())
                    .map(|t| t.name())
                    .collect();
                let (last, rest) = served.split_last().unwrap_or((&"", &[]));
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool `{tool}`; the tools are {} and {last}",
                        rest.join(", ")
                    ),
                    None,
                ));
            }
        })
    }
}
