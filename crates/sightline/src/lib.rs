//! sightline: ask real language servers what a type checker knows about the
//! files on disk now: diagnostics, definitions, references.
//!
//! A question goes down the modules in this order (`docs/ARCHITECTURE.md`
//! names the file of each step):
//!
//! - `frontends`: the CLI and the MCP server take the call;
//! - `engine`: checks it, snapshots the file (`sync`), routes it to the
//!   servers of the file (`catalog`: the table, roots, installs), and
//!   combines their answers;
//! - `pool`: the running server for that root, started (in the `sandbox`)
//!   if needed;
//! - `server`: its documents brought in step with disk, the wait until its
//!   answers are complete, the request, and the answer in agent coordinates
//!   (`answer`);
//! - `render`: the text or JSON the caller gets.
//!
//! `edit` and `format` are the edit tools (an `Editor`, which
//! `Engine::editor` lends) and the formatters, built on the
//! engine; `config` is the user and project configuration. The modules are
//! private: the `pub use` list below is the whole API.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sightline::ToolError> {
//! let engine = sightline::Engine::new(sightline::Options::default());
//! let d = engine.diagnostics(std::path::Path::new("/repo/src/app.py")).await?;
//! print!("{}", sightline::diagnostics_text(&d));
//! engine.shutdown().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod answer;
mod catalog;
mod config;
mod edit;
mod engine;
mod error;
mod files;
mod format;
mod frontends;
mod pool;
mod progress;
mod project;
mod render;
mod sandbox;
mod server;
mod sync;
mod syntax;
mod workspaces;

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

// Asking: the engine, its options, and what it answers.
pub use answer::{Diagnostics, Finding, Items, ItemsKind, Loc, LocKind, Locations, Severity};
pub use engine::{Engine, Options, Servers};
pub use error::{ErrorKind, ToolError};
pub use progress::Progress;

// Showing an answer as the CLI and MCP do.
pub use render::{
    diagnostics_json, diagnostics_text, error_json, error_text, hover_text, items_json, items_text,
    locations_json, locations_text, servers_text,
};

// The servers: the built-in table, and what a spec of one's own is made of.
pub use catalog::{
    BUILTIN, BackgroundIndex, Budgets, DiagnosticsQuirks, ImportAliases, LaunchQuirks,
    LifecycleQuirks, LinterQuirks, OnInstall, OutsideProject, Publishes, Quirks, Readiness,
    ReferencesQuirks, Role, Runtime, SaveCheck, ServerSpec,
};
pub use config::Config;
pub use sandbox::{Mode as SandboxMode, Sandbox, explain_denial};

// Editing: an engine's edits (`Engine::editor`), and the types a caller
// passes to them or gets back, the formatters' too.
pub use edit::refactor::{Pick, PublicNames, RenameOptions};
pub use edit::{Editor, SymbolEdit};
pub use format::{Formatters, Outcome as FormatOutcome};

// The binary, and what the test suite and benchmarks drive directly.
pub use frontends::binary::main as run_binary;
#[doc(hidden)]
pub use {
    catalog::FAKE, config::trust_in_process, frontends::signals::interrupted,
    server::initialize_params, sync::watch::DiskWatch,
};
