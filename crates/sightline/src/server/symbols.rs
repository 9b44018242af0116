//! The symbol requests of the `lsp` tool: outlines, workspace symbols and
//! the call hierarchy, mapped into agent coordinates. Server answers are
//! read as JSON, accepting every shape the protocol allows
//! (`DocumentSymbol` or `SymbolInformation`, `WorkspaceSymbol` without a
//! range, ...).

use crate::sync::TextsByPath;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sightline_lsp::Position;
use sightline_lsp::request;
use sightline_lsp::{normalize, path_to_uri_string, uri_to_path};

use crate::answer::Item;
use crate::error::ToolError;
use crate::server::LspServer;

/// The LSP `SymbolKind` in words.
pub(super) fn kind_name(kind: Option<u64>) -> &'static str {
    const NAMES: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum member",
        "struct",
        "event",
        "operator",
        "type parameter",
    ];
    kind.and_then(|k| NAMES.get((k as usize).wrapping_sub(1)))
        .copied()
        .unwrap_or("symbol")
}

fn position(v: &Value) -> Option<Position> {
    Some(Position {
        line: v.get("line")?.as_u64()? as u32,
        character: v.get("character")?.as_u64()? as u32,
    })
}

fn uri_path(uri: &str) -> Option<PathBuf> {
    uri_to_path(uri).ok().map(|p| normalize(&p))
}

impl LspServer {
    /// The outline of `path`: its symbols, nested.
    pub async fn document_symbols(&self, path: &Path) -> Result<Vec<Item>, ToolError> {
        self.require("documentSymbolProvider", "documentSymbol")?;
        let params =
            json!({ "textDocument": { "uri": path_to_uri_string(path).unwrap_or_default() } });
        let v = self.ask_of::<request::DocumentSymbol>(params).await?;
        let mut texts = TextsByPath::new();
        Ok(v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| self.symbol(path, s, &mut texts))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// One `DocumentSymbol` (with children) or `SymbolInformation`.
    fn symbol(&self, path: &Path, s: &Value, texts: &mut TextsByPath) -> Option<Item> {
        let (file, range, start) = match s.get("location") {
            Some(l) => {
                let file = uri_path(l.get("uri")?.as_str()?)?;
                let range = l.get("range")?.clone();
                let start = position(range.get("start")?)?;
                (file, range, start)
            }
            None => {
                let range = s.get("range")?.clone();
                let sel = s.get("selectionRange").unwrap_or(&range);
                let start = position(sel.get("start")?)?;
                (path.to_owned(), range, start)
            }
        };
        let end = range.get("end").and_then(position).unwrap_or(start);
        let first = range.get("start").and_then(position).unwrap_or(start);
        let children = s
            .get("children")
            .and_then(Value::as_array)
            .map(|c| {
                c.iter()
                    .filter_map(|c| self.symbol(path, c, texts))
                    .collect()
            })
            .unwrap_or_default();
        Some(Item {
            name: s.get("name")?.as_str()?.to_owned(),
            kind: kind_name(s.get("kind").and_then(Value::as_u64)).to_owned(),
            loc: self.loc_at(&file, start, texts)?,
            start_line: self.line_of(&file, first, texts),
            end_line: self.line_of(&file, end, texts),
            children,
        })
    }

    /// Symbols matching `query` in the server's workspace.
    pub async fn workspace_symbols(&self, query: &str) -> Result<Vec<Item>, ToolError> {
        self.require("workspaceSymbolProvider", "workspaceSymbol")?;
        let v = self
            .ask_of::<request::WorkspaceSymbol>(json!({ "query": query }))
            .await?;
        let mut texts = TextsByPath::new();
        let mut out = Vec::new();
        for s in v.as_array().into_iter().flatten() {
            // `WorkspaceSymbol` may leave out the range; its start is then
            // the top of the file.
            let Some(location) = s.get("location") else {
                continue;
            };
            let Some(file) = location
                .get("uri")
                .and_then(Value::as_str)
                .and_then(uri_path)
            else {
                continue;
            };
            let start = location
                .pointer("/range/start")
                .and_then(position)
                .unwrap_or(Position {
                    line: 0,
                    character: 0,
                });
            let (Some(name), Some(loc)) = (
                s.get("name").and_then(Value::as_str),
                self.loc_at(&file, start, &mut texts),
            ) else {
                continue;
            };
            out.push(Item {
                name: name.to_owned(),
                kind: kind_name(s.get("kind").and_then(Value::as_u64)).to_owned(),
                start_line: loc.line,
                end_line: loc.line,
                loc,
                children: Vec::new(),
            });
        }
        Ok(out)
    }

    /// The call hierarchy items at a position, as the server sent them (to
    /// pass back for incoming and outgoing calls).
    pub async fn prepare_call_hierarchy(
        &self,
        path: &Path,
        pos: Position,
    ) -> Result<Vec<Value>, ToolError> {
        self.require("callHierarchyProvider", "the call hierarchy")?;
        let v = self
            .ask_of::<request::CallHierarchyPrepare>(Self::at(path, pos))
            .await?;
        Ok(v.as_array().cloned().unwrap_or_default())
    }

    /// A call hierarchy item at its name.
    pub fn call_item(&self, item: &Value, texts: &mut TextsByPath) -> Option<Item> {
        let file = uri_path(item.get("uri")?.as_str()?)?;
        let sel = item.get("selectionRange").or_else(|| item.get("range"))?;
        let loc = self.loc_at(&file, position(sel.get("start")?)?, texts)?;
        Some(Item {
            name: item.get("name")?.as_str()?.to_owned(),
            kind: kind_name(item.get("kind").and_then(Value::as_u64)).to_owned(),
            start_line: loc.line,
            end_line: loc.line,
            loc,
            children: Vec::new(),
        })
    }

    /// The callers of `item`, one entry per call site.
    pub async fn incoming_calls(
        &self,
        item: &Value,
        texts: &mut TextsByPath,
    ) -> Result<Vec<Item>, ToolError> {
        let v = self
            .ask_of::<request::CallHierarchyIncomingCalls>(json!({ "item": item }))
            .await?;
        let mut out = Vec::new();
        for call in v.as_array().into_iter().flatten() {
            let Some(from) = call.get("from") else {
                continue;
            };
            let Some(caller) = self.call_item(from, texts) else {
                continue;
            };
            let Some(file) = from.get("uri").and_then(Value::as_str).and_then(uri_path) else {
                continue;
            };
            for range in call
                .get("fromRanges")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(site) = range.get("start").and_then(position) else {
                    continue;
                };
                if let Some(loc) = self.loc_at(&file, site, texts) {
                    out.push(Item {
                        loc,
                        ..caller.clone()
                    });
                }
            }
        }
        Ok(out)
    }

    /// What `item` calls, one entry per callee at its definition.
    pub async fn outgoing_calls(
        &self,
        item: &Value,
        texts: &mut TextsByPath,
    ) -> Result<Vec<Item>, ToolError> {
        let v = self
            .ask_of::<request::CallHierarchyOutgoingCalls>(json!({ "item": item }))
            .await?;
        Ok(v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|call| self.call_item(call.get("to")?, texts))
            .collect())
    }
}
