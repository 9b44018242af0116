//! Soak: 10,000 tool calls against a warm pyright (definitions, references and
//! diagnostics, with an edit on disk every 50 calls). Prints sightline's
//! resident memory at the start (after 100 warm-up calls) and at the end, and
//! fails when it grew by more than 10%. Run with
//! `cargo bench -p sightline-mcp --bench soak`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::Instant;

use sightline_test_support::{rss_kib, runtime, workspace};

const CALLS: usize = 10_000;
const WARMUP: usize = 100;
const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";

/// The asked file after `i` edits: odd edits hold one error.
fn app(i: usize) -> String {
    let value = if i.is_multiple_of(2) {
        "1".to_owned()
    } else {
        format!("\"s{i}\"")
    };
    format!("from lib import add\n\ntotal = add(1, 2)\nprint(total)\nv: int = {value}\n")
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    std::fs::write(root.join("lib.py"), LIB).unwrap();
    let file = root.join("app.py");
    std::fs::write(&file, app(0)).unwrap();
    let started = Instant::now();
    let (start, end) = runtime().block_on(async {
        let ws = workspace();
        let mut start = 0;
        let mut edits = 0;
        for i in 0..WARMUP + CALLS {
            if i == WARMUP {
                start = rss_kib();
            }
            if i % 50 == 49 {
                edits += 1;
                std::fs::write(&file, app(edits)).unwrap();
            }
            match i % 3 {
                0 => {
                    let d = ws.definition(&file, 3, 9).await.unwrap();
                    assert_eq!(d.locations.len(), 1);
                }
                1 => {
                    let r = ws
                        .references(&root.join("lib.py"), 1, 5, false)
                        .await
                        .unwrap();
                    assert_eq!(r.locations.len(), 2);
                }
                _ => {
                    let d = ws.diagnostics(&file).await.unwrap();
                    let errors = d
                        .diagnostics
                        .iter()
                        .filter(|f| f.severity == sightline::Severity::Error)
                        .count();
                    assert_eq!(errors, edits % 2, "call {i}: {d:?}");
                }
            }
        }
        let end = rss_kib();
        ws.shutdown().await;
        (start, end)
    });
    let growth = (end as f64 - start as f64) / start as f64 * 100.0;
    println!(
        "soak: {CALLS} tool calls against a warm pyright in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("  resident memory at the start: {start} KiB");
    println!("  resident memory at the end:   {end} KiB");
    println!("  growth: {growth:+.1}% (limit +10%)");
    if growth > 10.0 {
        println!("FAILED: memory grew by more than 10%");
        std::process::exit(1);
    }
}
