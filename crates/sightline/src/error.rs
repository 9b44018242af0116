//! The answers a tool gives when it cannot answer the question: each variant is
//! one of the contract's one-line prefixes, so a caller can act on the kind.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The call itself is wrong: a relative path, a line past the end, ...
    #[error("error: {0}")]
    BadInput(String),
    /// No server can be had for this file; the text says what to install.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// No built-in server handles this kind of file.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The server is still indexing and the wait budget ran out.
    #[error("not ready: {0}")]
    NotReady(String),
    /// The server failed: it crashed, timed out or answered with an error.
    #[error("error: {0}")]
    Server(String),
}

impl ToolError {
    /// A stable name for the JSON form.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::BadInput(_) => "bad_input",
            ToolError::Unavailable(_) => "unavailable",
            ToolError::Unsupported(_) => "unsupported",
            ToolError::NotReady(_) => "not_ready",
            ToolError::Server(_) => "server_error",
        }
    }

    /// The same answer with `more` after its text.
    pub fn append(self, more: &str) -> ToolError {
        match self {
            ToolError::BadInput(m) => ToolError::BadInput(m + more),
            ToolError::Unavailable(m) => ToolError::Unavailable(m + more),
            ToolError::Unsupported(m) => ToolError::Unsupported(m + more),
            ToolError::NotReady(m) => ToolError::NotReady(m + more),
            ToolError::Server(m) => ToolError::Server(m + more),
        }
    }
}

impl From<sightline_lsp::ClientError> for ToolError {
    fn from(e: sightline_lsp::ClientError) -> Self {
        ToolError::Server(e.to_string())
    }
}
