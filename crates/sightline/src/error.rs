//! The answers a tool gives when it cannot answer the question: each variant is
//! one of the contract's one-line prefixes, so a caller can act on the kind.

use sightline_lsp::ClientError;

/// The one-line answer of a question that has none: each variant is one of
/// the first words a caller sees (`error:`, `unavailable:`, `unsupported:`,
/// `not ready:`).
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
    /// The server did not answer within the request's budget (the request was
    /// cancelled on the server): busy, so asking again shortly may work.
    #[error("not ready: {0}")]
    Timeout(String),
    /// The server process exited while the question was asked; the text
    /// carries its status and stderr tail.
    #[error("error: {0}")]
    Exited(String),
    /// The server answered with an error, or with something unreadable.
    #[error("error: {0}")]
    Server(String),
    /// The MCP client cancelled the call.
    #[error("error: {0}")]
    Cancelled(String),
    /// A write the sandbox mode does not allow; nothing was changed.
    #[error("error: {0}")]
    Refused(String),
    /// A bug in sightline, caught where the tool call is answered.
    #[error("error: internal error in {tool}: {message}")]
    Internal {
        /// The tool or command being answered.
        tool: String,
        /// The panic's first line.
        message: String,
    },
}

impl ToolError {
    /// A stable name for the JSON form.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::BadInput(_) => "bad_input",
            ToolError::Unavailable(_) => "unavailable",
            ToolError::Unsupported(_) => "unsupported",
            ToolError::NotReady(_) => "not_ready",
            ToolError::Timeout(_) => "timeout",
            ToolError::Exited(_) => "server_exited",
            ToolError::Server(_) => "server_error",
            ToolError::Cancelled(_) => "cancelled",
            ToolError::Refused(_) => "refused",
            ToolError::Internal { .. } => "internal",
        }
    }

    /// The text after the one-line prefix.
    pub fn message(&self) -> String {
        match self {
            ToolError::BadInput(m)
            | ToolError::Unavailable(m)
            | ToolError::Unsupported(m)
            | ToolError::NotReady(m)
            | ToolError::Timeout(m)
            | ToolError::Exited(m)
            | ToolError::Server(m)
            | ToolError::Cancelled(m)
            | ToolError::Refused(m) => m.clone(),
            ToolError::Internal { tool, message } => format!("internal error in {tool}: {message}"),
        }
    }

    /// The same answer with `more` after its text.
    pub fn append(self, more: &str) -> ToolError {
        match self {
            ToolError::BadInput(m) => ToolError::BadInput(m + more),
            ToolError::Unavailable(m) => ToolError::Unavailable(m + more),
            ToolError::Unsupported(m) => ToolError::Unsupported(m + more),
            ToolError::NotReady(m) => ToolError::NotReady(m + more),
            ToolError::Timeout(m) => ToolError::Timeout(m + more),
            ToolError::Exited(m) => ToolError::Exited(m + more),
            ToolError::Server(m) => ToolError::Server(m + more),
            ToolError::Cancelled(m) => ToolError::Cancelled(m + more),
            ToolError::Refused(m) => ToolError::Refused(m + more),
            ToolError::Internal { tool, message } => ToolError::Internal {
                tool,
                message: message + more,
            },
        }
    }

    /// A panic caught while answering `tool`, as an answer.
    pub fn from_panic(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        ToolError::Internal {
            tool: tool.to_owned(),
            message: message.lines().next().unwrap_or_default().to_owned(),
        }
    }
}

/// Runs one tool call so that a panic inside it becomes its answer
/// (`error: internal error in <tool>: ...`) instead of a call left waiting
/// or a process gone.
pub async fn caught<T>(
    tool: &str,
    work: impl std::future::Future<Output = Result<T, ToolError>>,
) -> Result<T, ToolError> {
    use futures_util::FutureExt;
    let work = async {
        // Fault injection for the tests of this path, in debug builds only.
        #[cfg(debug_assertions)]
        if std::env::var("SIGHTLINE_PANIC_IN").is_ok_and(|t| t == tool) {
            panic!("injected by SIGHTLINE_PANIC_IN");
        }
        work.await
    };
    match std::panic::AssertUnwindSafe(work).catch_unwind().await {
        Ok(r) => r,
        Err(payload) => {
            let e = ToolError::from_panic(tool, payload.as_ref());
            tracing::error!("{e}");
            Err(e)
        }
    }
}

impl From<ClientError> for ToolError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Timeout {
                server,
                method,
                after,
            } => ToolError::Timeout(format!(
                "{server} did not answer {method} within {:.1} s; ask again shortly",
                after.as_secs_f64()
            )),
            e @ ClientError::ServerExited { .. } => ToolError::Exited(e.to_string()),
            e @ ClientError::Spawn { .. } => ToolError::Unavailable(e.to_string()),
            e => ToolError::Server(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_timeout_keeps_its_kind() {
        let e = ToolError::from(ClientError::Timeout {
            server: "pyright".into(),
            method: "textDocument/references".into(),
            after: Duration::from_secs(10),
        });
        assert_eq!(e.kind(), "timeout");
        assert_eq!(
            e.to_string(),
            "not ready: pyright did not answer textDocument/references within 10.0 s; ask again shortly"
        );
        let e = ToolError::from(ClientError::ServerExited {
            server: "pyright".into(),
            code: Some(1),
            stderr_tail: "boom".into(),
        });
        assert_eq!(e.kind(), "server_exited");
        assert_eq!(
            e.to_string(),
            "error: pyright exited with status 1; stderr: boom"
        );
        assert_eq!(e.message(), "pyright exited with status 1; stderr: boom");
    }

    #[test]
    fn a_panic_becomes_one_line() {
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("byte index 8\nmore"));
        let e = ToolError::from_panic("edit", payload.as_ref());
        assert_eq!(e.to_string(), "error: internal error in edit: byte index 8");
        assert_eq!(e.kind(), "internal");
    }
}
