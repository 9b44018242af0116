//! Warm `definition` through sightline against a minimal direct client talking
//! to the same pinned pyright, in one run, the two asked in turn. Prints both
//! medians and their ratio.
//!
//! The direct client is deliberately bare: blocking std I/O, hand framing, every
//! server request answered with `null`. It is the floor sightline is measured
//! against. Run with `cargo bench -p sightline-mcp --bench definition`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::Instant;

use serde_json::json;
use sightline_test_support::{direct::Direct, runtime, stats::median, stats::us, tool, workspace};

const ROUNDS: usize = 200;
const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";
const APP: &str = "from lib import add\n\ntotal = add(1, 2)\nprint(total)\n";

fn main() {
    sightline_test_support::isolation::isolate_main();
    // `cargo bench` passes `--bench`; this harness takes no options.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    std::fs::write(root.join("lib.py"), LIB).unwrap();
    std::fs::write(root.join("app.py"), APP).unwrap();
    let app = root.join("app.py");

    // Direct client.
    let mut direct = Direct::start(&tool("pyright-langserver"), &root, json!({}), json!({}));
    let uri = sightline_test_support::direct::uri(&app);
    direct.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": APP}}),
    );
    let params = json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 8}});
    let first = direct.request("textDocument/definition", params.clone());
    assert!(first["result"].to_string().contains("lib.py"), "{first}");

    // sightline, same server, same question, asked in turn with the direct
    // client (alternating which goes first), so that both see the same
    // machine: on two cores, run-to-run noise is larger than the overhead.
    let (direct_times, sightline_times) = runtime().block_on(async {
        let ws = workspace();
        let warm = ws.definition(&app, 3, 9).await.unwrap();
        assert_eq!(warm.locations[0].path, root.join("lib.py"));
        let mut direct_times = Vec::new();
        let mut times = Vec::new();
        for round in 0..ROUNDS {
            let mut ask_direct = || {
                let t = Instant::now();
                let r = direct.request("textDocument/definition", params.clone());
                direct_times.push(t.elapsed());
                assert!(r["result"].is_array());
            };
            if round % 2 == 0 {
                ask_direct();
            }
            let t = Instant::now();
            let r = ws.definition(&app, 3, 9).await.unwrap();
            times.push(t.elapsed());
            assert_eq!(r.locations.len(), 1);
            if round % 2 == 1 {
                ask_direct();
            }
        }
        ws.shutdown().await;
        (direct_times, times)
    });
    drop(direct);

    let d = median(direct_times);
    let s = median(sightline_times);
    println!("warm definition, pyright, {ROUNDS} rounds each");
    println!("  direct client median: {:8.1} us", us(d));
    println!("  sightline median:     {:8.1} us", us(s));
    println!(
        "  ratio (sightline / direct): {:.2}x",
        s.as_secs_f64() / d.as_secs_f64()
    );
}
