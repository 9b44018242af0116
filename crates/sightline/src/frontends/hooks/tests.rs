//! Reading Claude Code's, Gemini CLI's and Codex's hook payloads, and the
//! answer in the agent's words.

#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn claude_code_gemini_and_codex_payloads_are_read() {
    let claude = json!({
        "session_id": "s1", "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": { "file_path": "/p/a.py", "old_string": "x", "new_string": "y" },
    });
    let h = read(&claude, None);
    assert_eq!(h.agent, Agent::ClaudeCode);
    assert_eq!(
        h.request,
        Some(Request::AfterEdit {
            session: "s1".into(),
            files: vec![PathBuf::from("/p/a.py")],
            originals: Vec::new(),
        })
    );
    let gemini = json!({
        "session_id": "g", "cwd": "/p", "hook_event_name": "BeforeTool", "timestamp": "t",
        "tool_name": "write_file", "tool_input": { "file_path": "b.ts", "content": "let x = 1;\n" },
    });
    let h = read(&gemini, None);
    assert_eq!(h.agent, Agent::Gemini);
    assert_eq!(
        h.request,
        Some(Request::BeforeEdit {
            session: "g".into(),
            edits: vec![AgentEdit::Write {
                file: PathBuf::from("/p/b.ts"),
                content: "let x = 1;\n".into()
            }],
        })
    );
    let codex = json!({
        "session_id": "c", "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "apply_patch",
        "tool_input": { "command": ["apply_patch", "*** Begin Patch\n*** Update File: m.py\n@@\n-a\n+b\n*** End Patch\n"] },
    });
    let h = read(&codex, None);
    assert_eq!(h.agent, Agent::Codex);
    assert_eq!(
        h.request,
        Some(Request::AfterEdit {
            session: "c".into(),
            files: vec![PathBuf::from("/p/m.py")],
            originals: Vec::new(),
        })
    );
}

#[test]
fn only_a_search_for_a_bare_identifier_asks_for_its_uses() {
    let grep = |tool: &str, input: Value| {
        read(
            &json!({ "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input }),
            None,
        )
        .request
    };
    let wanted = |name: &str| {
        Some(Request::BeforeSearch {
            name: name.into(),
            cwd: "/p".into(),
        })
    };
    assert_eq!(
        grep("Grep", json!({ "pattern": "total_cost" })),
        wanted("total_cost")
    );
    assert_eq!(
        grep("Grep", json!({ "pattern": "\\btotal\\b" })),
        wanted("total")
    );
    assert_eq!(
        grep("Bash", json!({ "command": "rg -n 'parse_args' src" })),
        wanted("parse_args")
    );
    // Anything else only hands over the late checks of earlier edits.
    let other = Some(Request::Collect { settle: false });
    assert_eq!(grep("Grep", json!({ "pattern": "fn .*parse" })), other);
    assert_eq!(grep("Bash", json!({ "command": "ls -la" })), other);
    assert_eq!(grep("Grep", json!({ "pattern": "ab" })), other);
}

#[test]
fn the_answer_is_the_agent_s_json_or_nothing() {
    let h = Hook {
        agent: Agent::ClaudeCode,
        event: "PostToolUse".into(),
        request: None,
        asker: "s".into(),
    };
    assert_eq!(output(&h, ""), None);
    let out: Value = serde_json::from_str(&output(&h, "a.py:1:1 bad").unwrap()).unwrap();
    assert_eq!(
        out,
        json!({ "hookSpecificOutput": { "hookEventName": "PostToolUse", "additionalContext": "a.py:1:1 bad" } })
    );
    // The end of a turn keeps the agent going with the errors, handed to
    // the model once: Claude Code's as added context (its `block` reached
    // the model twice), Codex's and Gemini CLI's as a block's reason.
    let stop = Hook {
        event: "Stop".into(),
        ..h.clone()
    };
    let out: Value = serde_json::from_str(&output(&stop, "a.py:1:1 bad").unwrap()).unwrap();
    assert_eq!(
        out,
        json!({ "hookSpecificOutput": { "hookEventName": "Stop", "additionalContext": "a.py:1:1 bad" } })
    );
    for (agent, event) in [(Agent::Codex, "Stop"), (Agent::Gemini, "AfterAgent")] {
        let end = Hook {
            agent,
            event: event.into(),
            ..h.clone()
        };
        let out: Value = serde_json::from_str(&output(&end, "a.py:1:1 bad").unwrap()).unwrap();
        assert_eq!(
            out,
            json!({ "decision": "block", "reason": "a.py:1:1 bad" }),
            "{event}"
        );
    }
}

#[test]
fn every_event_asks_for_the_late_checks_of_its_own_agent() {
    // Another tool's after-event, and a subagent's: the late checks of
    // that agent alone (its session, and within it its `agent_id`).
    let read_tool = json!({
        "session_id": "s", "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Read",
        "agent_id": "a1", "tool_input": { "file_path": "/p/x.py" },
    });
    let h = read(&read_tool, None);
    assert_eq!(h.request, Some(Request::Collect { settle: false }));
    assert_eq!(h.asker, "s/a1");
    // Codex's before-tool events take no added context: none handed over.
    let codex = json!({
        "session_id": "c", "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
        "tool_input": { "command": "*** Begin Patch\n*** Update File: m.py\n@@\n-a\n+b\n*** End Patch\n" },
    });
    assert_eq!(read(&codex, None).asker, "");
    let stop = json!({ "session_id": "s", "cwd": "/p", "hook_event_name": "Stop" });
    let h = read(&stop, None);
    assert_eq!(
        (h.request, h.asker.as_str()),
        (Some(Request::Collect { settle: true }), "s")
    );
    // Gemini CLI's end of a turn.
    let after_agent = json!({
        "session_id": "g", "cwd": "/p", "hook_event_name": "AfterAgent",
        "timestamp": "2026-12-05T10:00:00Z", "prompt": "p", "prompt_response": "r",
        "stop_hook_active": false,
    });
    let h = read(&after_agent, None);
    assert_eq!(
        (h.agent, h.request, h.asker.as_str()),
        (Agent::Gemini, Some(Request::Collect { settle: true }), "g")
    );
}

#[test]
fn the_text_before_an_edit_is_recovered_for_the_after_edit_answer() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.py");
    // As the files are after the edits.
    std::fs::write(&file, "def total(n: int) -> str:\n    return n\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n-def total(n: int) -> int:\n+def total(n: int) -> str:\n*** End Patch\n";
    let codex = json!({
        "session_id": "c", "cwd": dir.path(), "hook_event_name": "PostToolUse", "tool_name": "apply_patch",
        "tool_input": { "command": patch },
    });
    let Some(Request::AfterEdit { originals, .. }) = read(&codex, None).request else {
        panic!("not an after-edit request");
    };
    assert_eq!(
        originals,
        vec![(
            file.clone(),
            "def total(n: int) -> int:\n    return n\n".to_owned()
        )]
    );
    let gemini = json!({
        "session_id": "g", "cwd": dir.path(), "hook_event_name": "AfterTool", "timestamp": "t", "tool_name": "replace",
        "tool_input": { "file_path": file, "old_string": "-> int", "new_string": "-> str" },
    });
    let Some(Request::AfterEdit { originals, .. }) = read(&gemini, None).request else {
        panic!("not an after-edit request");
    };
    assert_eq!(originals[0].1, "def total(n: int) -> int:\n    return n\n");
    let claude = json!({
        "session_id": "s", "cwd": dir.path(), "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": { "file_path": file, "old_string": "a", "new_string": "b" },
        "tool_response": { "originalFile": "the text before\n" },
    });
    let Some(Request::AfterEdit { originals, .. }) = read(&claude, None).request else {
        panic!("not an after-edit request");
    };
    assert_eq!(originals[0].1, "the text before\n");
}

#[test]
fn a_subagent_s_edits_are_its_own_and_its_start_is_a_session_s() {
    // Two subagents of one session edit one file: each tool call keeps its
    // own baseline (`tool_use_id`, the same before and after the tool).
    let edit = |event: &str, id: &str| {
        json!({
            "session_id": "s", "cwd": "/p", "hook_event_name": event, "tool_name": "Edit",
            "agent_id": "a1", "agent_type": "general-purpose", "tool_use_id": id,
            "tool_input": { "file_path": "/p/a.py", "old_string": "x", "new_string": "y" },
        })
    };
    let owner = |h: Hook| match h.request {
        Some(Request::BeforeEdit { session, .. } | Request::AfterEdit { session, .. }) => session,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        owner(read(&edit("PreToolUse", "toolu_1"), None)),
        "s/toolu_1"
    );
    assert_eq!(
        owner(read(&edit("PostToolUse", "toolu_1"), None)),
        "s/toolu_1"
    );
    assert_eq!(
        owner(read(&edit("PostToolUse", "toolu_2"), None)),
        "s/toolu_2"
    );
    // Without a tool call's id, the agent's; without either, the session's.
    let mut by_agent = edit("PreToolUse", "");
    by_agent["tool_use_id"] = Value::Null;
    assert_eq!(owner(read(&by_agent, None)), "s/a1");
    by_agent["agent_id"] = Value::Null;
    assert_eq!(owner(read(&by_agent, None)), "s");

    let start = json!({ "session_id": "s", "cwd": "/p", "hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": "Explore" });
    assert_eq!(
        read(&start, None).request,
        Some(Request::SessionStart {
            cwd: PathBuf::from("/p")
        })
    );
}

#[test]
fn an_edit_s_context_lists_six_errors_at_most_and_counts_the_rest() {
    use crate::answer::{Finding, Severity};
    use crate::edit::{EditAnswer, FileErrors};
    let error = |line: usize| Finding {
        line,
        column: 1,
        end_line: line,
        end_column: 2,
        severity: Severity::Error,
        message: format!("bad {} {}", line, "x".repeat(300)),
        source: "Pyright".into(),
        code: None,
    };
    let file = |name: &str, dependent: bool| FileErrors {
        path: PathBuf::from("/p").join(name),
        errors: (1..=4).map(error).collect(),
        notes: Vec::new(),
        delta: true,
        fixed: 0,
        kept: 0,
        dependent,
        not_compared: None,
    };
    let answer = EditAnswer {
        root: Some(PathBuf::from("/p")),
        files: vec![file("a.py", false), file("b.py", true), file("c.py", true)],
        ..EditAnswer::default()
    };
    let text = super::after_edit::context(&answer, None);
    let listed: Vec<&str> = text.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(listed.len(), 6, "{text}");
    assert!(
        listed
            .iter()
            .all(|l| l.chars().count() <= 2 + "b.py:4:1 ".len() + 150),
        "{text}"
    );
    assert!(
        text.contains("b.py: 4 new errors (it uses what the edit changed)\n"),
        "{text}"
    );
    assert!(!text.contains("c.py:"), "{text}");
    assert!(
        text.ends_with("... and 6 more new errors (lsp_check lists them)\n"),
        "{text}"
    );
}

#[test]
fn errors_that_could_not_be_compared_are_one_line_never_a_list_or_a_count() {
    // A late check whose dependents' errors before the edit could not be
    // had listed their old errors as the edit's ("sessions.py: 19 errors
    // (not compared ...)"), counted them among "more new errors", and
    // crowded the edit's own errors out of the list.
    use crate::answer::{Finding, Severity};
    use crate::edit::{EditAnswer, FileErrors};
    let error = |line: usize| Finding {
        line,
        column: 1,
        end_line: line,
        end_column: 2,
        severity: Severity::Error,
        message: format!("bad {line}"),
        source: "Pyright".into(),
        code: None,
    };
    let file = |name: &str, errors: usize, not_compared: bool| FileErrors {
        path: PathBuf::from("/p").join(name),
        errors: (1..=errors).map(error).collect(),
        notes: Vec::new(),
        delta: !not_compared,
        fixed: 0,
        kept: 0,
        dependent: name != "models.py",
        not_compared: not_compared.then(|| "no answer before the change".to_owned()),
    };
    let answer = EditAnswer {
        root: Some(PathBuf::from("/p")),
        files: vec![
            file("sessions.py", 19, true),
            file("models.py", 2, false),
            file("api.py", 1, false),
            file("old.py", 49, true),
        ],
        ..EditAnswer::default()
    };
    let text = super::after_edit::context(&answer, None);
    assert_eq!(
        text,
        "sightline (the project's language servers) found errors after this edit:\n\
         models.py: 2 new errors\n  models.py:1:1 bad 1\n  models.py:2:1 bad 2\n\
         api.py: 1 new error (it uses what the edit changed)\n  api.py:1:1 bad 1\n\
         note: the errors before this edit could not be had for sessions.py, old.py, so theirs after it are not compared (ask lsp_diagnostics for them)\n"
    );
    let only = EditAnswer {
        files: vec![file("sessions.py", 19, true)],
        ..answer
    };
    assert_eq!(
        super::after_edit::context(&only, None),
        "sightline: the errors before this edit could not be had for sessions.py, so theirs after it are not compared (ask lsp_diagnostics for them)\n"
    );
}

#[test]
fn a_clean_check_that_could_not_look_at_the_users_says_so() {
    // Under load, the references of a changed signature failed ("not
    // ready"), the edited file itself had no error, and the hook said
    // nothing: the model took the edit that broke two callers for clean.
    use crate::edit::EditAnswer;
    let mut answer = EditAnswer {
        root: Some(PathBuf::from("/p")),
        notes: vec!["the users of `f` were not looked for: not ready".into()],
        ..EditAnswer::default()
    };
    assert_eq!(
        super::after_edit::context(&answer, None),
        "sightline: no error found after this edit, but the check was not whole:\n\
         note: the users of `f` were not looked for: not ready\n"
    );
    // The untrusted project's note alone says nothing of this answer.
    assert_eq!(
        super::after_edit::context(
            &answer,
            Some("the users of `f` were not looked for: not ready")
        ),
        ""
    );
    answer.notes.clear();
    assert_eq!(super::after_edit::context(&answer, None), "");
}
