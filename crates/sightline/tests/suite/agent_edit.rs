//! The agent's own edit through `sightline hook` (Claude Code's payloads),
//! from a stopped daemon: the after-tool call lists exactly the errors the
//! edit brought, in the file and in its caller, never the old ones, also
//! when no before-tool call came (the text before the edit that Claude Code
//! reports is asked in memory) and for a file the edit creates. Two edits
//! of one file at once, as two subagents of one session make them, each
//! hear their own; a grep for a name two classes declare lists both; a
//! session's start warms the project's language, not its config and docs.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sightline_test_support::{DaemonDirs, Project, path_with_tools, run_hook, sightline_bin};

/// `lib.py` has an error of its own; `app.py` calls `total` and has one of
/// its own too. Neither old error may be listed after an edit.
const LIB: &str = "def total(n: int) -> int:\n    return n\n\n\nold_lib: int = \"x\"\n";
const APP: &str = "from lib import total\n\nvalue: int = total(1)\nold_app: int = \"y\"\n";
/// The edit: `total` takes a second parameter, which breaks the call.
const OLD: &str = "def total(n: int) -> int:";
const NEW: &str = "def total(n: int, m: int) -> int:";

fn project() -> Project {
    Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)])
}

/// One hook call through `dirs`' daemon (or in process with `alone`):
/// its JSON answer's context, or "" for none, and how long it took.
fn hook(p: &Project, dirs: &DaemonDirs, payload: &Value, alone: bool) -> (String, Duration) {
    let mut args = vec!["--budget-ms", "120000"];
    if alone {
        args.push("--no-daemon");
    }
    let (stdout, took) = run_hook(p.root(), dirs, &args, payload);
    (context_of(&stdout), took)
}

/// The added context of a hook's JSON answer, or "" for none.
fn context_of(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return String::new();
    }
    let answer: Value = serde_json::from_str(stdout).unwrap_or_else(|_| panic!("{stdout}"));
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{stdout}"))
        .to_owned()
}

fn edit_event(p: &Project, event: &str, tool_use: &str, original: Option<&str>) -> Value {
    let mut payload = json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": event, "tool_name": "Edit",
        "tool_use_id": tool_use,
        "tool_input": { "file_path": p.path("lib.py"), "old_string": OLD, "new_string": NEW },
    });
    if let Some(text) = original {
        payload["tool_response"] = json!({ "filePath": p.path("lib.py"), "originalFile": text });
    }
    payload
}

/// The places (`FILE:LINE`) of the errors a context lists.
fn listed(context: &str) -> Vec<String> {
    let mut found: Vec<String> = context
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .map(|l| {
            let place = l.split_whitespace().next().unwrap();
            place.rsplit_once(':').unwrap().0.to_owned()
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_cold_edit_hears_exactly_its_new_errors() {
    let p = project();
    let dirs = DaemonDirs::new();
    // Before the tool: nothing is printed.
    let (before, took) = hook(
        &p,
        &dirs,
        &edit_event(&p, "PreToolUse", "toolu_1", None),
        false,
    );
    assert_eq!(before, "");
    println!(
        "cold before-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let (after, took) = hook(
        &p,
        &dirs,
        &edit_event(&p, "PostToolUse", "toolu_1", Some(LIB)),
        false,
    );
    println!(
        "cold after-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    assert_eq!(listed(&after), ["app.py:3"], "{after}");
    assert!(
        after.contains("app.py: 1 new error (it uses what the edit changed)"),
        "{after}"
    );
    assert!(!after.contains("not compared"), "{after}");
    assert!(!after.contains("old_"), "{after}");

    // Undone, warm: nothing new, nothing said.
    let back = edit_event(&p, "PreToolUse", "toolu_2", None);
    let mut back_input = back.clone();
    back_input["tool_input"]["old_string"] = json!(NEW);
    back_input["tool_input"]["new_string"] = json!(OLD);
    hook(&p, &dirs, &back_input, false);
    p.write("lib.py", LIB);
    back_input["hook_event_name"] = json!("PostToolUse");
    let (after, _) = hook(&p, &dirs, &back_input, false);
    assert_eq!(after, "");
}

#[test]
fn without_a_before_tool_call_the_text_before_the_edit_is_asked_in_memory() {
    // In process: no daemon keeps a before-tool record; Claude Code's
    // `originalFile` is the text before the edit.
    let p = project();
    let dirs = DaemonDirs::new();
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let (after, _) = hook(
        &p,
        &dirs,
        &edit_event(&p, "PostToolUse", "toolu_1", Some(LIB)),
        true,
    );
    assert_eq!(listed(&after), ["app.py:3"], "{after}");
    assert!(!after.contains("not compared"), "{after}");
    assert!(!after.contains("old_"), "{after}");
}

#[test]
fn two_edits_of_one_file_at_once_each_hear_their_own() {
    // Two subagents of one session: one breaks the caller, one adds a clean
    // function; both before-tool calls come before either edit lands.
    let p = project();
    let dirs = DaemonDirs::new();
    let clean_old = "old_lib: int = \"x\"\n";
    let clean_new = "old_lib: int = \"x\"\n\n\ndef spare() -> int:\n    return 0\n";
    let clean = |event: &str| {
        json!({
            "session_id": "s", "cwd": p.root(), "hook_event_name": event, "tool_name": "Edit",
            "agent_id": "clean", "tool_use_id": "toolu_clean",
            "tool_input": { "file_path": p.path("lib.py"), "old_string": clean_old, "new_string": clean_new },
        })
    };
    let breaking = |event: &str| {
        let mut e = edit_event(&p, event, "toolu_break", None);
        e["agent_id"] = json!("breaking");
        e
    };
    hook(&p, &dirs, &breaking("PreToolUse"), false);
    hook(&p, &dirs, &clean("PreToolUse"), false);
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let (broke, _) = hook(&p, &dirs, &breaking("PostToolUse"), false);
    let now = std::fs::read_to_string(p.path("lib.py")).unwrap();
    p.write("lib.py", &now.replacen(clean_old, clean_new, 1));
    let (cleaned, _) = hook(&p, &dirs, &clean("PostToolUse"), false);
    // Each edit is checked by itself: the breaking one hears the caller's
    // error, the clean one nothing, though the file holds both edits.
    assert_eq!(listed(&broke), ["app.py:3"], "{broke}");
    assert_eq!(cleaned, "");
}

#[test]
fn a_grep_for_a_name_two_classes_declare_brings_both_never_one_as_the_exact_uses() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "pages.py",
            "class Home:\n    def render_page(self) -> str:\n        return \"home\"\n\n\nclass About:\n    def render_page(self) -> str:\n        return \"about\"\n",
        ),
        (
            "site.py",
            "from pages import About, Home\n\nHome().render_page()\nAbout().render_page()\nAbout().render_page()\n",
        ),
    ]);
    let dirs = DaemonDirs::new();
    let grep = json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": "grep -rn render_page ." },
    });
    let (context, _) = hook(&p, &dirs, &grep, false);
    assert!(
        context.starts_with("sightline: `render_page` names 2 symbols of the project;"),
        "{context}"
    );
    assert!(!context.contains("the exact uses of"), "{context}");
    // Each declaration, then its own uses: Home's one call, About's two.
    assert!(
        context.contains("method render_page at pages.py:2:9:"),
        "{context}"
    );
    assert!(
        context.contains("method render_page at pages.py:7:9:"),
        "{context}"
    );
    let home = context.split("pages.py:7:9:").next().unwrap();
    let about = context.split("pages.py:7:9:").nth(1).unwrap();
    assert_eq!(home.matches("site.py:").count(), 1, "{context}");
    assert_eq!(about.matches("site.py:").count(), 2, "{context}");
}

/// The servers `dirs`' daemon runs, by id, once its session-start warming
/// has started the one for `wanted` (asked until it runs, at most 60 times
/// a second apart: the warming runs in the background).
fn running_after_warming(p: &Project, dirs: &DaemonDirs, wanted: &str) -> Vec<String> {
    for _ in 0..60 {
        let out = Command::new(sightline_bin())
            .args(["daemon", "status", "--json"])
            .current_dir(p.root())
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", dirs.runtime().join("data"))
            .envs(dirs.env())
            .output()
            .unwrap();
        let status: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let mut ids: Vec<String> = status["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["id"].as_str().map(str::to_owned))
            .collect();
        ids.sort();
        if ids.iter().any(|i| i == wanted) {
            return ids;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    panic!("{wanted} never ran after the session started");
}

#[test]
fn a_session_s_start_warms_the_project_s_language_not_its_config_and_docs() {
    // A Python project with more config and docs files than code, each of
    // whose servers is installed here (tools/): only pyright is started.
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"x\"\n"),
        (".mcp.json", "{ \"mcpServers\": {} }\n"),
        ("README.md", "# x\n"),
        ("docs/guide.md", "# guide\n"),
        ("config.yaml", "a: 1\n"),
        ("data.json", "{}\n"),
        ("app.py", APP),
        ("lib.py", LIB),
    ]);
    let dirs = DaemonDirs::new();
    let start = json!({ "session_id": "s", "cwd": p.root(), "hook_event_name": "SessionStart", "source": "startup" });
    let (context, _) = hook(&p, &dirs, &start, false);
    assert!(
        context.starts_with("sightline is starting this project's language servers"),
        "{context}"
    );
    assert_eq!(running_after_warming(&p, &dirs, "pyright"), ["pyright"]);

    // A project of config and docs files alone: nothing to warm, so
    // nothing is said (their servers wait for a question about them).
    let docs = Project::new(&[
        (
            "README.md",
            "# x
",
        ),
        (
            "config.yaml",
            "a: 1
",
        ),
        (
            "data.json",
            "{}
",
        ),
        ("Cargo.lock", ""),
    ]);
    let start = json!({ "session_id": "d", "cwd": docs.root(), "hook_event_name": "SessionStart", "source": "startup" });
    let (context, _) = hook(&docs, &dirs, &start, false);
    assert_eq!(context, "");
}

#[test]
fn a_file_the_edit_creates_has_all_its_errors_new() {
    // Claude Code's `Write` of a file that did not exist: before, it had
    // nothing; after, its error is new (neither hidden as old nor listed as
    // not compared).
    let p = project();
    let dirs = DaemonDirs::new();
    let content = "from lib import total\n\nfresh: str = total(2)\n";
    let write = |event: &str| {
        json!({
            "session_id": "s", "cwd": p.root(), "hook_event_name": event, "tool_name": "Write",
            "tool_use_id": "toolu_w",
            "tool_input": { "file_path": p.path("fresh.py"), "content": content },
        })
    };
    let (before, _) = hook(&p, &dirs, &write("PreToolUse"), false);
    assert_eq!(before, "");
    p.write("fresh.py", content);
    let (after, _) = hook(&p, &dirs, &write("PostToolUse"), false);
    assert_eq!(listed(&after), ["fresh.py:3"], "{after}");
    assert!(after.contains("fresh.py: 1 new error"), "{after}");
}

/// Another tool's after-event (a `Read`) of `agent` in session `s`.
fn read_event(p: &Project, agent: &str) -> Value {
    json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": "PostToolUse", "tool_name": "Read",
        "agent_id": agent, "tool_use_id": format!("toolu_read_{agent}"),
        "tool_input": { "file_path": p.path("app.py") },
    })
}

#[test]
fn a_check_that_outlasts_the_budget_comes_with_the_agent_s_next_event_and_no_one_else_s() {
    // Cold, with a 300 ms budget: the first edit's check cannot finish in
    // time (pyright is not even started). It goes on in the daemon, and
    // its result, headed with the edit, comes with that subagent's next
    // tool event; another subagent of the same session hears nothing of it.
    let p = project();
    let dirs = DaemonDirs::new();
    let fast = ["--budget-ms", "300"];
    let mut before = edit_event(&p, "PreToolUse", "toolu_1", None);
    before["agent_id"] = json!("a");
    let (stdout, took) = run_hook(p.root(), &dirs, &fast, &before);
    assert_eq!(stdout, "");
    println!(
        "cold before-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let mut after = edit_event(&p, "PostToolUse", "toolu_1", None);
    after["agent_id"] = json!("a");
    let (stdout, took) = run_hook(p.root(), &dirs, &fast, &after);
    let now = context_of(&stdout);
    println!(
        "cold after-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    assert!(
        now.starts_with("sightline: the check of this edit did not finish within 0.3 s")
            && now.contains("its result comes with your next tool call"),
        "{now}"
    );
    // Each round, the other subagent asks first: it never hears a's check.
    let late = sightline_test_support::poll_until(Duration::from_secs(120), || {
        let (other, _) = hook(&p, &dirs, &read_event(&p, "b"), false);
        assert_eq!(other, "", "another subagent heard a's check");
        let (mine, _) = hook(&p, &dirs, &read_event(&p, "a"), false);
        (!mine.is_empty()).then_some(mine)
    })
    .expect("the late check reached a's next event within 120 s");
    assert!(
        late.starts_with("sightline: the check of your earlier edit of lib.py finished late:"),
        "{late}"
    );
    assert_eq!(listed(&late), ["app.py:3"], "{late}");
    assert!(!late.contains("old_"), "{late}");
    // Handed over once.
    assert_eq!(hook(&p, &dirs, &read_event(&p, "a"), false).0, "");
}

#[test]
fn a_late_check_of_a_file_changed_since_by_other_means_is_dropped_in_one_line() {
    let p = project();
    let dirs = DaemonDirs::new();
    let fast = ["--budget-ms", "300"];
    run_hook(
        p.root(),
        &dirs,
        &fast,
        &edit_event(&p, "PreToolUse", "toolu_1", None),
    );
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let (stdout, _) = run_hook(
        p.root(),
        &dirs,
        &fast,
        &edit_event(&p, "PostToolUse", "toolu_1", None),
    );
    assert!(
        context_of(&stdout).contains("did not finish within 0.3 s"),
        "{stdout}"
    );
    // The file changes again before the agent's next event, not by an
    // edit tool (a shell command): nothing takes the check over.
    p.write("lib.py", LIB);
    let dropped = sightline_test_support::poll_until(Duration::from_secs(120), || {
        let (said, _) = hook(&p, &dirs, &read_event(&p, ""), false);
        (!said.is_empty()).then_some(said)
    })
    .expect("the dropped check was said within 120 s");
    assert_eq!(
        dropped,
        "sightline: the late check of your earlier edit of lib.py was dropped: the file changed since (ask lsp_diagnostics for it)\n"
    );
}

/// An `Edit` of `lib.py` from `old` to `new`, as Claude Code's `event`
/// payload names it.
fn lib_edit(p: &Project, event: &str, tool_use: &str, old: &str, new: &str) -> Value {
    json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": event, "tool_name": "Edit",
        "tool_use_id": tool_use,
        "tool_input": { "file_path": p.path("lib.py"), "old_string": old, "new_string": new },
    })
}

/// The first edit of `lib.py` (`OLD` to `NEW`) through `dirs`' stopped
/// daemon, with a 300 ms budget its check outlasts (pyright is not even
/// started): the hook says so, and the check goes on.
fn first_edit_outlasting_its_budget(p: &Project, dirs: &DaemonDirs) {
    let fast = ["--budget-ms", "300"];
    run_hook(
        p.root(),
        dirs,
        &fast,
        &lib_edit(p, "PreToolUse", "toolu_1", OLD, NEW),
    );
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let (stdout, _) = run_hook(
        p.root(),
        dirs,
        &fast,
        &lib_edit(p, "PostToolUse", "toolu_1", OLD, NEW),
    );
    assert!(
        context_of(&stdout).contains("did not finish within 0.3 s"),
        "{stdout}"
    );
}

/// Edits `lib.py` from a stopped daemon with a 300 ms budget, which its
/// check outlasts (pyright is not even started), then edits it again, from
/// `again.0` to `again.1`, with the whole budget; what the second edit's
/// hook said, and what the agent's next event brought after it. The second
/// edit comes without a before-tool call, as Claude Code's text before it
/// alone (`originalFile`): the first check, running or just ended, is
/// never handed over in between.
fn edit_again_before_the_first_check_arrived(again: (&str, &str)) -> (String, String) {
    let p = project();
    let dirs = DaemonDirs::new();
    first_edit_outlasting_its_budget(&p, &dirs);
    let (first, second) = again;
    let text = std::fs::read_to_string(p.path("lib.py")).unwrap();
    p.write("lib.py", &text.replacen(first, second, 1));
    let mut after = lib_edit(&p, "PostToolUse", "toolu_2", first, second);
    after["tool_response"] = json!({ "filePath": p.path("lib.py"), "originalFile": text });
    let (said, _) = hook(&p, &dirs, &after, false);
    let (next, _) = hook(&p, &dirs, &read_event(&p, ""), false);
    (said, next)
}

#[test]
fn an_edit_of_a_file_whose_check_had_not_arrived_is_counted_with_it() {
    // The second edit keeps the first's break: its check counts from the
    // text before the first, so the model hears the caller's error once,
    // and nothing is dropped or comes again later.
    let (said, next) =
        edit_again_before_the_first_check_arrived(("    return n\n", "    return n  # the sum\n"));
    assert!(!said.contains("dropped"), "{said}");
    assert_eq!(listed(&said), ["app.py:3"], "{said}");
    assert!(!said.contains("old_"), "{said}");
    assert!(
        said.contains("counted from before your earlier edit of these files"),
        "{said}"
    );
    assert_eq!(next, "");
}

#[test]
fn with_claude_code_s_before_call_the_first_edit_s_error_is_heard_once_either_way() {
    // Claude Code sends a before-tool call for the second edit too: the
    // first check, if it ended by then, comes with it ("finished late");
    // else the second edit's check takes it over, overriding the text the
    // before-tool call recorded (after the first edit). Either way the
    // caller's error is heard once, and nothing is dropped.
    let p = project();
    let dirs = DaemonDirs::new();
    first_edit_outlasting_its_budget(&p, &dirs);
    let (first, second) = ("    return n\n", "    return n  # the sum\n");
    let (before, _) = hook(
        &p,
        &dirs,
        &lib_edit(&p, "PreToolUse", "toolu_2", first, second),
        false,
    );
    let text = std::fs::read_to_string(p.path("lib.py")).unwrap();
    p.write("lib.py", &text.replacen(first, second, 1));
    let (after, _) = hook(
        &p,
        &dirs,
        &lib_edit(&p, "PostToolUse", "toolu_2", first, second),
        false,
    );
    let (next, _) = hook(&p, &dirs, &read_event(&p, ""), false);
    let heard = format!("{before}{after}{next}");
    assert!(!heard.contains("dropped"), "{heard}");
    assert_eq!(listed(&heard), ["app.py:3"], "{heard}");
    assert!(!heard.contains("old_"), "{heard}");
}

#[test]
fn an_edit_that_undoes_one_whose_check_had_not_arrived_brings_nothing() {
    let (said, next) = edit_again_before_the_first_check_arrived((NEW, OLD));
    assert_eq!(said, "");
    assert_eq!(next, "");
}

#[test]
fn the_end_of_a_turn_waits_for_a_late_check_and_keeps_the_agent_going_on_its_errors() {
    // Claude Code's `Stop` after an edit whose check outlasted its hook:
    // the stop waits for the check, and its errors keep the agent going.
    let p = project();
    let dirs = DaemonDirs::new();
    let before = edit_event(&p, "PreToolUse", "toolu_1", None);
    run_hook(p.root(), &dirs, &["--budget-ms", "300"], &before);
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let after = edit_event(&p, "PostToolUse", "toolu_1", None);
    let (stdout, _) = run_hook(p.root(), &dirs, &["--budget-ms", "300"], &after);
    assert!(
        context_of(&stdout).contains("did not finish within 0.3 s"),
        "{stdout}"
    );
    let stop = json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": "Stop", "stop_hook_active": false,
    });
    let (stdout, _) = run_hook(p.root(), &dirs, &["--budget-ms", "120000"], &stop);
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}"));
    // Added context, which Claude Code hands the model once and goes on.
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "Stop",
        "{stdout}"
    );
    let reason = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("sightline: the check of your earlier edit of lib.py finished late:"),
        "{reason}"
    );
    assert_eq!(listed(reason), ["app.py:3"], "{reason}");
    // Nothing is left to keep it going a second time.
    let (stdout, _) = run_hook(p.root(), &dirs, &["--budget-ms", "120000"], &stop);
    assert_eq!(stdout, "");
}

#[test]
fn a_late_check_is_the_exact_delta_however_long_the_errors_before_it_take() {
    // The project gives the edit tools 1 ms to find and ask the files using
    // what changed: the agent's check, which goes on in the daemon past its
    // hook, is not held to it, so app.py's errors before the edit are had
    // and the late result is the delta (app.py's new error, not its old
    // one), never app.py's errors "not compared".
    let p = project();
    p.write("sightline.json", "{ \"dependents_ms\": 1 }\n");
    let dirs = DaemonDirs::new();
    first_edit_outlasting_its_budget(&p, &dirs);
    let stop = json!({
        "session_id": "s", "cwd": p.root(), "hook_event_name": "Stop", "stop_hook_active": false,
    });
    let (stdout, _) = run_hook(p.root(), &dirs, &[], &stop);
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}"));
    let late = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        late.starts_with("sightline: the check of your earlier edit of lib.py finished late:"),
        "{late}"
    );
    assert_eq!(listed(late), ["app.py:3"], "{late}");
    assert!(!late.contains("not compared"), "{late}");
}

/// An agent's before- and after-edit events for the change of `total`'s
/// signature in lib.py, and the end of its turn, in its own shape.
fn turn_of(agent: &str, p: &Project) -> [Value; 3] {
    let root = p.root();
    match agent {
        "codex" => {
            let patch = format!(
                "*** Begin Patch\n*** Update File: lib.py\n@@\n-{OLD}\n+{NEW}\n*** End Patch\n"
            );
            let tool = |event: &str| {
                json!({
                    "session_id": "c", "turn_id": "t1", "cwd": root, "hook_event_name": event,
                    "tool_name": "apply_patch", "tool_use_id": "call_1",
                    "tool_input": { "command": patch },
                })
            };
            let stop = json!({
                "session_id": "c", "turn_id": "t1", "cwd": root, "hook_event_name": "Stop",
                "model": "gpt-5.1-codex", "stop_hook_active": false, "last_assistant_message": "done",
            });
            [tool("PreToolUse"), tool("PostToolUse"), stop]
        }
        _ => {
            let tool = |event: &str| {
                json!({
                    "session_id": "g", "cwd": root, "hook_event_name": event,
                    "timestamp": "2026-12-05T10:00:00.000Z", "tool_name": "replace",
                    "tool_input": { "file_path": p.path("lib.py"), "old_string": OLD,
                        "new_string": NEW, "instruction": "add m" },
                })
            };
            let after_agent = json!({
                "session_id": "g", "cwd": root, "hook_event_name": "AfterAgent",
                "timestamp": "2026-12-05T10:00:09.000Z", "prompt": "add m",
                "prompt_response": "done", "stop_hook_active": false,
            });
            [tool("BeforeTool"), tool("AfterTool"), after_agent]
        }
    }
}

#[test]
fn codex_s_stop_and_gemini_s_after_agent_bring_a_late_check_once() {
    // The edit's check outlasts its 300 ms hook; nothing comes after the
    // end of the turn, so that event waits for the check and hands its
    // errors to the model as a block's reason, once. Before setup
    // registered these events, the result was lost with the turn.
    for agent in ["codex", "gemini"] {
        let p = project();
        let dirs = DaemonDirs::new();
        let [before, after, end] = turn_of(agent, &p);
        let short = ["--agent", agent, "--budget-ms", "300"];
        run_hook(p.root(), &dirs, &short, &before);
        p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
        let (stdout, _) = run_hook(p.root(), &dirs, &short, &after);
        assert!(
            context_of(&stdout).contains("did not finish within 0.3 s"),
            "{agent}: {stdout}"
        );
        // The end of a turn's own budget: unsaid, 25 s.
        let (stdout, _) = run_hook(p.root(), &dirs, &["--agent", agent], &end);
        let answer: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{agent}: {stdout}"));
        assert_eq!(answer["decision"], "block", "{agent}: {stdout}");
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason
                .starts_with("sightline: the check of your earlier edit of lib.py finished late:"),
            "{agent}: {reason}"
        );
        assert_eq!(listed(reason), ["app.py:3"], "{agent}: {reason}");
        let (stdout, _) = run_hook(p.root(), &dirs, &["--agent", agent], &end);
        assert_eq!(stdout, "", "{agent}: delivered once");
    }
}

#[test]
fn on_a_loaded_machine_an_edit_in_a_heavy_module_still_names_its_new_error() {
    // pydantic 2.14.4's `_internal/_generate_schema.py` (3k lines of heavy
    // typing, from tools/requirements.txt), from a stopped daemon, with two
    // busy loops on the two cores: pyright works past the 5 s budget, and
    // the answer waits for it (within its cap) instead of "still
    // analysing" with no error to fix.
    let p = Project::new(&[(
        "pyproject.toml",
        "[project]\nname = \"pydantic\"\nversion = \"2.14.4\"\n",
    )]);
    let site = sightline_test_support::pinned::tools_site_packages();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(site.join("pydantic"))
        .arg(p.root())
        .status()
        .unwrap();
    assert!(copied.success());
    let heavy = "pydantic/_internal/_generate_schema.py";
    let text = std::fs::read_to_string(p.path(heavy)).unwrap();
    let (old, new) = (
        "class GenerateSchema:\n",
        "class GenerateSchema:\n    _broken: int = \"x\"\n",
    );
    let line = text[..text.find(old).unwrap()].lines().count() + 2;
    let event = |name: &str| {
        json!({
            "session_id": "s", "cwd": p.root(), "hook_event_name": name, "tool_name": "Edit",
            "tool_use_id": "toolu_heavy",
            "tool_input": { "file_path": p.path(heavy), "old_string": old, "new_string": new },
        })
    };
    let dirs = DaemonDirs::new();
    let _load = sightline_test_support::BusyLoops::start(2);
    let (before, took) = hook(&p, &dirs, &event("PreToolUse"), false);
    assert_eq!(before, "");
    println!(
        "loaded, cold before-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    p.write(heavy, &text.replacen(old, new, 1));
    let (after, took) = hook(&p, &dirs, &event("PostToolUse"), false);
    println!(
        "loaded, cold after-tool hook: {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
    assert_eq!(listed(&after), [format!("{heavy}:{line}")], "{after}");
    assert!(!after.contains("still analysing"), "{after}");
    assert!(!after.contains("not checked whole"), "{after}");
}

#[test]
fn a_first_session_on_a_python_project_installs_pyright_and_nothing_else() {
    // Fresh data directory, no server on PATH, downloads allowed: the
    // session's start installs pyright and starts it, before any question
    // (its config and docs files' servers are not installed), so the first
    // edit finds it running. Before, the first edit paid for the install.
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"x\"\n"),
        (".mcp.json", "{ \"mcpServers\": {} }\n"),
        ("README.md", "# x\n"),
        ("lib.py", LIB),
        ("app.py", APP),
    ]);
    let dirs = DaemonDirs::new();
    let data = dirs.runtime().join("fresh-data");
    let hook = |payload: &Value| -> String {
        let (out, code) = sightline_test_support::cli::run_with_stdin(
            Command::new(sightline_test_support::sightline_bin())
                .args(["hook", "--budget-ms", "180000"])
                .current_dir(p.root())
                .env("PATH", "/usr/local/bin:/usr/bin:/bin")
                .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "")
                .env("SIGHTLINE_DATA_DIR", &data)
                .envs(dirs.env()),
            &payload.to_string(),
            sightline_test_support::cli::Input::Read,
        );
        assert_eq!(code, 0);
        context_of(&out)
    };
    let installed = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(data.join("servers"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        names
    };
    let start = json!({ "session_id": "s", "cwd": p.root(), "hook_event_name": "SessionStart", "source": "startup" });
    assert!(
        hook(&start).starts_with(
            "sightline is installing pyright and starting this project's language servers:"
        ),
        "the session is told what is prepared"
    );
    // No question asked: the daemon installs and starts pyright by itself.
    let running = sightline_test_support::poll_until(Duration::from_secs(240), || {
        let status = dirs.status();
        status["servers"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["id"] == "pyright"))
            .then_some(status)
    });
    assert!(
        running.is_some(),
        "the session's start started no pyright: {}",
        dirs.log()
    );
    assert_eq!(installed(), ["pyright"]);
    hook(&edit_event(&p, "PreToolUse", "toolu_1", None));
    p.write("lib.py", &LIB.replacen(OLD, NEW, 1));
    let after = hook(&edit_event(&p, "PostToolUse", "toolu_1", None));
    assert_eq!(listed(&after), ["app.py:3"], "{after}");
    assert_eq!(installed(), ["pyright"]);
}
