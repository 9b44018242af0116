//! Real agent CLIs, pinned in `tools/package.json`, each driven by a
//! scripted model on loopback (`sightline_test_support::model_server`), in a
//! project set up by `sightline setup AGENT --project`: the agent edits with
//! its own tool, and the next request it sends the model carries the errors
//! the edit introduced (file and line, the broken caller's too); an edit
//! with none adds nothing; a grep for an identifier adds its exact uses;
//! sightline's MCP tools answer from the agent; and under the user's
//! `"agent": {"new_errors": "deny"}` a breaking edit is stopped before it
//! lands, the model hears its errors, and its next, clean edit lands.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::model_server::{ModelServer, Turn, after_tool};
use sightline_test_support::process::succeeded;
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
    warm_with(project, dirs, &[]);
}

/// [`warm`] with more environment variables (those the agent gets too).
fn warm_with(project: &Project, dirs: &DaemonDirs, env: &[(&str, &str)]) {
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    let out = Command::new(sightline_bin())
        .args(["diagnostics"])
        .arg(project.path("lib.py"))
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("PATH", path_with_tools())
        .envs(dirs.env())
        .envs(env.iter().copied())
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

/// Every request an agent's turn sent the model, as text, and when each
/// arrived.
struct Turned {
    bodies: Vec<String>,
    at: Vec<Instant>,
}

impl Turned {
    fn of(server: &ModelServer) -> Turned {
        Turned {
            bodies: server
                .requests()
                .iter()
                .map(|(_, b)| b.to_string())
                .collect(),
            at: server.arrivals(),
        }
    }
}

impl std::ops::Deref for Turned {
    type Target = Vec<String>;
    fn deref(&self) -> &Vec<String> {
        &self.bodies
    }
}

/// The words the scripted model looks for in the task.
const MARKER: &str = "SIGHTLINE-SCRIPTED-TASK";

/// A Python project set up for `agent` by `sightline setup AGENT --project`,
/// which says `said` among what it added.
fn set_up(agent: &str, said: &str) -> Project {
    let p = Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)]);
    let out = succeeded(
        Command::new(sightline_bin())
            .args(["setup", agent, "--project"])
            .current_dir(p.root()),
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
fn claude_turn(project: &Project, dirs: &DaemonDirs, calls: Vec<Turn>, extra: &[&str]) -> Turned {
    require("claude");
    let server = scripted(calls, "\"type\":\"tool_result\"");
    claude_with(project, dirs, &server, extra);
    Turned::of(&server)
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
        vec![
            Turn::Tool(
                "mcp__sightline__lsp_references".into(),
                json!({ "file": p.path("lib.py"), "line": 1, "symbol": "total" }),
            ),
            Turn::Tool(
                "mcp__sightline__lsp_diagnostics".into(),
                json!({ "file": p.path("app.py") }),
            ),
        ],
        // No permission flag: `setup claude-code` allowed the answering
        // tools.
        &[],
    );
    // The use in app.py, from `lsp_references`, reached the model.
    assert!(
        requests
            .iter()
            .any(|r| r.contains("app.py:3:14") && !r.contains("haven't granted")),
        "{}",
        requests.last().map_or("", String::as_str)
    );
    let next = after_the_tool(&requests);
    assert!(next.contains("app.py: 1 diagnostic"), "{next}");
    // Claude Code reads a result's structured content in place of its
    // text: its session gets the text alone.
    assert!(!next.contains(r#"\"complete\":"#), "{next}");
}

/// `APP` with one error of its own (3:14), for the tools to report.
const APP_WITH_ERROR: &str = "from lib import total\n\nvalue: str = total(1)\n";

/// The token the agents' HTTP sessions are served with.
const HTTP_TOKEN: &str = "scripted-agent-token-0123456789";

/// `sightline mcp --http 0` for `agent`'s turns in `project`, started with
/// the environment the agent's own sightline would get (its home, PATH
/// and the test's daemon) and a token from a file; then `setup AGENT
/// --http URL` points the project's MCP entry at it (the stdio one
/// replaced, so that HTTP is the only way the agent reaches sightline).
fn serve_http_for(
    agent: &str,
    project: &Project,
    dirs: &DaemonDirs,
) -> (sightline_test_support::http::HttpMcp, tempfile::TempDir) {
    let home = HOME.get_or_init(|| tempfile::tempdir().unwrap());
    let keep = tempfile::tempdir().unwrap();
    let token_file = keep.path().join("token");
    std::fs::write(&token_file, format!("{HTTP_TOKEN}\n")).unwrap();
    let mut cmd = Command::new(sightline_bin());
    cmd.args(["mcp", "--http", "0", "--token-file"])
        .arg(&token_file)
        .current_dir(project.root())
        .env("HOME", home.path())
        .env("PATH", path_with_tools())
        .env("RUST_LOG", "sightline=debug")
        .envs(dirs.env());
    let http = sightline_test_support::http::HttpMcp::spawn(cmd, keep.path(), Some(HTTP_TOKEN));
    let out = Command::new(sightline_bin())
        .args(["setup", agent, "--project", "--http", &http.url])
        .current_dir(project.root())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("over HTTP at {}", http.url)),
        "{said}"
    );
    (http, keep)
}

/// Claude Code reaching sightline over HTTP (`"type": "http"` in
/// `.mcp.json`, the token from the environment): the tools answer as over
/// stdio. With another token in the environment, the test fails (401).
#[test]
fn sightline_s_mcp_tools_answer_from_claude_code_over_http() {
    require("claude");
    let p = claude_project();
    let dirs = DaemonDirs::new();
    std::fs::write(p.path("app.py"), APP_WITH_ERROR).unwrap();
    let (http, _keep) = serve_http_for("claude-code", &p, &dirs);
    let mcp = std::fs::read_to_string(p.path(".mcp.json")).unwrap();
    assert!(
        mcp.contains("\"type\": \"http\"") && !mcp.contains(HTTP_TOKEN),
        "{mcp}"
    );
    let server = scripted(
        vec![Turn::Tool(
            "mcp__sightline__lsp_diagnostics".into(),
            json!({ "file": p.path("app.py") }),
        )],
        "\"type\":\"tool_result\"",
    );
    let requests = claude_with_env(
        &p,
        &dirs,
        &server,
        &[],
        &[("SIGHTLINE_MCP_TOKEN", HTTP_TOKEN)],
    );
    let next = after_the_tool(&requests);
    assert!(next.contains("app.py: 1 diagnostic"), "{next}");
    assert!(!next.contains(r#"\"complete\":"#), "{next}");
    drop(http);
}

/// Codex reaching sightline over HTTP (a `url` entry with
/// `bearer_token_env_var`): its model hears the answer.
#[test]
fn sightline_s_mcp_tools_answer_from_codex_over_http() {
    let p = codex_project();
    let dirs = DaemonDirs::new();
    std::fs::write(p.path("app.py"), APP_WITH_ERROR).unwrap();
    let (http, _keep) = serve_http_for("codex", &p, &dirs);
    let config = std::fs::read_to_string(p.path(".codex/config.toml")).unwrap();
    assert!(
        config.contains("bearer_token_env_var") && !config.contains(HTTP_TOKEN),
        "{config}"
    );
    let requests = codex_turn_env(
        &p,
        &dirs,
        "gpt-5.1-codex",
        vec![Turn::Tool(
            "mcp__sightline::lsp_diagnostics".into(),
            json!({ "file": p.path("app.py") }),
        )],
        &[("SIGHTLINE_MCP_TOKEN", HTTP_TOKEN)],
    );
    let next = after_the_output(&requests);
    let log = || std::fs::read_to_string(&http.log).unwrap_or_default();
    assert!(
        next.contains("app.py: 1 diagnostic"),
        "{next}\nsightline mcp --http said:\n{}",
        log()
    );
    assert!(!next.contains(r#"\"complete\":"#), "{next}");
    drop(http);
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
        sightline_test_support::cli::output_with_stdin(
            Command::new(sightline_bin())
                .args(["hook", "--budget-ms", "300"])
                .current_dir(p.root())
                .env("PATH", path_with_tools())
                .envs(dirs.env())
                .stderr(Stdio::piped()),
            payload.to_string().as_bytes(),
        )
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
fn gemini_turn(project: &Project, dirs: &DaemonDirs, calls: Vec<Turn>) -> Turned {
    gemini_turn_env(project, dirs, calls, &[])
}

/// [`gemini_turn`] with more environment variables.
fn gemini_turn_env(
    project: &Project,
    dirs: &DaemonDirs,
    calls: Vec<Turn>,
    env: &[(&str, &str)],
) -> Turned {
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
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("gemini", child, &server);
    Turned::of(&server)
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
fn codex_turn(project: &Project, dirs: &DaemonDirs, model: &str, calls: Vec<Turn>) -> Turned {
    codex_turn_env(project, dirs, model, calls, &[])
}

/// [`codex_turn`] with more environment variables.
fn codex_turn_env(
    project: &Project,
    dirs: &DaemonDirs,
    model: &str,
    calls: Vec<Turn>,
    env: &[(&str, &str)],
) -> Turned {
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
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("codex", child, &server);
    Turned::of(&server)
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
    // Codex gives the model a result's structured content in place of
    // its text: its session gets the text alone.
    assert!(!next.contains(r#"\"complete\":"#), "{next}");
}

#[test]
fn codex_s_mcp_session_and_its_hooks_reach_the_daemon_the_user_s_shell_shows() {
    // Codex starts MCP servers with a cleared environment (no
    // `XDG_RUNTIME_DIR`, no data directory) and its hooks with the whole
    // one; `setup codex` names the daemon's variables in `env_vars`, so
    // the session, the hooks and the user's own `sightline` meet in one
    // daemon, with one pyright for the project.
    let p = codex_project();
    let dirs = DaemonDirs::new();
    std::fs::write(
        p.path("app.py"),
        "from lib import total\n\nvalue: str = total(1)\n",
    )
    .unwrap();
    // Were the variables not passed, `sightline mcp` would reach (or
    // start) the user's own daemon: its pid files stay as they were.
    let users = users_daemons();
    let requests = codex_turn(
        &p,
        &dirs,
        "gpt-5.1-codex",
        vec![
            Turn::Tool(
                "mcp__sightline::lsp_diagnostics".into(),
                json!({ "file": p.path("app.py") }),
            ),
            patch("lib.py", "    return n", "    return n  # unchanged"),
        ],
    );
    assert!(
        requests.iter().any(|r| r.contains("app.py: 1 diagnostic")),
        "the MCP tool's answer did not reach the model"
    );
    assert_eq!(
        users_daemons(),
        users,
        "a daemon outside the test's directories"
    );
    let status = dirs.status();
    let by_client = &status["sessions_by_client"];
    // (Codex 0.169.0 opened its MCP server twice in one `codex exec`.)
    assert!(by_client["mcp"].as_u64().unwrap_or(0) >= 1, "{status}");
    assert!(by_client["hook"].as_u64().unwrap_or(0) >= 2, "{status}");
    let pyrights: Vec<&Value> = status["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"] == "pyright")
        .collect();
    assert_eq!(pyrights.len(), 1, "{status}");
    assert_eq!(
        pyrights[0]["root"].as_str().map(PathBuf::from),
        Some(std::fs::canonicalize(p.root()).unwrap()),
        "{status}"
    );
}

/// The pid files of the daemons a client without `XDG_RUNTIME_DIR`
/// reaches (the user's own: `/run/user/UID`, `/tmp/sightline-UID`), with
/// their contents.
fn users_daemons() -> Vec<(PathBuf, Option<String>)> {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    [
        PathBuf::from(format!("/run/user/{uid}/sightline/daemon.pid")),
        PathBuf::from(format!("/tmp/sightline-{uid}/daemon.pid")),
    ]
    .into_iter()
    .map(|p| {
        let pid = std::fs::read_to_string(&p).ok();
        (p, pid)
    })
    .collect()
}

/// httpx 0.28.1 (7.9k lines from PyPI, `pinned::httpx_project`) set up for
/// `agent`; and the same project not set up, for the agent without
/// sightline.
fn httpx_for(agent: &str) -> (Project, Project) {
    let with = Project::new(&[]);
    sightline_test_support::pinned::httpx_project(with.root());
    succeeded(
        Command::new(sightline_bin())
            .args(["setup", agent, "--project"])
            .current_dir(with.root()),
    );
    let without = Project::new(&[]);
    sightline_test_support::pinned::httpx_project(without.root());
    (with, without)
}

/// The scripted model's edits of `httpx/_utils.py`, in turn, and the new
/// errors (`FILE:LINE:COL`) each must bring to the model, and nothing else:
/// a parameter added that breaks callers in three other modules (from a
/// stopped daemon), undone, a comment, and a default dropped that breaks
/// callers in two other modules (warm).
const HTTPX_EDITS: &[(&str, &str, &[&str])] = &[
    (
        "def primitive_value_to_str(value: PrimitiveData) -> str:",
        "def primitive_value_to_str(value: PrimitiveData, strict: bool) -> str:",
        &[
            "httpx/_content.py:142:38",
            "httpx/_content.py:144:37",
            "httpx/_multipart.py:87:52",
            "httpx/_urls.py:459:26",
            "httpx/_urls.py:549:30",
            "httpx/_urls.py:564:48",
        ],
    ),
    (
        "def primitive_value_to_str(value: PrimitiveData, strict: bool) -> str:",
        "def primitive_value_to_str(value: PrimitiveData) -> str:",
        &[],
    ),
    (
        "def unquote(value: str) -> str:",
        "def unquote(value: str) -> str:  # the quotes stay inside",
        &[],
    ),
    (
        "def to_str(value: str | bytes, encoding: str = \"utf-8\") -> str:",
        "def to_str(value: str | bytes, encoding: str) -> str:",
        &["httpx/_auth.py:325:52", "httpx/_models.py:134:12"],
    ),
];

/// The `httpx/FILE.py:LINE:COL` places a text names, sorted.
fn places(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices("httpx/") {
        let rest = &text[i..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/_.:".contains(c)))
            .unwrap_or(rest.len());
        let place = rest[..end].trim_end_matches([':', '.']);
        if place.matches(':').count() == 2 {
            found.push(place.to_owned());
        }
    }
    found.sort();
    found.dedup();
    found
}

/// For each of `calls` tool calls of a turn: what the request that
/// reported its result added after it (`after`), and the call's time (from
/// the request the call answered to the one reporting its result).
fn per_call(
    turned: &Turned,
    result: &str,
    after: fn(&[String]) -> String,
    calls: usize,
) -> Vec<(String, Duration)> {
    let made: Vec<usize> = turned.iter().map(|b| b.matches(result).count()).collect();
    let slices: Vec<(usize, String, Duration)> = (1..=calls)
        .map(|k| {
            let reported = made
                .iter()
                .position(|&m| m >= k)
                .unwrap_or_else(|| panic!("no request reported call {k}"));
            let asked = (0..reported)
                .rev()
                .find(|&i| made[i] == k - 1 && turned[i].contains(MARKER))
                .unwrap_or(0);
            (
                reported,
                after(std::slice::from_ref(&turned[reported])),
                turned.at[reported] - turned.at[asked],
            )
        })
        .collect();
    // Only what each call added, counted, not merely matched: two calls
    // may hear the same line (two edits whose checks both outlasted the
    // hook), and the second is as new as the first. Calls made back to
    // back share one request's stretch, which holds the contexts of all of
    // them, and a stretch may repeat the contexts heard before it: what
    // the request before it (or an earlier call of the same request) held
    // is not new.
    let counted = |slice: &str| {
        let mut counts = std::collections::HashMap::<String, usize>::new();
        for context in sightline_strings(slice).iter().flat_map(|s| contexts_in(s)) {
            *counts.entry(context).or_default() += 1;
        }
        counts
    };
    let mut before = std::collections::HashMap::<String, usize>::new();
    let mut last: Option<(usize, std::collections::HashMap<String, usize>)> = None;
    let mut out = Vec::new();
    for (reported, slice, took) in slices {
        let counts = counted(&slice);
        match &last {
            Some((r, _)) if *r == reported => {}
            Some((_, previous)) => before = previous.clone(),
            None => {}
        }
        let mut new = Vec::new();
        for (context, n) in &counts {
            let known = before.entry(context.clone()).or_default();
            new.extend(std::iter::repeat_n(
                context.clone(),
                n.saturating_sub(*known),
            ));
            *known = (*known).max(*n);
        }
        last = Some((reported, counts));
        out.push((new.join("\n"), took));
    }
    out
}

/// The hook contexts a string holds, one each (Claude Code joins those of
/// calls made back to back, each after its `PostToolUse:Edit hook
/// additional context:` heading).
fn contexts_in(s: &str) -> Vec<String> {
    s.split("PostToolUse:")
        .map(str::trim)
        .filter(|c| c.contains("sightline"))
        .map(str::to_owned)
        .collect()
}

/// Every string in a JSON text that sightline wrote.
fn sightline_strings(json: &str) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.contains("sightline") => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::from_str(json).unwrap_or(Value::Null), &mut out);
    out
}

/// Runs `check`; when it fails, stops the daemon of `dirs` and prints its
/// log (what each hook answered, with `RUST_LOG=sightline=debug`) before
/// the failure goes on.
fn with_daemon_log_on_failure(dirs: &DaemonDirs, check: impl FnOnce()) {
    if let Err(failure) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
        dirs.stop();
        let message = failure
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| failure.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        panic!("{message}\ndaemon log:\n{}", dirs.log());
    }
}

/// Checks what the model heard after each of [`HTTPX_EDITS`], and prints
/// each tool call's time with and without sightline.
fn heard_exactly_the_new_errors(
    agent: &str,
    with: &[(String, Duration)],
    without: &[(String, Duration)],
) {
    for (i, ((_, took), (_, bare))) in with.iter().zip(without).enumerate() {
        println!(
            "{agent}: edit {} ({}): tool call {:.0} ms with sightline, {:.0} ms without",
            i + 1,
            if i == 0 { "cold" } else { "warm" },
            took.as_secs_f64() * 1000.0,
            bare.as_secs_f64() * 1000.0
        );
    }
    // An edit and its undo (a comment and the next break) may be reported
    // to the model in one request (Claude Code groups the results of calls
    // made back to back). An edit's check may outlast the hook's budget on
    // a cold daemon or a loaded machine: its result then comes with the
    // agent's next event, headed so, or, when that event is another edit
    // of the file, the next edit's check takes it over and counts from the
    // text before both; nothing is ever dropped.
    for (heard, _) in with {
        assert!(!heard.contains("was dropped"), "{heard}");
    }
    let late = |k: usize| with[k].0.contains("did not finish within");
    let pair = |a: usize| {
        let mut both = places(&with[a].0);
        both.extend(places(&with[a + 1].0));
        both.sort();
        both.dedup();
        both
    };
    // The break's errors, unless the undo took its check over (then
    // nothing: the undo left none).
    if late(0) && !with[1].0.contains("finished late:") {
        assert_eq!(
            pair(0),
            Vec::<String>::new(),
            "{}\n{}",
            with[0].0,
            with[1].0
        );
    } else {
        assert_eq!(pair(0), HTTPX_EDITS[0].2, "{}\n{}", with[0].0, with[1].0);
    }
    // The last break's errors, unless its check outlasted the turn's last
    // tool call (then what came is a part of them).
    if late(3) {
        assert!(
            pair(2)
                .iter()
                .all(|p| HTTPX_EDITS[3].2.contains(&p.as_str())),
            "{}\n{}",
            with[2].0,
            with[3].0
        );
    } else {
        assert_eq!(pair(2), HTTPX_EDITS[3].2, "{}\n{}", with[2].0, with[3].0);
    }
    // The comment brought nothing: what the model heard after it is the
    // next edit's, reported with it, or nothing.
    assert!(
        places(&with[2].0)
            .iter()
            .all(|p| HTTPX_EDITS[3].2.contains(&p.as_str())),
        "{}",
        with[2].0
    );
    // Each error is heard once: a result handed over twice (in the edit's
    // own context and again as a late one) would list it twice.
    for (heard, _) in with {
        for place in places(heard) {
            let listed = heard.matches(&format!("  {place} ")).count();
            assert!(listed <= 1, "{place} listed {listed} times: {heard}");
        }
    }
}

#[test]
fn claude_code_on_httpx_hears_exactly_each_edit_s_new_errors_cold_and_warm() {
    let (p, bare) = httpx_for("claude-code");
    let dirs = DaemonDirs::new();
    let calls = |p: &Project| -> Vec<Turn> {
        HTTPX_EDITS
            .iter()
            .map(|(old, new, _)| edit(&p.path("httpx/_utils.py"), old, new))
            .collect()
    };
    let with = claude_turn(&p, &dirs, calls(&p), &[]);
    // The daemon Claude Code's hooks started holds none of its keys, nor
    // does pyright under it.
    assert_eq!(
        dirs.environ_holding(&["ANTHROPIC_API_KEY=", "sk-ant-scripted"]),
        Vec::<String>::new()
    );
    let without = claude_turn(&bare, &DaemonDirs::new(), calls(&bare), &[]);
    let n = HTTPX_EDITS.len();
    with_daemon_log_on_failure(&dirs, || {
        heard_exactly_the_new_errors(
            "claude code",
            &per_call(&with, "\"type\":\"tool_result\"", after_the_tool, n),
            &per_call(&without, "\"type\":\"tool_result\"", after_the_tool, n),
        )
    });
}

#[test]
fn codex_on_httpx_hears_exactly_each_edit_s_new_errors_cold_and_warm() {
    let (p, bare) = httpx_for("codex");
    let dirs = DaemonDirs::new();
    let calls = || -> Vec<Turn> {
        HTTPX_EDITS
            .iter()
            .map(|(old, new, _)| patch("httpx/_utils.py", old, new))
            .collect()
    };
    let with = codex_turn(&p, &dirs, "gpt-5.5", calls());
    assert_eq!(
        dirs.environ_holding(&["SCRIPTED_KEY="]),
        Vec::<String>::new()
    );
    let without = codex_turn(&bare, &DaemonDirs::new(), "gpt-5.5", calls());
    let n = HTTPX_EDITS.len();
    with_daemon_log_on_failure(&dirs, || {
        heard_exactly_the_new_errors(
            "codex",
            &per_call(&with, "_call_output\"", after_the_output, n),
            &per_call(&without, "_call_output\"", after_the_output, n),
        )
    });
}

#[test]
fn gemini_cli_on_httpx_hears_exactly_each_edit_s_new_errors_cold_and_warm() {
    let (p, bare) = httpx_for("gemini");
    let dirs = DaemonDirs::new();
    let calls = |p: &Project| -> Vec<Turn> {
        HTTPX_EDITS
            .iter()
            .map(|(old, new, _)| replace(&p.path("httpx/_utils.py"), old, new))
            .collect()
    };
    let with = gemini_turn(&p, &dirs, calls(&p));
    assert_eq!(
        dirs.environ_holding(&["GEMINI_API_KEY="]),
        Vec::<String>::new()
    );
    let without = gemini_turn(&bare, &DaemonDirs::new(), calls(&bare));
    let n = HTTPX_EDITS.len();
    with_daemon_log_on_failure(&dirs, || {
        heard_exactly_the_new_errors(
            "gemini cli",
            &per_call(&with, "\"functionResponse\"", after_the_function, n),
            &per_call(&without, "\"functionResponse\"", after_the_function, n),
        )
    });
}

/// The prompts of two Claude Code subagents (`Agent`), which the scripted
/// model tells apart: one breaks `total`'s caller, one adds a clean
/// function to the same file.
const SUB_BREAK: &str = "SIGHTLINE-SUBAGENT-BREAK: change total's return type";
const SUB_CLEAN: &str = "SIGHTLINE-SUBAGENT-CLEAN: add a spare function";

/// One Claude Code turn whose model starts two subagents at once, each
/// editing `lib.py`; what each subagent's model heard after its edit.
fn two_subagents_edit_one_file(runs: usize) {
    require("claude");
    let mut heard_right = 0;
    for run in 0..runs {
        let p = claude_project();
        let dirs = DaemonDirs::new();
        let lib = p.path("lib.py");
        let agent = |prompt: &str| {
            (
                "Agent".to_owned(),
                json!({ "description": "scripted edit", "prompt": prompt, "subagent_type": "general-purpose", "run_in_background": false }),
            )
        };
        let (break_call, clean_call) = (
            edit(
                &lib,
                "def total(n: int) -> int:",
                "def total(n: int) -> str:",
            ),
            edit(
                &lib,
                "    return n\n",
                "    return n\n\n\ndef spare() -> int:\n    return 0\n",
            ),
        );
        let calls = vec![agent(SUB_BREAK), agent(SUB_CLEAN)];
        let server = ModelServer::start(Box::new(move |body: &Value| {
            let text = body.to_string();
            let results = text.matches("\"type\":\"tool_result\"").count();
            if text.contains(MARKER) {
                if results == 0 {
                    Turn::Tools(calls.clone())
                } else {
                    Turn::Text("done".into())
                }
            } else if text.contains("SIGHTLINE-SUBAGENT-BREAK") && results == 0 {
                break_call.clone()
            } else if text.contains("SIGHTLINE-SUBAGENT-CLEAN") && results == 0 {
                clean_call.clone()
            } else {
                Turn::Text("finished".into())
            }
        }));
        let requests = claude_with(&p, &dirs, &server, &[]);
        let heard = |marker: &str| {
            requests
                .iter()
                .find(|r| {
                    r.contains(marker)
                        && !r.contains(MARKER)
                        && r.contains("\"type\":\"tool_result\"")
                })
                .map(|r| after_the_tool(std::slice::from_ref(r)))
                .unwrap_or_else(|| {
                    panic!("run {run}: the subagent {marker} reported no tool result")
                })
        };
        let broke = heard("SIGHTLINE-SUBAGENT-BREAK");
        let cleaned = heard("SIGHTLINE-SUBAGENT-CLEAN");
        let file = std::fs::read_to_string(&lib).unwrap();
        assert!(
            file.contains("-> str:") && file.contains("def spare"),
            "run {run}: {file}"
        );
        let right = broke.contains("app.py:3:14")
            && broke.contains("lib.py:2:12")
            && !cleaned.contains("found errors")
            && !cleaned.contains("app.py:3");
        println!("run {run}: each subagent heard only its own edit's errors: {right}");
        if !right {
            println!("break heard: {broke}\nclean heard: {cleaned}");
        }
        heard_right += usize::from(right);
    }
    assert_eq!(
        heard_right, runs,
        "runs in which each subagent heard only its own errors"
    );
}

/// Runs `claude -p` in `project` against `server`, with `extra` on its
/// command line; every request, as text.
fn claude_with(
    project: &Project,
    dirs: &DaemonDirs,
    server: &ModelServer,
    extra: &[&str],
) -> Vec<String> {
    claude_with_env(project, dirs, server, extra, &[])
}

/// [`claude_with`] with more environment variables.
fn claude_with_env(
    project: &Project,
    dirs: &DaemonDirs,
    server: &ModelServer,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Vec<String> {
    // One at a time, under one home: the hooks' before and after calls meet
    // in one daemon, which serves one set of settings (`HOME` among them).
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
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
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish("claude", child, server);
    server
        .requests()
        .iter()
        .map(|(_, b)| b.to_string())
        .collect()
}

#[test]
fn two_claude_code_subagents_editing_one_file_at_once_each_hear_only_their_own_errors() {
    two_subagents_edit_one_file(10);
}

/// Under the user's `"agent": {"new_errors": "deny"}`, live: Claude Code's
/// breaking edit is denied before it lands, the model hears why (the
/// caller's new error), and its next edit, which breaks nothing, lands.
#[test]
fn claude_code_under_deny_hears_a_breaking_edit_s_errors_before_it_lands_and_its_next_edit_lands() {
    require("claude");
    let p = claude_project();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sightline")).unwrap();
    std::fs::write(
        config.path().join("sightline/config.json"),
        r#"{ "agent": { "new_errors": "deny" } }"#,
    )
    .unwrap();
    let env = [("XDG_CONFIG_HOME", config.path().to_str().unwrap())];
    let dirs = DaemonDirs::new();
    warm_with(&p, &dirs, &env);
    let lib = p.path("lib.py");
    let server = scripted(
        vec![
            edit(
                &lib,
                "def total(n: int) -> int:",
                "def total(n: int) -> str:",
            ),
            edit(&lib, "    return n\n", "    return n  # checked\n"),
        ],
        "\"type\":\"tool_result\"",
    );
    let requests = claude_with_env(&p, &dirs, &server, &[], &env);
    // The first tool result the model got is the denial, with the error
    // the edit would have brought to the caller.
    let first = requests
        .iter()
        .find(|r| r.contains("\"tool_result\""))
        .unwrap_or_else(|| panic!("no tool result in {} requests", requests.len()));
    assert!(first.contains("sightline denied this edit"), "{first}");
    assert!(first.contains("app.py"), "{first}");
    // The breaking edit never landed; the clean one did.
    assert_eq!(
        std::fs::read_to_string(&lib).unwrap(),
        LIB.replace("    return n\n", "    return n  # checked\n")
    );
}

/// A user configuration directory whose `config.json` says `deny`.
fn deny_config() -> tempfile::TempDir {
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sightline")).unwrap();
    std::fs::write(
        config.path().join("sightline/config.json"),
        r#"{ "agent": { "new_errors": "deny" } }"#,
    )
    .unwrap();
    config
}

/// The first request that carried a tool's result (`result` as the agent's
/// API spells one) back to the model.
fn first_result<'a>(requests: &'a [String], result: &str) -> &'a str {
    requests
        .iter()
        .find(|r| r.contains(result))
        .unwrap_or_else(|| panic!("no tool result in {} requests", requests.len()))
}

/// [`claude_code_under_deny_hears_a_breaking_edit_s_errors_before_it_lands_and_its_next_edit_lands`]
/// in Codex, whose `apply_patch` is stopped by its `PreToolUse` hook.
#[test]
fn codex_under_deny_hears_a_breaking_patch_s_errors_before_it_lands_and_its_next_patch_lands() {
    let p = codex_project();
    let config = deny_config();
    let env = [("XDG_CONFIG_HOME", config.path().to_str().unwrap())];
    let dirs = DaemonDirs::new();
    warm_with(&p, &dirs, &env);
    let requests = codex_turn_env(
        &p,
        &dirs,
        "gpt-5.5",
        vec![
            patch(
                "lib.py",
                "def total(n: int) -> int:",
                "def total(n: int) -> str:",
            ),
            patch("lib.py", "    return n", "    return n  # checked"),
        ],
        &env,
    );
    let first = first_result(&requests, "_call_output\"");
    assert!(first.contains("sightline denied this edit"), "{first}");
    assert!(first.contains("app.py"), "{first}");
    assert_eq!(
        std::fs::read_to_string(p.path("lib.py")).unwrap(),
        LIB.replace("    return n\n", "    return n  # checked\n")
    );
}

/// The same in Gemini CLI, whose `BeforeTool` hook stops the `replace`.
#[test]
fn gemini_cli_under_deny_hears_a_breaking_edit_s_errors_before_it_lands_and_its_next_edit_lands() {
    let p = gemini_project();
    let config = deny_config();
    let env = [("XDG_CONFIG_HOME", config.path().to_str().unwrap())];
    let dirs = DaemonDirs::new();
    warm_with(&p, &dirs, &env);
    let lib = p.path("lib.py");
    let requests = gemini_turn_env(
        &p,
        &dirs,
        vec![
            replace(
                &lib,
                "def total(n: int) -> int:",
                "def total(n: int) -> str:",
            ),
            replace(&lib, "    return n\n", "    return n  # checked\n"),
        ],
        &env,
    );
    let first = first_result(&requests, "\"functionResponse\"");
    assert!(first.contains("sightline denied this edit"), "{first}");
    assert!(first.contains("app.py"), "{first}");
    assert_eq!(
        std::fs::read_to_string(&lib).unwrap(),
        LIB.replace("    return n\n", "    return n  # checked\n")
    );
}
