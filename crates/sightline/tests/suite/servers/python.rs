//! The Python servers beyond pyright (`catalog/table/python.rs`): basedpyright
//! and ty.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

const PY_LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";

const PY_APP: &str = "from lib import add\n\ntotal: int = add(1, 2)\nbroken: int = \"one\"\n";

fn python_case(config: Value) -> Case<'static> {
    Case {
        files: &[
            ("pyproject.toml", ""),
            ("lib.py", PY_LIB),
            ("app.py", PY_APP),
        ],
        config,
        diagnose: "app.py",
        definition: ("app.py", 3, 14),
        references: ("lib.py", 1, 5),
    }
}

#[test]
fn basedpyright() {
    require(&tools(
        "basedpyright/node_modules/.bin/basedpyright-langserver",
    ));
    let out = run(python_case(
        json!({ "lsp": { "pyright": { "disabled": true }, "basedpyright": {} } }),
    ));
    snapshot("basedpyright", &out);
}

#[test]
fn ty() {
    require(&tools(".venv/bin/ty"));
    let out = run(python_case(
        json!({ "lsp": { "pyright": { "disabled": true }, "ty": {} } }),
    ));
    snapshot("ty", &out);
}
