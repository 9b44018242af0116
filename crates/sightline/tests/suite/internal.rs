//! A panic inside a tool call is that call's answer: `error: internal error
//! in <tool>: ...` with `isError` over MCP, exit status 2 on the CLI. The
//! panic is injected with `SIGHTLINE_PANIC_IN` (debug builds only).

#![allow(clippy::unwrap_used)]

use serde_json::json;

use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{Project, path_with_tools, run_cli};

#[test]
fn a_panic_in_an_mcp_call_is_its_answer_and_the_session_goes_on() {
    let p = Project::new(&[("app.py", "def f():\n    return 1\n\nf()\n")]);
    let app = p.path("app.py");
    let mut d = McpDriver::start();
    d.open_env(
        "s",
        p.root(),
        &path_with_tools(),
        &["mcp"],
        &[("SIGHTLINE_PANIC_IN", "lsp_definition")],
    );
    let a = d.call(
        "s",
        "lsp_definition",
        json!({ "file": app, "line": 4, "column": 1 }),
    );
    assert!(a.is_error, "{a:?}");
    assert_eq!(
        a.text,
        "error: internal error in lsp_definition: injected by SIGHTLINE_PANIC_IN\n"
    );
    // The session is still up: other tools answer.
    let a = d.call(
        "s",
        "lsp_references",
        json!({ "file": app, "line": 1, "column": 5 }),
    );
    assert!(!a.is_error, "{a:?}");
    assert_eq!(a.text, "1 reference\napp.py:4:1 f()\n");
    d.close("s");
}

#[test]
fn a_panic_in_a_cli_command_exits_2_with_one_line() {
    let p = Project::new(&[("app.py", "x = 1\n")]);
    let file = p.path("app.py");
    // In process, through the daemon (the tool's own name there), and a
    // command that always runs in process.
    for (args, at) in [
        (&["--no-daemon", "diagnostics"][..], "diagnostics"),
        (&["diagnostics"][..], "lsp_diagnostics"),
        (&["read"][..], "read"),
    ] {
        let mut argv = args.to_vec();
        argv.push(file.to_str().unwrap());
        let (out, status) = run_cli(&argv, &[("SIGHTLINE_PANIC_IN", at)]);
        assert_eq!(
            out,
            format!("error: internal error in {at}: injected by SIGHTLINE_PANIC_IN\n")
        );
        assert_eq!(status, 2);
    }
}
