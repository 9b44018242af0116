//! Errors of the protocol client, with variants a caller can act on.

use std::time::Duration;

use crate::message::ResponseError;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server process could not be started at all.
    #[error("could not start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// The server exited (or closed its stdout) while requests were pending.
    #[error("{server} exited{}{}", code_text(*.code), tail_text(.stderr_tail))]
    ServerExited {
        server: String,
        code: Option<i32>,
        stderr_tail: String,
    },
    /// No answer arrived within the request's budget; `$/cancelRequest` was sent.
    #[error("{server} did not answer {method} within {:.1} s", .after.as_secs_f64())]
    Timeout {
        server: String,
        method: String,
        after: Duration,
    },
    /// The server answered with a JSON-RPC error.
    #[error("{server} answered {method} with error {}: {}", .error.code, .error.message)]
    Response {
        server: String,
        method: String,
        error: ResponseError,
    },
    /// The answer could not be read at all: over the size cap, or not JSON.
    #[error("{server}'s answer to {method} was rejected: {detail}")]
    Rejected {
        server: String,
        method: String,
        detail: String,
    },
    /// The answer did not have the shape the protocol promises.
    #[error("{server} sent a malformed answer to {method}: {detail}")]
    Decode {
        server: String,
        method: String,
        detail: String,
    },
}

fn code_text(code: Option<i32>) -> String {
    code.map(|c| format!(" with status {c}"))
        .unwrap_or_default()
}

fn tail_text(tail: &str) -> String {
    let tail = tail.trim();
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", tail.replace('\n', " | "))
    }
}
