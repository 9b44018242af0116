//! The configuration files' shapes: each invalid one named with its file
//! and line, the accepted forms, deep merges and the trust gate.

#![allow(clippy::unwrap_used)]
use super::*;
use crate::catalog::Budgets;
use serde_json::json;

fn parse(text: &str) -> Result<Config, String> {
    let mut c = Config::default();
    c.merge_text(Path::new("/p/sightline.json"), text, true)
        .map(|()| c)
        .map_err(|e| e.to_string())
}

#[test]
fn every_invalid_shape_names_the_file_and_line() {
    let cases = [
        (
            "[1]",
            "/p/sightline.json:1: the configuration must be an object",
        ),
        (
            "{\n  \"lps\": true\n}",
            "/p/sightline.json:2: unknown key \"lps\"; expected one of lsp, formatter, sandbox, autoinstall, edit_tools, format_range, edit_delta, edit_warnings, dependents_ms, workspace, agent, mcp, allow_unsandboxed, writable_roots, network_env",
        ),
        (
            "{ \"workspace\": {\n \"max_packages\": 0 } }",
            "/p/sightline.json:2: \"workspace.max_packages\" must be a whole number above 0",
        ),
        (
            "{ \"workspace\": {\n \"packages\": \"libs/*\" } }",
            "/p/sightline.json:2: \"workspace.packages\" must be a list of globs",
        ),
        (
            "{ \"workspace\": {\n \"pkgs\": [] } }",
            "/p/sightline.json:2: unknown key \"pkgs\" in \"workspace\"; expected one of packages, exclude, max_packages, folders",
        ),
        (
            "{\n\n  \"lsp\": 3\n}",
            "/p/sightline.json:3: \"lsp\" must be true, false or an object of servers",
        ),
        (
            "{ \"lsp\": {\n  \"x\": 1 } }",
            "/p/sightline.json:2: lsp.\"x\" must be an object such as {\"disabled\": true} or {\"command\": [...], \"extensions\": [...]}",
        ),
        (
            "{ \"lsp\": {\n  \"mine\": { \"command\": [\"m\"] } } }",
            "/p/sightline.json:2: lsp.\"mine\" is not a built-in server, so it needs \"command\" (such as [\"my-server\", \"--stdio\"]) and \"extensions\" (such as [\".foo\"])",
        ),
        (
            "{ \"lsp\": { \"mine\": {\n \"command\": \"m\" } } }",
            "/p/sightline.json:2: lsp.\"mine\".command must be a list of strings, such as [\"my-server\", \"--stdio\"]",
        ),
        (
            "{ \"lsp\": { \"mine\": {\n \"command\": [] } } }",
            "/p/sightline.json:2: lsp.\"mine\".command must name a program",
        ),
        (
            "{ \"lsp\": { \"mine\": { \"command\": [\"m\"],\n \"extensions\": [] } } }",
            "/p/sightline.json:2: lsp.\"mine\".extensions must not be empty",
        ),
        (
            "{ \"lsp\": { \"mine\": { \"command\": [\"m\"],\n \"extensions\": [\"foo\"] } } }",
            "/p/sightline.json:2: lsp.\"mine\".extensions: \"foo\" must start with a dot, such as \".foo\"",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"env\": { \"A\": 1 } } } }",
            "/p/sightline.json:2: lsp.\"pyright\".env.A must be a string",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"initialization\": [] } } }",
            "/p/sightline.json:2: lsp.\"pyright\".initialization must be an object",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"diagnostics\": { \"document_ms\": \"5s\" } } } }",
            "/p/sightline.json:2: lsp.\"pyright\".diagnostics.document_ms must be a whole number of milliseconds",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"diagnostics\": { \"doc\": 5 } } } }",
            "/p/sightline.json:2: unknown budget \"doc\"; expected one of document_ms, pull_ms, push_quiet_ms, ready_ms, ceiling_ms, full_ms, initialize_ms, request_ms",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"disable\": true } } }",
            "/p/sightline.json:2: unknown key lsp.\"pyright\".disable; expected one of disabled, command, extensions, env, initialization, settings, diagnostics, network",
        ),
        (
            "{ \"lsp\": { \"pyright\": {\n \"disabled\": \"yes\" } } }",
            "/p/sightline.json:2: lsp.\"pyright\".disabled must be true or false",
        ),
        (
            "{\n \"sandbox\": \"none\" }",
            "/p/sightline.json:2: \"sandbox\" must be one of workspace-write, read-only, danger-full-access",
        ),
        (
            "{\n \"autoinstall\": 1 }",
            "/p/sightline.json:2: \"autoinstall\" must be true or false",
        ),
        (
            "{\n \"formatter\": 1 }",
            "/p/sightline.json:2: \"formatter\" must be true, false or an object of formatters",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse(text).unwrap_err(), want, "{text}");
    }
    let syntax = parse("{\n  \"lsp\": tru\n}").unwrap_err();
    assert!(syntax.starts_with("/p/sightline.json:2: "), "{syntax}");
}

#[test]
fn comments_trailing_commas_and_the_reference_shape_are_accepted() {
    let c = parse(
        r#"{
          // JSONC
          "$schema": "x",
          "lsp": {
            "rust": { "command": ["rust-analyzer"], "env": { "RUST_LOG": "debug" } },
            "custom-lsp": { "command": ["custom-lsp-server", "--stdio"], "extensions": [".custom"],
                            "initialization": { "preferences": { "a": "relative" } } },
            "typescript": { "disabled": true },
            "ty": {},
          },
        }"#,
    )
    .unwrap();
    let r = c.resolve(Budgets::default());
    assert!(!r.enabled.contains("typescript"));
    assert!(r.enabled.contains("ty") && r.enabled.contains("pyright"));
    assert_eq!(r.custom.len(), 1);
    assert_eq!(r.custom[0].extensions, &[".custom"]);
    // Project commands need trust.
    assert!(r.blocked.contains_key("rust") && r.blocked.contains_key("custom-lsp"));
    assert!(
        r.blocked["rust"].contains("sightline trust"),
        "{}",
        r.blocked["rust"]
    );
}

#[test]
fn settings_merge_deeply_and_an_untrusted_project_cannot_name_a_program_in_them() {
    let mut c = Config::default();
    c.merge_text(
        Path::new("/u/config.json"),
        r#"{ "lsp": { "pyright": { "settings": { "python": { "analysis": { "typeCheckingMode": "strict", "extraPaths": ["/u/lib"] } } } } } }"#,
        false,
    )
    .unwrap();
    c.merge_text(
        Path::new("/p/sightline.json"),
        r#"{ "lsp": { "pyright": { "settings": { "python": { "pythonPath": "/tmp/evil", "analysis": { "diagnosticSeverityOverrides": { "reportMissingImports": "none" }, "extraPaths": ["./x"] } } } } } }"#,
        true,
    )
    .unwrap();
    let r = c.resolve(Budgets::default());
    assert_eq!(
        Value::Object(r.settings["pyright"].settings.clone().unwrap()),
        serde_json::json!({ "python": { "analysis": {
            "typeCheckingMode": "strict",
            "extraPaths": ["/u/lib"],
            "diagnosticSeverityOverrides": { "reportMissingImports": "none" },
        } } })
    );
    assert_eq!(
        c.ignored,
        [
            "lsp.pyright.settings.python.analysis.extraPaths (/p/sightline.json:1)",
            "lsp.pyright.settings.python.pythonPath (/p/sightline.json:1)",
        ]
    );
}

#[test]
fn an_override_without_a_command_keeps_discovery_and_merges() {
    // A trusted project: its `env` merges over the user's.
    let mut c = Config {
        trusted: true,
        ..Config::default()
    };
    c.merge_text(
        Path::new("/u/config.json"),
        r#"{ "lsp": { "pyright": { "env": { "A": "1" }, "initialization": { "x": 1 } } } }"#,
        false,
    )
    .unwrap();
    c.merge_text(Path::new("/p/sightline.json"), r#"{ "lsp": { "pyright": { "env": { "B": "2" }, "initialization": { "y": 2 }, "diagnostics": { "document_ms": 900 } } } }"#, true).unwrap();
    let r = c.resolve(Budgets::default());
    let s = &r.settings["pyright"];
    assert!(s.command.is_none());
    assert_eq!(
        s.env,
        vec![("A".into(), "1".into()), ("B".into(), "2".into())]
    );
    assert_eq!(
        Value::Object(s.initialization.clone().unwrap()),
        json!({ "x": 1, "y": 2 })
    );
    assert_eq!(s.budgets.document, std::time::Duration::from_millis(900));
    assert!(r.blocked.is_empty(), "no command, nothing to trust");
    assert!(
        c.describe()
            .contains("lsp.pyright.env.B = \"2\"  (/p/sightline.json:1)"),
        "{}",
        c.describe()
    );
}

#[test]
fn lsp_false_turns_everything_off_and_says_where() {
    let c = parse("{\n  \"lsp\": false\n}").unwrap();
    let r = c.resolve(Budgets::default());
    assert_eq!(
        r.all_off.unwrap(),
        "language servers are turned off by \"lsp\": false (/p/sightline.json:2)"
    );
}

#[test]
fn the_schema_describes_the_shape() {
    let s = schema();
    assert_eq!(s["type"], "object");
    assert!(s["properties"]["lsp"].is_object());
    assert_eq!(s["additionalProperties"], false);
}

#[test]
fn a_workspace_s_packages_are_a_project_s_and_its_budget_anyone_s() {
    let c = parse(r#"{ "workspace": { "packages": ["libs/*"], "max_packages": 3 } }"#).unwrap();
    assert_eq!(c.max_packages, 3);
    let mut user = Config::default();
    let e = user
        .merge_text(
            Path::new("/u/config.json"),
            "{ \"workspace\": {\n \"packages\": [\"libs/*\"] } }",
            false,
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/u/config.json:2: \"workspace.packages\" may only be set in a project's sightline.json"
    );
    user.merge_text(
        Path::new("/u/config.json"),
        r#"{ "workspace": { "max_packages": 8 } }"#,
        false,
    )
    .unwrap();
    assert_eq!(user.max_packages, 8);
}

#[test]
fn workspace_folders_are_the_user_s_alone_and_absolute() {
    let user = |text: &str| {
        let mut c = Config::default();
        c.merge_text(Path::new("/u/config.json"), text, false)
            .map(|()| c)
            .map_err(|e| e.to_string())
    };
    let c = user(r#"{ "workspace": { "folders": ["/src/app", "/src/docs"] } }"#).unwrap();
    assert_eq!(
        c.folders,
        vec![PathBuf::from("/src/app"), PathBuf::from("/src/docs")]
    );
    assert_eq!(
        user("{ \"workspace\": {\n \"folders\": [\"app\"] } }").unwrap_err(),
        "/u/config.json:2: \"workspace.folders\" must be a list of absolute directories, got `app`"
    );
    // A cloned repository cannot point questions and renames elsewhere.
    assert_eq!(
        parse("{ \"workspace\": {\n \"folders\": [\"/etc\"] } }").unwrap_err(),
        "/p/sightline.json:2: \"workspace.folders\" may only be set in the user configuration"
    );
}

#[test]
fn mcp_tools_are_the_user_s_alone_and_a_list_of_names() {
    let user = |text: &str| {
        let mut c = Config::default();
        c.merge_text(Path::new("/u/config.json"), text, false)
            .map(|()| c)
            .map_err(|e| e.to_string())
    };
    let c = user(r#"{ "mcp": { "tools": ["lsp_diagnostics", "rename"] } }"#).unwrap();
    assert_eq!(
        c.mcp_tools,
        Some(vec!["lsp_diagnostics".to_owned(), "rename".to_owned()])
    );
    assert_eq!(
        user("{ \"mcp\": {\n \"tools\": \"lsp\" } }").unwrap_err(),
        "/u/config.json:2: \"mcp.tools\" must be a list of tool names"
    );
    assert_eq!(
        user("{ \"mcp\": {\n \"tool\": [] } }").unwrap_err(),
        "/u/config.json:2: unknown key \"tool\" in \"mcp\"; expected tools"
    );
    // A cloned repository does not choose an agent's tools.
    assert_eq!(
        parse("{\n \"mcp\": { \"tools\": [\"rename\"] } }").unwrap_err(),
        "/p/sightline.json:2: \"mcp\" may only be set in the user configuration"
    );
}

#[test]
fn network_env_is_the_user_s_alone_and_only_network_settings() {
    let user = |text: &str| {
        let mut c = Config::default();
        c.merge_text(Path::new("/u/config.json"), text, false)
            .map(|()| c)
            .map_err(|e| e.to_string())
    };
    let c = user("{ \"network_env\": { \"NODE_EXTRA_CA_CERTS\": \"/ca.pem\", \"npm_config_registry\": \"https://r/\" } }").unwrap();
    assert_eq!(
        c.network_env,
        [
            ("NODE_EXTRA_CA_CERTS".to_owned(), "/ca.pem".to_owned()),
            ("npm_config_registry".to_owned(), "https://r/".to_owned())
        ]
    );
    // A credential, or anything that is not a network setting, is refused.
    let e = user("{\n \"network_env\": { \"NPM_TOKEN\": \"x\" } }").unwrap_err();
    assert!(
        e.starts_with("/u/config.json:2: network_env: \"NPM_TOKEN\" is not a network setting; expected one of HTTPS_PROXY, "),
        "{e}"
    );
    // Nor a user and password in a proxy's or registry's URL.
    let e = user("{\n \"network_env\": { \"HTTPS_PROXY\": \"http://me:secret@proxy:3128\" } }")
        .unwrap_err();
    assert!(
        e.contains("\"HTTPS_PROXY\" holds a user or password"),
        "{e}"
    );
    assert!(
        user("{ \"network_env\": { \"NO_PROXY\": \"localhost,127.0.0.1\", \"HTTPS_PROXY\": \"http://proxy:3128/\" } }")
            .is_ok()
    );
    // npm's fetch settings are whole numbers, and no timeout is unbounded.
    assert!(
        user("{ \"network_env\": { \"npm_config_fetch_retries\": \"0\", \"npm_config_fetch_timeout\": \"30000\" } }")
            .is_ok()
    );
    for (name, value) in [
        ("npm_config_fetch_timeout", "0"),
        ("npm_config_fetch_retry_maxtimeout", "soon"),
        ("npm_config_fetch_retries", "-1"),
    ] {
        let e = user(&format!(
            "{{\n \"network_env\": {{ \"{name}\": \"{value}\" }} }}"
        ))
        .unwrap_err();
        assert_eq!(
            e,
            format!(
                "/u/config.json:2: network_env: \"{name}\" takes a whole number of at least 1 (retries: at least 0), not \"{value}\""
            )
        );
    }
    // A cloned repository cannot point installs at its own registry.
    assert_eq!(
        parse("{\n \"network_env\": { \"npm_config_registry\": \"https://evil/\" } }").unwrap_err(),
        "/p/sightline.json:2: \"network_env\" may only be set in the user configuration"
    );
}

/// The key table is the one list of keys: every key's example is read from
/// the user file, a project file is refused exactly the user's keys, the
/// schema has every key and no other, with its description, and
/// docs/configuration.md holds the table's rendering.
#[test]
fn every_key_of_the_table_is_read_described_and_documented() {
    let s = schema();
    let described: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
    let mut listed: Vec<&str> = keys::KEYS.iter().map(|k| k.name).collect();
    listed.sort_unstable();
    assert_eq!(described, listed);
    for key in keys::KEYS {
        let text = format!("{{ \"{}\": {} }}", key.name, key.example);
        let mut user = Config::default();
        user.merge_text(Path::new("/u/config.json"), &text, false)
            .unwrap_or_else(|e| panic!("{}: {e}", key.name));
        let from_project = parse(&text);
        match key.setter {
            keys::Setter::User => assert_eq!(
                from_project.err().as_deref(),
                Some(
                    format!(
                        "/p/sightline.json:1: \"{}\" may only be set in the user configuration",
                        key.name
                    )
                    .as_str()
                ),
            ),
            keys::Setter::Anyone => assert!(from_project.is_ok(), "{}: {from_project:?}", key.name),
        }
        let about = s["properties"][key.name]["description"].as_str().unwrap();
        assert!(about.ends_with(key.about), "{}: {about}", key.name);
    }
    let docs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md"),
    )
    .unwrap();
    let table = keys::docs_table();
    assert!(
        docs.contains(&table),
        "docs/configuration.md's table of keys is not the key table's; it should read:\n{table}"
    );
}
