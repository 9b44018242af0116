//! typescript-language-server's extension, in Zed's `*_ext` manner:
//! diagnostics asked of tsserver itself, for the server whose quirks say so
//! (`DiagnosticsQuirks::ask_tsserver`): typescript-language-server
//! publishes without versions, skips a publish when a kind of diagnostics
//! stays empty, and publishes syntax before semantics, so its pushes cannot
//! tell when an answer is complete. Its `typescript.tsserverRequest` command
//! asks tsserver directly for the diagnostics of the content it holds now,
//! which is exact.

use std::path::Path;

use serde_json::{Value, json};
use sightline_lsp::Position;
use sightline_lsp::request;
use sightline_lsp::{Encoding, LineIndex};

use crate::answer::{Finding, Severity, fold};
use crate::error::ToolError;
use crate::server::LspServer;
use crate::server::documents::Doc;

/// The reason tsserver gives when it threw while answering (`TypeScript
/// Server Error`): the first line of its message after that header, such as
/// `Debug Failure. False expression: getScriptInfo`.
pub(super) fn failure(error: &str) -> Option<String> {
    let (_, rest) = error.split_once("TypeScript Server Error")?;
    let reason = rest
        .lines()
        .skip(1)
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("an internal error");
    Some(reason.chars().take(120).collect())
}

/// tsserver's own encoding: 1-based lines and 1-based utf-16 offsets.
const TSSERVER_ENCODING: Encoding = Encoding::Utf16;

impl LspServer {
    pub(super) async fn tsserver_diagnostics(
        &self,
        path: &Path,
        doc: &Doc,
    ) -> Result<Vec<Finding>, ToolError> {
        let mut findings = Vec::new();
        for command in [
            "syntacticDiagnosticsSync",
            "semanticDiagnosticsSync",
            "suggestionDiagnosticsSync",
        ] {
            let params = json!({
                "command": "typescript.tsserverRequest",
                "arguments": [command, { "file": path, "includeLinePosition": false }],
            });
            // The first check of a project includes loading it (the lib
            // files, every source), so it gets the ready budget too.
            // Past it, the answer is waited for while tsserver works on
            // (under six busy loops a starved tsserver ran past the
            // budget, and a clock here sent the answer to the pushes,
            // which cannot say when they are whole: "still analysing").
            let budget = self.budgets.document.max(self.budgets.ready);
            let asked = self
                .client
                .request_of::<request::ExecuteCommand>(params, self.request_ceiling(budget));
            let v = self.patiently(command, budget, asked).await?;
            let items = v.get("body").cloned().unwrap_or(v);
            let Some(items) = items.as_array() else {
                return Err(ToolError::server(format!(
                    "tsserver answered {command} with {items}"
                )));
            };
            for d in items {
                if let Some(f) = tsserver_finding(d, &doc.index, self.spec.id) {
                    findings.push(f);
                }
            }
        }
        Ok(findings)
    }
}

/// Converts one tsserver diagnostic (`start`/`end` as 1-based line and utf-16
/// offset, `category` as a word) into a finding, the way
/// typescript-language-server maps them when it publishes. A diagnostic
/// without a `source` is the server's own (its id).
fn tsserver_finding(d: &Value, index: &LineIndex, server: &str) -> Option<Finding> {
    let pos = |key: &str| -> Option<(usize, usize)> {
        let p = d.get(key)?;
        let line = p.get("line")?.as_u64()?.saturating_sub(1) as u32;
        let character = p.get("offset")?.as_u64()?.saturating_sub(1) as u32;
        Some(index.from_lsp(Position { line, character }, TSSERVER_ENCODING))
    };
    let (l, c) = pos("start")?;
    let (el, ec) = pos("end").unwrap_or((l, c));
    let severity = match d.get("category").and_then(Value::as_str) {
        Some("warning") => Severity::Warning,
        Some("suggestion") => Severity::Hint,
        Some("message") => Severity::Info,
        _ => Severity::Error,
    };
    Some(Finding {
        line: l + 1,
        column: c + 1,
        end_line: el + 1,
        end_column: ec + 1,
        severity,
        message: fold(d.get("text").and_then(Value::as_str).unwrap_or("")),
        source: d
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or(server)
            .to_owned(),
        code: d.get("code").map(|c| {
            c.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| c.to_string())
        }),
    })
}

impl LspServer {
    /// tsserver's `navto` for `query` in the projects that hold `file`:
    /// typescript-language-server's `workspace/symbol` asks it of the
    /// document it touched last, so in a monorepo it searches one
    /// package's project; asked of each package's file, it searches them
    /// all. Each item in agent coordinates, its kind as
    /// typescript-language-server names it.
    pub async fn navto(
        &self,
        file: &Path,
        query: &str,
    ) -> Result<Vec<crate::answer::Item>, ToolError> {
        let params = json!({
            "command": "typescript.tsserverRequest",
            "arguments": ["navto", { "file": file, "searchValue": query }],
        });
        let budget = self.budgets.request;
        let asked = self
            .client
            .request_of::<request::ExecuteCommand>(params, self.request_ceiling(budget));
        let v = self.patiently("navto", budget, asked).await?;
        let items = v.get("body").cloned().unwrap_or(v);
        let mut texts = std::collections::HashMap::new();
        let mut out = Vec::new();
        for item in items.as_array().into_iter().flatten() {
            let (Some(name), Some(path)) = (
                item.get("name").and_then(Value::as_str),
                item.get("file").and_then(Value::as_str),
            ) else {
                continue;
            };
            let at = |k: &str| item.pointer(&format!("/start/{k}")).and_then(Value::as_u64);
            let start = Position {
                line: at("line").unwrap_or(1).saturating_sub(1) as u32,
                character: at("offset").unwrap_or(1).saturating_sub(1) as u32,
            };
            let path = sightline_lsp::normalize(Path::new(path));
            let Some(loc) = self.loc_at(&path, start, &mut texts) else {
                continue;
            };
            let kind = navto_kind(item.get("kind").and_then(Value::as_str).unwrap_or(""));
            out.push(crate::answer::Item {
                name: name.to_owned(),
                kind: super::symbols::kind_name(Some(kind)).to_owned(),
                start_line: loc.line,
                end_line: loc.line,
                loc,
                children: Vec::new(),
            });
        }
        Ok(out)
    }
}

/// The LSP symbol kind typescript-language-server gives a tsserver element
/// kind in `workspace/symbol`.
fn navto_kind(kind: &str) -> u64 {
    match kind {
        "module" | "external module name" => 2,
        "class" | "local class" => 5,
        "method" | "getter" | "setter" => 6,
        "property" => 7,
        "constructor" => 9,
        "enum" => 10,
        "interface" => 11,
        "function" | "local function" => 12,
        "const" => 14,
        "enum member" => 22,
        _ => 13,
    }
}

#[cfg(test)]
mod tests {
    use super::failure;

    #[test]
    fn tsserver_s_own_failure_is_told_apart() {
        let e = "error: typescript answered workspace/executeCommand with error 1: <main> TypeScript Server Error (5.9.3)\nDebug Failure. False expression: getScriptInfo\nVerbose Debug Information: scriptInfo for a file '/p/A.vue' is missing.\n    at InferredProject2.getScriptInfos";
        assert_eq!(
            failure(e).as_deref(),
            Some("Debug Failure. False expression: getScriptInfo")
        );
        assert_eq!(failure("typescript did not answer within 30.0 s"), None);
    }
}
