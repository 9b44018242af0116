//! The declaration taken out of a references answer: the definition, and
//! a declaration apart from it (a stub, a header) asked for only when the
//! answer holds a file of another kind.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline_test_support::{Project, refs, runtime};

use super::fake::{self, budgets, project, workspace};

fn at(p: &Project, file: &str, line: u32, col: u32, len: u32) -> Value {
    json!({
        "uri": sightline_test_support::direct::uri(&p.path(file)),
        "range": { "start": { "line": line, "character": col },
                   "end": { "line": line, "character": col + len } },
    })
}

fn declarations_asked(p: &Project) -> usize {
    fake::received(p, "textDocument/declaration")
}

#[test]
fn a_stub_declaration_is_asked_for_and_taken_out_only_when_listed() {
    let p = project(json!({}));
    p.write("a.fakei", "def alpha\n");
    let (def, used, stub) = (
        at(&p, "a.fake", 0, 4, 5),
        at(&p, "b.fake", 0, 0, 5),
        at(&p, "a.fakei", 0, 4, 5),
    );
    fake::set_script(
        &p,
        json!({
            "capabilities": { "declarationProvider": true },
            "rules": [
                { "method": "textDocument/references", "nth": 1,
                  "actions": [{ "reply": [def, used] }] },
                { "method": "textDocument/references", "nth": 2,
                  "actions": [{ "reply": [def, used, stub] }] },
                { "method": "textDocument/declaration", "actions": [{ "reply": [stub] }] },
            ],
        }),
    );
    runtime().block_on(async {
        let ws = workspace(budgets());
        let one = "1 reference\nb.fake:1:1 alpha again\n";
        // Every place is a `.fake`, like the definition: no declaration
        // apart from it can be among them, and none is asked for.
        assert_eq!(refs(&ws, &p.path("a.fake"), 2, 1).await, one);
        assert_eq!(declarations_asked(&p), 0, "{}", fake::log(&p));
        // A `.fakei` is listed: the server's declaration names it, and it
        // is taken out with the definition.
        assert_eq!(refs(&ws, &p.path("a.fake"), 2, 1).await, one);
        assert_eq!(declarations_asked(&p), 1, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}
