//! The fake server's default, well-behaved side: the documents it keeps,
//! the diagnostics it publishes (an error per `ERR` line, a warning per
//! `WARN` line), and its answers to requests (definitions of `def NAME`,
//! whole-word references, hover, workspace diagnostics).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sightline_lsp::ResponseError;

use crate::script::{PushMode, Which};
use crate::serve::{Doc, Fake};

impl Fake {
    /// Keeps documents in step with the client's notifications.
    pub(crate) fn update(&mut self, method: &str, params: &Value) {
        let uri = uri_of(params);
        let version = params
            .pointer("/textDocument/version")
            .and_then(Value::as_i64);
        match method {
            "textDocument/didOpen" => {
                let text = params
                    .pointer("/textDocument/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if let Ok(mut open) = self.open.lock() {
                    open.insert(uri.clone());
                }
                self.docs.insert(
                    uri,
                    Doc {
                        text,
                        version: version.unwrap_or(0),
                        previous: None,
                    },
                );
            }
            "textDocument/didChange" => {
                let text = params
                    .pointer("/contentChanges/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if let Some(doc) = self.docs.get_mut(&uri) {
                    let old = std::mem::replace(&mut doc.text, text);
                    doc.previous = Some((old, doc.version));
                    doc.version = version.unwrap_or(doc.version + 1);
                }
            }
            "textDocument/didClose" => {
                if let Ok(mut open) = self.open.lock() {
                    open.remove(&uri);
                }
                self.docs.remove(&uri);
            }
            _ => {}
        }
    }

    /// What follows a notification by default: pushes, and `exit`.
    pub(crate) fn after(&mut self, method: &str, uri: &str) {
        match method {
            "exit" => {
                self.log("exit");
                if self.crash == crate::serve::Crash::ExitProcess {
                    std::process::exit(0);
                }
                // In a test's process: stop serving, as the process would.
                self.crashed = Some(0);
            }
            "textDocument/didOpen" | "textDocument/didChange" => match self.script.push {
                PushMode::None => {}
                PushMode::Versioned => self.publish(uri, Which::Current, true),
                PushMode::Unversioned => self.publish(uri, Which::Current, false),
            },
            _ => {}
        }
    }

    pub(crate) fn publish(&mut self, uri: &str, which: Which, versioned: bool) {
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        let (text, version) = match (which, &doc.previous) {
            (Which::Previous, Some((t, v))) => (t.as_str(), *v),
            // rust-analyzer's way with its last check's findings: published
            // again with each new version until the next check ends.
            (Which::PreviousAsCurrent, Some((t, _))) => (t.as_str(), doc.version),
            _ => (doc.text.as_str(), doc.version),
        };
        let mut params = json!({ "uri": uri, "diagnostics": findings(text, "fake") });
        if versioned {
            params["version"] = json!(version);
        }
        self.log(&format!("publish version {version}"));
        self.notify("textDocument/publishDiagnostics", params);
    }

    /// The default, well-behaved answer to a request.
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per method the fake server answers"
    )]
    pub(crate) fn answer(&mut self, method: &str, params: &Value) -> Result<Value, ResponseError> {
        let uri = uri_of(params);
        match method {
            "initialize" => {
                let mut caps = json!({
                    "positionEncoding": "utf-16",
                    "textDocumentSync": 1,
                    "definitionProvider": true,
                    "referencesProvider": true,
                    "hoverProvider": true,
                });
                if let (Some(base), Some(extra)) =
                    (caps.as_object_mut(), self.script.capabilities.as_object())
                {
                    for (k, v) in extra {
                        base.insert(k.clone(), v.clone());
                    }
                }
                Ok(json!({ "capabilities": caps, "serverInfo": { "name": "sightline-fake-lsp" } }))
            }
            "shutdown" => Ok(Value::Null),
            "workspace/diagnostic" => {
                let previous: HashMap<String, String> = params
                    .get("previousResultIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|p| {
                        Some((
                            p.get("uri")?.as_str()?.to_owned(),
                            p.get("value")?.as_str()?.to_owned(),
                        ))
                    })
                    .collect();
                let mut reports = Vec::new();
                for path in fake_files(&self.dir) {
                    let uri = format!("file://{}", path.display());
                    let (text, version) = match self.docs.get(&uri) {
                        Some(d) => (d.text.clone(), Some(d.version)),
                        None => (std::fs::read_to_string(&path).unwrap_or_default(), None),
                    };
                    let result_id =
                        format!("ws-{:x}", text.len() * 31 + text.matches("ERR").count());
                    if previous.get(&uri) == Some(&result_id) {
                        reports.push(json!({ "kind": "unchanged", "uri": uri, "version": version, "resultId": result_id }));
                    } else {
                        reports.push(json!({ "kind": "full", "uri": uri, "version": version, "resultId": result_id, "items": findings(&text, "fake") }));
                    }
                }
                Ok(json!({ "items": reports }))
            }
            "textDocument/diagnostic" => {
                let identifier = params.get("identifier").and_then(Value::as_str);
                let source = identifier.unwrap_or("fake").to_owned();
                let (text, version) = match self.docs.get(&uri) {
                    Some(d) => (d.text.clone(), d.version),
                    None => (self.read(&uri).unwrap_or_default(), 0),
                };
                let result_id = format!("{source}-{version}");
                if params.get("previousResultId").and_then(Value::as_str)
                    == Some(result_id.as_str())
                {
                    return Ok(json!({ "kind": "unchanged", "resultId": result_id }));
                }
                let mut items = findings(&text, &source);
                // Each provider's findings read differently, so that merged
                // answers show every provider.
                if let Some(id) = identifier {
                    for item in &mut items {
                        let message = format!("{} ({id})", item["message"].as_str().unwrap_or(""));
                        item["message"] = json!(message);
                    }
                }
                Ok(json!({ "kind": "full", "resultId": result_id, "items": items }))
            }
            "textDocument/definition"
            | "textDocument/declaration"
            | "textDocument/references"
            | "textDocument/hover" => {
                if self.script.only_open && !self.docs.contains_key(&uri) {
                    return Err(ResponseError {
                        code: sightline_lsp::ErrorCode::InvalidParams.code(),
                        message: "trying to get AST for non-added document".into(),
                        data: None,
                    });
                }
                let Some(word) = self.word_at(&uri, params) else {
                    return Ok(Value::Null);
                };
                let declaration = params
                    .pointer("/context/includeDeclaration")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let found = match method {
                    "textDocument/definition" | "textDocument/declaration" => {
                        self.occurrences(&word, Some(true))
                    }
                    "textDocument/references" => {
                        self.occurrences(&word, if declaration { None } else { Some(false) })
                    }
                    _ => {
                        return Ok(
                            json!({ "contents": { "kind": "markdown", "value": format!("`{word}`") } }),
                        );
                    }
                };
                Ok(Value::Array(found))
            }
            other => Err(ResponseError::method_not_found(other)),
        }
    }

    fn read(&self, uri: &str) -> Option<String> {
        std::fs::read_to_string(uri.strip_prefix("file://")?).ok()
    }

    fn word_at(&self, uri: &str, params: &Value) -> Option<String> {
        let text = match self.docs.get(uri) {
            Some(d) => d.text.clone(),
            None => self.read(uri)?,
        };
        let line = params.pointer("/position/line")?.as_u64()? as usize;
        let col = params.pointer("/position/character")?.as_u64()? as usize;
        let chars: Vec<char> = text.lines().nth(line)?.chars().collect();
        let is_word = |c: &char| c.is_alphanumeric() || *c == '_';
        if !chars.get(col).is_some_and(is_word) {
            return None;
        }
        let start = (0..=col).rev().take_while(|&i| is_word(&chars[i])).last()?;
        let end = (col..chars.len())
            .take_while(|&i| is_word(&chars[i]))
            .last()?
            + 1;
        Some(chars[start..end].iter().collect())
    }

    /// Whole-word occurrences of `word` in every `.fake` file: only
    /// definitions (`def word`), only uses, or both.
    fn occurrences(&self, word: &str, definitions: Option<bool>) -> Vec<Value> {
        let mut files: Vec<(String, String)> = self
            .docs
            .iter()
            .map(|(u, d)| (u.clone(), d.text.clone()))
            .collect();
        for path in fake_files(&self.dir) {
            let uri = format!("file://{}", path.display());
            if !self.docs.contains_key(&uri)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                files.push((uri, text));
            }
        }
        files.sort();
        let mut out = Vec::new();
        for (uri, text) in files {
            for (n, line) in text.lines().enumerate() {
                for col in word_columns(line, word) {
                    let is_def = line
                        [..line.char_indices().nth(col).map_or(line.len(), |(b, _)| b)]
                        .trim_end()
                        .ends_with("def");
                    if definitions.is_none_or(|d| d == is_def) {
                        out.push(json!({ "uri": uri, "range": {
                            "start": { "line": n, "character": col },
                            "end": { "line": n, "character": col + word.chars().count() },
                        } }));
                    }
                }
            }
        }
        out
    }
}

pub(crate) fn uri_of(params: &Value) -> String {
    params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// One finding per line holding `ERR` (an error) or `WARN` (a warning).
fn findings(text: &str, source: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (needle, severity) in [("ERR", 1), ("WARN", 2)] {
            if let Some(b) = line.find(needle) {
                let col = line[..b].chars().count();
                out.push(json!({
                    "range": { "start": { "line": n, "character": col }, "end": { "line": n, "character": col + needle.len() } },
                    "severity": severity,
                    "source": source,
                    "message": format!("found {needle}"),
                }));
            }
        }
    }
    out
}

/// The character columns where `word` stands as a whole word in `line`.
fn word_columns(line: &str, word: &str) -> Vec<usize> {
    let chars: Vec<char> = line.chars().collect();
    let w: Vec<char> = word.chars().collect();
    let is_word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    (0..chars.len())
        .filter(|&i| {
            chars[i..].starts_with(&w)
                && (i == 0 || !is_word(chars.get(i - 1)))
                && !is_word(chars.get(i + w.len()))
        })
        .collect()
}

fn fake_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(fake_files(&p));
        } else if p.extension().is_some_and(|x| x == "fake") {
            out.push(p);
        }
    }
    out
}
