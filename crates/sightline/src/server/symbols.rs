//! The symbol requests of the `lsp` tool: outlines, workspace symbols and
//! the call hierarchy, mapped into agent coordinates. Server answers are
//! read into one typed symbol that takes every shape the protocol allows
//! (`DocumentSymbol` or `SymbolInformation`, `WorkspaceSymbol` without a
//! range, a call or type hierarchy item), each entry on its own: one a
//! server got wrong is left out, not the whole answer.

use crate::sync::TextsByPath;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};
use sightline_lsp::request;
use sightline_lsp::{Position, Range};
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

/// A symbol as any of the protocol's symbol answers sends it; every field
/// but the name is optional, as some server leaves each out.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireSymbol {
    name: String,
    #[serde(default)]
    kind: Option<u64>,
    /// `DocumentSymbol`'s, or a hierarchy item's, whole extent.
    #[serde(default)]
    range: Option<Range>,
    /// Where its name is.
    #[serde(default)]
    selection_range: Option<Range>,
    /// A hierarchy item's file.
    #[serde(default)]
    uri: Option<String>,
    /// `SymbolInformation`'s or `WorkspaceSymbol`'s place.
    #[serde(default)]
    location: Option<WireLocation>,
    #[serde(default, deserialize_with = "each_that_reads")]
    children: Vec<WireSymbol>,
}

/// A place whose range `WorkspaceSymbol` may leave out.
#[derive(Debug, Deserialize)]
struct WireLocation {
    uri: String,
    #[serde(default)]
    range: Option<Range>,
}

/// A list's entries that read as `T`, the others left out (a `null` list
/// is empty).
fn each_that_reads<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let entries = Option::<Vec<Value>>::deserialize(d)?.unwrap_or_default();
    Ok(entries.into_iter().filter_map(read).collect())
}

/// `value` as `T`, if it reads as one.
fn read<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}

/// The entries of a list answer that read as `T`.
fn entries_that_read<T: serde::de::DeserializeOwned>(answer: Value) -> Vec<T> {
    match answer {
        Value::Array(entries) => entries.into_iter().filter_map(read).collect(),
        _ => Vec::new(),
    }
}

/// The entries of a list answer that read as symbols.
fn symbols_of(answer: Value) -> Vec<WireSymbol> {
    entries_that_read(answer)
}

fn uri_path(uri: &str) -> Option<PathBuf> {
    uri_to_path(uri).ok().map(|p| normalize(&p))
}

const TOP: Position = Position {
    line: 0,
    character: 0,
};

impl LspServer {
    /// The outline of `path`: its symbols, nested.
    pub async fn document_symbols(&self, path: &Path) -> Result<Vec<Item>, ToolError> {
        self.require("documentSymbolProvider", "documentSymbol")?;
        let params =
            json!({ "textDocument": { "uri": path_to_uri_string(path).unwrap_or_default() } });
        let v = self.ask_of::<request::DocumentSymbol>(params).await?;
        let mut texts = TextsByPath::new();
        Ok(symbols_of(v)
            .iter()
            .filter_map(|s| self.symbol(path, s, &mut texts))
            .collect())
    }

    /// One `DocumentSymbol` (with children) or `SymbolInformation`.
    fn symbol(&self, path: &Path, s: &WireSymbol, texts: &mut TextsByPath) -> Option<Item> {
        let (file, range, start) = match &s.location {
            Some(l) => {
                let range = l.range?;
                (uri_path(&l.uri)?, range, range.start)
            }
            None => {
                let range = s.range?;
                let start = s.selection_range.unwrap_or(range).start;
                (path.to_owned(), range, start)
            }
        };
        let children = s
            .children
            .iter()
            .filter_map(|c| self.symbol(path, c, texts))
            .collect();
        Some(Item {
            name: s.name.clone(),
            kind: kind_name(s.kind).to_owned(),
            loc: self.loc_at(&file, start, texts)?,
            start_line: self.line_of(&file, range.start, texts),
            end_line: self.line_of(&file, range.end, texts),
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
        for s in symbols_of(v) {
            // `WorkspaceSymbol` may leave out the range; its start is then
            // the top of the file.
            let Some(location) = &s.location else {
                continue;
            };
            let Some(file) = uri_path(&location.uri) else {
                continue;
            };
            let start = location.range.map_or(TOP, |r| r.start);
            let Some(loc) = self.loc_at(&file, start, &mut texts) else {
                continue;
            };
            out.push(Item {
                name: s.name,
                kind: kind_name(s.kind).to_owned(),
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

    /// A call (or type) hierarchy item at its name.
    pub fn call_item(&self, item: &Value, texts: &mut TextsByPath) -> Option<Item> {
        let item: WireSymbol = read(item.clone())?;
        let file = uri_path(item.uri.as_deref()?)?;
        let at = item.selection_range.or(item.range)?.start;
        let loc = self.loc_at(&file, at, texts)?;
        Some(Item {
            name: item.name,
            kind: kind_name(item.kind).to_owned(),
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
            let ranges = call
                .get("fromRanges")
                .cloned()
                .map(entries_that_read::<Range>);
            for site in ranges.into_iter().flatten().map(|r| r.start) {
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
