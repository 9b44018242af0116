//! A Cargo workspace's first answer, cold, against rust-analyzer's own load
//! time: four crates.io crates that depend on each other by path (memchr,
//! aho-corasick, regex-syntax, regex-automata; `Cargo.lock`, `cargo fetch`
//! done), with 0, 2 and 6 busy loops on the machine's cores.
//!
//! Each run is cold twice over. Without sightline: a bare direct client
//! starts the same rust-analyzer and waits for its own word that it has
//! loaded the workspace (`experimental/serverStatus` with `quiescent`),
//! then asks for the references of memchr's `Finder`, which every other
//! crate uses; that answer is the whole one. With sightline: a daemon of
//! its own, a fresh data directory, and `sightline references` asked at
//! once; its time is from the command's start to its answer, which must be
//! the whole one (never "ask again").
//!
//! Run with `cargo bench -p sightline-mcp --bench cargo_workspace`;
//! `SIGHTLINE_BENCH_RUNS` sets the runs per load (3). Resolving the
//! workspace's lock asks crates.io.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use sightline_test_support::direct::{Direct, uri};
use sightline_test_support::stats::median;
use sightline_test_support::{BusyLoops, DaemonDirs, pinned, require_rust_analyzer};

/// The asked place: `Finder` in `pub struct Finder<'n>` (1-based).
const FILE: &str = "memchr/src/memmem/mod.rs";
const LINE: u32 = 384;
const COLUMN: u32 = 12;

const LOADS: [usize; 3] = [0, 2, 6];

/// rust-analyzer started by a direct client: the time to its own word that
/// the workspace is loaded, the time to the references asked then, and
/// their count (the uses, as sightline lists them).
fn direct(root: &Path) -> (Duration, Duration, usize) {
    let started = Instant::now();
    let mut ra = Direct::start_with(
        Path::new("rust-analyzer"),
        &[],
        root,
        json!({
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true },
        }),
        json!({}),
    );
    let file = root.join(FILE);
    ra.notify(
        "textDocument/didOpen",
        json!({"textDocument": {
            "uri": uri(&file), "languageId": "rust", "version": 1,
            "text": std::fs::read_to_string(&file).unwrap(),
        }}),
    );
    ra.wait_for("experimental/serverStatus", |n| {
        n["params"]["quiescent"] == true
    });
    let loaded = started.elapsed();
    let answer = ra.request(
        "textDocument/references",
        json!({
            "textDocument": { "uri": uri(&file) },
            "position": { "line": LINE - 1, "character": COLUMN - 1 },
            "context": { "includeDeclaration": false },
        }),
    );
    let answered = started.elapsed();
    let places = answer["result"].as_array().map_or(0, Vec::len);
    (loaded, answered, places)
}

/// `sightline references`, cold: its time, its count line and the places
/// it listed.
fn through_sightline(root: &Path) -> (Duration, String, usize) {
    let dirs = DaemonDirs::new();
    let own = tempfile::tempdir().unwrap();
    let config = own.path().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let started = Instant::now();
    let out = dirs
        .command(root, &config, &own.path().join("data"))
        .arg("references")
        .arg(format!("{FILE}:{LINE}:{COLUMN}"))
        .output()
        .unwrap();
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let first = text.lines().next().unwrap_or_default().to_owned();
    let places = text
        .lines()
        .filter(|l| {
            let path = l.split(':').next().unwrap_or_default();
            Path::new(path).extension().is_some_and(|e| e == "rs")
        })
        .count();
    assert!(
        out.status.success(),
        "sightline references failed:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dirs.stop();
    (took, first, places)
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    require_rust_analyzer();
    let runs: usize = std::env::var("SIGHTLINE_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let source = tempfile::tempdir().unwrap();
    pinned::cargo_workspace(source.path());
    println!(
        "| busy loops | rust-analyzer's own load p50 (max) | direct client's first answer p50 | sightline's first answer p50 (max) | sightline / direct p50 | whole answers | first answer said |"
    );
    println!("|---|---|---|---|---|---|---|");
    for load in LOADS {
        let mut loads = Vec::new();
        let mut firsts = Vec::new();
        let mut directs = Vec::new();
        let mut whole = 0;
        let mut said = String::new();
        for _ in 0..runs {
            // A fresh copy each time: no `target/` or cache of a run before.
            let dir = tempfile::tempdir().unwrap();
            copy(source.path(), dir.path());
            let busy = BusyLoops::start(load);
            let (loaded, answered, expected) = direct(dir.path());
            drop(busy);
            let dir = tempfile::tempdir().unwrap();
            copy(source.path(), dir.path());
            let busy = BusyLoops::start(load);
            let (first, line, places) = through_sightline(dir.path());
            drop(busy);
            assert!(expected > 1, "rust-analyzer found {expected} references");
            if places == expected {
                whole += 1;
            }
            said = line;
            loads.push(loaded);
            directs.push(answered);
            firsts.push(first);
        }
        let ratio = median(firsts.clone()).as_secs_f64() / median(directs.clone()).as_secs_f64();
        println!(
            "| {load} | {} ({}) | {} | {} ({}) | {ratio:.2} | {whole} of {runs} | {said} |",
            secs(median(loads.clone())),
            secs(*loads.iter().max().unwrap()),
            secs(median(directs)),
            secs(median(firsts.clone())),
            secs(*firsts.iter().max().unwrap()),
        );
    }
}

/// Copies the workspace `from` (without a `target/`) to `to`.
fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
    let _ = std::fs::remove_dir_all(to.join("target"));
}
