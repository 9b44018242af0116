//! `sightline mcp` driven by a real MCP client, the official Python SDK:
//! initialize, tools/list with schemas checked against JSON Schema, every tool
//! and every `lsp` operation against pyright and typescript-language-server,
//! failures as tool results, cancellation, progress, and two clients at once.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use sightline_test_support::mcp::{Answer, McpDriver};
use sightline_test_support::{Project, alive, descendants, require};

const SHAPES_PY: &str = r#"from abc import ABC, abstractmethod


class Shape(ABC):
    @abstractmethod
    def area(self) -> float: ...


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def total_area(shapes: list[Shape]) -> float:
    return sum(s.area() for s in shapes)
"#;

const APP_PY: &str = r#"from shapes import Square, total_area


def main() -> None:
    squares = [Square(2), Square(3)]
    print(total_area(squares))
    missing_name
"#;

const SHAPES_TS: &str = r#"export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}

  area(): number {
    return this.side * this.side;
  }
}

export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
"#;

const APP_TS: &str = r#"import { Square, totalArea } from "./shapes";

export function main(): void {
  const squares = [new Square(2), new Square(3)];
  console.log(totalArea(squares));
  const n: number = "one";
}
"#;

/// The names of a tool list, in order.
fn names_of(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// Runs `lsp` with `operation` and the other arguments.
fn lsp(d: &mut McpDriver, op: &str, mut args: Value) -> Answer {
    args["operation"] = json!(op);
    d.call("s", "lsp", args)
}

/// The text of an answer that must not be an error.
fn ok(a: Answer) -> String {
    assert!(!a.is_error, "{}", a.text);
    a.text
}

/// A snapshot with this checkout's path (stdlib stubs and typings are shown
/// absolute) replaced by `[REPO]`.
fn snapshot(name: &str, text: &str) {
    let repo = sightline_test_support::repo_root().display().to_string();
    insta::with_settings!({ filters => vec![(repo.as_str(), "[REPO]")] }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn initialize_and_list_tools_with_valid_schemas() {
    let p = Project::new(&[("pyproject.toml", "")]);
    let mut d = McpDriver::start();
    let init = d.open("s", p.root());
    assert_eq!(init["server"], "sightline");
    assert_eq!(init["tools"], true);
    let tools = d.send(json!({ "cmd": "list", "session": "s" }))["tools"].clone();
    assert_eq!(
        names_of(&tools),
        sightline_test_support::mcp::questions_in_readme()
    );
    for tool in tools.as_array().unwrap() {
        // Only a restart changes anything (the servers, never a file).
        let restart = tool["name"] == "lsp_restart";
        assert_eq!(tool["annotations"]["readOnlyHint"], !restart, "{tool}");
        // A read-only tool's destructiveHint means nothing and is left out;
        // the restart says it destroys nothing.
        let destructive = &tool["annotations"]["destructiveHint"];
        if restart {
            assert_eq!(destructive, false, "{tool}");
        } else {
            assert!(destructive.is_null(), "{tool}");
        }
        assert!(
            tool["description"].as_str().unwrap().contains("Use it"),
            "{tool}"
        );
        // Every argument teaches its convention.
        for (name, prop) in tool["inputSchema"]["properties"].as_object().unwrap() {
            let text = prop["description"]
                .as_str()
                .unwrap_or_else(|| panic!("{name} has no description"));
            assert!(!text.is_empty());
        }
    }
    let schemas: Value = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["inputSchema"].clone(),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    insta::assert_snapshot!(
        "tool_schemas",
        serde_json::to_string_pretty(&schemas).unwrap()
    );
    d.close("s");
}

#[test]
fn every_tool_and_operation_against_pyright() {
    require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("shapes.py", SHAPES_PY),
        ("app.py", APP_PY),
    ]);
    let app = p.path("app.py");
    let shapes = p.path("shapes.py");
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let mut out = String::new();
    let mut show = |name: &str, text: String| out.push_str(&format!("--- {name}\n{text}"));
    show(
        "lsp_diagnostics",
        ok(d.call("s", "lsp_diagnostics", json!({ "file": app }))),
    );
    show(
        "lsp_definition",
        ok(d.call(
            "s",
            "lsp_definition",
            json!({ "file": app, "line": 6, "symbol": "total_area" }),
        )),
    );
    show(
        "lsp_references",
        ok(d.call(
            "s",
            "lsp_references",
            json!({ "file": shapes, "line": 17, "column": 5 }),
        )),
    );
    show("lsp_references include_declaration", ok(d.call("s", "lsp_references", json!({ "file": shapes, "line": 17, "symbol": "total_area", "include_declaration": true }))));
    show(
        "goToDefinition",
        ok(lsp(
            &mut d,
            "goToDefinition",
            json!({ "file": app, "line": 5, "column": 16 }),
        )),
    );
    show(
        "findReferences",
        ok(lsp(
            &mut d,
            "findReferences",
            json!({ "file": shapes, "line": 9, "symbol": "Square" }),
        )),
    );
    show(
        "hover",
        ok(lsp(
            &mut d,
            "hover",
            json!({ "file": app, "line": 6, "symbol": "total_area" }),
        )),
    );
    show(
        "documentSymbol",
        ok(lsp(&mut d, "documentSymbol", json!({ "file": shapes }))),
    );
    show(
        "workspaceSymbol",
        ok(lsp(&mut d, "workspaceSymbol", json!({ "query": "Square" }))),
    );
    // pyright offers no implementations (no `implementationProvider`, nor a
    // registration of it): the answer says so.
    show(
        "goToImplementation",
        lsp(
            &mut d,
            "goToImplementation",
            json!({ "file": shapes, "line": 6, "symbol": "area" }),
        )
        .text,
    );
    show(
        "prepareCallHierarchy",
        ok(lsp(
            &mut d,
            "prepareCallHierarchy",
            json!({ "file": shapes, "line": 17, "symbol": "total_area" }),
        )),
    );
    show(
        "incomingCalls",
        ok(lsp(
            &mut d,
            "incomingCalls",
            json!({ "file": shapes, "line": 17, "symbol": "total_area" }),
        )),
    );
    show(
        "outgoingCalls",
        ok(lsp(
            &mut d,
            "outgoingCalls",
            json!({ "file": app, "line": 4, "symbol": "main" }),
        )),
    );
    snapshot("pyright_tools", &out);
    d.close("s");
}

#[test]
fn every_tool_and_operation_against_typescript() {
    require("typescript-language-server");
    let p = Project::new(&[
        ("package.json", "{}"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        ("shapes.ts", SHAPES_TS),
        ("app.ts", APP_TS),
    ]);
    let app = p.path("app.ts");
    let shapes = p.path("shapes.ts");
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let mut out = String::new();
    let mut show = |name: &str, text: String| out.push_str(&format!("--- {name}\n{text}"));
    show(
        "lsp_diagnostics",
        ok(d.call("s", "lsp_diagnostics", json!({ "file": app }))),
    );
    show(
        "lsp_definition",
        ok(d.call(
            "s",
            "lsp_definition",
            json!({ "file": app, "line": 5, "symbol": "totalArea" }),
        )),
    );
    show(
        "lsp_references",
        ok(d.call(
            "s",
            "lsp_references",
            json!({ "file": shapes, "line": 13, "symbol": "totalArea" }),
        )),
    );
    show(
        "goToDefinition",
        ok(lsp(
            &mut d,
            "goToDefinition",
            json!({ "file": app, "line": 4, "column": 24 }),
        )),
    );
    show(
        "findReferences",
        ok(lsp(
            &mut d,
            "findReferences",
            json!({ "file": shapes, "line": 5, "symbol": "Square" }),
        )),
    );
    show(
        "hover",
        ok(lsp(
            &mut d,
            "hover",
            json!({ "file": app, "line": 5, "symbol": "totalArea" }),
        )),
    );
    show(
        "documentSymbol",
        ok(lsp(&mut d, "documentSymbol", json!({ "file": shapes }))),
    );
    show(
        "workspaceSymbol",
        ok(lsp(
            &mut d,
            "workspaceSymbol",
            json!({ "query": "Square", "file": app }),
        )),
    );
    show(
        "goToImplementation",
        ok(lsp(
            &mut d,
            "goToImplementation",
            json!({ "file": shapes, "line": 1, "symbol": "Shape" }),
        )),
    );
    show(
        "prepareCallHierarchy",
        ok(lsp(
            &mut d,
            "prepareCallHierarchy",
            json!({ "file": shapes, "line": 13, "symbol": "totalArea" }),
        )),
    );
    show(
        "incomingCalls",
        ok(lsp(
            &mut d,
            "incomingCalls",
            json!({ "file": shapes, "line": 13, "symbol": "totalArea" }),
        )),
    );
    show(
        "outgoingCalls",
        ok(lsp(
            &mut d,
            "outgoingCalls",
            json!({ "file": app, "line": 3, "symbol": "main" }),
        )),
    );
    snapshot("typescript_tools", &out);
    d.close("s");
}

#[test]
fn an_unavailable_server_is_a_tool_error_naming_what_to_install() {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x = 1\n")]);
    let mut d = McpDriver::start();
    // Only the system directories: no pyright, and downloads are off.
    d.open_with("s", p.root(), "/usr/bin:/bin");
    let a = d.call("s", "lsp_diagnostics", json!({ "file": p.path("a.py") }));
    assert!(a.is_error);
    assert_eq!(
        a.text,
        "unavailable: no Python language server found; install it with `npm install -g pyright@1.1.414` (provides pyright-langserver), or let sightline install it (unset SIGHTLINE_DISABLE_LSP_DOWNLOAD)\n"
    );
    d.close("s");
}

#[test]
fn bad_arguments_are_tool_errors_and_malformed_calls_protocol_errors() {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x = 1\n")]);
    let a_py = p.path("a.py");
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let cases = [
        (
            json!({ "file": "a.py", "line": 1, "column": 1 }),
            "error: file must be an absolute path, got `a.py`\n",
        ),
        (
            json!({ "file": a_py, "line": 0, "column": 1 }),
            "error: line must be 1 or more (lines are 1-based)\n",
        ),
        (
            json!({ "file": a_py, "line": 1, "column": 2 }),
            "error: line 1 column 2 is on whitespace, not a symbol; symbols on this line start at columns 1 (x)\n",
        ),
        (
            json!({ "file": a_py, "line": 1, "symbol": "y" }),
            "error: `y` is not on line 1; symbols on this line start at columns 1 (x)\n",
        ),
        (
            json!({ "file": a_py, "line": 1 }),
            "error: give `column` (1-based, on the symbol) or `symbol` (its name on the line)\n",
        ),
    ];
    for (args, want) in cases {
        let a = d.call("s", "lsp_definition", args.clone());
        assert!(a.is_error, "{args}");
        assert_eq!(a.text, want, "{args}");
    }
    let a = lsp(&mut d, "workspaceSymbol", json!({}));
    assert_eq!(
        (a.is_error, a.text.as_str()),
        (
            true,
            "error: workspaceSymbol needs `query` (a name or part of one)\n"
        )
    );
    // Calls that do not match the schema are protocol errors.
    let e = d.protocol_error(
        "s",
        "lsp_definition",
        json!({ "file": a_py, "line": "one", "column": 1 }),
    );
    assert_eq!(e["code"], -32602, "{e}");
    let e = d.protocol_error("s", "lsp", json!({ "operation": "rename", "file": a_py }));
    assert_eq!(e["code"], -32602, "{e}");
    let e = d.protocol_error("s", "lsp_nothing", json!({}));
    assert_eq!(e["code"], -32602, "{e}");
    d.close("s");
}

/// A project whose `node_modules/.bin/pyright-langserver` is the scripted
/// fake server (project-local servers come first), following `script`.
pub(super) fn fake_pyright_project(script: Value) -> Project {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "def alpha\nalpha ERR\n")]);
    let fake = super::fake::fake_bin();
    p.write(
        "node_modules/.bin/pyright-langserver",
        &format!("#!/bin/sh\nexec {} serve\n", fake.display()),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        p.path("node_modules/.bin/pyright-langserver"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    super::fake::set_script(&p, script);
    p
}

#[test]
fn a_cancelled_call_cancels_its_lsp_request() {
    let p = fake_pyright_project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": ["hang"] },
    ] }));
    let mut d = McpDriver::start();
    // The fake server is the project's own `node_modules/.bin` program,
    // which runs only in a trusted project.
    d.trust(p.root());
    d.open("s", p.root());
    let a_py = p.path("a.py");
    let log = p.path("fake-lsp.log");
    let answer = d.send(json!({
        "cmd": "cancel", "session": "s", "tool": "lsp_definition",
        "args": { "file": a_py, "line": 2, "column": 1 },
        "file": log, "started": "<- textDocument/definition", "cancelled": "<- $/cancelRequest",
    }));
    assert!(answer["cancelled"].is_number(), "{answer}");
    assert!(
        d.log("s")
            .contains("lsp_definition: cancelled by the client"),
        "{}",
        d.log("s")
    );
    // The same server answers the next call.
    let a = d.call(
        "s",
        "lsp_definition",
        json!({ "file": a_py, "line": 2, "column": 1 }),
    );
    assert_eq!(
        (a.is_error, a.text.as_str()),
        (false, "1 definition\na.py:1:5 def alpha\n")
    );
    d.close("s");
}

#[test]
fn a_cold_start_reports_progress() {
    require("pyright-langserver");
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let a = d.call_with(
        "s",
        "lsp_diagnostics",
        json!({ "file": p.path("a.py") }),
        true,
    );
    assert_eq!(
        (a.is_error, a.text.as_str()),
        (false, "a.py: no diagnostics\n")
    );
    let root = p.root().display().to_string();
    assert_eq!(
        a.progress.first().map(String::as_str),
        Some(format!("starting pyright for {root}").as_str()),
        "{:?}",
        a.progress
    );
    assert!(
        a.progress
            .iter()
            .any(|m| m.starts_with("pyright running (pid ")),
        "{:?}",
        a.progress
    );
    // A warm server has nothing to report.
    let again = d.call_with(
        "s",
        "lsp_diagnostics",
        json!({ "file": p.path("a.py") }),
        true,
    );
    assert_eq!(again.progress, Vec::<String>::new());
    d.close("s");
}

#[test]
fn two_clients_each_with_their_own_sightline_and_closing_one_ends_only_its_own() {
    // In process (`--no-daemon`): each session runs its own servers, and
    // they end with it.
    require("pyright-langserver");
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = \"one\"\n")]);
    let want = "a.py: 1 diagnostic\n1:10 error: Type \"Literal['one']\" is not assignable to declared type \"int\" \"Literal['one']\" is not assignable to \"int\" [Pyright]\n";
    let mut d = McpDriver::start();
    let tools = sightline_test_support::path_with_tools();
    let in_process = ["--no-daemon", "mcp"];
    let pid_a = d.open_args("a", p.root(), &tools, &in_process)["pid"]
        .as_u64()
        .unwrap() as u32;
    let pid_b = d.open_args("b", p.root(), &tools, &in_process)["pid"]
        .as_u64()
        .unwrap() as u32;
    assert_ne!(pid_a, pid_b);
    for s in ["a", "b"] {
        let a = d.call(s, "lsp_diagnostics", json!({ "file": p.path("a.py") }));
        assert_eq!((a.is_error, a.text.as_str()), (false, want), "{s}");
    }
    let mut family_a = descendants(pid_a);
    family_a.push(pid_a);
    let family_b = descendants(pid_b);
    assert!(
        family_a.len() > 1 && !family_b.is_empty(),
        "each sightline runs its own pyright"
    );
    d.close("a");
    let deadline = Instant::now() + Duration::from_secs(15);
    while family_a.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < deadline,
            "client a's sightline or servers outlived its stdin"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        d.log("a")
            .contains("the client closed the connection; shutting servers down"),
        "{}",
        d.log("a")
    );
    assert!(alive(pid_b) && family_b.iter().all(|&p| alive(p)));
    let a = d.call("b", "lsp_diagnostics", json!({ "file": p.path("a.py") }));
    assert_eq!(a.text, want);
    d.close("b");
}

#[test]
fn edit_tools_are_served_with_edit_tools() {
    require("pyright-langserver");
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let a_py = p.path("a.py");
    let mut d = McpDriver::start();
    d.open_args(
        "s",
        p.root(),
        &sightline_test_support::path_with_tools(),
        &["mcp", "--edit-tools"],
    );
    let tools = d.send(json!({ "cmd": "list", "session": "s" }))["tools"].clone();
    let by_name = |n: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_name("read")["annotations"]["readOnlyHint"], true);
    for t in ["write", "edit", "apply_patch"] {
        assert_eq!(by_name(t)["annotations"]["destructiveHint"], true, "{t}");
    }
    let read = d.call("s", "read", json!({ "file": a_py }));
    assert_eq!(
        (read.is_error, read.text.as_str()),
        (false, "     1\tx: int = 1\n")
    );
    let edit = d.call(
        "s",
        "edit",
        json!({ "file": a_py, "old": "1", "new": "\"one\"" }),
    );
    assert_eq!(
        (edit.is_error, edit.text),
        (
            false,
            format!(
                "edited {} (1 replacement)\na.py: 1 new error\n1:10 error: Type \"Literal['one']\" is not assignable to declared type \"int\" \"Literal['one']\" is not assignable to \"int\" [Pyright]\ncheckpoint: cp1 (before this edit)\n",
                a_py.display()
            )
        )
    );
    let stale = d.call(
        "s",
        "edit",
        json!({ "file": a_py, "old": "nothing", "new": "x" }),
    );
    assert_eq!(
        (stale.is_error, stale.text),
        (
            true,
            format!("error: `old` was not found in {}\n", a_py.display())
        )
    );
    // The edit's checkpoint: what changed since, then a checkpoint of
    // the file as it is, and a fix measured against that.
    let since = d.call("s", "lsp_diagnostics", json!({ "since": "cp1" }));
    assert_eq!(
        (since.is_error, since.text.as_str()),
        (
            false,
            "since cp1: 1 new error in 1 file; 0 fixed; 0 were already there\nnote: cp1 holds 1 file, not the whole project; make one of the project with `checkpoint` to compare it all\na.py: 1 new error\n  1:10 Type \"Literal['one']\" is not assignable to declared type \"int\" \"Literal['one']\" is not assignable to \"int\" [Pyright]\n"
        )
    );
    let cp = d.call("s", "checkpoint", json!({ "path": a_py }));
    assert_eq!(
        cp.text,
        format!("checkpoint cp2: 1 error in {}\n", a_py.display())
    );
    std::fs::write(&a_py, "x: int = 2\n").unwrap();
    let since = d.call(
        "s",
        "lsp_diagnostics",
        json!({ "file": a_py, "since": "cp2" }),
    );
    assert_eq!(
        since.text,
        "since cp2: 0 new errors in 0 files; 1 fixed; 0 were already there\na.py: 0 new errors; 1 fixed\n"
    );
    let gone = d.call("s", "lsp_check", json!({ "since": "cp9" }));
    assert_eq!(
        (gone.is_error, gone.text.as_str()),
        (
            true,
            "error: no checkpoint `cp9`; this session keeps its last 32: cp1, cp2\n"
        )
    );
    d.close("s");
    // Without the flag, they are not there.
    let mut d = McpDriver::start();
    d.open("s", p.root());
    let tools = d.send(json!({ "cmd": "list", "session": "s" }))["tools"].clone();
    assert_eq!(
        names_of(&tools),
        sightline_test_support::mcp::questions_in_readme()
    );
    d.close("s");
}

/// The refactoring tools over MCP, as an agent calls them: a rename
/// previewed, then applied, with the CLI's text.
#[test]
fn rename_over_mcp_previews_then_applies() {
    require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("app.py", "from lib import add\n\nprint(add(1, 2))\n"),
    ]);
    let mut d = McpDriver::start();
    // Formatting off: the answer is the server's edit alone, whatever
    // formatters this machine has.
    p.write("sightline.json", "{ \"formatter\": false }");
    d.open_args(
        "s",
        p.root(),
        &sightline_test_support::path_with_tools(),
        &["mcp", "--edit-tools"],
    );
    let args = json!({ "file": p.path("app.py"), "line": 3, "symbol": "add", "new_name": "total", "dry_run": true });
    let preview = d.call("s", "rename", args.clone());
    assert_eq!(
        (preview.is_error, preview.text.as_str()),
        (
            false,
            "rename add → total: 3 edits in 2 files\napp.py:\n  1 - from lib import add\n  1 + from lib import total\n  3 - print(add(1, 2))\n  3 + print(total(1, 2))\nlib.py:\n  1 - def add(a: int, b: int) -> int:\n  1 + def total(a: int, b: int) -> int:\n"
        )
    );
    let mut apply = args;
    apply["dry_run"] = json!(false);
    let applied = d.call("s", "rename", apply);
    assert_eq!(
        (applied.is_error, applied.text.as_str()),
        (
            false,
            "renamed add → total: 3 edits in 2 files\nno errors\ncheckpoint: cp1 (before this change)\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(p.path("app.py")).unwrap(),
        "from lib import total\n\nprint(total(1, 2))\n"
    );
    let listed = d.call(
        "s",
        "code_actions",
        json!({ "file": p.path("app.py"), "line": 1, "kind": "source.organizeImports" }),
    );
    assert!(!listed.is_error, "{}", listed.text);
    d.close("s");
}
