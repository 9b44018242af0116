//! Every tool answers the same on the command line and over MCP: each tool
//! the MCP tool list gives (the edit tools included) is asked both ways on
//! the same files, against pyright, and the texts are compared byte for
//! byte; an edit must also leave the same files. The only difference
//! allowed is the one a session makes: an MCP edit's answer ends naming its
//! checkpoint, which a command (a session of one call) cannot keep.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use sightline_test_support::cli::{Input, run_with_stdin};

use serde_json::{Value, json};
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{
    DaemonDirs, Project, git, isolation, path_with_tools, require, sightline_bin,
};

const LIB: &str = "import os\nimport sys\n\n\ndef add(a: int, b: int) -> int:\n    \"\"\"Add two numbers.\"\"\"\n    return a + b\n\n\ndef twice(x: int) -> int:\n    return add(x, x)\n\n\ndef unused_helper() -> int:\n    return 1\n";
const APP: &str = "from lib import add, twice\n\ntotal = add(1, 2) + twice(3)\n";
const CONVERT: &str = "Convert named imports to namespace import";
const U_TS: &str = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n";
const M_TS: &str = "import { c, b, a } from \"./u\";\n\nexport const total = a + c;\n";

/// One tool asked both ways: the command line with its stdin, and the
/// tool's arguments.
struct Case {
    argv: Vec<String>,
    stdin: &'static str,
    tool: &'static str,
    args: Value,
}

fn case(argv: &[&str], stdin: &'static str, tool: &'static str, args: Value) -> Case {
    Case {
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        stdin,
        tool,
        args,
    }
}

/// The command line through `daemon` (the default path) with `stdin`;
/// stdout and the exit status.
fn cli(daemon: &DaemonDirs, data: &Path, argv: &[String], stdin: &str) -> (String, i32) {
    run_with_stdin(
        Command::new(sightline_bin())
            .args(argv)
            .envs(isolation::env())
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_DATA_DIR", data)
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(daemon.env()),
        stdin,
        Input::Read,
    )
}

/// The projects' files, and any the test wrote.
fn files(projects: &[&Project]) -> Vec<(String, String)> {
    let mut all: Vec<_> = projects
        .iter()
        .flat_map(|p| std::fs::read_dir(p.root()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|f| f.extension().is_some_and(|x| x == "py" || x == "ts"))
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    all.sort();
    all
}

/// The files as the test began, and nothing more.
fn restore(p: &Project, ts: &Project) {
    let scratch = p.path("scratch.py");
    if scratch.exists() {
        std::fs::remove_file(scratch).unwrap();
    }
    std::fs::write(p.path("lib.py"), LIB).unwrap();
    std::fs::write(p.path("app.py"), APP).unwrap();
    let moved = ts.path("w.ts");
    if moved.exists() {
        std::fs::remove_file(moved).unwrap();
    }
    std::fs::write(ts.path("u.ts"), U_TS).unwrap();
    std::fs::write(ts.path("m.ts"), M_TS).unwrap();
}

/// The MCP answer without the line naming the session's checkpoint of an
/// edit, which is checked to be its last line when there is one.
fn without_checkpoint(text: &str) -> String {
    let Some((rest, last)) = text.trim_end_matches('\n').rsplit_once('\n') else {
        return text.to_owned();
    };
    let named = last.starts_with("checkpoint: cp")
        && (last.ends_with(" (before this edit)") || last.ends_with(" (before this change)"));
    if named {
        format!("{rest}\n")
    } else {
        text.to_owned()
    }
}

/// A restart's answer says how long the server took to be ready again.
fn without_ready_time(text: &str) -> String {
    text.lines()
        .map(|l| match l.split_once(": ready in ") {
            Some((head, _)) => format!("{head}: ready in N s\n"),
            None => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn every_tool_answers_the_same_on_the_command_line_and_over_mcp() {
    require("pyright-langserver");
    require("typescript-language-server");
    let p = Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)]);
    // pyright offers no code actions here and does not organize imports:
    // those tools are asked of TypeScript too.
    let ts = Project::new(&[
        ("package.json", "{\"name\": \"parity\", \"private\": true}"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        ("u.ts", U_TS),
        ("m.ts", M_TS),
    ]);
    // `impact` compares the working tree with HEAD, where `twice` took a
    // second argument: its signature is what the diff changes.
    git(p.root(), &["init", "-q"]);
    std::fs::write(
        p.path("lib.py"),
        LIB.replace("def twice(x: int)", "def twice(x: int, y: int = 0)"),
    )
    .unwrap();
    git(p.root(), &["add", "-A"]);
    git(
        p.root(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "head",
        ],
    );
    std::fs::write(p.path("lib.py"), LIB).unwrap();
    let m = ts.path("m.ts").display().to_string();
    let root = p.root().display().to_string();
    let lib = p.path("lib.py").display().to_string();
    let app = p.path("app.py").display().to_string();
    let scratch = p.path("scratch.py").display().to_string();
    let at = |file: &str, line: u32, column: u32| format!("{file}:{line}:{column}");
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-total = add(1, 2) + twice(3)\n+total = add(1, \"2\") + twice(3)\n*** End Patch\n";
    let patch_args = patch.replace("app.py", &app);
    let cases = vec![
        case(
            &["diagnostics", &app],
            "",
            "lsp_diagnostics",
            json!({ "file": app }),
        ),
        case(
            &["definition", &at(&app, 3, 9)],
            "",
            "lsp_definition",
            json!({ "file": app, "line": 3, "column": 9 }),
        ),
        case(
            &["references", &at(&lib, 5, 5), "--include-declaration"],
            "",
            "lsp_references",
            json!({ "file": lib, "line": 5, "column": 5, "include_declaration": true }),
        ),
        case(
            &["hover", &at(&app, 3, 9)],
            "",
            "lsp",
            json!({ "operation": "hover", "file": app, "line": 3, "column": 9 }),
        ),
        case(&["check", &root], "", "lsp_check", json!({ "path": root })),
        // Before any edit: the MCP session's first checkpoint, as the
        // command's.
        case(
            &["checkpoint", &lib],
            "",
            "checkpoint",
            json!({ "path": lib }),
        ),
        case(
            &["restart", "pyright", "--root", &root],
            "",
            "lsp_restart",
            json!({ "server": "pyright" }),
        ),
        case(
            &["read", &lib, "--symbol", "twice"],
            "",
            "read",
            json!({ "file": lib, "symbol": "twice" }),
        ),
        case(
            &["write", &scratch],
            "from lib import add\n\nvalue: str = add(1, 2)\n",
            "write",
            json!({ "file": scratch, "content": "from lib import add\n\nvalue: str = add(1, 2)\n" }),
        ),
        case(
            &[
                "edit",
                &lib,
                "--old",
                "return a + b",
                "--new",
                "return str(a + b)",
                "--format-range",
                "false",
            ],
            "",
            "edit",
            json!({ "file": lib, "old": "return a + b", "new": "return str(a + b)", "format_range": false }),
        ),
        case(
            &[
                "edit",
                &lib,
                "--old",
                "return a + b",
                "--new",
                "return str(a + b)",
                "--dry-run",
            ],
            "",
            "edit",
            json!({ "file": lib, "old": "return a + b", "new": "return str(a + b)", "dry_run": true }),
        ),
        case(
            &["apply-patch", "--root", &root],
            patch,
            "apply_patch",
            json!({ "patch": patch_args }),
        ),
        case(
            &["rename", &at(&lib, 10, 5), "double"],
            "",
            "rename",
            json!({ "file": lib, "line": 10, "column": 5, "new_name": "double" }),
        ),
        case(
            &["impact", "--dir", &root],
            "",
            "impact",
            json!({ "path": root }),
        ),
        case(
            &[
                "move",
                &ts.path("u.ts").display().to_string(),
                &ts.path("w.ts").display().to_string(),
            ],
            "",
            "move",
            json!({ "from": ts.path("u.ts"), "to": ts.path("w.ts") }),
        ),
        case(
            &["code-actions", &format!("{lib}:1")],
            "",
            "code_actions",
            json!({ "file": lib, "line": 1 }),
        ),
        case(
            &["apply-code-action", &format!("{lib}:1"), "--index", "1"],
            "",
            "apply_code_action",
            json!({ "file": lib, "line": 1, "index": 1 }),
        ),
        case(
            &["organize-imports", &lib],
            "",
            "organize_imports",
            json!({ "file": lib }),
        ),
        case(
            &["organize-imports", &m],
            "",
            "organize_imports",
            json!({ "file": m }),
        ),
        // The refactorings, which do not depend on how far the server has
        // got with the file's diagnostics (its quick fixes do).
        case(
            &["code-actions", &format!("{m}:1"), "--kind", "refactor"],
            "",
            "code_actions",
            json!({ "file": m, "line": 1, "kind": "refactor" }),
        ),
        case(
            &["apply-code-action", &format!("{m}:1"), "--title", CONVERT],
            "",
            "apply_code_action",
            json!({ "file": m, "line": 1, "title": CONVERT }),
        ),
        case(
            &["replace-symbol-body", &lib, "unused_helper"],
            "def unused_helper() -> int:\n    return \"one\"\n",
            "replace_symbol_body",
            json!({ "file": lib, "symbol": "unused_helper", "text": "def unused_helper() -> int:\n    return \"one\"\n" }),
        ),
        case(
            &["insert-before-symbol", &lib, "twice"],
            "def half(x: int) -> int:\n    return x // 2\n\n\n",
            "insert_before_symbol",
            json!({ "file": lib, "symbol": "twice", "text": "def half(x: int) -> int:\n    return x // 2\n\n\n" }),
        ),
        case(
            &["insert-after-symbol", &lib, "twice"],
            "\n\ndef thrice(x: int) -> str:\n    return add(x, add(x, x))\n",
            "insert_after_symbol",
            json!({ "file": lib, "symbol": "twice", "text": "\n\ndef thrice(x: int) -> str:\n    return add(x, add(x, x))\n" }),
        ),
        case(
            &["safe-delete", &lib, "twice"],
            "",
            "safe_delete",
            json!({ "file": lib, "symbol": "twice" }),
        ),
        case(
            &["safe-delete", &lib, "unused_helper"],
            "",
            "safe_delete",
            json!({ "file": lib, "symbol": "unused_helper" }),
        ),
    ];

    let mut d = McpDriver::start();
    let open = |d: &mut McpDriver, session: &str, root: &Path| {
        d.open_args(session, root, &path_with_tools(), &["mcp", "--edit-tools"]);
    };
    open(&mut d, "s", p.root());
    let listed: BTreeSet<String> = d.send(json!({ "cmd": "list", "session": "s" }))["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let asked: BTreeSet<String> = cases.iter().map(|c| c.tool.to_owned()).collect();
    assert_eq!(asked, listed, "every listed tool is asked both ways");

    let daemon = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    d.close("s");
    let mut differ = Vec::new();
    let mut shown = String::new();
    for (n, c) in cases.iter().enumerate() {
        restore(&p, &ts);
        let (text, status) = cli(&daemon, data.path(), &c.argv, c.stdin);
        let after_cli = files(&[&p, &ts]);
        restore(&p, &ts);
        // A session of its own, as the command has, that reads the files
        // first: an edit of a file changed on disk since the daemon last
        // read or wrote it (the test put it back) is refused.
        let session = format!("s{n}");
        let in_ts = c
            .argv
            .iter()
            .any(|a| a.starts_with(&*ts.root().to_string_lossy()));
        open(&mut d, &session, if in_ts { ts.root() } else { p.root() });
        for file in [&lib, &app, &m] {
            let read = d.call(&session, "read", json!({ "file": file }));
            assert!(!read.is_error, "{}", read.text);
        }
        let answer = d.call(&session, c.tool, c.args.clone());
        d.close(&session);
        let after_mcp = files(&[&p, &ts]);
        let command = c.argv[..2].join(" ");
        let (mut cli_text, mut mcp_text) = (text.clone(), without_checkpoint(&answer.text));
        if c.tool == "lsp_restart" {
            (cli_text, mcp_text) = (without_ready_time(&cli_text), without_ready_time(&mcp_text));
        }
        shown.push_str(&format!("--- {} (exit {status})\n{cli_text}", c.argv[0]));
        if cli_text != mcp_text {
            differ.push(format!(
                "`sightline {command}` (exit {status}):\n{text}\n-- the {} tool:\n{}",
                c.tool, answer.text
            ));
        }
        assert_eq!(
            status == 2,
            answer.is_error,
            "{command}: {text}\n-- the {} tool:\n{}",
            c.tool,
            answer.text
        );
        assert_eq!(
            after_cli, after_mcp,
            "{command} left other files than the tool"
        );
    }
    restore(&p, &ts);
    assert!(differ.is_empty(), "{}", differ.join("\n\n"));
    let ts_root = ts.root().display().to_string();
    insta::assert_snapshot!(
        shown
            .replace(&format!("{root}/"), "")
            .replace(&root, "[ROOT]")
            .replace(&format!("{ts_root}/"), "")
    );
}
