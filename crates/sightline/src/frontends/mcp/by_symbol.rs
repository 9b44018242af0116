//! The calls that name a symbol: the position a name path gives
//! (`Session/request`), the symbol each place of an answer sits in
//! (`context: "symbol"`), and the symbol edits.

use rmcp::ErrorData;
use rmcp::model::JsonObject;

use crate::answer::Locations;
use crate::edit::{EditAnswer, SymbolEdit};
use crate::error::ToolError;
use crate::frontends::mcp::McpServer;
use crate::frontends::mcp::dispatch::{Answered, parse};
use crate::frontends::mcp::tool_args::{Context, SafeDeleteArgs, SymbolEditArgs};
use crate::frontends::mcp::tool_name::ToolName;
use crate::render;

impl McpServer {
    /// The position of a call: `column`, or the column of `symbol` on the line.
    pub(super) fn column(
        &self,
        file: &std::path::Path,
        line: usize,
        column: Option<usize>,
        symbol: Option<&str>,
    ) -> Result<usize, ToolError> {
        match (column, symbol) {
            (Some(c), _) => Ok(c),
            (None, Some(s)) => self.engine.symbol_column(file, line, s),
            (None, None) => Err(ToolError::bad_input(
                "give `column` (1-based, on the symbol) or `symbol` (its name on the line)",
            )),
        }
    }

    /// A locations answer, with the symbol each place sits in when
    /// `context` asks for it (the places shown only: at most 50).
    pub(super) async fn with_context(
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

    /// The line and column of a call: `line` and `column` (or `symbol` on
    /// the line), or without `line` the symbol its name path names in the
    /// file's outline.
    pub(super) async fn position(
        &self,
        file: &std::path::Path,
        line: Option<usize>,
        column: Option<usize>,
        symbol: Option<&str>,
        kind: Option<&str>,
    ) -> Result<(usize, usize), ToolError> {
        match (line, symbol) {
            (Some(line), _) => Ok((line, self.column(file, line, column, symbol)?)),
            (None, Some(name_path)) => {
                let found = self.engine.find_symbol(file, name_path, kind).await?;
                Ok((found.item.loc.line, found.item.loc.column))
            }
            (None, None) => Err(ToolError::bad_input(
                "give `line` and `column`, or `symbol` (a name path such as `Session/request`)",
            )),
        }
    }

    /// A diagnostics answer, with the symbol each finding sits in when
    /// `context` asks for it.
    pub(super) async fn diagnostics(
        &self,
        file: &std::path::Path,
        context: Option<Context>,
        json: bool,
    ) -> Result<Answered, ToolError> {
        let mut d = self.engine.diagnostics(file).await?;
        if context == Some(Context::Symbol) {
            let places: Vec<_> = d
                .diagnostics
                .iter()
                .map(|f| (d.file.clone(), f.line))
                .collect();
            d.enclosing = self.engine.enclosing_symbols(&places).await;
        }
        Ok(Answered {
            text: render::diagnostics_text(&d),
            json: json.then(|| render::diagnostics_json(&d)),
            errors: d.has_errors(),
        })
    }

    /// One of the symbol edits, by its tool.
    pub(super) async fn symbol_edit(
        &self,
        t: ToolName,
        tool: &str,
        args: Option<JsonObject>,
    ) -> Result<Result<EditAnswer, ToolError>, ErrorData> {
        if t == ToolName::SafeDelete {
            let a: SafeDeleteArgs = parse(tool, args)?;
            let delete = self.engine.safe_delete(
                std::path::Path::new(&a.file),
                &a.symbol,
                a.kind.as_deref(),
                a.force.unwrap_or(false),
            );
            return Ok(self
                .engine
                .edit_or_preview(a.dry_run.unwrap_or(false), Box::pin(delete))
                .await);
        }
        let a: SymbolEditArgs = parse(tool, args)?;
        let how = match t {
            ToolName::ReplaceSymbolBody => SymbolEdit::Replace,
            ToolName::InsertBeforeSymbol => SymbolEdit::Before,
            _ => SymbolEdit::After,
        };
        let edit = self.engine.edit_symbol(
            std::path::Path::new(&a.file),
            &a.symbol,
            a.kind.as_deref(),
            how,
            &a.text,
        );
        Ok(self
            .engine
            .edit_or_preview(a.dry_run.unwrap_or(false), Box::pin(edit))
            .await)
    }
}
