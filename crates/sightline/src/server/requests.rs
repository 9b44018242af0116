//! The requests of the questions: one request with the ordinary budget and
//! a work-done token of sightline's own (`ask`), the capability checks that
//! turn a question a server cannot answer into `unsupported:`, and
//! definitions, references, declarations, implementations and hover.

use std::path::Path;

use serde_json::{Value, json};
use sightline_lsp::{
    DefinitionRequest, DefinitionResponse, Location, Position, ReferencesRequest,
    definition_locations,
};
use sightline_lsp::{path_to_uri_string, request};

use crate::error::ToolError;
use crate::server::LspServer;

/// The request each capability of `initialize` stands for, as a dynamic
/// registration names it.
const PROVIDER_METHODS: &[(&str, &str)] = &[
    ("definitionProvider", "textDocument/definition"),
    ("referencesProvider", "textDocument/references"),
    ("hoverProvider", "textDocument/hover"),
    ("implementationProvider", "textDocument/implementation"),
    ("documentSymbolProvider", "textDocument/documentSymbol"),
    ("workspaceSymbolProvider", "workspace/symbol"),
    ("callHierarchyProvider", "textDocument/prepareCallHierarchy"),
    ("typeHierarchyProvider", "textDocument/prepareTypeHierarchy"),
    ("documentFormattingProvider", "textDocument/formatting"),
    (
        "documentRangeFormattingProvider",
        "textDocument/rangeFormatting",
    ),
];

impl LspServer {
    /// Whether the server offers `provider`: declared in `initialize`, or
    /// registered later (`client/registerCapability`) and not unregistered.
    /// A registration's document selector is not matched against the file:
    /// a server that registers at all serves the files it was started for.
    pub(crate) fn offers(&self, provider: &str) -> bool {
        let declared = match self.capabilities.get(provider) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Null) | None => false,
            Some(_) => true,
        };
        declared
            || PROVIDER_METHODS
                .iter()
                .find(|(p, _)| *p == provider)
                .is_some_and(|(_, method)| {
                    self.state
                        .with(|s| s.registered.methods.values().any(|m| m == method))
                })
    }

    pub(crate) fn require(&self, provider: &str, operation: &str) -> Result<(), ToolError> {
        if self.offers(provider) {
            return Ok(());
        }
        Err(ToolError::unsupported(format!(
            "{} does not support {operation}",
            self.spec.id
        )))
    }

    pub(super) fn at(path: &Path, pos: Position) -> Value {
        json!({
            "textDocument": { "uri": path_to_uri_string(path).unwrap_or_default() },
            "position": pos,
        })
    }

    /// One request with the ordinary budget, which a server that works on
    /// past it gets ([`Self::patiently`]), carrying a work-done token of
    /// sightline's own (the progress the server reports for it is not
    /// indexing).
    ///
    /// A question the server fails with "content modified" (rust-analyzer,
    /// while it reloads the workspace after a `Cargo.lock` or `Cargo.toml`
    /// change it was told of) is asked again once the server has settled,
    /// as the protocol says a client should, at most three times.
    pub(super) async fn ask(&self, method: &str, mut params: Value) -> Result<Value, ToolError> {
        // A document-scoped request only about a document the server was
        // told of: clangd answers one it never opened with an error
        // ("trying to get AST for non-added document"), and sightline asks
        // of files on its own (a definition's file, for its declaration).
        // It stays open until answered, whatever else is opened meanwhile.
        let _asking = match params.pointer("/textDocument/uri").and_then(Value::as_str) {
            Some(uri) => self.open_if_untold(uri)?.map(|path| self.asking(&path)),
            None => None,
        };
        self.state.own_token(&mut params);
        let mut tries = 0;
        loop {
            let budget = self.budgets.request;
            let asked =
                self.client
                    .request_value(method, params.clone(), self.request_ceiling(budget));
            match self.patiently(method, budget, asked).await {
                // Before the first load, `while_loading` asks again at the
                // next settled moment, sooner than the end of indexing.
                Err(sightline_lsp::ClientError::Response { error, .. })
                    if error.is(sightline_lsp::ErrorCode::ContentModified)
                        && tries < 3
                        && (!self.spec.quirks.readiness.waits_for_status()
                            || self.state.with(|s| s.load.loaded)) =>
                {
                    tries += 1;
                    tracing::debug!(
                        "{}: {method} failed with content modified; asking again once it settles",
                        self.spec.id
                    );
                    let quiet = |s: &crate::server::heard::ServerReports| {
                        s.progress.running.is_empty() && s.load.busy.is_none()
                    };
                    self.wait_until(self.budgets.ready, quiet).await;
                }
                r => return Ok(r?),
            }
        }
    }

    /// Opens the document `uri` with the disk's text when the server holds
    /// no copy of it; its path, when it is a file.
    fn open_if_untold(&self, uri: &str) -> Result<Option<std::path::PathBuf>, ToolError> {
        let Ok(path) = sightline_lsp::uri_to_path(uri) else {
            return Ok(None);
        };
        if self.docs().get(&path).is_some() {
            return Ok(Some(path));
        }
        // Not a file sightline can read: the server answers as it will.
        // The disk's text, also in a dry run: a staged file a server holds
        // is told its staged text when the dry run begins
        // (`Editor::hold_in_memory`), one it does not before any question
        // about it, and each stays open as told until the run ends
        // (`Documents::holds_dry_run_text`).
        if let Ok(read) = crate::sync::Snapshot::read(&path) {
            self.sync_unasked(&path, &read.index)?;
        }
        Ok(Some(path))
    }

    /// [`Self::ask`] of the protocol's request `R` (its method `R`'s), the
    /// answer kept as JSON for a caller that reads it leniently.
    pub(crate) async fn ask_of<R: sightline_lsp::Request>(
        &self,
        params: Value,
    ) -> Result<Value, ToolError> {
        self.ask(R::METHOD.as_str(), params).await
    }

    /// [`Self::ask`] of the protocol's request `R`, its answer decoded into
    /// `T`: `R`'s result type ([`Self::ask_request`]) or one that takes the
    /// same answer (a declaration's or implementation's as a definition's).
    pub(crate) async fn ask_as<R: sightline_lsp::Request, T: serde::de::DeserializeOwned>(
        &self,
        params: Value,
    ) -> Result<T, ToolError> {
        let method = R::METHOD.as_str();
        let v = self.ask(method, params).await?;
        serde_json::from_value(v).map_err(|e| {
            ToolError::server(format!(
                "{} sent a malformed answer to {method}: {e}",
                self.spec.id
            ))
        })
    }

    /// [`Self::ask`] of the protocol's request `R`: its method, and its
    /// answer decoded into its result type.
    pub(crate) async fn ask_request<R: sightline_lsp::Request>(
        &self,
        params: Value,
    ) -> Result<R::Result, ToolError> {
        self.ask_as::<R, R::Result>(params).await
    }

    /// The hover text at `pos`, as markdown.
    pub async fn hover(&self, path: &Path, pos: Position) -> Result<String, ToolError> {
        self.require("hoverProvider", "hover")?;
        let v = self.ask_of::<request::Hover>(Self::at(path, pos)).await?;
        Ok(hover_markdown(v.get("contents").unwrap_or(&Value::Null)))
    }

    /// Where the symbol at `pos` is implemented.
    pub async fn implementation(
        &self,
        path: &Path,
        pos: Position,
    ) -> Result<Vec<Location>, ToolError> {
        self.require("implementationProvider", "goToImplementation")?;
        let r: Option<DefinitionResponse> = self
            .ask_as::<request::Implementation, _>(Self::at(path, pos))
            .await?;
        Ok(definition_locations(r))
    }

    /// Where the symbol at `pos` is defined.
    pub async fn definition(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        self.require("definitionProvider", "goToDefinition")?;
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({ "textDocument": { "uri": uri }, "position": pos });
        // The question itself is always the server's to answer; its answer
        // is kept for a references question that follows at this position.
        let generation = self.generation();
        let r = self.ask_request::<DefinitionRequest>(params).await?;
        let found = definition_locations(r);
        self.keep("definition", &uri, pos, generation, &found);
        Ok(found)
    }

    /// Every reference to the symbol at `pos`, its declaration included.
    /// Servers differ in what `includeDeclaration: false` drops (pyright
    /// also drops the use under the cursor; the VS Code CSS and HTML servers
    /// drop nothing), so they are always asked for everything, and the
    /// caller takes the declaration out (see [`without_declarations`]).
    pub async fn references(&self, path: &Path, pos: Position) -> Result<Vec<Location>, ToolError> {
        self.require("referencesProvider", "findReferences")?;
        let uri = path_to_uri_string(path).unwrap_or_default();
        let params = json!({
            "textDocument": { "uri": uri },
            "position": pos,
            "context": { "includeDeclaration": true },
        });
        let r = self.ask_request::<ReferencesRequest>(params).await?;
        Ok(r.unwrap_or_default())
    }

    /// The declarations of the symbol at `pos`, to take out of a references
    /// answer (see [`without_declarations`]): its definitions and, for a
    /// server with `declaration_of_definition`, the declarations asked from
    /// `pos` and from each definition (clangd answers a header's prototype
    /// as the declaration of the definition, and the definition as the
    /// "declaration" of the prototype). Other servers are asked for
    /// declarations later, only when the answer calls for it
    /// ([`LspServer::other_declarations`]).
    pub async fn declarations(
        &self,
        path: &Path,
        pos: Position,
    ) -> Result<Vec<Location>, ToolError> {
        let uri = path_to_uri_string(path).unwrap_or_default();
        let apart = self.offers("declarationProvider")
            && self.spec.quirks.references.declaration_of_definition;
        let definitions = async {
            if self.offers("definitionProvider") {
                self.remembered("definition", &uri, pos, self.definition(path, pos))
                    .await
            } else {
                Ok(Vec::new())
            }
        };
        let at_pos = async {
            if apart {
                self.declaration(&uri, pos).await
            } else {
                Ok(Vec::new())
            }
        };
        let (definitions, at_pos) = futures_util::future::join(definitions, at_pos).await;
        let mut declarations = definitions?;
        let mut more = at_pos?;
        if apart {
            let of_definitions = declarations
                .iter()
                .take(4)
                .map(|d| self.declaration(d.uri.as_str(), d.range.start));
            for r in futures_util::future::join_all(of_definitions).await {
                more.extend(r?);
            }
        }
        declarations.append(&mut more);
        Ok(declarations)
    }

    /// The declarations at `pos` that are not among `known` (the
    /// definitions), asked only when `found` lists a file beside a
    /// definition's, of the same name and another kind (`a.pyi` beside
    /// `a.py`, `a.h` beside `a.c`), or there is no definition: a
    /// declaration apart from its definition lives in such a stub or
    /// header. Asking always would cost pyright as much again as the
    /// references themselves, for an answer that is the definition nearly
    /// every time.
    pub async fn other_declarations(
        &self,
        path: &Path,
        pos: Position,
        found: &[Location],
        known: &[Location],
    ) -> Result<Vec<Location>, ToolError> {
        if self.spec.quirks.references.declaration_of_definition
            || !self.offers("declarationProvider")
        {
            return Ok(Vec::new());
        }
        // A file's directory and name before the first dot, and the rest.
        let split = |uri: &str| {
            let (dir, name) = uri.rsplit_once('/').unwrap_or(("", uri));
            let (stem, kind) = name.split_once('.').unwrap_or((name, ""));
            ((dir.to_owned(), stem.to_owned()), kind.to_owned())
        };
        let definitions: Vec<_> = known.iter().map(|l| split(l.uri.as_str())).collect();
        let beside = |l: &Location| {
            let (place, kind) = split(l.uri.as_str());
            definitions.iter().any(|(p, k)| *p == place && *k != kind)
        };
        if !known.is_empty() && !found.iter().any(beside) {
            return Ok(Vec::new());
        }
        let uri = path_to_uri_string(path).unwrap_or_default();
        self.declaration(&uri, pos).await
    }
}

/// `found` without `declarations` (from [`LspServer::declarations`]).
pub fn without_declarations(mut found: Vec<Location>, declarations: &[Location]) -> Vec<Location> {
    found.retain(|l| !declarations.iter().any(|d| is_declaration(d, l)));
    found
}

impl LspServer {
    /// `textDocument/declaration` at `at` in the document `uri`.
    async fn declaration(&self, uri: &str, at: Position) -> Result<Vec<Location>, ToolError> {
        let params = json!({ "textDocument": { "uri": uri }, "position": at });
        self.remembered("declaration", uri, at, async {
            let r: Option<DefinitionResponse> =
                self.ask_as::<request::Declaration, _>(params).await?;
            Ok(definition_locations(r))
        })
        .await
    }
}

/// Whether reference `r` is the declaration `d`: the same start, or (for a
/// server that answers a definition with the whole declaration's range) a
/// name inside that range on its first line.
fn is_declaration(d: &Location, r: &Location) -> bool {
    if d.uri != r.uri {
        return false;
    }
    let (d, r) = (d.range, r.range);
    d.start == r.start
        || (r.start.line == d.start.line
            && d.start <= r.start
            && r.end <= d.end
            && d.start != d.end)
}

/// `MarkupContent`, a `MarkedString`, or a list of them, as markdown.
fn hover_markdown(contents: &Value) -> String {
    match contents {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(hover_markdown)
            .filter(|p| !p.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        Value::Object(o) => {
            let value = o.get("value").and_then(Value::as_str).unwrap_or("");
            match o.get("language").and_then(Value::as_str) {
                Some(lang) => format!("```{lang}\n{value}\n```"),
                None => value.to_owned(),
            }
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::symbols::kind_name;

    #[test]
    fn hover_contents_in_every_shape() {
        assert_eq!(
            hover_markdown(&json!({ "kind": "markdown", "value": "**x**" })),
            "**x**"
        );
        assert_eq!(hover_markdown(&json!("plain")), "plain");
        assert_eq!(
            hover_markdown(&json!([{ "language": "python", "value": "x: int" }, "doc"])),
            "```python\nx: int\n```\n\ndoc"
        );
        assert_eq!(kind_name(Some(12)), "function");
        assert_eq!(kind_name(Some(99)), "symbol");
    }
}
