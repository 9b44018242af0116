//! sightline: ask real language servers what a type checker knows about the
//! files on disk now: diagnostics, definitions, references.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sightline::ToolError> {
//! let ws = sightline::Workspace::new(sightline::Options::default());
//! let d = ws.diagnostics(std::path::Path::new("/repo/src/app.py")).await?;
//! print!("{}", sightline::render::diagnostics_text(&d));
//! ws.shutdown().await;
//! # Ok(()) }
//! ```

pub mod admin;
pub mod aliases;
pub mod answer;
pub mod builtin;
pub mod cli;
pub mod config;
pub mod confine;
pub mod diagnostics;
pub mod documents;
pub mod edit;
pub mod error;
pub mod format;
pub mod formatter;
pub mod install;
pub mod loose;
pub mod mcp;
pub mod navigation;
pub mod patch;
pub mod pool;
pub mod progress;
pub mod questions;
pub mod range_format;
pub mod readiness;
pub mod registry;
pub mod render;
pub mod roots;
pub mod sandbox;
pub mod server;
pub mod state;
pub mod status;
pub mod validate;
pub mod watch;
pub mod workspace;

/// The property tests' settings: 256 cases each (all of them run in seconds),
/// unless `PROPTEST_CASES` asks for a longer search.
#[cfg(test)]
pub(crate) fn proptest_config() -> proptest::test_runner::Config {
    if std::env::var_os("PROPTEST_CASES").is_some() {
        proptest::test_runner::Config::default()
    } else {
        proptest::test_runner::Config::with_cases(256)
    }
}

pub use answer::{Diagnostics, Finding, Loc, LocKind, Locations, Severity};
pub use error::ToolError;
pub use progress::Progress;
pub use workspace::{Options, Workspace};
