//! The language-server protocol client behind sightline: framing, the JSON-RPC
//! transport, child-process lifetime, positions and URIs. It knows nothing about
//! tools or rendering.

mod client;
mod error;
mod framing;
mod message;
mod position;
mod process;
mod protocol;
mod stderr;
mod uri;
mod writer;

// The client and its messages.
pub use client::{Client, Handler, SpawnConfig};
pub use error::ClientError;
pub use framing::{DEFAULT_MAX_BODY, Frame, FramingError, LspCodec};
pub use message::{DecodeError, ErrorCode, Message, RequestId, ResponseError};
// Positions and paths as servers give them.
pub use position::{Encoding, LineIndex};
pub use uri::windows::{
    path_to_uri as windows_path_to_uri, strip_verbatim, uri_to_path as windows_uri_to_path,
};
pub use uri::{UriError, normalize, path_to_uri, path_to_uri_string, uri_to_path};
// Children, each in a process group of its own.
pub use process::shim::{find_in, is_batch};
pub use process::{group_alive, kill_group, kill_pid, spawn_group};
pub use stderr::StderrRing;
// The protocol's types (the pinned `gen-lsp-types`, named in `protocol` only).
pub use protocol::{
    Code, Definition, DefinitionLink, DefinitionRequest, DefinitionResponse, Diagnostic,
    DiagnosticSeverity, DocumentDiagnosticReport, DocumentDiagnosticRequest,
    FullDocumentDiagnosticReport, Location, LocationLink, Message as DiagnosticMessage, Position,
    PublishDiagnosticsParams, Range, ReferencesRequest, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, Request, UnchangedDocumentDiagnosticReport, Uri,
    definition_locations, message_text, notification, request,
};
