//! `setup` on files that exist (with comments) and files it makes: twice
//! changes nothing the second time, and `--remove` leaves every file as it
//! was.

#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::{Value, json};

/// sightline's MCP entry run as `argv` (stdio).
fn stdio(argv: &[String]) -> Launch<'_> {
    Launch { argv, url: None }
}

#[test]
fn setup_http_writes_each_agent_s_http_entry_with_the_token_s_variable_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let scope = Scope::Project(p.to_owned());
    let me = ["sightline".to_owned()];
    let url = http_url("8123").unwrap();
    assert_eq!(url, "http://127.0.0.1:8123/mcp");
    assert_eq!(http_url("box:9").unwrap(), "http://box:9/mcp");
    assert!(http_url("nowhere").is_err());
    let http = Launch {
        argv: &me,
        url: Some(&url),
    };
    for agent in AGENTS {
        // Over the stdio entry setup wrote before: replaced, not doubled.
        run(agent, &scope, &stdio(&me), false).unwrap();
        let first = run(agent, &scope, &http, false).unwrap();
        assert!(
            first.iter().any(|l| l.contains("sightline")),
            "{agent:?}: {first:?}"
        );
        let again = run(agent, &scope, &http, false).unwrap();
        assert!(
            again.iter().all(|l| l.ends_with(": unchanged")),
            "{agent:?}: {again:?}"
        );
    }
    let read = |f: &str| std::fs::read_to_string(p.join(f)).unwrap();
    let claude: Value = serde_json::from_str(&read(".mcp.json")).unwrap();
    assert_eq!(
        claude["mcpServers"]["sightline"],
        json!({ "type": "http", "url": url,
            "headers": { "Authorization": "Bearer ${SIGHTLINE_MCP_TOKEN}" } })
    );
    let gemini = jsonc::value_of(&read(".gemini/settings.json")).unwrap();
    assert_eq!(gemini["mcpServers"]["sightline"]["httpUrl"], url.as_str());
    let opencode: Value = serde_json::from_str(&read("opencode.json")).unwrap();
    assert_eq!(opencode["mcp"]["sightline"]["type"], "remote");
    assert_eq!(
        opencode["mcp"]["sightline"]["headers"]["Authorization"],
        "Bearer {env:SIGHTLINE_MCP_TOKEN}"
    );
    let cursor: Value = serde_json::from_str(&read(".cursor/mcp.json")).unwrap();
    assert_eq!(
        cursor["mcpServers"]["sightline"]["headers"]["Authorization"],
        "Bearer ${env:SIGHTLINE_MCP_TOKEN}"
    );
    let codex = crate::syntax::toml_table(&read(".codex/config.toml")).unwrap();
    let entry = &codex["mcp_servers"]["sightline"];
    assert_eq!(entry["url"].as_str(), Some(url.as_str()));
    assert_eq!(entry["bearer_token_env_var"].as_str(), Some(TOKEN_VAR));
    assert!(entry.get("command").is_none(), "{entry:?}");
    // Taken out as it went in.
    for agent in AGENTS {
        run(agent, &scope, &http, true).unwrap();
    }
    assert!(!p.join(".mcp.json").exists() && !p.join(".codex/config.toml").exists());
}

/// Every file under `dir`, with its content.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in walk(dir) {
        out.push((
            e.strip_prefix(dir).unwrap().to_owned(),
            std::fs::read_to_string(&e).unwrap(),
        ));
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

const AGENTS: [SetupAgent; 5] = [
    SetupAgent::ClaudeCode,
    SetupAgent::Codex,
    SetupAgent::Gemini,
    SetupAgent::OpenCode,
    SetupAgent::Cursor,
];

#[test]
fn setup_twice_changes_nothing_and_remove_restores_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    // Files the user already has, with comments and their own entries.
    std::fs::create_dir_all(p.join(".claude")).unwrap();
    std::fs::write(
        p.join(".claude/settings.json"),
        "{\n  // my permissions\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] },\n  \"hooks\": {\n    \"PostToolUse\": [\n      { \"matcher\": \"Bash\", \"hooks\": [{ \"type\": \"command\", \"command\": \"echo hi\" }] }\n    ]\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        p.join(".mcp.json"),
        "{\n  \"mcpServers\": {\n    // the other one\n    \"other\": { \"command\": \"other\" }\n  }\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.join(".codex")).unwrap();
    std::fs::write(p.join(".codex/config.toml"), "# mine\nmodel = \"x\"\n").unwrap();
    let before = tree(p);
    let scope = Scope::Project(p.to_owned());
    for agent in AGENTS {
        let first = run(agent, &scope, &stdio(&["sightline".to_owned()]), false).unwrap();
        assert!(
            first.iter().all(|l| l.contains(": added ")),
            "{agent:?}: {first:?}"
        );
        let set_up = tree(p);
        let second = run(agent, &scope, &stdio(&["sightline".to_owned()]), false).unwrap();
        assert!(
            second.iter().all(|l| l.ends_with(": unchanged")),
            "{agent:?}: {second:?}"
        );
        assert_eq!(tree(p), set_up, "{agent:?}: the second run changed a file");
    }
    // What the user had is still there.
    let settings = std::fs::read_to_string(p.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("// my permissions") && settings.contains("echo hi"),
        "{settings}"
    );
    assert!(
        settings.contains("sightline hook --agent claude-code"),
        "{settings}"
    );
    let mcp = std::fs::read_to_string(p.join(".mcp.json")).unwrap();
    assert!(
        mcp.contains("// the other one") && mcp.contains("\"sightline\""),
        "{mcp}"
    );
    let toml = std::fs::read_to_string(p.join(".codex/config.toml")).unwrap();
    assert!(
        toml.starts_with("# mine\nmodel = \"x\"\n") && toml.contains("[mcp_servers.sightline]"),
        "{toml}"
    );
    for agent in AGENTS {
        let removed = run(agent, &scope, &stdio(&["sightline".to_owned()]), true).unwrap();
        assert!(
            removed.iter().all(|l| l.contains(": removed ")),
            "{agent:?}: {removed:?}"
        );
    }
    assert_eq!(tree(p), before, "--remove left the files otherwise");
    for agent in AGENTS {
        let again = run(agent, &scope, &stdio(&["sightline".to_owned()]), true).unwrap();
        assert!(
            again.iter().all(|l| l.ends_with(": unchanged")),
            "{again:?}"
        );
    }
}

#[test]
fn an_entry_of_another_program_is_replaced_not_doubled() {
    let dir = tempfile::tempdir().unwrap();
    let scope = Scope::Project(dir.path().to_owned());
    run(
        SetupAgent::Gemini,
        &scope,
        &stdio(&["/old/sightline".to_owned()]),
        false,
    )
    .unwrap();
    run(
        SetupAgent::Gemini,
        &scope,
        &stdio(&["sightline".to_owned()]),
        false,
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.path().join(".gemini/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["mcpServers"]["sightline"]["command"], "sightline",
        "{text}"
    );
    assert_eq!(
        v["hooks"]["AfterTool"].as_array().unwrap().len(),
        1,
        "{text}"
    );
}

#[test]
fn remove_undoes_exactly_what_setup_did_and_the_user_s_own_entries_stay() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let me = ["sightline".to_owned()];
    // Cursor's default file: an empty server list, which must survive.
    std::fs::create_dir_all(p.join(".cursor")).unwrap();
    std::fs::write(p.join(".cursor/mcp.json"), "{\"mcpServers\": {}}").unwrap();
    // The user's own sightline entry (the README's uvx form) and a hook
    // group that holds a hook of theirs.
    std::fs::create_dir_all(p.join(".gemini")).unwrap();
    std::fs::write(
        p.join(".gemini/settings.json"),
        "{\n  \"mcpServers\": { \"sightline\": { \"command\": \"uvx\", \"args\": [\"--from\", \"sightline-mcp\", \"sightline\", \"mcp\"] } },\n  \"hooks\": { \"AfterTool\": [] }\n}\n",
    )
    .unwrap();
    // Codex: a file without a final newline, and one with the user's table.
    std::fs::create_dir_all(p.join(".codex")).unwrap();
    std::fs::write(p.join(".codex/config.toml"), "model = \"x\"").unwrap();
    let before = tree(p);
    let scope = Scope::Project(p.to_owned());
    for agent in [SetupAgent::Cursor, SetupAgent::Gemini, SetupAgent::Codex] {
        run(agent, &scope, &stdio(&me), false).unwrap();
    }
    let gemini: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join(".gemini/settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        gemini["mcpServers"]["sightline"]["command"], "uvx",
        "the user's entry was replaced"
    );
    for agent in [SetupAgent::Cursor, SetupAgent::Gemini, SetupAgent::Codex] {
        run(agent, &scope, &stdio(&me), true).unwrap();
    }
    assert_eq!(tree(p), before, "--remove left the files otherwise");
    // A server table the user wrote in config.toml is not doubled.
    std::fs::write(
        p.join(".codex/config.toml"),
        "[mcp_servers]\nsightline = { command = \"sightline\", args = [\"mcp\"] }\n",
    )
    .unwrap();
    let said = run(SetupAgent::Codex, &scope, &stdio(&me), false).unwrap();
    assert!(said[0].ends_with(": unchanged"), "{said:?}");
}

#[test]
fn a_program_path_with_spaces_is_quoted_in_the_hook_command() {
    let dir = tempfile::tempdir().unwrap();
    let scope = Scope::Project(dir.path().to_owned());
    let me = ["/Users/a b/bin/sightline".to_owned()];
    run(SetupAgent::ClaudeCode, &scope, &stdio(&me), false).unwrap();
    let text = std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "\"/Users/a b/bin/sightline\" hook --agent claude-code"
    );
    // Setting up again with another program replaces, not doubles.
    run(
        SetupAgent::ClaudeCode,
        &scope,
        &stdio(&["sightline".to_owned()]),
        false,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        v["hooks"]["PostToolUse"].as_array().unwrap().len(),
        1,
        "{v}"
    );
}

#[test]
fn claude_code_is_allowed_the_answering_tools_and_remove_takes_them_out() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let me = ["sightline".to_owned()];
    // In the personal `settings.local.json`, which Claude Code applies
    // without the folder's trust; the user's own permissions there, with a
    // comment, stay as they are.
    std::fs::create_dir_all(p.join(".claude")).unwrap();
    let theirs = "{\n  // mine\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] }\n}\n";
    std::fs::write(p.join(".claude/settings.local.json"), theirs).unwrap();
    let scope = Scope::Project(p.to_owned());
    let said = run(SetupAgent::ClaudeCode, &scope, &stdio(&me), false).unwrap();
    assert!(
        said.iter()
            .any(|l| l.contains("permissions.allow: sightline's") && l.contains("answering tools")),
        "{said:?}"
    );
    let settings: serde_json::Value = serde_json::from_str(&jsonc_text_to_json(
        &std::fs::read_to_string(p.join(".claude/settings.local.json")).unwrap(),
    ))
    .unwrap();
    let allow: Vec<&str> = settings["permissions"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(allow.contains(&"Bash(ls)"), "{allow:?}");
    assert!(
        allow.contains(&"mcp__sightline__lsp_references"),
        "{allow:?}"
    );
    assert!(
        allow.contains(&"mcp__sightline__lsp_diagnostics"),
        "{allow:?}"
    );
    // Never an edit tool.
    assert!(
        !allow
            .iter()
            .any(|a| a.ends_with("__edit") || a.ends_with("__rename")),
        "{allow:?}"
    );
    assert_eq!(
        allow.len(),
        1 + crate::frontends::tools::listed(false).count()
    );
    run(SetupAgent::ClaudeCode, &scope, &stdio(&me), true).unwrap();
    assert_eq!(
        std::fs::read_to_string(p.join(".claude/settings.local.json")).unwrap(),
        theirs
    );
}

/// A JSONC text as plain JSON (its comments dropped).
fn jsonc_text_to_json(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn codex_s_block_passes_the_daemon_s_variables_and_an_older_block_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    // A block as setup wrote it before `env_vars`, then a line of the user's.
    let older = "# sightline's MCP server (`sightline setup codex`; `--remove` takes it out)\n[mcp_servers.sightline]\ncommand = \"sightline\"\nargs = [\"mcp\"]\n";
    let before = format!("model = \"x\"\n\n{older}[tui]\ntheme = \"dark\"\n");
    std::fs::write(&config, &before).unwrap();
    let scope = Scope::Project(dir.path().to_owned());
    run(
        SetupAgent::Codex,
        &scope,
        &stdio(&["sightline".to_owned()]),
        false,
    )
    .unwrap();
    let text = std::fs::read_to_string(&config).unwrap();
    assert_eq!(text.matches("[mcp_servers.sightline]").count(), 1, "{text}");
    // Codex reads `env_vars` as a list of names: each of the daemon's
    // variables is one of them, one per entry.
    let at = text.find("env_vars = [").unwrap();
    let list = &text[at..at + text[at..].find("\n]\n").unwrap()];
    for var in crate::frontends::daemon::client_vars() {
        assert_eq!(
            list.matches(&format!("\"{var}\",")).count(),
            1,
            "{var}: {text}"
        );
    }
    assert!(text.ends_with("]\n[tui]\ntheme = \"dark\"\n"), "{text}");
    // `--remove` puts back the file as this run found it.
    run(
        SetupAgent::Codex,
        &scope,
        &stdio(&["sightline".to_owned()]),
        true,
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
}

#[test]
fn a_codex_block_whose_list_a_user_reshaped_is_removed_without_what_follows() {
    let argv = ["sightline".to_owned()];
    let head = "# sightline's MCP server (`sightline setup codex`; `--remove` takes it out)\n[mcp_servers.sightline]\ncommand = \"sightline\"\nargs = [\"mcp\"]\n";
    // On one line, or left open: the block ends there, never past it.
    for list in [
        "env_vars = [\"XDG_RUNTIME_DIR\"]\n",
        "env_vars = [\n  \"A\",\n",
    ] {
        let mut text = format!("model = \"x\"\n\n{head}{list}[tui]\ntheme = \"dark\"\n");
        toml::mcp_server(&mut text, &argv, None, true);
        assert!(text.ends_with("[tui]\ntheme = \"dark\"\n"), "{text}");
        assert!(!text.contains("[mcp_servers.sightline]"), "{text}");
    }
}

#[test]
fn every_hooked_agent_gets_its_end_of_turn_event() {
    // Nothing comes after the end of a turn to bring a late check: each
    // agent's end-of-turn event brings it (Codex 0.169 fires `Stop`,
    // Gemini CLI `AfterAgent`, Claude Code `Stop` and `SubagentStop`).
    let dir = tempfile::tempdir().unwrap();
    let scope = Scope::Project(dir.path().to_owned());
    for agent in [
        SetupAgent::ClaudeCode,
        SetupAgent::Codex,
        SetupAgent::Gemini,
    ] {
        run(agent, &scope, &stdio(&["sightline".to_owned()]), false).unwrap();
    }
    let hooks = |file: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        jsonc::value_of(&text).unwrap()["hooks"].clone()
    };
    for (file, events) in [
        (".claude/settings.json", &["Stop", "SubagentStop"][..]),
        (".codex/hooks.json", &["Stop"][..]),
        (".gemini/settings.json", &["AfterAgent"][..]),
    ] {
        let hooks = hooks(file);
        for event in events {
            let command = hooks[event][0]["hooks"][0]["command"].as_str();
            assert!(
                command.is_some_and(|c| c.starts_with("sightline hook --agent ")),
                "{file} has no {event} hook: {hooks}"
            );
        }
    }
}
