//! The agent's own edit through `sightline hook`, as Claude Code's hooks
//! call it, on httpx 0.28.1 (7.9k lines from PyPI) through the daemon: the
//! before-tool hook's time, the after-tool hook's time, and the context it
//! adds, per edit, from a stopped daemon (cold) and warm.
//!
//! Five edits of `httpx/_utils.py`, each made and then undone: four break
//! callers in other modules (a parameter added or its default dropped, a
//! return type changed), one is a comment. The hook's budget is the
//! default 8 s; a check that outlasts it is fetched with the next tool
//! event, and counted.
//!
//! The contexts are written to `target/agent-edit-contexts.jsonl`; with
//! `SIGHTLINE_TOKENIZER_PYTHON` naming a python that has `anthropic==0.38.0`
//! and `tokenizers`, `scripts/tool-tokens.py --contexts` counts their tokens
//! here too.
//!
//! Then the same edits under `"agent": {"new_errors": "deny"}`: the
//! before-tool hook's time when it previews an edit and denies it or lets
//! it through, against the warm before-tool hook of the default `tell`.
//!
//! Run with `cargo bench -p sightline-mcp --bench agent_edit`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use sightline_test_support::stats::{median, percentile};
use sightline_test_support::{DaemonDirs, hook_context, poll_until, repo_root, run_hook};

const ROUNDS: usize = 3;

/// `(old, new)` in `httpx/_utils.py`.
const EDITS: &[(&str, &str)] = &[
    (
        "def primitive_value_to_str(value: PrimitiveData) -> str:",
        "def primitive_value_to_str(value: PrimitiveData, strict: bool) -> str:",
    ),
    (
        "def to_str(value: str | bytes, encoding: str = \"utf-8\") -> str:",
        "def to_str(value: str | bytes, encoding: str) -> str:",
    ),
    (
        "def get_environment_proxies() -> dict[str, str | None]:",
        "def get_environment_proxies() -> list[str]:",
    ),
    (
        "def unquote(value: str) -> str:",
        "def unquote(value: str) -> str:  # the quotes stay inside",
    ),
    (
        "def peek_filelike_length(stream: typing.Any) -> int | None:",
        "def peek_filelike_length(stream: typing.Any) -> str | None:",
    ),
];

/// One edit's hooks: their times and the context the model got.
struct Heard {
    before: Duration,
    after: Duration,
    late: bool,
    context: String,
}

/// Makes one edit as Claude Code does: the before-tool hook, the write, the
/// after-tool hook (and, when its check outlasted the budget, the next tool
/// events until its result comes).
fn edit(root: &Path, dirs: &DaemonDirs, n: usize, old: &str, new: &str) -> Heard {
    let file = root.join("httpx/_utils.py");
    let event = |name: &str| {
        json!({
            "session_id": "bench", "cwd": root, "hook_event_name": name, "tool_name": "Edit",
            "tool_use_id": format!("toolu_{n}"),
            "tool_input": { "file_path": file, "old_string": old, "new_string": new },
        })
    };
    let (out, before) = run_hook(root, dirs, &[], &event("PreToolUse"));
    assert_eq!(out, "");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(old), "{old}");
    std::fs::write(&file, text.replacen(old, new, 1)).unwrap();
    let (out, after) = run_hook(root, dirs, &[], &event("PostToolUse"));
    let mut context = hook_context(&out);
    let late = context.contains("did not finish within");
    if late {
        let read = json!({
            "session_id": "bench", "cwd": root, "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": { "file_path": file },
        });
        context = poll_until(Duration::from_secs(300), || {
            let said = hook_context(&run_hook(root, dirs, &[], &read).0);
            (!said.is_empty()).then_some(said)
        })
        .expect("the late check came within 300 s");
    }
    Heard {
        before,
        after,
        late,
        context,
    }
}

/// The same edits under `"agent": {"new_errors": "deny"}`, through a
/// daemon of its own: the before-tool hook previews each edit and denies
/// one that would add errors (the write is then not made, as the agent's
/// tool would not run). Its time against the before-tool hook of `tell`
/// (`warm`) is what `deny` adds to a warm edit.
fn deny_rounds(root: &Path, warm: &[Heard]) {
    let (_, config) = sightline_test_support::isolation::env()
        .into_iter()
        .find(|(k, _)| *k == "XDG_CONFIG_HOME")
        .unwrap();
    let file = config.join("sightline/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{ "agent": { "new_errors": "deny" } }"#).unwrap();
    let dirs = DaemonDirs::new();
    let utils = root.join("httpx/_utils.py");
    let mut denied = Vec::new();
    let mut passed = Vec::new();
    // The first edit starts the daemon and pyright: not counted.
    for round in 0..=ROUNDS {
        for (i, (old, new)) in EDITS.iter().enumerate() {
            let event = json!({
                "session_id": "bench-deny", "cwd": root, "hook_event_name": "PreToolUse",
                "tool_name": "Edit", "tool_use_id": format!("toolu_deny_{round}_{i}"),
                "tool_input": { "file_path": utils, "old_string": old, "new_string": new },
            });
            let (out, took) = run_hook(root, &dirs, &[], &event);
            if round == 0 {
                continue;
            }
            if out.contains("\"deny\"") {
                denied.push(took);
            } else {
                passed.push(took);
            }
        }
    }
    std::fs::remove_file(&file).unwrap();
    let tell: Vec<Duration> = warm.iter().map(|h| h.before).collect();
    let tell_p50 = median(tell);
    let show = |name: &str, times: &[Duration]| {
        if times.is_empty() {
            println!("deny, {name}: none");
            return;
        }
        let p50 = median(times.to_vec());
        println!(
            "deny, {name}: {} edits; before-tool hook p50 {:.0} ms, p95 {:.0} ms; added to tell's p50 ({:.0} ms): {:.0} ms",
            times.len(),
            ms(p50),
            ms(percentile(times.to_vec(), 0.95)),
            ms(tell_p50),
            ms(p50.saturating_sub(tell_p50)),
        );
    };
    show("denied (they add errors)", &denied);
    show("let through", &passed);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(name: &str, heard: &[Heard]) {
    let before: Vec<Duration> = heard.iter().map(|h| h.before).collect();
    let after: Vec<Duration> = heard.iter().map(|h| h.after).collect();
    let chars: Vec<usize> = heard.iter().map(|h| h.context.len()).collect();
    println!(
        "{name}: {} edits; before-tool hook p50 {:.0} ms, p95 {:.0} ms; after-tool hook p50 {:.0} ms, p95 {:.0} ms; {} late; context {} to {} characters",
        heard.len(),
        ms(median(before.clone())),
        ms(percentile(before, 0.95)),
        ms(median(after.clone())),
        ms(percentile(after, 0.95)),
        heard.iter().filter(|h| h.late).count(),
        chars.iter().min().unwrap(),
        chars.iter().max().unwrap(),
    );
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    sightline_test_support::pinned::httpx_project(&root);
    let dirs = DaemonDirs::new();

    // Cold: the first edit of a session, from a stopped daemon.
    let (old, new) = EDITS[0];
    let cold = vec![edit(&root, &dirs, 0, old, new)];
    let undo = edit(&root, &dirs, 1, new, old);
    report("cold (first edit, daemon stopped)", &cold);

    let mut warm = vec![undo];
    for round in 0..ROUNDS {
        for (i, (old, new)) in EDITS.iter().enumerate() {
            let n = 10 + round * 100 + i * 2;
            warm.push(edit(&root, &dirs, n, old, new));
            warm.push(edit(&root, &dirs, n + 1, new, old));
        }
    }
    report("warm", &warm);

    deny_rounds(&root, &warm);

    let out = repo_root().join("target/agent-edit-contexts.jsonl");
    let lines: String = cold
        .iter()
        .map(|h| ("cold", h))
        .chain(warm.iter().map(|h| ("warm", h)))
        .map(|(when, h)| format!("{}\n", json!({ "when": when, "context": h.context })))
        .collect();
    std::fs::write(&out, lines).unwrap();
    println!("contexts: {}", out.display());
    for h in cold.iter().chain(warm.iter().take(EDITS.len() * 2 + 1)) {
        if !h.context.is_empty() {
            println!("---\n{}", h.context.trim_end());
        }
    }
    if let Ok(python) = std::env::var("SIGHTLINE_TOKENIZER_PYTHON") {
        let status = std::process::Command::new(python)
            .arg(repo_root().join("scripts/tool-tokens.py"))
            .arg("--contexts")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
    }
}
