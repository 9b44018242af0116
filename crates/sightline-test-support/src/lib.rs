//! The harnesses sightline's tests and benchmarks share: temporary projects
//! (`project`), the pinned servers in `tools/` and this build's binaries
//! (`paths`), an engine wired to those servers (`engine`), the CLI and
//! `sightline batch` as children (`cli`), a test's own daemon (`daemon`), `sightline mcp` driven by the
//! official MCP Python SDK (`mcp`), positions scanned from real source (`scan`) in the pinned real projects (`pinned`), a bare blocking LSP client to measure
//! against (`direct`), processes (`process`), and benchmark numbers
//! (`stats`), and the private environment every test process runs in
//! (`isolation`). Every harness fails (never skips) when what it needs is
//! missing, and says how to get it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod checkers;
pub mod cli;
pub mod daemon;
pub mod direct;
pub mod engine;
pub mod http;
pub mod isolation;
pub mod mcp;
pub mod model_server;
pub mod paths;
pub mod pinned;
mod poll;
pub mod process;
pub mod project;
pub mod scan;
pub mod stats;

pub use checkers::{git, tsc};
pub use cli::{BatchBuilder, BatchSession, hook_context, refusal, run_cli, run_hook};
pub use daemon::DaemonDirs;
pub use engine::{defs, diags, refs, runtime, workspace};
pub use paths::{
    bin_dir, fake_lsp_bin, path_with_tools, place_of, repo_root, require, require_rust_analyzer,
    sightline_bin, tool, tools_bin, tsserver_js,
};
pub use poll::{poll_until, poll_until_async};
pub use process::{BusyLoops, alive, descendants, rss_kib, rss_kib_of};
pub use project::Project;
