//! Edit → diagnostics latency: a new version of a file, then its diagnostics,
//! through sightline against a direct client on the same server, in one run.
//!
//! - pyright, pull: the direct client sends `didChange` and pulls
//!   `textDocument/diagnostic`; its time is the server's own pull time.
//! - typescript-language-server, push: the direct client sends `didChange`
//!   and waits for the `publishDiagnostics` holding the expected errors (an
//!   oracle no real client has, so this is a floor).
//!
//! sightline's time starts with the file already written to disk and includes
//! reading and hashing it. The two run side by side, round by round, on two
//! copies of the project, so that both see the same machine. Printed: both
//! medians, the ratio, and the median of sightline's wait beyond the server's
//! time. Run with
//! `cargo bench -p sightline-mcp --bench diagnostics`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::{direct::Direct, runtime, stats::median, stats::us, tool, workspace};

const ROUNDS: usize = 40;
const WARMUP: usize = 3;

/// Round `i`'s text and its error count: odd rounds one error, even two.
fn variant(lang: &str, i: usize) -> (String, usize) {
    let errors = 1 + i % 2;
    let mut text = String::new();
    for n in 0..errors {
        match lang {
            "py" => text.push_str(&format!("v{n}_{i}: int = \"s\"\n")),
            _ => text.push_str(&format!("export const v{n}_{i}: number = \"s\";\n")),
        }
    }
    (text, errors)
}

struct Result {
    direct: Duration,
    sightline: Duration,
}

/// One sightline round: the file is written, then its diagnostics asked.
async fn sightline_round(ws: &sightline::Engine, file: &Path, lang: &str, i: usize) -> Duration {
    let (text, errors) = variant(lang, i);
    std::fs::write(file, &text).unwrap();
    let t = Instant::now();
    let d = ws.diagnostics(file).await.unwrap();
    let took = t.elapsed();
    let found = d
        .diagnostics
        .iter()
        .filter(|f| f.severity == sightline::Severity::Error)
        .count();
    assert_eq!(found, errors, "round {i}: {d:?}");
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    took
}

/// A second copy of a project, for sightline.
fn copy_of(root: &Path, files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(root.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn pyright() -> Result {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    let file = root.join("main.py");
    let (text, _) = variant("py", 0);
    std::fs::write(&file, &text).unwrap();
    let caps = json!({ "textDocument": {
        "diagnostic": { "dynamicRegistration": true },
        "publishDiagnostics": { "versionSupport": true },
    } });
    let mut d = Direct::start(&tool("pyright-langserver"), &root, caps, json!({}));
    let uri = sightline_test_support::direct::uri(&file);
    d.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "python", "version": 0, "text": text } }),
    );
    let other = copy_of(&root, &["pyproject.toml", "main.py"]);
    let other_file = other.path().canonicalize().unwrap().join("main.py");
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    runtime().block_on(async {
        let ws = workspace();
        for i in 0..WARMUP + ROUNDS {
            let (text, errors) = variant("py", i);
            let t = Instant::now();
            d.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": uri, "version": i + 1 }, "contentChanges": [{ "text": text }] }),
            );
            let r = d.request("textDocument/diagnostic", json!({ "textDocument": { "uri": uri } }));
            let took = t.elapsed();
            let items = r["result"]["items"].as_array().map_or(0, |a| {
                a.iter().filter(|x| x["severity"] == json!(1)).count()
            });
            assert_eq!(items, errors, "round {i}: {r}");
            let s = sightline_round(&ws, &other_file, "py", i).await;
            if i >= WARMUP {
                direct.push(took);
                through.push(s);
            }
        }
        ws.shutdown().await;
    });
    Result {
        direct: median(direct),
        sightline: median(through),
    }
}

fn typescript() -> Result {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("tsconfig.json"),
        "{\"compilerOptions\":{\"strict\":true}}",
    )
    .unwrap();
    let file = root.join("main.ts");
    let (text, _) = variant("ts", 0);
    std::fs::write(&file, &text).unwrap();
    let tsserver = sightline_test_support::tsserver_js();
    let caps = json!({ "textDocument": { "publishDiagnostics": { "versionSupport": true } } });
    let init = json!({ "tsserver": { "path": tsserver } });
    let mut d = Direct::start(&tool("typescript-language-server"), &root, caps, init);
    let uri = sightline_test_support::direct::uri(&file);
    d.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "typescript", "version": 0, "text": text } }),
    );
    let wait_for = |d: &mut Direct, errors: usize| loop {
        let n: Value = d
            .notifications
            .recv_timeout(Duration::from_secs(60))
            .expect("no publish within 60 s");
        if n["method"] == json!("textDocument/publishDiagnostics")
            && n["params"]["uri"] == json!(uri)
            && n["params"]["diagnostics"].as_array().map_or(0, |a| {
                a.iter().filter(|x| x["severity"] == json!(1)).count()
            }) == errors
        {
            return;
        }
    };
    wait_for(&mut d, 1);
    let other = copy_of(&root, &["tsconfig.json", "main.ts"]);
    let other_file = other.path().canonicalize().unwrap().join("main.ts");
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    runtime().block_on(async {
        let ws = workspace();
        for i in 1..=WARMUP + ROUNDS {
            let (text, errors) = variant("ts", i);
            let t = Instant::now();
            d.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": uri, "version": i }, "contentChanges": [{ "text": text }] }),
            );
            wait_for(&mut d, errors);
            let took = t.elapsed();
            let s = sightline_round(&ws, &other_file, "ts", i).await;
            if i > WARMUP {
                direct.push(took);
                through.push(s);
            }
        }
        ws.shutdown().await;
    });
    Result {
        direct: median(direct),
        sightline: median(through),
    }
}

fn report(name: &str, r: &Result) {
    println!("{name}");
    println!("  direct client median: {:9.1} us", us(r.direct));
    println!("  sightline median:     {:9.1} us", us(r.sightline));
    println!(
        "  sightline's wait beyond the server's: {:+.1} us",
        us(r.sightline) - us(r.direct)
    );
    println!(
        "  ratio (sightline / direct): {:.2}x",
        r.sightline.as_secs_f64() / r.direct.as_secs_f64()
    );
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    println!("edit -> diagnostics, {ROUNDS} rounds each after {WARMUP} warm-up rounds");
    report("pyright (pull)", &pyright());
    report(
        "typescript-language-server (push; sightline asks tsserver directly)",
        &typescript(),
    );
}
