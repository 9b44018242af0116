//! What an edit broke: from a `write` that changes a function's signature
//! to the answer that names the files it broke, against the server's own
//! time to report those files' errors, in one run.
//!
//! pyright, a library and five modules that call it, none of them asked
//! about before the first round. Each round flips `add` between two and
//! three required parameters, so every other round breaks the five callers
//! and the next fixes them.
//!
//! - Direct client: the six files open (as an editor holding them), the
//!   new `lib.py` sent with `didChange`, then each caller pulled
//!   (`textDocument/diagnostic`) until all five hold the expected errors:
//!   the floor, with an oracle (it knows which files to ask) no real
//!   client has.
//! - sightline: `Editor::write` of the same text on a copy of the project:
//!   the baseline (the file's errors before, its outline, the references
//!   of the changed symbol, the callers' errors before), the write, and
//!   every file asked again. Its time is split into those phases.
//!
//! Run with `cargo bench -p sightline-mcp --bench impact`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use sightline_test_support::direct::{Direct, uri};
use sightline_test_support::stats::{median, us};
use sightline_test_support::{runtime, tool, workspace};

const ROUNDS: usize = 12;
const WARMUP: usize = 2;
const CALLERS: usize = 5;

fn lib(i: usize) -> String {
    if i % 2 == 1 {
        "def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n".into()
    } else {
        "def add(a: int, b: int) -> int:\n    return a + b\n".into()
    }
}

fn project(root: &Path) {
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("lib.py"), lib(0)).unwrap();
    for n in 0..CALLERS {
        std::fs::write(
            root.join(format!("use{n}.py")),
            format!("from lib import add\n\n\ndef f{n}() -> int:\n    return add({n}, 1)\n"),
        )
        .unwrap();
    }
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let other = tempfile::tempdir().unwrap();
    let other_root = other.path().canonicalize().unwrap();
    project(&other_root);

    let caps = json!({ "textDocument": {
        "diagnostic": { "dynamicRegistration": true },
        "publishDiagnostics": { "versionSupport": true },
    } });
    let mut d = Direct::start(&tool("pyright-langserver"), &root, caps, json!({}));
    let open = |d: &mut Direct, name: &str| {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        d.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(&path), "languageId": "python", "version": 0, "text": text } }),
        );
    };
    open(&mut d, "lib.py");
    for n in 0..CALLERS {
        open(&mut d, &format!("use{n}.py"));
    }
    let lib_uri = uri(&root.join("lib.py"));
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    let (mut files, mut finding, mut users) = (Vec::new(), Vec::new(), Vec::new());
    runtime().block_on(async {
        let ws = workspace();
        for i in 1..=WARMUP + ROUNDS {
            let broken = i % 2 == 1;
            let t = Instant::now();
            d.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": lib_uri, "version": i }, "contentChanges": [{ "text": lib(i) }] }),
            );
            for n in 0..CALLERS {
                let caller = uri(&root.join(format!("use{n}.py")));
                for attempt in 0.. {
                    assert!(attempt < 10_000, "round {i}: {caller} never showed the expected errors");
                    let r = d.request(
                        "textDocument/diagnostic",
                        json!({ "textDocument": { "uri": caller } }),
                    );
                    let errors = r["result"]["items"].as_array().map_or(0, |a| {
                        a.iter().filter(|x| x["severity"] == json!(1)).count()
                    });
                    if errors == usize::from(broken) {
                        break;
                    }
                }
            }
            let took = t.elapsed();

            let t = Instant::now();
            let a = ws.editor().write(&other_root.join("lib.py"), &lib(i)).await.unwrap();
            let s = t.elapsed();
            let named = a.files.iter().filter(|f| f.dependent).count();
            assert_eq!(named, if broken { CALLERS } else { 0 }, "round {i}: {}", a.text());
            if i > WARMUP {
                direct.push(took);
                through.push(s);
                files.push(a.baseline.spent_files);
                finding.push(a.baseline.spent_finding);
                users.push(a.baseline.spent_dependents);
            }
        }
        ws.shutdown().await;
    });
    let (direct, through) = (median(direct), median(through));
    let (files, finding, users) = (median(files), median(finding), median(users));
    let after = through.saturating_sub(files + finding + users);
    let ms = |d: Duration| us(d) / 1000.0;
    println!("pyright: a signature change that breaks (or fixes) {CALLERS} callers");
    println!(
        "  direct client, didChange to all {CALLERS} callers' errors: {:8.1} ms",
        ms(direct)
    );
    println!(
        "  sightline, write to the answer naming them:      {:8.1} ms",
        ms(through)
    );
    println!(
        "    the changed file's errors before:              {:8.1} ms",
        ms(files)
    );
    println!(
        "    its outline and the references of what changed: {:7.1} ms",
        ms(finding)
    );
    println!(
        "    the callers' errors before:                    {:8.1} ms",
        ms(users)
    );
    println!(
        "    the write, and every file asked again:         {:8.1} ms",
        ms(after)
    );
    println!(
        "  ratio (sightline / direct): {:.2}x",
        through.as_secs_f64() / direct.as_secs_f64()
    );
}
