//! `"agent": {"new_errors": "deny"}` through `sightline hook` and its
//! daemon, cold: an agent's edit that would break a caller is denied
//! before it lands, in Claude Code's, Codex's and Gemini CLI's words, with
//! the new errors as the reason, and nothing is written; an edit that
//! adds no error passes (no answer). With the default (`tell`), the same
//! breaking edit is not stopped.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use sightline_test_support::cli::{Input, run_with_stdin};

use serde_json::{Value, json};
use sightline_test_support::{DaemonDirs, Project, path_with_tools, sightline_bin};

const LIB: &str = "def total(n: int) -> int:\n    return n\n\n\nold_lib: int = \"x\"\n";
const APP: &str = "from lib import total\n\nvalue: int = total(1)\nold_app: int = \"y\"\n";
/// Breaks the call in `app.py`.
const OLD: &str = "def total(n: int) -> int:";
const BREAKING: &str = "def total(n: int, m: int) -> int:";
/// Adds no error.
const CLEAN: &str = "def total(n: int, m: int = 0) -> int:";

/// `sightline hook` with the user configuration `config`, through the
/// daemon of `dirs`: its standard output.
fn hook(root: &Path, dirs: &DaemonDirs, config: &Path, payload: &Value) -> String {
    let (out, code) = run_with_stdin(
        Command::new(sightline_bin())
            .args(["hook", "--budget-ms", "120000"])
            .current_dir(root)
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_CONFIG", config)
            .env("SIGHTLINE_DATA_DIR", dirs.runtime().join("data"))
            .envs(dirs.env()),
        &payload.to_string(),
        Input::Read,
    );
    assert_eq!(code, 0, "sightline hook exits 0");
    out
}

/// The before-edit event of each agent, for `lib.py`'s `OLD` made `new`.
fn before_edit(agent: &str, p: &Project, new: &str) -> Value {
    match agent {
        "claude" => json!({
            "session_id": "s", "cwd": p.root(), "hook_event_name": "PreToolUse",
            "tool_name": "Edit", "tool_use_id": "toolu_1",
            "tool_input": { "file_path": p.path("lib.py"), "old_string": OLD, "new_string": new },
        }),
        "codex" => json!({
            "session_id": "s", "turn_id": "t1", "cwd": p.root(), "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch", "tool_use_id": "call_1",
            "tool_input": { "command": format!(
                "*** Begin Patch\n*** Update File: lib.py\n@@\n-{OLD}\n+{new}\n*** End Patch\n"
            ) },
        }),
        _ => json!({
            "session_id": "s", "cwd": p.root(), "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-05T00:00:00Z", "tool_name": "replace",
            "tool_input": { "file_path": p.path("lib.py"), "old_string": OLD, "new_string": new },
        }),
    }
}

/// The denial's reason, or `None` when the answer lets the edit through.
fn denied(agent: &str, stdout: &str) -> Option<String> {
    if stdout.trim().is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_str(stdout).unwrap_or_else(|_| panic!("{stdout}"));
    let (decision, reason) = if agent == "gemini" {
        (&answer["decision"], &answer["reason"])
    } else {
        (
            &answer["hookSpecificOutput"]["permissionDecision"],
            &answer["hookSpecificOutput"]["permissionDecisionReason"],
        )
    };
    assert_eq!(decision, "deny", "{stdout}");
    Some(reason.as_str().unwrap().to_owned())
}

#[test]
fn deny_stops_a_breaking_edit_with_its_errors_and_passes_a_clean_one_in_each_agent() {
    sightline_test_support::require("pyright-langserver");
    let p = Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)]);
    let own = tempfile::tempdir().unwrap();
    let deny = own.path().join("deny.json");
    std::fs::write(&deny, r#"{ "agent": { "new_errors": "deny" } }"#).unwrap();
    let dirs = DaemonDirs::new();
    for agent in ["claude", "codex", "gemini"] {
        let said = hook(p.root(), &dirs, &deny, &before_edit(agent, &p, BREAKING));
        let reason = denied(agent, &said).unwrap_or_else(|| panic!("{agent}: not denied"));
        assert!(
            reason.starts_with("sightline denied this edit: it would add these errors"),
            "{agent}: {reason}"
        );
        // The caller's new error, not the old ones.
        assert!(reason.contains("app.py"), "{agent}: {reason}");
        assert!(reason.contains("\"m\""), "{agent}: {reason}");
        assert!(!reason.contains("old_app"), "{agent}: {reason}");
        assert!(!reason.contains("5:"), "{agent}: {reason}");
        // Nothing was written: the agent's tool never ran.
        assert_eq!(std::fs::read_to_string(p.path("lib.py")).unwrap(), LIB);

        let said = hook(p.root(), &dirs, &deny, &before_edit(agent, &p, CLEAN));
        assert_eq!(denied(agent, &said), None, "{agent}: {said}");
    }

    // The default lets the breaking edit through.
    let tell = own.path().join("tell.json");
    std::fs::write(&tell, "{}").unwrap();
    let dirs = DaemonDirs::new();
    let said = hook(p.root(), &dirs, &tell, &before_edit("claude", &p, BREAKING));
    assert_eq!(said, "", "tell");
}

#[test]
fn agent_new_errors_is_the_user_s_not_a_repository_s() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("sightline.json", r#"{ "agent": { "new_errors": "deny" } }"#),
        ("lib.py", LIB),
    ]);
    let out = Command::new(sightline_bin())
        .args(["--no-daemon", "diagnostics"])
        .arg(p.path("lib.py"))
        .current_dir(p.root())
        .env("PATH", path_with_tools())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("sightline.json:1: \"agent\" may only be set in the user configuration"),
        "{said}"
    );
}
