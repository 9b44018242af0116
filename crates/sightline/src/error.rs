//! The answers a tool gives when it cannot answer the question: one shape,
//! a kind a caller can act on and a message, shown as one line whose first
//! words are the kind's prefix.

use sightline_lsp::ClientError;

/// What kind of failure an answer is: what a caller can act on. Each kind
/// has one of the contract's first words ([`ErrorKind::prefix`]) and a
/// stable name for the JSON form ([`ErrorKind::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The call itself is wrong: a relative path, a line past the end, ...
    BadInput,
    /// No server can be had for this file; the text says what to install.
    Unavailable,
    /// No built-in server handles this kind of file.
    Unsupported,
    /// The server is still indexing and the wait budget ran out.
    NotReady,
    /// The server did not answer within the request's budget (the request
    /// was cancelled on the server): busy, so asking again shortly may work.
    Timeout,
    /// The server process exited while the question was asked; the text
    /// carries its status and stderr tail.
    Exited,
    /// The server answered with an error, or with something unreadable.
    Server,
    /// The MCP client cancelled the call.
    Cancelled,
    /// A write the sandbox mode does not allow; nothing was changed.
    Refused,
    /// A bug in sightline, caught where the tool call is answered.
    Internal,
}

impl ErrorKind {
    /// The answer's first words: `error`, `unavailable`, `unsupported` or
    /// `not ready`.
    pub const fn prefix(self) -> &'static str {
        match self {
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::NotReady | ErrorKind::Timeout => "not ready",
            ErrorKind::BadInput
            | ErrorKind::Exited
            | ErrorKind::Server
            | ErrorKind::Cancelled
            | ErrorKind::Refused
            | ErrorKind::Internal => "error",
        }
    }

    /// A stable name for the JSON form.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::BadInput => "bad_input",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::NotReady => "not_ready",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Exited => "server_exited",
            ErrorKind::Server => "server_error",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Refused => "refused",
            ErrorKind::Internal => "internal",
        }
    }
}

/// The one-line answer of a question that has none: its kind, and the text
/// after the kind's first words. Shown as `PREFIX: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", kind.prefix())]
pub struct ToolError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// The text after the prefix.
    pub message: String,
}

impl ToolError {
    /// An answer of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ToolError {
        ToolError {
            kind,
            message: message.into(),
        }
    }

    /// [`ErrorKind::BadInput`].
    pub fn bad_input(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::BadInput, message)
    }

    /// [`ErrorKind::Unavailable`].
    pub fn unavailable(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Unavailable, message)
    }

    /// [`ErrorKind::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Unsupported, message)
    }

    /// [`ErrorKind::NotReady`].
    pub fn not_ready(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::NotReady, message)
    }

    /// [`ErrorKind::Timeout`].
    pub fn timeout(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Timeout, message)
    }

    /// [`ErrorKind::Exited`].
    pub fn exited(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Exited, message)
    }

    /// [`ErrorKind::Server`].
    pub fn server(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Server, message)
    }

    /// [`ErrorKind::Cancelled`].
    pub fn cancelled(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Cancelled, message)
    }

    /// [`ErrorKind::Refused`].
    pub fn refused(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Refused, message)
    }

    /// The same answer with `more` after its text.
    pub fn append(mut self, more: &str) -> ToolError {
        self.message.push_str(more);
        self
    }

    /// A panic caught while answering `tool`, as an answer.
    pub fn from_panic(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        ToolError::new(
            ErrorKind::Internal,
            format!(
                "internal error in {tool}: {}",
                message.lines().next().unwrap_or_default()
            ),
        )
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
            } => ToolError::timeout(format!(
                "{server} did not answer {method} within {:.1} s; ask again shortly",
                after.as_secs_f64()
            )),
            e @ ClientError::ServerExited { .. } => ToolError::exited(e.to_string()),
            e @ ClientError::Spawn { .. } => ToolError::unavailable(e.to_string()),
            e => ToolError::server(e.to_string()),
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
        assert_eq!(e.kind.name(), "timeout");
        assert_eq!(
            e.to_string(),
            "not ready: pyright did not answer textDocument/references within 10.0 s; ask again shortly"
        );
        let e = ToolError::from(ClientError::ServerExited {
            server: "pyright".into(),
            code: Some(1),
            stderr_tail: "boom".into(),
        });
        assert_eq!(e.kind.name(), "server_exited");
        assert_eq!(
            e.to_string(),
            "error: pyright exited with status 1; stderr: boom"
        );
        assert_eq!(e.message, "pyright exited with status 1; stderr: boom");
    }

    #[test]
    fn a_panic_becomes_one_line() {
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("byte index 8\nmore"));
        let e = ToolError::from_panic("edit", payload.as_ref());
        assert_eq!(e.to_string(), "error: internal error in edit: byte index 8");
        assert_eq!(e.kind.name(), "internal");
    }
}
