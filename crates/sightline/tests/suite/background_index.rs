//! A server that indexes the project in the background (`Quirks::index`,
//! clangd): a definition that is only a declaration, answered before the
//! index is done, waits for the index and is asked again; when the index
//! outlasts the budget, the answer says what it is. Played by the fake
//! server, whose first definition answers a prototype (`def alpha;`) and
//! whose index progress ends when the script says; clangd itself on zlib is
//! in `c_library`.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline::{BackgroundIndex, Engine, FAKE, Options, Quirks, ServerSpec};
use sightline_test_support::{defs, refs, runtime};

use super::fake::{self, budgets, project};

fn indexing_server() -> &'static ServerSpec {
    Box::leak(Box::new(ServerSpec {
        id: "fake-clangd",
        quirks: Quirks {
            index: Some(BackgroundIndex {
                title: "indexing",
                when: &[],
                definition_may_be_declaration: true,
            }),
            ..Quirks::NONE
        },
        ..FAKE
    }))
}

fn location(p: &sightline_test_support::Project, file: &str) -> Value {
    json!([{ "uri": format!("file://{}", p.path(file).display()),
             "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 9 } } }])
}

/// The fake's answers: the prototype in `a.fake` first, the body in
/// `c.fake` after; its index begins at the first `didOpen` and ends
/// `index_ms` later.
fn answer(index_ms: u64, references: bool) -> (sightline_test_support::Project, String) {
    let p = project(json!({}));
    p.write("a.fake", "def alpha;\n");
    p.write("c.fake", "def alpha {\n}\n");
    let proto = location(&p, "a.fake");
    let body = location(&p, "c.fake");
    fake::set_script(
        &p,
        json!({ "rules": [
            { "method": "textDocument/didOpen", "nth": 1, "actions": [
                { "progress_titled": { "token": "bg", "title": "indexing" } },
                { "progress_end": { "token": "bg", "after_ms": index_ms } },
            ] },
            { "method": "textDocument/definition", "nth": 1, "actions": [{ "reply": proto }] },
            { "method": "textDocument/definition", "actions": [{ "reply": body }] },
        ] }),
    );
    let text = runtime().block_on(async {
        let ws = Engine::new(Options {
            servers: vec![indexing_server()],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: budgets(),
            ..Options::default()
        });
        let text = if references {
            refs(&ws, &p.path("b.fake"), 1, 1).await
        } else {
            defs(&ws, &p.path("b.fake"), 1, 1).await
        };
        ws.shutdown().await;
        text
    });
    (p, text)
}

#[test]
fn a_declaration_answered_before_the_index_is_done_is_asked_again_after_it() {
    let (p, text) = answer(300, false);
    assert_eq!(
        text,
        "1 definition\nc.fake:1:5 def alpha {\n",
        "{}",
        fake::log(&p)
    );
    assert_eq!(
        fake::log(&p).matches("<- textDocument/definition").count(),
        2
    );
}

#[test]
fn a_declaration_still_unindexed_when_the_budget_ends_says_so() {
    // The budget is 3 s (`fake::budgets`).
    let (p, text) = answer(60_000, false);
    assert_eq!(
        text,
        "1 definition\nnote: fake-clangd is still indexing the project; this is the declaration, the definition may be in a file not indexed yet\na.fake:1:5 def alpha;\n",
        "{}",
        fake::log(&p)
    );
}

#[test]
fn references_while_the_index_outlasts_the_budget_say_they_may_be_incomplete() {
    // (The fake's scripted definitions make `a.fake`'s prototype a use.)
    let (p, text) = answer(60_000, true);
    assert_eq!(
        text.lines().nth(1),
        Some("note: fake-clangd is still indexing the project; these references may be incomplete"),
        "{text}\n{}",
        fake::log(&p)
    );
    assert!(text.contains("\nb.fake:1:1 alpha again\n"), "{text}");
    // Once it is done, no note.
    let (p, text) = answer(300, true);
    assert!(!text.contains("note:"), "{text}\n{}", fake::log(&p));
    assert!(text.contains("\nb.fake:1:1 alpha again\n"), "{text}");
}
