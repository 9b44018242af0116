//! The tool list an MCP client is given: the default list within its
//! budget of the model's context (1,500 tokens, counted with the Claude
//! tokenizer `scripts/tool-tokens.py` uses), and the profiles
//! (`--tools minimal|default|all`) and the user configuration's
//! `mcp.tools` choosing exactly the tools listed and served, through the
//! daemon and in process.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::process::Command;

use serde_json::json;
use sightline_test_support::mcp::{McpDriver, python};
use sightline_test_support::{Project, path_with_tools, repo_root, sightline_bin};

/// The most tokens the default tool list may take.
const BUDGET: usize = 1_500;

/// The tool list's size in tokens for `sightline mcp --no-daemon ARGS`.
fn tokens(args: &[&str]) -> usize {
    let out = Command::new(python())
        .arg(repo_root().join("scripts/tool-tokens.py"))
        .arg("--count")
        .arg(sightline_bin())
        .args(args)
        .envs(sightline_test_support::isolation::env())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tool-tokens.py: {said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    said.trim().parse().unwrap()
}

#[test]
fn the_default_tool_list_fits_its_token_budget_and_the_profiles_order_by_size() {
    let default = tokens(&[]);
    let minimal = tokens(&["--tools", "minimal"]);
    let all = tokens(&["--tools", "all"]);
    eprintln!("tool list tokens: minimal {minimal}, default {default}, all {all}");
    assert!(
        default <= BUDGET,
        "the default tool list takes {default} tokens, over its budget of {BUDGET}"
    );
    assert!(
        minimal < default && default < all,
        "{minimal} {default} {all}"
    );
}

fn names(d: &mut McpDriver, session: &str) -> Vec<String> {
    d.send(json!({ "cmd": "list", "session": session }))["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_profile_or_the_configuration_chooses_exactly_the_tools_listed_and_served() {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x = 1\n")]);
    let mut d = McpDriver::start();
    let path = path_with_tools();
    for (session, no_daemon) in [("daemon", false), ("in_process", true)] {
        let minimal = format!("{session}-minimal");
        let mut args = vec!["mcp", "--tools", "minimal"];
        if no_daemon {
            args.push("--no-daemon");
        }
        d.open_args(&minimal, p.root(), &path, &args);
        assert_eq!(
            names(&mut d, &minimal),
            ["lsp_diagnostics", "lsp_definition", "lsp_references"]
        );
        // A tool the set leaves out is not served either.
        let refused = d.send(json!({
            "cmd": "call", "session": minimal, "tool": "lsp",
            "args": { "operation": "documentSymbol", "file": p.root().join("a.py") },
            "progress": false,
        }));
        assert!(
            refused["protocol_error"]
                .to_string()
                .contains("unknown tool `lsp`"),
            "{refused}"
        );
        d.close(&minimal);

        let all = format!("{session}-all");
        let mut args = vec!["mcp", "--tools", "all"];
        if no_daemon {
            args.push("--no-daemon");
        }
        d.open_args(&all, p.root(), &path, &args);
        let listed = names(&mut d, &all);
        assert!(
            listed.contains(&"rename".to_owned()) && listed.contains(&"lsp_check".to_owned()),
            "{listed:?}"
        );
        d.close(&all);
    }

    // The user configuration's list, when no profile is asked for.
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sightline")).unwrap();
    std::fs::write(
        config.path().join("sightline/config.json"),
        r#"{ "mcp": { "tools": ["rename", "lsp"] } }"#,
    )
    .unwrap();
    let home = config.path().display().to_string();
    d.open_env(
        "cfg",
        p.root(),
        &path,
        &["mcp"],
        &[("XDG_CONFIG_HOME", &home)],
    );
    assert_eq!(names(&mut d, "cfg"), ["lsp", "rename"]);
    d.close("cfg");
}

/// A configuration naming a tool that does not exist is one error line
/// before any session starts, through the daemon or not.
#[test]
fn a_configured_tool_that_does_not_exist_is_one_error_line() {
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sightline")).unwrap();
    std::fs::write(
        config.path().join("sightline/config.json"),
        r#"{ "mcp": { "tools": ["lsp_hover"] } }"#,
    )
    .unwrap();
    let p = Project::new(&[("pyproject.toml", "")]);
    let daemon = sightline_test_support::DaemonDirs::new();
    for args in [vec!["mcp", "--no-daemon"], vec!["mcp"]] {
        let (code, _, stderr) =
            sightline_test_support::refusal(&args, p.root(), &daemon, Some(config.path()));
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains(" INFO ")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with(
                "error: mcp.tools in the configuration: no tool `lsp_hover`; the tools are lsp_diagnostics,"
            ),
            "{args:?}: {stderr}"
        );
    }
}
