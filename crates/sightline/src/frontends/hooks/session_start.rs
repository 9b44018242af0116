//! What a session's start prepares: the servers of the languages the
//! project holds most of, not of its config and docs files, installed
//! first where they are missing (downloads allowed), then started and
//! loaded, all in the daemon while the session goes on. The first edit then
//! finds a loading server, not an absent one: a first edit that paid for
//! the install (pyright started 27.6 s into the turn) had its errors miss
//! the turn. Config and docs files' servers wait for a question about one
//! (the first session on a Python project used to fetch the JSON, Markdown
//! and TOML servers for `.mcp.json`, the README and `pyproject.toml`).

use std::path::{Path, PathBuf};

use crate::catalog::ServerSpec;
use crate::engine::Engine;

/// The endings of config and docs files: their servers wait for a question.
const CONFIG_AND_DOCS: &[&str] = &[
    ".json",
    ".jsonc",
    ".json5",
    ".yaml",
    ".yml",
    ".toml",
    ".md",
    ".markdown",
    ".mdx",
    ".rst",
    ".txt",
    ".ini",
    ".cfg",
    ".lock",
    ".xml",
];
/// At most this many languages are warmed.
const LANGUAGES: usize = 3;
/// A language with fewer than a tenth of the files of the most held one is
/// not warmed.
const SHARE: usize = 10;

/// Whether `path` is a config or docs file, whose server waits for a
/// question about it.
pub(super) fn config_or_docs(path: &Path) -> bool {
    let ending = crate::files::extension_of(path).unwrap_or_default();
    CONFIG_AND_DOCS.contains(&ending.as_str())
}

/// One file of each language to warm, the most held first, and whether
/// its server must be installed first.
pub(super) fn anchors_to_warm(engine: &Engine, cwd: &Path) -> Vec<(PathBuf, Option<&'static str>)> {
    let mut found: Vec<(Vec<&'static str>, &'static ServerSpec, PathBuf, usize)> = Vec::new();
    for path in crate::sync::walk::files_under(cwd).into_iter().take(5000) {
        if config_or_docs(&path) {
            continue;
        }
        let specs = engine.servers_for(&path);
        let Some(first) = specs.first().copied() else {
            continue;
        };
        let ids: Vec<&'static str> = specs.iter().map(|s| s.id).collect();
        match found.iter_mut().find(|(i, ..)| *i == ids) {
            Some(entry) => entry.3 += 1,
            None => found.push((ids, first, path, 1)),
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.3));
    let most = found.first().map_or(0, |f| f.3);
    found
        .into_iter()
        .filter(|(.., n)| n * SHARE >= most)
        .take(LANGUAGES)
        .filter_map(|(_, spec, path, _)| {
            let dir = path.parent().unwrap_or(cwd);
            if engine.servers().locate(spec, dir).is_some() {
                Some((path, None))
            } else {
                engine
                    .servers()
                    .installs(spec)
                    .then_some((path, Some(spec.id)))
            }
        })
        .collect()
}

/// Starts preparing the project's servers under `cwd` in the background
/// (installing the missing ones first), and the guidance the session gets;
/// "" when nothing here is served.
pub(super) fn warm(engine: &std::sync::Arc<Engine>, cwd: &Path) -> String {
    let anchors = anchors_to_warm(engine, cwd);
    if anchors.is_empty() {
        return String::new();
    }
    let installing: Vec<&str> = anchors.iter().filter_map(|(_, id)| *id).collect();
    // Started in the background: the session does not wait for it.
    let engine = engine.clone();
    tokio::spawn(async move {
        for (file, _) in anchors {
            // In turn: an agent's edit asked of its text held in memory
            // must not see the warming tell a server the disk's. The
            // install, under its own file lock, is part of the first
            // question; a question asked meanwhile waits for that lock.
            let _turn = crate::sync::file_view::shared_turn().await;
            let _ = engine.diagnostics(&file).await;
        }
    });
    let installing = if installing.is_empty() {
        String::new()
    } else {
        format!("installing {} and ", installing.join(", "))
    };
    format!("sightline is {installing}starting this project's language servers: {GUIDANCE}")
}

/// What a session (or a Claude Code subagent) is told at its start, after
/// what sightline prepares.
const GUIDANCE: &str = "prefer its lsp_references over grep for the exact uses of a symbol (no comment or string matches, aliases followed), and lsp_diagnostics for a file's errors now.\n";
