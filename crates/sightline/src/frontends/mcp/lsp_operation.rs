//! The `lsp` tool: one question picked by `operation`, each answered as
//! its own tool would be, in text.

use std::path::PathBuf;

use crate::answer::ItemsKind;
use crate::error::ToolError;
use crate::frontends::mcp::McpServer;
use crate::frontends::mcp::tool_args::{LspArgs, Operation};
use crate::render;

impl McpServer {
    /// Answers one `lsp` call.
    pub(super) async fn lsp(&self, a: LspArgs) -> Result<String, ToolError> {
        let engine = &self.engine;
        let need_file = || {
            a.file.as_ref().map(PathBuf::from).ok_or_else(|| {
                ToolError::bad_input(
                    format!("{:?} needs `file` (an absolute path)", a.operation).replace('"', ""),
                )
            })
        };
        let position = || async {
            let file = need_file()?;
            let (line, col) = self
                .position(
                    &file,
                    a.line,
                    a.column,
                    a.symbol.as_deref(),
                    a.kind.as_deref(),
                )
                .await?;
            Ok::<_, ToolError>((file, line, col))
        };
        match a.operation {
            Operation::GoToDefinition => {
                let (f, l, c) = position().await?;
                engine
                    .definition(&f, l, c)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::FindReferences => {
                let (f, l, c) = position().await?;
                engine
                    .references(&f, l, c, false)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::GoToImplementation => {
                let (f, l, c) = position().await?;
                engine
                    .implementation(&f, l, c)
                    .await
                    .map(|r| render::locations_text(&r))
            }
            Operation::Hover => {
                let (f, l, c) = position().await?;
                engine.hover(&f, l, c).await.map(|h| render::hover_text(&h))
            }
            Operation::DocumentSymbol => {
                let f = need_file()?;
                if f.is_dir() {
                    return engine.directory_symbols(&f).await;
                }
                engine
                    .document_symbols(&f)
                    .await
                    .map(|i| render::items_text(&i))
            }
            Operation::WorkspaceSymbol => {
                let query = a.query.clone().ok_or_else(|| {
                    ToolError::bad_input("workspaceSymbol needs `query` (a name or part of one)")
                })?;
                let file = a.file.as_ref().map(PathBuf::from);
                engine
                    .workspace_symbols(&query, file.as_deref())
                    .await
                    .map(|i| render::items_text(&i))
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
                engine
                    .call_hierarchy(&f, l, c, kind)
                    .await
                    .map(|i| render::items_text(&i))
            }
            op @ (Operation::Supertypes | Operation::Subtypes) => {
                let (f, l, c) = position().await?;
                engine
                    .type_hierarchy(&f, l, c, matches!(op, Operation::Supertypes))
                    .await
                    .map(|i| render::items_text(&i))
            }
        }
    }
}
