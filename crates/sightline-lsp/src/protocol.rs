//! The one place that names the pinned LSP types crate, so that the next
//! breaking bump of `gen-lsp-types` touches only this module.

pub use gen_lsp_types::{
    Code, Definition, DefinitionLink, DefinitionResponse, Diagnostic, DiagnosticSeverity,
    DocumentDiagnosticReport, FullDocumentDiagnosticReport, Location, LocationLink, Message,
    Position, PublishDiagnosticsParams, Range, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport, Uri,
};
/// The requests sightline sends typed by method (`Client::send`): the
/// method's name and its result's type are the protocol's.
pub use gen_lsp_types::{DefinitionRequest, DocumentDiagnosticRequest, ReferencesRequest, Request};

/// Flattens the text of a diagnostic message, which LSP 3.18 allows to be markup.
pub fn message_text(message: &Message) -> &str {
    match message {
        Message::String(s) => s,
        Message::MarkupContent(m) => &m.value,
    }
}

/// Normalises every shape a definition answer may take into plain locations,
/// preferring the link's selection range (the name) over its full range.
pub fn definition_locations(response: Option<DefinitionResponse>) -> Vec<Location> {
    match response {
        None => Vec::new(),
        Some(DefinitionResponse::Definition(Definition::Location(l))) => vec![l],
        Some(DefinitionResponse::Definition(Definition::LocationList(v))) => v,
        Some(DefinitionResponse::DefinitionLinkList(links)) => links
            .into_iter()
            .map(|l| Location::new(l.target_uri, l.target_selection_range))
            .collect(),
    }
}
