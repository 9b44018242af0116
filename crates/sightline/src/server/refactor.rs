//! The requests of refactoring: `prepareRename` and `rename`, code actions
//! with `codeAction/resolve`, and a command run with the
//! `workspace/applyEdit` requests it sends gathered, so that they are
//! applied with the rest of the change (`edit::workspace`).

use std::path::Path;

use serde_json::{Value, json};
use sightline_lsp::Position;
use sightline_lsp::notification;
use sightline_lsp::path_to_uri_string;
use sightline_lsp::request;

use crate::error::{ErrorKind, ToolError};
use crate::server::LspServer;

impl LspServer {
    /// Asks whether the symbol at `pos` can be renamed, where the server
    /// says (`prepareProvider`); its refusal as a `Refused` error.
    pub async fn prepare_rename(&self, path: &Path, pos: Position) -> Result<(), ToolError> {
        self.require("renameProvider", "rename")?;
        let prepares = self
            .capabilities
            .pointer("/renameProvider/prepareProvider")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !prepares {
            return Ok(());
        }
        match self
            .ask_of::<request::PrepareRename>(Self::at(path, pos))
            .await
        {
            Ok(Value::Null) => Err(ToolError::refused(format!(
                "{} cannot rename the symbol at this position",
                self.spec.id
            ))),
            Ok(_) => Ok(()),
            Err(ToolError {
                kind: ErrorKind::Server,
                message: why,
            }) => Err(ToolError::refused(format!(
                "{} refuses to rename it: {why}",
                self.spec.id
            ))),
            Err(e) => Err(e),
        }
    }

    /// The server's edit renaming the symbol at `pos` to `new_name`; with
    /// `keep_aliases`, a name a module re-exports keeps its public name as
    /// an alias, where the server can do that (`Quirks::rename_aliases`).
    /// Whether it could choose, and the edit.
    pub async fn rename(
        &self,
        path: &Path,
        pos: Position,
        new_name: &str,
        keep_aliases: bool,
    ) -> Result<(bool, Value), ToolError> {
        self.require("renameProvider", "rename")?;
        let mut params = Self::at(path, pos);
        params["newName"] = json!(new_name);
        let aliases = self.spec.quirks.rename_aliases;
        let set = aliases.filter(|a| a.keeps_by_default != keep_aliases);
        if let Some(a) = set {
            self.set_rename_preference(path, a, keep_aliases).await?;
        }
        let asked = self.ask_of::<request::Rename>(params).await;
        if let Some(a) = set
            && let Err(e) = self
                .set_rename_preference(path, a, a.keeps_by_default)
                .await
        {
            tracing::warn!(
                "{}: the rename preference was not set back: {e}",
                self.spec.id
            );
        }
        let asked = asked.map(|edit| (aliases.is_some(), edit));
        match asked {
            Ok((_, Value::Null)) => Err(ToolError::refused(format!(
                "{} has no rename for the symbol at this position",
                self.spec.id
            ))),
            Ok(answer) => Ok(answer),
            Err(ToolError {
                kind: ErrorKind::Server,
                message: why,
            }) => Err(ToolError::refused(format!(
                "{} refuses the rename: {why}",
                self.spec.id
            ))),
            Err(e) => Err(e),
        }
    }

    /// Sets the server's rename preference for `path` (tsserver's
    /// `configure` for one file, which typescript-language-server caches
    /// without looking, so the value stays until set back).
    async fn set_rename_preference(
        &self,
        path: &Path,
        aliases: crate::catalog::RenameAliases,
        keep: bool,
    ) -> Result<(), ToolError> {
        let mut preferences = serde_json::Map::new();
        preferences.insert(aliases.preference.to_owned(), json!(keep));
        // tsserver's `configure` of one file reads its format options
        // without looking (an empty set keeps the file's), and merges the
        // preferences given into the file's.
        let params = json!({
            "command": aliases.command,
            "arguments": ["configure", { "file": path, "formatOptions": {}, "preferences": preferences }],
        });
        self.client
            .request_of::<request::ExecuteCommand>(params, self.budgets.document)
            .await?;
        Ok(())
    }

    /// The code actions for lines `start..end` (server positions) of
    /// `path`, with the diagnostics the server published or was pulled for
    /// on them, of `kind` when given.
    pub async fn code_actions(
        &self,
        path: &Path,
        start: Position,
        end: Position,
        kind: Option<&str>,
    ) -> Result<Vec<Value>, ToolError> {
        self.require("codeActionProvider", "code actions")?;
        let diagnostics: Vec<Value> = self
            .raw_diagnostics(path)
            .into_iter()
            .filter(|d| {
                let line = |p: &str| d.pointer(p).and_then(Value::as_u64).unwrap_or(0);
                line("/range/end/line") >= u64::from(start.line)
                    && line("/range/start/line") <= u64::from(end.line)
            })
            .collect();
        let mut context = json!({ "diagnostics": diagnostics, "triggerKind": 1 });
        if let Some(k) = kind {
            context["only"] = json!([k]);
        }
        let params = json!({
            "textDocument": { "uri": path_to_uri_string(path).unwrap_or_default() },
            "range": { "start": start, "end": end },
            "context": context,
        });
        let found = self.ask_of::<request::CodeAction>(params).await?;
        Ok(found
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            // A bare `Command` is an action whose whole effect is the command.
            .map(|a| match a.get("command") {
                Some(Value::String(_)) => json!({ "title": a["title"], "command": a }),
                _ => a,
            })
            .filter(|a| {
                kind.is_none_or(|k| {
                    a.get("kind")
                        .and_then(Value::as_str)
                        .is_none_or(|ak| ak == k || ak.starts_with(&format!("{k}.")))
                })
            })
            .collect())
    }

    /// `action` with its edit filled in by `codeAction/resolve`, where the
    /// server resolves actions and this one has no edit yet.
    pub async fn resolve_code_action(&self, action: Value) -> Result<Value, ToolError> {
        let resolves = self
            .capabilities
            .pointer("/codeActionProvider/resolveProvider")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !resolves || action.get("edit").is_some() {
            return Ok(action);
        }
        let resolved = self
            .ask_of::<request::CodeActionResolve>(action.clone())
            .await?;
        Ok(if resolved.is_object() {
            resolved
        } else {
            action
        })
    }

    /// Runs `command`; the edits the server asks to apply meanwhile
    /// (`workspace/applyEdit`), in order, for the caller to apply.
    pub async fn run_command(&self, command: &Value) -> Result<Vec<Value>, ToolError> {
        self.state.with(|s| s.gathered_edits = Some(Vec::new()));
        let params = json!({
            "command": command.get("command").cloned().unwrap_or(Value::Null),
            "arguments": command.get("arguments").cloned().unwrap_or(json!([])),
        });
        let r = self.ask_of::<request::ExecuteCommand>(params).await;
        let edits = self
            .state
            .with(|s| s.gathered_edits.take())
            .unwrap_or_default();
        r?;
        Ok(edits)
    }

    /// The diagnostics of `path` as the server sent them (pushed, or the
    /// last pull), for a code action's context.
    fn raw_diagnostics(&self, path: &Path) -> Vec<Value> {
        let pushed = self.state.with(|s| {
            s.pushes
                .get(path)
                .map(|p| {
                    p.items
                        .iter()
                        .filter_map(|d| serde_json::to_value(d).ok())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        });
        let mut all = pushed;
        all.extend(crate::server::pull::pulled_items(&self.pulled, path));
        all
    }
}

/// Whether a server's `willRename` filter (a glob over the path, for files,
/// folders or both) takes `path`. The globs servers send are of a few
/// shapes (`**/*.rs`, `**/*.{ts,js}`, `**`); one ending in an extension
/// list is read as that list, anything else as every path.
fn filter_takes(filter: &Value, path: &Path, is_dir: bool) -> bool {
    let pattern = filter.get("pattern").unwrap_or(&Value::Null);
    let matches = pattern.get("matches").and_then(Value::as_str);
    if matches.is_some_and(|m| m != if is_dir { "folder" } else { "file" }) {
        return false;
    }
    let glob = pattern.get("glob").and_then(Value::as_str).unwrap_or("**");
    let Some((_, ext)) = glob.rsplit_once("*.") else {
        return true;
    };
    let exts: Vec<&str> = ext
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .collect();
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.contains(&e))
}

impl LspServer {
    /// Whether the server computes the edits a move of `path` needs
    /// (`workspace.fileOperations.willRename`, whose filters take it).
    pub(crate) fn renames_files(&self, path: &Path, is_dir: bool) -> bool {
        self.capabilities
            .pointer("/workspace/fileOperations/willRename/filters")
            .and_then(Value::as_array)
            .is_some_and(|filters| filters.iter().any(|f| filter_takes(f, path, is_dir)))
    }

    /// The server's edit for moving `from` to `to` (`workspace/willRenameFiles`):
    /// the imports and module declarations that name it, as a
    /// `WorkspaceEdit` (`null`: nothing to change).
    pub(crate) async fn will_rename_files(
        &self,
        from: &Path,
        to: &Path,
    ) -> Result<Value, ToolError> {
        let uri = |p: &Path| {
            path_to_uri_string(p).map_err(|e| ToolError::bad_input(format!("{}: {e}", p.display())))
        };
        let params = json!({ "files": [{ "oldUri": uri(from)?, "newUri": uri(to)? }] });
        match self.ask_of::<request::WillRenameFiles>(params).await {
            Err(ToolError {
                kind: ErrorKind::Server,
                message: why,
            }) => Err(ToolError::refused(format!(
                "{} refuses the move: {why}",
                self.spec.id
            ))),
            other => other,
        }
    }

    /// Tells the server that `from` was moved to `to` (`workspace/didRenameFiles`).
    pub(crate) fn did_rename_files(&self, from: &Path, to: &Path) {
        let (Ok(old), Ok(new)) = (path_to_uri_string(from), path_to_uri_string(to)) else {
            return;
        };
        let told = self.client.notify_of::<notification::DidRenameFiles>(
            json!({ "files": [{ "oldUri": old, "newUri": new }] }),
        );
        if let Err(e) = told {
            tracing::debug!("{}: didRenameFiles not sent: {e}", self.spec.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_will_rename_filter_takes_the_paths_its_glob_and_kind_name() {
        let ts = json!({ "scheme": "file", "pattern": { "glob": "**/*.{ts,js,jsx,tsx,mjs,mts,cjs,cts}", "matches": "file" } });
        assert!(filter_takes(&ts, Path::new("/p/a.ts"), false));
        assert!(!filter_takes(&ts, Path::new("/p/a.py"), false));
        assert!(!filter_takes(&ts, Path::new("/p/src"), true));
        let folder = json!({ "scheme": "file", "pattern": { "glob": "**", "matches": "folder" } });
        assert!(filter_takes(&folder, Path::new("/p/src"), true));
        assert!(!filter_takes(&folder, Path::new("/p/a.rs"), false));
        let rs = json!({ "pattern": { "glob": "**/*.rs", "matches": "file" } });
        assert!(filter_takes(&rs, Path::new("/p/a.rs"), false));
    }
}
