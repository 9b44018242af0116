//! The `sightline` binary: the same text as the tools, `--json`, exit codes,
//! the unavailable and unsupported answers, and `--help` everywhere.

#![allow(clippy::unwrap_used)]

use serde_json::Value;

use sightline_test_support::{Project, run_cli, sightline_bin};

fn project() -> Project {
    Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("app.py", "from lib import add\n\nvalue: str = add(1, 2)\n"),
        ("ok.py", "from lib import add\n\nprint(add(1, 2))\n"),
        ("notes.xyz", "hello\n"),
    ])
}

#[test]
fn commands_print_the_tool_text_with_exit_codes() {
    let p = project();
    let app = p.path("app.py");
    let (out, code) = run_both(&["diagnostics", app.to_str().unwrap()], &[]);
    assert_eq!(
        out,
        "app.py: 1 diagnostic\n3:14 error: Type \"int\" is not assignable to declared type \"str\" \"int\" is not assignable to \"str\" [Pyright]\n"
    );
    assert_eq!(code, 1, "an error in the diagnostics exits 1");
    let (out, code) = run_both(&["diagnostics", p.path("ok.py").to_str().unwrap()], &[]);
    assert_eq!((out.as_str(), code), ("ok.py: no diagnostics\n", 0));
    let (out, code) = run_both(&["definition", &format!("{}:3:14", app.display())], &[]);
    assert_eq!(
        (out.as_str(), code),
        (
            "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n",
            0
        )
    );
    let (out, code) = run_both(
        &["references", &format!("{}:1:5", p.path("lib.py").display())],
        &[],
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "4 references\napp.py:1:17 from lib import add\napp.py:3:14 value: str = add(1, 2)\nok.py:1:17 from lib import add\nok.py:3:7 print(add(1, 2))\n",
            0
        )
    );
}

#[test]
fn json_output_is_documented_shape() {
    let p = project();
    let app = p.path("app.py");
    let (out, code) = run_both(&["--json", "diagnostics", app.to_str().unwrap()], &[]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["path"], "app.py");
    assert_eq!(v["count"], 1);
    assert_eq!(v["diagnostics"][0]["line"], 3);
    assert_eq!(v["diagnostics"][0]["column"], 14);
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    assert_eq!(v["diagnostics"][0]["source"], "Pyright");
    let (out, code) = run_both(
        &[
            "--json",
            "references",
            &format!("{}:1:5", p.path("lib.py").display()),
        ],
        &[],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "references");
    assert_eq!(v["count"], 4);
    assert_eq!(v["locations"][1]["path"], "app.py");
    assert_eq!(v["locations"][1]["line"], 3);
    assert_eq!(v["locations"][1]["column"], 14);
    assert_eq!(v["locations"][1]["text"], "value: str = add(1, 2)");
    let (out, code) = run_both(&["--json", "definition", "/no/such/file.py:1:1"], &[]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "bad_input");
    assert_eq!(v["error"]["message"], "file not found: /no/such/file.py");
}

#[test]
fn unavailable_server_names_what_to_install() {
    let p = project();
    // PATH without the servers, downloads disabled, an empty data directory.
    let (out, code) = run_cli(
        &["diagnostics", p.path("app.py").to_str().unwrap()],
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(
        out,
        "unavailable: no Python language server found; install it with `npm install -g pyright@1.1.414` (provides pyright-langserver), or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)\n"
    );
    assert_eq!(code, 2);
    let ts = Project::new(&[("package.json", "{}"), ("a.ts", "export const a = 1;\n")]);
    let (out, code) = run_cli(
        &["definition", &format!("{}:1:14", ts.path("a.ts").display())],
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(
        out,
        "unavailable: no TypeScript/JavaScript language server found; install it with `npm install -g typescript-language-server@5.3.0 typescript@5.9.3 @vue/typescript-plugin@3.3.11` (provides typescript-language-server), or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)\n"
    );
    assert_eq!(code, 2);
}

#[test]
fn unsupported_extension_lists_what_is_supported() {
    let p = project();
    let (out, code) = run_cli(&["diagnostics", p.path("notes.xyz").to_str().unwrap()], &[]);
    assert!(
        out.starts_with("unsupported: no language server handles .xyz files; supported: ")
            && out.contains(".ts .tsx .js .jsx .mjs .cjs .mts .cts (TypeScript/JavaScript)")
            && out.contains(".py .pyi (Python)")
            && out.contains(".go (Go)")
            && out.ends_with("(Markdown)\n")
            && out.lines().count() == 1,
        "{out}"
    );
    assert_eq!(code, 2);
}

#[test]
fn malformed_positions_and_help() {
    let (out, code) = run_cli(&["definition", "app.py:3"], &[]);
    assert_eq!(
        (out.as_str(), code),
        ("error: expected FILE:LINE:COL, got `app.py:3`\n", 2)
    );
    for args in [
        &["--help"][..],
        &["diagnostics", "--help"],
        &["definition", "--help"],
        &["references", "--help"],
        &["batch", "--help"],
    ] {
        let out = std::process::Command::new(sightline_bin())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Usage: sightline"),
            "{args:?}"
        );
    }
}

#[test]
fn first_use_installs_pyright_into_the_data_dir() {
    let p = project();
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap();
    // No server on PATH, downloads allowed: sightline installs the pinned
    // pyright from npm by itself, then answers.
    let (out, code) = run_cli(
        &["diagnostics", p.path("ok.py").to_str().unwrap()],
        &[
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("SIGHTLINE_DISABLE_LSP_DOWNLOAD", ""),
            ("SIGHTLINE_DATA_DIR", data_dir),
        ],
    );
    assert_eq!((out.as_str(), code), ("ok.py: no diagnostics\n", 0));
    let bin = data
        .path()
        .join("servers/pyright/node_modules/.bin/pyright-langserver");
    assert!(bin.is_file(), "{} missing", bin.display());
    // No temporary install directory is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(data.path().join("servers"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn batch_servers_shows_the_running_ones_with_root_and_pid() {
    let p = project();
    let mut s = sightline_test_support::BatchSession::builder().start();
    let d = s.ask(&format!("diagnostics {}", p.path("app.py").display()));
    assert!(d.starts_with("app.py: "), "{d}");
    let servers = s.ask("servers");
    let line = servers.lines().find(|l| l.starts_with("pyright ")).unwrap();
    assert!(
        line.contains(&format!("running for {} (pid ", p.root().display())),
        "{line}"
    );
    assert!(
        servers.starts_with("sandbox: workspace-write (Landlock ABI "),
        "{servers}"
    );
}

/// Every MCP tool is a CLI command with the same text: the CLI's `hover`,
/// `symbols`, `workspace-symbols`, `implementation`, `calls in|out` and
/// `--symbol` against the `lsp` tool of an MCP session, on one project.
#[test]
fn every_tool_is_a_command_with_the_same_text() {
    use sightline_test_support::mcp::McpDriver;
    sightline_test_support::require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    \"\"\"Add two numbers.\"\"\"\n    return a + b\n\n\ndef twice(x: int) -> int:\n    return add(x, x)\n",
        ),
        (
            "app.py",
            "from lib import add, twice\n\ntotal = add(1, 2) + twice(3)\n",
        ),
    ]);
    let app = p.path("app.py").display().to_string();
    let lib = p.path("lib.py").display().to_string();
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let cases: Vec<(Vec<String>, &str, serde_json::Value)> = vec![
        (
            vec![
                "hover".into(),
                format!("{app}:3"),
                "--symbol".into(),
                "add".into(),
            ],
            "lsp",
            serde_json::json!({ "operation": "hover", "file": app, "line": 3, "symbol": "add" }),
        ),
        (
            vec!["symbols".into(), lib.clone()],
            "lsp",
            serde_json::json!({ "operation": "documentSymbol", "file": lib }),
        ),
        (
            vec![
                "workspace-symbols".into(),
                "twi".into(),
                "--file".into(),
                app.clone(),
            ],
            "lsp",
            serde_json::json!({ "operation": "workspaceSymbol", "query": "twi", "file": app }),
        ),
        (
            vec![
                "calls".into(),
                "in".into(),
                format!("{lib}:1"),
                "--symbol".into(),
                "add".into(),
            ],
            "lsp",
            serde_json::json!({ "operation": "incomingCalls", "file": lib, "line": 1, "symbol": "add" }),
        ),
        (
            vec!["calls".into(), "out".into(), format!("{lib}:6:5")],
            "lsp",
            serde_json::json!({ "operation": "outgoingCalls", "file": lib, "line": 6, "column": 5 }),
        ),
        (
            vec!["implementation".into(), format!("{lib}:6:5")],
            "lsp",
            serde_json::json!({ "operation": "goToImplementation", "file": lib, "line": 6, "column": 5 }),
        ),
        (
            vec![
                "definition".into(),
                format!("{app}:3"),
                "--symbol".into(),
                "twice".into(),
            ],
            "lsp_definition",
            serde_json::json!({ "file": app, "line": 3, "symbol": "twice" }),
        ),
        (
            vec![
                "references".into(),
                format!("{lib}:1"),
                "--symbol".into(),
                "add".into(),
            ],
            "lsp_references",
            serde_json::json!({ "file": lib, "line": 1, "symbol": "add" }),
        ),
        (
            vec![
                "hover".into(),
                format!("{app}:3"),
                "--symbol".into(),
                "nope".into(),
            ],
            "lsp",
            serde_json::json!({ "operation": "hover", "file": app, "line": 3, "symbol": "nope" }),
        ),
    ];
    let mut shown = String::new();
    for (args, tool, call) in cases {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (text, status) = run_both(&argv, &[]);
        let mcp = d.call("s", tool, call);
        let root = format!("{}/", p.root().display());
        assert_eq!(
            text,
            mcp.text,
            "`sightline {}` differs from the {tool} tool",
            args.join(" ")
        );
        assert_eq!(
            status,
            if mcp.is_error { 2 } else { 0 },
            "{}",
            args.join(" ")
        );
        shown.push_str(&format!(
            "--- {} (exit {status})\n{}",
            argv[0],
            text.replace(&root, "")
        ));
    }
    d.close("s");
    insta::assert_snapshot!(shown);
}

/// The CLI's answer through the daemon (the default), checked to be the
/// same text and exit status as in process (`--no-daemon`).
fn run_both(args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let through = run_cli(args, env);
    let mut local = vec!["--no-daemon"];
    local.extend_from_slice(args);
    let in_process = run_cli(&local, env);
    assert_eq!(
        through, in_process,
        "{args:?}: through the daemon, then in process"
    );
    through
}

#[test]
fn a_batch_session_whose_process_crashed_fails_its_test() {
    // The harness's own check: a `sightline batch` killed by a signal did
    // not answer whole, and dropping its session says so (it once passed
    // any exit at all).
    let s = sightline_test_support::BatchSession::builder().start();
    // SAFETY: the batch's own pid, still running (not waited for yet).
    unsafe { libc::kill(s.pid() as i32, libc::SIGKILL) };
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(s)));
    let message = dropped
        .err()
        .and_then(|e| e.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        message.starts_with("sightline batch crashed: "),
        "{message:?}"
    );
}
