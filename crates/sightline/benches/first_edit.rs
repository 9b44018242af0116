//! The first edit of a session, cold, on a busy machine: Claude Code's hook
//! payloads through `sightline hook` and a daemon of its own per run
//! (`SessionStart`, then at once `PreToolUse`, the edit, `PostToolUse`,
//! and `Stop` at the end of the turn), on httpx 0.28.1 (PyPI) and mobx
//! 6.16.1's `src/` (npm), with 0, 2 and 6 busy loops on the machine's
//! cores. Each run reports whether the edit's exact new errors reached the
//! model in the same turn (in the after-edit hook's context, or at the
//! turn's end), the time from the edit to them, and their size.
//!
//! The same run without sightline is the project's own checker (`pyright`,
//! `tsc --noEmit`) run once after the edit under the same load: its time,
//! and the size of its output, which an agent would read instead. The
//! exact errors are those a warm daemon answers for the same edit, with a
//! budget nothing outlasts.
//!
//! Run with `cargo bench -p sightline-mcp --bench first_edit`;
//! `SIGHTLINE_BENCH_RUNS` sets the runs per load (3).

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::stats::median;
use sightline_test_support::{
    BusyLoops, DaemonDirs, hook_context, path_with_tools, pinned, poll_until, run_hook,
};

/// One real project and the breaking edit made first in it.
struct Case {
    name: &'static str,
    make: fn(&Path),
    file: &'static str,
    old: &'static str,
    new: &'static str,
    /// The project's own checker, run in its root.
    checker: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "httpx 0.28.1 (Python, pyright)",
        make: pinned::httpx_project,
        file: "httpx/_utils.py",
        old: "def primitive_value_to_str(value: PrimitiveData) -> str:",
        new: "def primitive_value_to_str(value: PrimitiveData, strict: bool) -> str:",
        checker: &["pyright", "httpx"],
    },
    Case {
        name: "mobx 6.16.1 src (TypeScript, tsserver)",
        make: pinned::mobx_project,
        file: "src/utils/utils.ts",
        old: "export function stringifyKey(key: any): string {",
        new: "export function stringifyKey(key: any, quoted: boolean): string {",
        checker: &["tsc", "--noEmit", "-p", "."],
    },
];

const LOADS: [usize; 3] = [0, 2, 6];

/// What one first edit brought the model.
struct Heard {
    /// The exact new errors reached it in the same turn.
    in_turn: bool,
    /// From the edit to the context that held its errors (`None`: they
    /// never came within 300 s).
    to_errors: Option<Duration>,
    /// The after-edit hook's own time.
    after: Duration,
    /// The characters of what the model was told about the edit.
    chars: usize,
}

/// The lines of a context that name errors: each file's count and each
/// error, whatever heading a late result carries.
fn error_lines(context: &str) -> Vec<String> {
    let mut lines: Vec<String> = context
        .lines()
        .filter(|l| l.starts_with("  ") || l.contains(" new error"))
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn event(root: &Path, name: &str, case: &Case, old: &str, new: &str) -> Value {
    json!({
        "session_id": "first", "cwd": root, "hook_event_name": name, "tool_name": "Edit",
        "tool_use_id": "toolu_1",
        "tool_input": { "file_path": root.join(case.file), "old_string": old, "new_string": new },
    })
}

/// The edit, made as Claude Code makes it between its hooks; the
/// after-edit hook's context and time, and when the file was written.
fn edit(root: &Path, dirs: &DaemonDirs, case: &Case, args: &[&str]) -> (String, Duration, Instant) {
    let (out, _) = run_hook(
        root,
        dirs,
        args,
        &event(root, "PreToolUse", case, case.old, case.new),
    );
    assert_eq!(out, "");
    let file = root.join(case.file);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(case.old), "{}", case.old);
    let written = Instant::now();
    std::fs::write(&file, text.replacen(case.old, case.new, 1)).unwrap();
    let (out, after) = run_hook(
        root,
        dirs,
        args,
        &event(root, "PostToolUse", case, case.old, case.new),
    );
    (hook_context(&out), after, written)
}

/// The errors a warm daemon answers for the edit.
fn expected(case: &Case) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (case.make)(&root);
    let dirs = DaemonDirs::new();
    let warm = Command::new(sightline_test_support::sightline_bin())
        .arg("diagnostics")
        .arg(root.join(case.file))
        .current_dir(&root)
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", dirs.runtime().join("data"))
        .envs(dirs.env())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(warm.code().is_some());
    let (context, _, _) = edit(&root, &dirs, case, &["--budget-ms", "300000"]);
    let lines = error_lines(&context);
    assert!(
        !lines.is_empty(),
        "the warm check found no error:\n{context}"
    );
    lines
}

/// One cold first edit of a session under `load` busy loops.
fn first_edit(case: &Case, load: usize, exact: &[String]) -> Heard {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (case.make)(&root);
    let dirs = DaemonDirs::new();
    let _busy = BusyLoops::start(load);
    let start = json!({
        "session_id": "first", "cwd": root, "hook_event_name": "SessionStart", "source": "startup",
    });
    run_hook(&root, &dirs, &[], &start);
    let (mut context, after, written) = edit(&root, &dirs, case, &[]);
    let mut to_errors = written.elapsed();
    if context.contains("did not finish within") {
        let stop = json!({
            "session_id": "first", "cwd": root, "hook_event_name": "Stop",
            "stop_hook_active": false,
        });
        context.push_str(&hook_context(&run_hook(&root, &dirs, &[], &stop).0));
        to_errors = written.elapsed();
    }
    let in_turn = error_lines(&context) == exact;
    let to_errors = if in_turn {
        Some(to_errors)
    } else {
        // Late: the next event of the agent's brings it.
        let read = json!({
            "session_id": "first", "cwd": root, "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": { "file_path": root.join(case.file) },
        });
        poll_until(Duration::from_secs(300), || {
            let said = hook_context(&run_hook(&root, &dirs, &[], &read).0);
            (error_lines(&said) == exact).then_some(written.elapsed())
        })
    };
    Heard {
        in_turn,
        to_errors,
        after,
        chars: context.len(),
    }
}

/// The project's own checker after the edit, under `load`: its time and
/// the characters of its output.
fn without_sightline(case: &Case, load: usize) -> (Duration, usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (case.make)(&root);
    let file = root.join(case.file);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen(case.old, case.new, 1)).unwrap();
    let _busy = BusyLoops::start(load);
    let t = Instant::now();
    let out = Command::new(case.checker[0])
        .args(&case.checker[1..])
        .current_dir(&root)
        .env("PATH", path_with_tools())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (t.elapsed(), out.stdout.len() + out.stderr.len())
}

fn mid(mut v: Vec<usize>) -> usize {
    v.sort_unstable();
    v[v.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let runs: usize = std::env::var("SIGHTLINE_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    println!(
        "| project | busy loops | exact errors in the same turn | edit to errors p50 (max) | after-edit hook p50 | tokens told (chars/4) p50 | without sightline: checker time p50 | checker output tokens |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for case in CASES {
        let exact = expected(case);
        for load in LOADS {
            let heard: Vec<Heard> = (0..runs).map(|_| first_edit(case, load, &exact)).collect();
            let checker: Vec<(Duration, usize)> =
                (0..runs).map(|_| without_sightline(case, load)).collect();
            let arrived: Vec<Duration> = heard.iter().filter_map(|h| h.to_errors).collect();
            let to_errors = match arrived.iter().max() {
                Some(max) => format!("{} ({})", secs(median(arrived.clone())), secs(*max)),
                None => "never".to_owned(),
            };
            let never = heard.len() - arrived.len();
            println!(
                "| {} | {load} | {} of {} | {to_errors}{} | {} | {} | {} | {} |",
                case.name,
                heard.iter().filter(|h| h.in_turn).count(),
                heard.len(),
                if never > 0 {
                    format!("; {never} never")
                } else {
                    String::new()
                },
                secs(median(heard.iter().map(|h| h.after).collect())),
                mid(heard.iter().map(|h| h.chars / 4).collect()),
                secs(median(checker.iter().map(|c| c.0).collect())),
                mid(checker.iter().map(|c| c.1 / 4).collect()),
            );
        }
    }
}
