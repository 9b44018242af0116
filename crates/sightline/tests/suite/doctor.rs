//! `sightline doctor` on a project set up for Claude Code, Codex and Gemini
//! CLI: each agent's row right, Codex's hooks needing review until its
//! config holds their trust, and the daemon this shell reaches.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::Value;
use sightline_test_support::{DaemonDirs, Project, path_with_tools, sightline_bin};

#[test]
fn doctor_says_what_is_set_up_and_what_needs_the_user() {
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = 1\n")]);
    let home = tempfile::tempdir().unwrap();
    let codex_home = home.path().join("codex");
    let dirs = DaemonDirs::new();
    let run = |args: &[&str]| {
        let out = Command::new(sightline_bin())
            .args(args)
            .current_dir(p.root())
            .env("HOME", home.path())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", path_with_tools())
            .envs(dirs.env())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for agent in ["claude-code", "codex", "gemini"] {
        run(&["setup", agent]);
    }
    let doctor = |run: &dyn Fn(&[&str]) -> String| -> Value {
        serde_json::from_str(&run(&["doctor", "--json"])).unwrap()
    };
    let report = doctor(&run);
    let agent = |r: &Value, name: &str, scope: usize| {
        r["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == name)
            .unwrap()["scopes"][scope]
            .clone()
    };
    let claude = agent(&report, "claude-code", 0);
    assert_eq!(
        (&claude["mcp"], &claude["hooks"], &claude["tools_allowed"]),
        (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true)),
        "{claude}"
    );
    assert_eq!(claude["needs"], serde_json::json!([]));
    let gemini = agent(&report, "gemini", 0);
    assert_eq!(
        (&gemini["mcp"], &gemini["hooks"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    // Nothing for the user, and nothing for the agents not set up.
    assert_eq!(agent(&report, "claude-code", 1)["mcp"], false);
    assert_eq!(agent(&report, "cursor", 0)["mcp"], false);
    // Codex: in place, but its hooks are not reviewed yet.
    let codex = agent(&report, "codex", 0);
    assert_eq!(
        (&codex["mcp"], &codex["hooks"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    let needs = codex["needs"].to_string();
    assert!(needs.contains("Hooks need review"), "{needs}");
    // Reviewed in Codex's TUI, which records the trust in its config.
    std::fs::create_dir_all(&codex_home).unwrap();
    let hooks = p.path(".codex/hooks.json");
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:0\"\n",
            hooks.display()
        ),
    )
    .unwrap();
    let report = doctor(&run);
    assert_eq!(agent(&report, "codex", 0)["needs"], serde_json::json!([]));
    // The daemon this shell reaches, and its state.
    assert_eq!(
        report["daemon"]["runtime_dir"],
        dirs.runtime().join("sightline").display().to_string()
    );
    let text = run(&["doctor"]);
    assert!(
        text.contains("codex\n  project: mcp yes, hooks yes\n"),
        "{text}"
    );
    assert!(
        text.contains("servers (installed, or installed on first use):"),
        "{text}"
    );
}

/// An agent set up over HTTP (`setup --http`): doctor asks the server with
/// the token the agent will send, and says what is wrong in words: the
/// variable unset, a token the server refuses, no server listening.
#[test]
fn doctor_checks_an_http_entry_with_the_agent_s_token() {
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = 1\n")]);
    let home = tempfile::tempdir().unwrap();
    let dirs = DaemonDirs::new();
    let keep = tempfile::tempdir().unwrap();
    let token = "the-doctor-s-token-0123456789";
    let token_file = keep.path().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let command = |args: &[&str]| {
        let mut cmd = Command::new(sightline_bin());
        cmd.args(args)
            .current_dir(p.root())
            .env("HOME", home.path())
            .env("PATH", path_with_tools())
            .env_remove("SIGHTLINE_MCP_TOKEN")
            .envs(dirs.env());
        cmd
    };
    let mut serve = command(&["mcp", "--http", "0", "--token-file"]);
    serve.arg(&token_file);
    let mut http = sightline_test_support::http::HttpMcp::spawn(serve, keep.path(), Some(token));
    let out = command(&["setup", "claude-code", "--http", &http.url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let url = http.url.clone();
    let needs = |env: Option<&str>| -> Value {
        let mut cmd = command(&["doctor", "--json"]);
        if let Some(t) = env {
            cmd.env("SIGHTLINE_MCP_TOKEN", t);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let claude = report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == "claude-code")
            .unwrap()["scopes"][0]
            .clone();
        assert_eq!(claude["http"], url.as_str(), "{claude}");
        claude["needs"].clone()
    };
    assert_eq!(needs(Some(token)), serde_json::json!([]));
    let unset = needs(None).to_string();
    assert!(
        unset.contains("SIGHTLINE_MCP_TOKEN, which is not set"),
        "{unset}"
    );
    let refused = needs(Some("another-token-0123456789")).to_string();
    assert!(refused.contains("refused the token"), "{refused}");
    assert!(http.stop().success());
    let down = needs(Some(token)).to_string();
    assert!(down.contains("nothing listens"), "{down}");

    // A project's entry naming another host (a cloned repository's): the
    // user's token is not sent there.
    let mcp = std::fs::read_to_string(p.root().join(".mcp.json")).unwrap();
    std::fs::write(
        p.root().join(".mcp.json"),
        mcp.replace(&url, "http://203.0.113.9:8123/mcp"),
    )
    .unwrap();
    let out = command(&["doctor", "--json"])
        .env("SIGHTLINE_MCP_TOKEN", token)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let claude = &report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "claude-code")
        .unwrap()["scopes"][0];
    assert_eq!(claude["http_checked"], false, "{claude}");
    assert_eq!(claude["needs"], serde_json::json!([]), "{claude}");
}
