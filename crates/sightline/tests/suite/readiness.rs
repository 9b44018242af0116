//! A server that says when it has loaded its project (rust-analyzer's
//! `experimental/serverStatus`), played by the fake server under a twin
//! spec with that quirk: a definition is answered while it loads, an empty
//! one is asked again when its state changes, and questions across files
//! still wait for the load.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::json;
use sightline::{Budgets, FAKE, Quirks, Readiness, ServerSpec};
use sightline::{Engine, Options};
use sightline_test_support::{defs, refs, runtime};

use super::fake::{self, ALPHA_DEF, budgets, project};

/// The fake server, with rust-analyzer's "loaded once quiescent" quirk.
fn loading_spec() -> &'static ServerSpec {
    Box::leak(Box::new(ServerSpec {
        id: "fake-loading",
        quirks: Quirks {
            readiness: Readiness::AfterQuiescent { answers_while: &[] },
            ..Quirks::NONE
        },
        ..FAKE
    }))
}

fn engine(spec: &'static ServerSpec, budgets: Budgets) -> Engine {
    Engine::new(Options {
        servers: vec![spec],
        search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
        downloads: Some(false),
        budgets,
        ..Options::default()
    })
}

fn still_loading() -> serde_json::Value {
    json!({ "notify": { "method": "experimental/serverStatus",
        "params": { "health": "ok", "quiescent": false, "message": "indexing" } } })
}

#[test]
fn a_definition_is_answered_while_the_project_still_loads() {
    // The server never says it has loaded.
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [still_loading()] },
    ] }));
    runtime().block_on(async {
        let ws = engine(
            loading_spec(),
            Budgets {
                ready: Duration::from_millis(800),
                ..budgets()
            },
        );
        assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, ALPHA_DEF);
        // References need the whole project: they still wait, and say why.
        assert_eq!(
            refs(&ws, &p.path("b.fake"), 1, 1).await,
            "not ready: fake-loading was still loading its project (indexing) after 0.8 s; ask again shortly\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn an_empty_definition_while_loading_is_asked_again_when_the_server_loads() {
    // The first definition is answered empty, and the load ends right
    // after it: the answer after the load is the one given.
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [still_loading()] },
        { "method": "textDocument/definition", "nth": 1, "actions": [
            { "reply": [] },
            { "notify": { "method": "experimental/serverStatus",
                "params": { "health": "ok", "quiescent": true } } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = engine(loading_spec(), budgets());
        assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, ALPHA_DEF);
        let asked = fake::received(&p, "textDocument/definition");
        assert_eq!(asked, 2, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}

#[test]
fn an_empty_definition_after_the_load_stands() {
    // Loaded at once; an empty answer is the answer, asked once.
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [
            { "notify": { "method": "experimental/serverStatus",
                "params": { "health": "ok", "quiescent": true } } },
        ] },
        { "method": "textDocument/definition", "actions": [{ "reply": [] }] },
    ] }));
    runtime().block_on(async {
        let ws = engine(loading_spec(), budgets());
        // A hover waits for the load, so the definition is asked after it.
        let _ = ws.hover(&p.path("a.fake"), 2, 1).await;
        assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, "no definitions\n");
        let asked = fake::received(&p, "textDocument/definition");
        assert_eq!(asked, 1, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}

#[test]
fn a_definition_that_stays_empty_while_loading_ends_not_ready() {
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [still_loading()] },
        { "method": "textDocument/definition", "actions": [{ "reply": [] }] },
    ] }));
    runtime().block_on(async {
        let ws = engine(
            loading_spec(),
            Budgets {
                ready: Duration::from_millis(500),
                ..budgets()
            },
        );
        assert_eq!(
            defs(&ws, &p.path("a.fake"), 2, 1).await,
            "not ready: fake-loading was still loading its project (indexing) after 0.5 s; ask again shortly\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn a_loading_server_that_keeps_reporting_is_not_asked_over_and_over() {
    // Every empty answer comes with more status reports, as rust-analyzer
    // sends while it loads: the question is asked once while nothing else
    // runs, not once per report.
    let report = |n: u32| {
        json!({ "notify": { "method": "experimental/serverStatus",
            "params": { "health": "ok", "quiescent": false, "message": format!("loading {n}") } } })
    };
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [still_loading()] },
        { "method": "textDocument/definition",
          "actions": [{ "reply": [] }, report(1), report(2), report(3), report(4)] },
    ] }));
    runtime().block_on(async {
        let ws = engine(
            loading_spec(),
            Budgets {
                ready: Duration::from_millis(700),
                ..budgets()
            },
        );
        assert_eq!(
            defs(&ws, &p.path("a.fake"), 2, 1).await,
            "not ready: fake-loading was still loading its project (loading 4) after 0.7 s; ask again shortly\n"
        );
        let asked = fake::received(&p, "textDocument/definition");
        assert_eq!(asked, 1, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}

#[test]
fn a_definition_failed_by_a_reload_is_asked_again_while_the_server_indexes() {
    // rust-analyzer at start: the definition asked once nothing runs meets a
    // new fetch of the workspace (progress that begins and ends while it is
    // answered) and fails with "content modified"; then it only indexes
    // (a progress it answers during) and never says it has loaded. The
    // definition is asked again at once, not after the indexing.
    let spec: &'static ServerSpec = Box::leak(Box::new(ServerSpec {
        id: "fake-reloading",
        quirks: Quirks {
            readiness: Readiness::AfterQuiescent {
                answers_while: &["Indexing"],
            },
            ..Quirks::NONE
        },
        ..FAKE
    }));
    let progress = |token: &str, value: serde_json::Value| json!({ "notify": { "method": "$/progress", "params": { "token": token, "value": value } } });
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [still_loading()] },
        { "method": "textDocument/definition", "nth": 1, "actions": [
            progress("fetch", json!({ "kind": "begin", "title": "Fetching" })),
            progress("fetch", json!({ "kind": "end" })),
            progress("prime", json!({ "kind": "begin", "title": "Indexing" })),
            { "error": { "code": -32801, "message": "content modified" } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = engine(
            spec,
            Budgets {
                ready: Duration::from_secs(3),
                ..budgets()
            },
        );
        assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, ALPHA_DEF);
        let asked = fake::received(&p, "textDocument/definition");
        assert_eq!(asked, 2, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}

/// A loaded server that fails a question with "content modified" (as
/// rust-analyzer does while it reloads after a `Cargo.lock` change) is
/// asked again, and the question is answered, not failed.
#[test]
fn a_question_failed_with_content_modified_is_asked_again() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1,
          "actions": [{ "error": { "code": -32801, "message": "content modified" } }] },
    ] }));
    runtime().block_on(async {
        let ws = fake::workspace(budgets());
        assert_eq!(defs(&ws, &p.path("b.fake"), 1, 1).await, ALPHA_DEF);
        assert_eq!(fake::received(&p, "textDocument/definition"), 2);
        ws.shutdown().await;
    });
}
