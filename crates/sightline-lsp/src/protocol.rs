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
pub use gen_lsp_types::{
    DefinitionRequest, DocumentDiagnosticRequest, Notification, ReferencesRequest, Request,
};

/// The protocol's requests sightline sends, by type (`Client::send` decodes
/// the answer into the protocol's result type; `Client::request_of` keeps
/// it as JSON, for answers read leniently).
pub mod request {
    pub use gen_lsp_types::{
        CallHierarchyIncomingCallsRequest as CallHierarchyIncomingCalls,
        CallHierarchyOutgoingCallsRequest as CallHierarchyOutgoingCalls,
        CallHierarchyPrepareRequest as CallHierarchyPrepare, CodeActionRequest as CodeAction,
        CodeActionResolveRequest as CodeActionResolve, DeclarationRequest as Declaration,
        DefinitionRequest as Definition, DocumentDiagnosticRequest as DocumentDiagnostic,
        DocumentRangeFormattingRequest as RangeFormatting, DocumentSymbolRequest as DocumentSymbol,
        ExecuteCommandRequest as ExecuteCommand, FoldingRangeRequest as FoldingRange,
        HoverRequest as Hover, ImplementationRequest as Implementation,
        InitializeRequest as Initialize, PrepareRenameRequest as PrepareRename,
        ReferencesRequest as References, RenameRequest as Rename,
        TypeHierarchyPrepareRequest as TypeHierarchyPrepare,
        TypeHierarchySubtypesRequest as TypeHierarchySubtypes,
        TypeHierarchySupertypesRequest as TypeHierarchySupertypes,
        WillRenameFilesRequest as WillRenameFiles,
        WorkspaceDiagnosticRequest as WorkspaceDiagnostic,
        WorkspaceSymbolRequest as WorkspaceSymbol,
    };
}

/// The protocol's notifications sightline sends, by type
/// (`Client::notify_of`).
pub mod notification {
    pub use gen_lsp_types::{
        DidChangeConfigurationNotification as DidChangeConfiguration,
        DidChangeTextDocumentNotification as DidChangeTextDocument,
        DidChangeWatchedFilesNotification as DidChangeWatchedFiles,
        DidCloseTextDocumentNotification as DidCloseTextDocument,
        DidOpenTextDocumentNotification as DidOpenTextDocument,
        DidRenameFilesNotification as DidRenameFiles,
        DidSaveTextDocumentNotification as DidSaveTextDocument,
        InitializedNotification as Initialized,
    };
}

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
