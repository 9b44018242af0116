//! Real agent CLIs, pinned in `tools/package.json`, each driven by a
//! scripted model on loopback (`sightline_test_support::model_server`), in a
//! project set up by `sightline setup AGENT --project`: the agent edits with
//! its own tool, and the next request it sends the model carries the errors
//! the edit introduced (file and line, the broken caller's too); an edit
//! with none adds nothing; a grep for an identifier adds its exact uses; and
//! sightline's MCP tools answer from the agent.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::model_server::{ModelServer, Turn, after_tool};
use sightline_test_support::{
    DaemonDirs, Project, path_with_tools, repo_root, require, sightline_bin,
};

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();

const LIB: &str = "def total(n: int) -> int:\n    return n\n";
const APP: &str = "from lib import total\n\nvalue: int = total(1)\n";

/// A file with an error of its own before any edit: an edit that leaves
/// it must not list it (the before-edit answer is what tells).
const LIB_WITH_ERROR: &str = "def total(n: int) -> int:\n    return n\n\nbad: int = \"x\"\n";

/// Starts the project's server in the daemon the hooks will ask (the same
/// home, so the same settings) and waits for its first answer, so that the
/// before-edit answer comes within the hook's budget.
fn warm(project: &Project, dirs: &DaemonDirs) {
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    let out = Command::new(sightline_bin())
        .args(["diagnostics"])
        .arg(project.path("lib.py"))
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("PATH", path_with_tools())
        .envs(dirs.env())
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits for an agent's run (180 s at most: then it is killed and the test
/// fails with what the model was last asked), and fails unless it
/// succeeded.
fn finish(agent: &str, mut child: std::process::Child, server: &ModelServer) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let asked = server.requests();
            let last = asked.last().map(|(_, b)| b.to_string()).unwrap_or_default();
            panic!(
                "{agent} did not finish within 180 s; the model was asked {} times, last with: {}",
                asked.len(),
                &last[last.len().saturating_sub(1500)..]
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{agent} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A scripted model that makes `calls` in turn once the conversation holds
/// the task's marker (one more call for each tool result, `result` being
/// how that agent's API spells one), then ends the turn; other requests
/// (titles, routing) get a short text.
fn scripted(calls: Vec<Turn>, result: &'static str) -> ModelServer {
    ModelServer::start(Box::new(move |body: &Value| {
        let text = body.to_string();
        let made = text.matches(result).count();
        if text.contains(MARKER) && (made == 0 || after_tool(body)) {
            calls
                .get(made)
                .cloned()
                .unwrap_or_else(|| Turn::Text("done".into()))
        } else {
            Turn::Text("ok".into())
        }
    }))
}

/// The words the scripted model looks for in the task.
const MARKER: &str = "SIGHTLINE-SCRIPTED-TASK";

/// A Python project set up for `agent` by `sightline setup AGENT --project`,
/// which says `said` among what it added.
fn set_up(agent: &str, said: &str) -> Project {
    let p = Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)]);
    let out = Command::new(sightline_bin())
        .args(["setup", agent, "--project"])
        .current_dir(p.root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{text}");
    p
}

/// A Python project the scripted model edits, set up for Claude Code.
fn claude_project() -> Project {
    set_up("claude-code", ".mcp.json: added mcpServers.sightline")
}

/// Runs `claude -p` in `project` against a model that makes `call` first,
/// then ends the turn; every request the model server got, as text.
fn claude_turn(
    project: &Project,
    dirs: &DaemonDirs,
    calls: Vec<Turn>,
    extra: &[&str],
) -> Vec<String> {
    require("claude");
    // One at a time, under one home: the hooks' before and after calls meet
    // in one daemon, which serves one set of settings (`HOME` among them).
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let server = scripted(calls, "\"type\":\"tool_result\"");
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    let child = Command::new(repo_root().join("tools/node_modules/.bin/claude"))
        .args([
            "-p",
            &format!("{MARKER}: do the scripted step"),
            "--permission-mode",
            "acceptEdits",
            "--output-format",
            "json",
        ])
        .args(extra)
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("PATH", path_with_tools())
        // A daemon of this test's own: the hooks' before and after calls
        // meet there, whatever other tests' daemons serve.
        .envs(dirs.env())
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-scripted")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        // MCP tools offered with the others, not deferred behind ToolSearch,
        // and the MCP servers waited for at start.
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MCP_TIMEOUT", "30000")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("claude", child, &server);
    server
        .requests()
        .iter()
        .map(|(_, b)| b.to_string())
        .collect()
}

/// What the request that reported the tool's result back to the model
/// added after the model's tool call: the tool's result and any context
/// the hooks added, as JSON text.
fn after_the_tool(requests: &[String]) -> String {
    let body = requests
        .iter()
        .rev()
        .find(|r| r.contains("\"tool_result\""))
        .unwrap_or_else(|| {
            panic!(
                "no request carried the tool's result ({} requests)",
                requests.len()
            )
        });
    let body: Value = serde_json::from_str(body).unwrap();
    let messages = body["messages"].as_array().unwrap();
    let last_call = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .unwrap_or(0);
    Value::Array(messages[last_call..].to_vec()).to_string()
}

fn edit(file: &Path, old: &str, new: &str) -> Turn {
    Turn::Tool(
        "Edit".into(),
        json!({ "file_path": file, "old_string": old, "new_string": new }),
    )
}

#[test]
fn claude_code_hears_the_errors_its_own_edit_brought_in_the_file_and_its_caller() {
    let p = claude_project();
    let dirs = DaemonDirs::new();
    warm(&p, &dirs);
    let requests = claude_turn(
        &p,
        &dirs,
        vec![edit(
            &p.path("lib.py"),
            "def total(n: int) -> int:",
            "def total(n: int) -> str:",
        )],
        &[],
    );
    let next = after_the_tool(&requests);
    assert!(next.contains("found errors after this edit"), "{next}");
    // Compared with the before-edit answer: new, not merely listed.
    assert!(next.contains("lib.py: 1 new error"), "{next}");
    assert!(next.contains("app.py: 1 new error"), "{next}");
    assert!(
        next.contains("lib.py:2:12"),
        "the edited file's error: {next}"
    );
    assert!(next.contains("app.py:3:14"), "the caller's error: {next}");
    assert_eq!(
        std::fs::read_to_string(p.path("lib.py")).unwrap(),
        LIB.replace("-> int", "-> str")
    );
}

#[test]
fn claude_code_hears_nothing_after_an_edit_that_brings_no_error() {
    let p = claude_project();
    let dirs = DaemonDirs::new();
    std::fs::write(p.path("lib.py"), LIB_WITH_ERROR).unwrap();
    warm(&p, &dirs);
    let requests = claude_turn(
        &p,
        &dirs,
        vec![edit(
            &p.path("lib.py"),
            "    return n\n",
            "    return n  # unchanged\n",
        )],
        &[],
    );
    let next = after_the_tool(&requests);
    assert!(!next.contains("found errors after this edit"), "{next}");
    assert!(!next.contains("did not finish within"), "{next}");
    // The error lib.py had before is not news; the edit did reach it.
    assert!(!next.contains("not compared"), "{next}");
}

#[test]
fn claude_code_s_grep_for_an_identifier_brings_its_exact_uses() {
    let p = claude_project();
    let dirs = DaemonDirs::new();
    // This Claude Code offers no Grep tool without its bundled ripgrep: the
    // search runs as `grep` in its shell, which the hook reads the same way.
    let requests = claude_turn(
        &p,
        &dirs,
        vec![Turn::Tool(
            "Bash".into(),
            json!({ "command": "grep -rn total .", "description": "search" }),
        )],
        &["--allowedTools", "Bash(grep:*)"],
    );
    let next = after_the_tool(&requests);
    assert!(next.contains("the exact uses of `total`"), "{next}");
    assert!(next.contains("app.py:3:14"), "{next}");
}

#[test]
fn sightline_s_mcp_tools_answer_from_claude_code() {
    let p = claude_project();
    let dirs = DaemonDirs::new();
    std::fs::write(
        p.path("app.py"),
        "from lib import total\n\nvalue: str = total(1)\n",
    )
    .unwrap();
    let requests = claude_turn(
        &p,
        &dirs,
        vec![Turn::Tool(
            "mcp__sightline__lsp_diagnostics".into(),
            json!({ "file": p.path("app.py") }),
        )],
        &["--allowedTools", "mcp__sightline__lsp_diagnostics"],
    );
    let next = after_the_tool(&requests);
    assert!(next.contains("app.py: 1 diagnostic"), "{next}");
}

/// `sightline hook` after an edit on a project whose server has not
/// started: within its budget it answers the agent's JSON with one line
/// saying the check did not finish, and exits 0; a payload it has nothing
/// to add to prints nothing.
#[test]
fn a_hook_on_a_cold_project_answers_within_its_budget_in_one_line() {
    let p = Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)]);
    let dirs = DaemonDirs::new();
    let hook = |payload: Value| {
        let mut child = Command::new(sightline_bin())
            .args(["hook", "--budget-ms", "300"])
            .current_dir(p.root())
            .env("PATH", path_with_tools())
            .envs(dirs.env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    };
    let out = hook(json!({
        "session_id": "cold", "cwd": p.root(), "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": { "file_path": p.path("lib.py"), "old_string": "int", "new_string": "str" },
    }));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with("sightline: the check of this edit did not finish within 0.3 s"),
        "{context}"
    );
    assert_eq!(context.trim_end().lines().count(), 1, "{context}");
    // A tool sightline has nothing to add to: nothing printed, status 0.
    let out = hook(json!({
        "session_id": "cold", "cwd": p.root(), "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": { "file_path": p.path("lib.py") },
    }));
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
}

/// A Python project the scripted model edits, set up for Gemini CLI.
fn gemini_project() -> Project {
    set_up("gemini", "settings.json: added mcpServers.sightline")
}

/// Runs `gemini -p` in `project` against a Gemini API that makes `calls` in
/// turn, then ends the turn; every conversation request, as text.
fn gemini_turn(project: &Project, dirs: &DaemonDirs, calls: Vec<Turn>) -> Vec<String> {
    require("gemini");
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let server = scripted(calls, "\"functionResponse\"");
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    // API-key auth, and no folder trust (which would have --yolo ask).
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/settings.json"),
        json!({ "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } } }).to_string(),
    )
    .unwrap();
    let child = Command::new(repo_root().join("tools/node_modules/.bin/gemini"))
        .args(["-p", &format!("{MARKER}: do the scripted step"), "--yolo"])
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("PATH", path_with_tools())
        // A daemon of this test's own: the hooks' before and after calls
        // meet there, whatever other tests' daemons serve.
        .envs(dirs.env())
        .env("GOOGLE_GEMINI_BASE_URL", &server.url)
        .env("GEMINI_API_KEY", "scripted")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("gemini", child, &server);
    server
        .requests()
        .iter()
        .map(|(_, b)| b.to_string())
        .collect()
}

/// What the last request that reported a function's result added after the
/// model's call, as JSON text.
fn after_the_function(requests: &[String]) -> String {
    let body = requests
        .iter()
        .rev()
        .find(|r| r.contains("\"functionResponse\""))
        .unwrap_or_else(|| {
            panic!(
                "no request carried a function's result ({} requests)",
                requests.len()
            )
        });
    let body: Value = serde_json::from_str(body).unwrap();
    let contents = body["contents"].as_array().unwrap();
    let last_call = contents
        .iter()
        .rposition(|c| c["role"] == "model")
        .unwrap_or(0);
    Value::Array(contents[last_call..].to_vec()).to_string()
}

fn replace(file: &Path, old: &str, new: &str) -> Turn {
    Turn::Tool(
        "replace".into(),
        json!({ "file_path": file, "old_string": old, "new_string": new, "instruction": "the scripted edit" }),
    )
}

#[test]
fn gemini_cli_hears_the_errors_its_own_edit_brought_in_the_file_and_its_caller() {
    let p = gemini_project();
    let dirs = DaemonDirs::new();
    warm(&p, &dirs);
    let requests = gemini_turn(
        &p,
        &dirs,
        vec![replace(
            &p.path("lib.py"),
            "def total(n: int) -> int:",
            "def total(n: int) -> str:",
        )],
    );
    let next = after_the_function(&requests);
    assert!(next.contains("found errors after this edit"), "{next}");
    // Compared with the before-edit answer: new, not merely listed.
    assert!(next.contains("lib.py: 1 new error"), "{next}");
    assert!(next.contains("app.py: 1 new error"), "{next}");
    assert!(
        next.contains("lib.py:2:12"),
        "the edited file's error: {next}"
    );
    assert!(next.contains("app.py:3:14"), "the caller's error: {next}");
}

#[test]
fn gemini_cli_hears_nothing_after_an_edit_that_brings_no_error() {
    let p = gemini_project();
    let dirs = DaemonDirs::new();
    std::fs::write(p.path("lib.py"), LIB_WITH_ERROR).unwrap();
    warm(&p, &dirs);
    let requests = gemini_turn(
        &p,
        &dirs,
        vec![replace(
            &p.path("lib.py"),
            "    return n\n",
            "    return n  # unchanged\n",
        )],
    );
    let next = after_the_function(&requests);
    assert!(!next.contains("found errors after this edit"), "{next}");
    assert!(!next.contains("did not finish within"), "{next}");
    // The error lib.py had before is not news; the edit did reach it.
    assert!(!next.contains("not compared"), "{next}");
}

#[test]
fn gemini_cli_s_search_for_an_identifier_brings_its_exact_uses() {
    let p = gemini_project();
    let dirs = DaemonDirs::new();
    let requests = gemini_turn(
        &p,
        &dirs,
        vec![Turn::Tool(
            "grep_search".into(),
            json!({ "pattern": "total" }),
        )],
    );
    let next = after_the_function(&requests);
    assert!(next.contains("the exact uses of `total`"), "{next}");
    assert!(next.contains("app.py:3:14"), "{next}");
}

#[test]
fn sightline_s_mcp_tools_answer_from_gemini_cli() {
    let p = gemini_project();
    let dirs = DaemonDirs::new();
    std::fs::write(
        p.path("app.py"),
        "from lib import total\n\nvalue: str = total(1)\n",
    )
    .unwrap();
    let requests = gemini_turn(
        &p,
        &dirs,
        vec![Turn::Tool(
            "mcp_sightline_lsp_diagnostics".into(),
            json!({ "file": p.path("app.py") }),
        )],
    );
    let next = after_the_function(&requests);
    assert!(next.contains("app.py: 1 diagnostic"), "{next}");
}

/// A Python project the scripted model edits, set up for Codex with
/// `sightline setup codex --project` (its `.codex/` is read once the project
/// is trusted, which `codex_turn` records in the Codex home).
fn codex_project() -> Project {
    set_up("codex", "config.toml: added mcp_servers.sightline")
}

/// Runs `codex exec` in `project` against a Responses API that makes
/// `calls` in turn, then ends the turn; every conversation request, as text.
fn codex_turn(project: &Project, dirs: &DaemonDirs, model: &str, calls: Vec<Turn>) -> Vec<String> {
    require("codex");
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let server = scripted(calls, "_call_output\"");
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    let codex_home = home.path().join("codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"{model}\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_KEY\"\n\n[projects.{}]\ntrust_level = \"trusted\"\n",
            server.url,
            serde_json::to_string(&project.root().display().to_string()).unwrap()
        ),
    )
    .unwrap();
    let child = Command::new(repo_root().join("tools/node_modules/.bin/codex"))
        .args(["exec", &format!("{MARKER}: do the scripted step")])
        .args([
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--dangerously-bypass-hook-trust",
        ])
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("CODEX_HOME", &codex_home)
        .env("PATH", path_with_tools())
        // A daemon of this test's own: the hooks' before and after calls
        // meet there, whatever other tests' daemons serve.
        .envs(dirs.env())
        .env("SCRIPTED_KEY", "scripted")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("codex", child, &server);
    server
        .requests()
        .iter()
        .map(|(_, b)| b.to_string())
        .collect()
}

/// What the last request that reported a tool's output added after the
/// model's call, as JSON text.
fn after_the_output(requests: &[String]) -> String {
    let body = requests
        .iter()
        .rev()
        .find(|r| r.contains("_call_output\""))
        .unwrap_or_else(|| {
            panic!(
                "no request carried a tool's output ({} requests)",
                requests.len()
            )
        });
    let body: Value = serde_json::from_str(body).unwrap();
    let input = body["input"].as_array().unwrap();
    let last_call = input
        .iter()
        .rposition(|i| {
            matches!(
                i["type"].as_str(),
                Some("function_call" | "custom_tool_call")
            )
        })
        .unwrap_or(0);
    Value::Array(input[last_call..].to_vec()).to_string()
}

/// Codex's `apply_patch` (the freeform tool, which Codex offers `gpt-5.5`).
fn patch(file: &str, old: &str, new: &str) -> Turn {
    Turn::Tool(
        "apply_patch".into(),
        Value::String(format!(
            "*** Begin Patch\n*** Update File: {file}\n@@\n-{old}\n+{new}\n*** End Patch\n"
        )),
    )
}

#[test]
fn codex_hears_the_errors_its_own_patch_brought_in_the_file_and_its_caller() {
    let p = codex_project();
    let dirs = DaemonDirs::new();
    warm(&p, &dirs);
    let requests = codex_turn(
        &p,
        &dirs,
        "gpt-5.5",
        vec![patch(
            "lib.py",
            "def total(n: int) -> int:",
            "def total(n: int) -> str:",
        )],
    );
    let next = after_the_output(&requests);
    assert!(next.contains("found errors after this edit"), "{next}");
    // Compared with the before-edit answer: new, not merely listed.
    assert!(next.contains("lib.py: 1 new error"), "{next}");
    assert!(next.contains("app.py: 1 new error"), "{next}");
    assert!(
        next.contains("lib.py:2:12"),
        "the edited file's error: {next}"
    );
    assert!(next.contains("app.py:3:14"), "the caller's error: {next}");
    assert_eq!(
        std::fs::read_to_string(p.path("lib.py")).unwrap(),
        LIB.replace("-> int", "-> str")
    );
}

#[test]
fn codex_hears_nothing_after_a_patch_that_brings_no_error() {
    let p = codex_project();
    let dirs = DaemonDirs::new();
    std::fs::write(p.path("lib.py"), LIB_WITH_ERROR).unwrap();
    warm(&p, &dirs);
    let requests = codex_turn(
        &p,
        &dirs,
        "gpt-5.5",
        vec![patch("lib.py", "    return n", "    return n  # unchanged")],
    );
    let next = after_the_output(&requests);
    assert!(!next.contains("found errors after this edit"), "{next}");
    assert!(!next.contains("did not finish within"), "{next}");
    // The error lib.py had before is not news; the edit did reach it.
    assert!(!next.contains("not compared"), "{next}");
}

#[test]
fn codex_s_grep_for_an_identifier_brings_its_exact_uses() {
    let p = codex_project();
    let dirs = DaemonDirs::new();
    let requests = codex_turn(
        &p,
        &dirs,
        "gpt-5.5",
        vec![Turn::Tool(
            "exec_command".into(),
            json!({ "cmd": "grep -rn total ." }),
        )],
    );
    let next = after_the_output(&requests);
    assert!(next.contains("the exact uses of `total`"), "{next}");
    assert!(next.contains("app.py:3:14"), "{next}");
}

#[test]
fn sightline_s_mcp_tools_answer_from_codex() {
    let p = codex_project();
    let dirs = DaemonDirs::new();
    std::fs::write(
        p.path("app.py"),
        "from lib import total\n\nvalue: str = total(1)\n",
    )
    .unwrap();
    // A model Codex offers its MCP tools to directly, as the namespace
    // `mcp__sightline` (gpt-5.5 defers them behind its tool search).
    let requests = codex_turn(
        &p,
        &dirs,
        "gpt-5.1-codex",
        vec![Turn::Tool(
            "mcp__sightline::lsp_diagnostics".into(),
            json!({ "file": p.path("app.py") }),
        )],
    );
    let next = after_the_output(&requests);
    assert!(next.contains("app.py: 1 diagnostic"), "{next}");
}
