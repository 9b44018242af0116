//! sightline: ask real language servers what a type checker knows about the
//! files on disk now: diagnostics, definitions, references.
//!
//! A question goes down the modules in this order (`docs/ARCHITECTURE.md`
//! names the file of each step):
//!
//! - [`frontends`]: the CLI and the MCP server take the call;
//! - [`engine`]: checks it, snapshots the file ([`sync`]), routes it to the
//!   servers of the file ([`catalog`]: the table, roots, installs), and
//!   combines their answers;
//! - [`pool`]: the running server for that root, started (in the
//!   [`sandbox`]) if needed;
//! - [`server`]: its documents brought in step with disk, the wait until its
//!   answers are complete, the request, and the answer in agent coordinates
//!   ([`answer`]);
//! - [`render`]: the text or JSON the caller gets.
//!
//! [`edit`] and [`format`](mod@format) are the edit tools and the formatters, built on the
//! engine; [`config`] is the user and project configuration.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sightline::ToolError> {
//! let engine = sightline::Engine::new(sightline::Options::default());
//! let d = engine.diagnostics(std::path::Path::new("/repo/src/app.py")).await?;
//! print!("{}", sightline::render::diagnostics_text(&d));
//! engine.shutdown().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod answer;
pub mod catalog;
pub mod config;
pub mod edit;
pub mod engine;
pub mod error;
pub mod files;
pub mod format;
pub mod frontends;
pub mod pool;
pub mod progress;
pub mod project;
pub mod render;
pub mod sandbox;
pub mod server;
pub mod sync;

/// Before any unit test thread starts: this process's XDG and data
/// directories are its own (`sightline_test_support::isolation`), so that
/// no unit test reads the user's configuration or trust list.
#[cfg(test)]
#[ctor::ctor(unsafe)]
fn isolate() {
    sightline_test_support::isolation::isolate();
}

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
pub use engine::{Engine, Options};
pub use error::{ErrorKind, ToolError};
pub use progress::Progress;
