//! An engine wired to the pinned servers in `tools/`, the runtime the CLI
//! uses, and the text each question's tool gives.

use std::path::Path;

use sightline::{Engine, Options};

use crate::paths::{require, tools_bin};

/// A workspace that finds servers only in `tools/` and never downloads. Its
/// data directory (installs, trust, temporary directories) and
/// configuration are the process's private ones, which the environment
/// names.
pub fn workspace() -> Engine {
    crate::isolation::env();
    require("pyright-langserver");
    require("typescript-language-server");
    Engine::new(Options {
        search_path: vec![tools_bin()],
        downloads: Some(false),
        ..Options::default()
    })
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The text a tool gives for `definition`, answer or error.
pub async fn defs(ws: &Engine, file: &Path, line: usize, col: usize) -> String {
    match ws.definition(file, line, col).await {
        Ok(l) => sightline::locations_text(&l),
        Err(e) => sightline::error_text(&e),
    }
}

/// The text a tool gives for `references` (declaration excluded).
pub async fn refs(ws: &Engine, file: &Path, line: usize, col: usize) -> String {
    match ws.references(file, line, col, false).await {
        Ok(l) => sightline::locations_text(&l),
        Err(e) => sightline::error_text(&e),
    }
}

/// The text a tool gives for `diagnostics`.
pub async fn diags(ws: &Engine, file: &Path) -> String {
    match ws.diagnostics(file).await {
        Ok(d) => sightline::diagnostics_text(&d),
        Err(e) => sightline::error_text(&e),
    }
}
