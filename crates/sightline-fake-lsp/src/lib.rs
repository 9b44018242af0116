//! A scripted language server for sightline's tests, built on sightline's
//! own transport: it keeps documents, reports every line holding `ERR` as an
//! error (and `WARN` as a warning), resolves `def NAME` definitions and
//! whole-word references, and follows a script's rules to misbehave on
//! demand. The binary serves it on stdio; [`in_memory`] serves it over an
//! in-process pipe, so that sightline's `server` layer is unit-tested
//! without spawning anything.

#![allow(clippy::print_stderr, clippy::print_stdout)]

mod answers;
pub mod script;
mod serve;

pub use script::Script;
pub use serve::{Crash, main as serve_stdio, serve};

/// Starts the fake server in this process for the root `dir`, following
/// `script` (the JSON a test would write to `fake-lsp.json`). Returns the
/// client's ends: what the server writes (read it) and what it reads
/// (write to it). The server runs until its input closes; a scripted
/// crash closes both.
///
/// # Panics
/// When `script` is not a valid script: the test's own mistake.
pub fn in_memory(
    dir: std::path::PathBuf,
    script: serde_json::Value,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    #[allow(clippy::expect_used)]
    let script: Script = serde_json::from_value(script).expect("a valid fake-lsp script");
    let (client_reads, server_writes) = tokio::io::duplex(1 << 20);
    let (server_reads, client_writes) = tokio::io::duplex(1 << 20);
    tokio::spawn(serve(
        dir,
        script,
        server_reads,
        server_writes,
        Crash::CloseStreams,
    ));
    (client_reads, client_writes)
}
