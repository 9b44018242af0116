//! The cost of a question in a workspace of many packages: an npm
//! workspace of 100, 1,000 and 5,000 packages (every tenth calls a function
//! of `core`), the references of that function through a new daemon
//! (cold: the daemon's and the server's start, the packages found, the
//! budget's 40 opened) and then again (warm). The work is bounded by
//! `workspace.max_packages`, so the time should grow with the packages
//! walked, not with the packages opened.
//!
//! Run with `cargo bench -p sightline-mcp --bench packages`.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::process::Command;
use std::time::{Duration, Instant};

use sightline_test_support::{DaemonDirs, Project, path_with_tools, require, sightline_bin};

/// `sightline references` at `place` through the daemon of `dirs`: its time
/// and its first line.
fn ask(dirs: &DaemonDirs, root: &std::path::Path, place: &str) -> (Duration, String) {
    let started = Instant::now();
    let out = Command::new(sightline_bin())
        .args(["references", place])
        .current_dir(root)
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", dirs.runtime().join("data"))
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(dirs.env())
        .output()
        .unwrap();
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    let note = text
        .lines()
        .find(|l| l.starts_with("note: "))
        .map(|l| l.chars().take(60).collect::<String>())
        .unwrap_or_default();
    (
        took,
        format!("{}; {note}…", text.lines().next().unwrap_or_default()),
    )
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    require("typescript-language-server");
    println!("| packages | callers | cold question | warm question | answer |");
    println!("|---|---|---|---|---|");
    for packages in [100, 1_000, 5_000] {
        let ws = Project::npm_workspace(packages);
        let place = format!("{}:1:17", ws.path("packages/core/src/index.ts").display());
        let dirs = DaemonDirs::new();
        let (cold, said) = ask(&dirs, ws.root(), &place);
        let (warm, again) = ask(&dirs, ws.root(), &place);
        assert_eq!(said, again);
        dirs.stop();
        println!(
            "| {packages} | {} | {:.1} s | {:.2} s | {said} |",
            packages.div_ceil(10),
            cold.as_secs_f64(),
            warm.as_secs_f64()
        );
    }
}
