//! Formatting only the lines an edit touched: through the language server's
//! `textDocument/rangeFormatting` where it offers it, else a formatter that
//! takes line ranges (clang-format). Formatting the whole file after a small
//! edit changes lines the edit never touched, which makes noisy diffs.

use crate::edit::editor::Editor;
use std::path::Path;

use serde_json::{Value, json};
use sightline_lsp::Position;
use sightline_lsp::path_to_uri_string;
use sightline_lsp::request;

use crate::edit::Text;
use crate::files::atomic_write;
use crate::format::{Outcome, Report};

impl Editor<'_> {
    /// Formats lines `first..=last` (1-based) of `path`.
    pub(crate) async fn format_lines(&self, path: &Path, first: usize, last: usize) -> Report {
        if let Some(r) = self.server_range_format(path, first, last).await {
            return r;
        }
        if let Some(r) = self
            .engine
            .formatters()
            .format_lines(path, first, last)
            .await
        {
            return r;
        }
        Report {
            name: "range formatting".into(),
            outcome: Outcome::Skipped {
                message: format!(
                    "no server or formatter here formats only lines {first}-{last}; they were left as written"
                ),
            },
        }
    }

    async fn server_range_format(&self, path: &Path, first: usize, last: usize) -> Option<Report> {
        let checked = self.engine.snapshot(path).ok()?;
        let routes = self.engine.route_all(&checked).ok()?;
        for (spec, root) in routes {
            let Ok(server) = self.engine.pool_get(spec, &root).await else {
                continue;
            };
            if !server.offers("documentRangeFormattingProvider") {
                continue;
            }
            let doc = server
                .sync(&checked.path, &checked.index, self.engine.files())
                .ok()?;
            let end_line = last.min(doc.index.line_count());
            let params = json!({
                "textDocument": { "uri": path_to_uri_string(path).ok()? },
                "range": {
                    "start": { "line": first - 1, "character": 0 },
                    "end": server.position_at(&doc.index, end_line - 1, usize::MAX / 2)
                        .unwrap_or(Position { line: end_line as u32 - 1, character: 0 }),
                },
                "options": { "tabSize": 2, "insertSpaces": true },
            });
            let name = format!("{} (lines {first}-{last})", spec.id);
            let edits = match server.ask_of::<request::RangeFormatting>(params).await {
                Ok(v) => v,
                Err(e) => {
                    return Some(Report {
                        name,
                        outcome: Outcome::Failed {
                            message: e.to_string(),
                        },
                    });
                }
            };
            let mut edits: Vec<(usize, usize, String)> = edits
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    let start =
                        serde_json::from_value::<Position>(e.pointer("/range/start")?.clone())
                            .ok()?;
                    let end = serde_json::from_value::<Position>(e.pointer("/range/end")?.clone())
                        .ok()?;
                    let text = e.get("newText").and_then(Value::as_str)?.to_owned();
                    Some((
                        server.byte_offset(&doc.index, start),
                        server.byte_offset(&doc.index, end),
                        text,
                    ))
                })
                .collect();
            // Apply from the end so that earlier offsets stay right.
            edits.sort_by_key(|e| std::cmp::Reverse(e.0));
            let mut body = doc.index.text().to_owned();
            for (s, e, t) in &edits {
                if s <= e
                    && *e <= body.len()
                    && body.is_char_boundary(*s)
                    && body.is_char_boundary(*e)
                {
                    body.replace_range(*s..*e, t);
                }
            }
            if body == doc.index.text() {
                return Some(Report {
                    name,
                    outcome: Outcome::Unchanged,
                });
            }
            let bytes = std::fs::read(path).ok()?;
            let on_disk = Text::decode(&bytes, path).ok()?;
            let text = Text {
                body: body.replace("\r\n", "\n"),
                ..on_disk
            };
            return Some(Report {
                name,
                outcome: match atomic_write(path, &text.encode()) {
                    Ok(()) => Outcome::Formatted,
                    Err(e) => Outcome::Failed {
                        message: e.to_string(),
                    },
                },
            });
        }
        None
    }
}
