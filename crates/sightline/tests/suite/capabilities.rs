//! `sightline capabilities`: for each language of a project, the server
//! that answers it, whether it is installed, and which tools and `lsp`
//! operations it supports, read from the running server's own `initialize`
//! answer (pyright and typescript-language-server at their pinned
//! versions); a language whose server is missing says how to install it.

#![allow(clippy::unwrap_used)]

use serde_json::Value;
use sightline_test_support::{Project, require, run_cli};

fn line<'a>(report: &'a Value, server: &str) -> &'a Value {
    report
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["server"] == server)
        .unwrap_or_else(|| panic!("no {server} in {report:#}"))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            // An unsupported question is (name, why).
            Value::Array(pair) => pair[0].as_str().unwrap().to_owned(),
            other => panic!("{other}"),
        })
        .collect()
}

#[test]
fn each_language_s_server_says_what_it_answers_from_its_own_initialize() {
    require("pyright-langserver");
    require("typescript-language-server");
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("app.py", "x: int = 1\n"),
        (
            "web/tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true}}",
        ),
        ("web/a.ts", "export const a = 1;\n"),
        ("b.zig", "const std = @import(\"std\");\n"),
    ]);
    let root = p.root().display().to_string();
    let (out, code) = run_cli(&["capabilities", "--json", "--root", &root], &[]);
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();

    let pyright = line(&report, "pyright");
    assert_eq!(pyright["language"], "Python", "{pyright:#}");
    assert!(
        pyright["state"] == "started" || pyright["state"] == "running",
        "{pyright:#}"
    );
    let answers = names(&pyright["supported"]);
    for q in [
        "lsp_diagnostics",
        "lsp_definition",
        "lsp_references",
        "hover",
        "rename",
    ] {
        assert!(answers.contains(&q.to_owned()), "{q}: {pyright:#}");
    }
    // pyright edits no imports when a file moves: said, with why.
    let not = pyright["unsupported"].as_array().unwrap();
    let moved = not
        .iter()
        .find(|u| u[0] == "move")
        .unwrap_or_else(|| panic!("{pyright:#}"));
    assert!(moved[1].as_str().unwrap().contains("willRename"), "{moved}");

    let ts = line(&report, "typescript");
    assert!(
        names(&ts["supported"]).contains(&"move".to_owned()),
        "{ts:#}"
    );
    assert!(
        names(&ts["supported"]).contains(&"goToImplementation".to_owned()),
        "{ts:#}"
    );

    // No server for Zig is installed here: how to get one, nothing started.
    let zig = report
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == "Zig")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(zig["state"], "missing", "{zig:#}");
    assert!(!zig["hint"].as_str().unwrap().is_empty(), "{zig:#}");
    assert!(zig["supported"].as_array().unwrap().is_empty(), "{zig:#}");

    // The text says the same, one language a block.
    let (text, code) = run_cli(&["capabilities", "--root", &root], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Python: pyright ("), "{text}");
    assert!(
        text.contains("  not move: pyright does not update imports when a file moves"),
        "{text}"
    );

    // Every built-in server with --all, none started for it.
    let (out, code) = run_cli(&["capabilities", "--all", "--json", "--root", &root], &[]);
    assert_eq!(code, 0, "{out}");
    let all: Value = serde_json::from_str(&out).unwrap();
    assert!(all.as_array().unwrap().len() > 20, "{all:#}");
    for l in all.as_array().unwrap() {
        assert!(
            ["not started", "missing", "off"].contains(&l["state"].as_str().unwrap()),
            "{l:#}"
        );
    }
}
