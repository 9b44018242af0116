//! One test per server fault, driven by the scripted fake server. Each checks
//! the answer the agent gets and that the next call recovers.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sightline::Budgets;

use serde_json::json;

use super::fake::{self, A_DIAGS, ALPHA_DEF, budgets, project, wait_for_log, workspace};
use sightline_test_support::{defs, diags, refs, runtime};

/// Asks for `alpha`'s definition from its use in `a.fake`.
async fn alpha(ws: &sightline::Engine, p: &sightline_test_support::Project) -> String {
    defs(ws, &p.path("a.fake"), 2, 1).await
}

#[test]
fn crash_mid_request() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "run": 1, "actions": [{ "crash": 3 }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            alpha(&ws, &p).await,
            "error: fake exited with status 3; stderr: fake: crashing on textDocument/definition as scripted\n"
        );
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn crash_during_initialize() {
    let p = project(json!({ "rules": [
        { "method": "initialize", "run": 1, "actions": [{ "crash": 4 }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "error: fake failed to initialize: fake exited with status 4; stderr: fake: crashing on initialize as scripted\n"
        );
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        ws.shutdown().await;
    });
}

#[test]
fn exit_at_spawn() {
    let p = project(json!({ "rules": [
        { "method": "$spawn", "run": 1, "actions": [{ "crash": 7 }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "error: fake failed to initialize: fake exited with status 7; stderr: fake: crashing on $spawn as scripted\n"
        );
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        ws.shutdown().await;
    });
}

#[test]
fn initialize_past_its_budget() {
    let p = project(json!({ "rules": [
        { "method": "initialize", "run": 1, "actions": ["hang"] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            initialize: Duration::from_secs(1),
            ..budgets()
        });
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "error: fake did not finish initializing within 1 s\n"
        );
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        ws.shutdown().await;
    });
}

#[test]
fn a_hung_request_does_not_hold_up_others_and_is_cancelled() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": ["hang"] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        // Start the server first, so both calls below meet a running one.
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let hung_done = Arc::new(AtomicBool::new(false));
        let hung = async {
            let answer = alpha(&ws, &p).await;
            hung_done.store(true, Ordering::SeqCst);
            answer
        };
        let other = async {
            wait_for_log(&p, "textDocument/definition").await;
            let answer = refs(&ws, &p.path("b.fake"), 1, 1).await;
            // The hung call is still waiting when this one is answered.
            assert!(!hung_done.load(Ordering::SeqCst));
            answer
        };
        let (hung, other) = tokio::join!(hung, other);
        assert_eq!(
            other,
            "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n"
        );
        assert_eq!(
            hung,
            // A timeout keeps its kind: the server is busy, not broken.
            "not ready: fake did not answer textDocument/definition within 3.0 s; ask again shortly\n"
        );
        wait_for_log(&p, "<- $/cancelRequest").await;
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn a_dropped_call_cancels_its_request() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": ["hang"] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        tokio::select! {
            answer = alpha(&ws, &p) => panic!("the hung request was answered: {answer}"),
            _ = wait_for_log(&p, "<- textDocument/definition") => {}
        }
        let log = wait_for_log(&p, "<- $/cancelRequest").await;
        assert!(log.contains(r#"$/cancelRequest {"id":"#), "{log}");
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn malformed_header() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": ["malformed_header"] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        // The body after the broken header is still a whole message on its
        // own line, and reads as one.
        assert_eq!(alpha(&ws, &p).await, "no definitions\n");
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn truncated_body() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": [
            "truncated",
            { "notify": { "method": "window/logMessage", "params": { "type": 4, "message": "after the cut" } } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        let first = alpha(&ws, &p).await;
        assert!(
            first.starts_with("error: fake's answer to textDocument/definition was rejected: it is not valid JSON-RPC"),
            "{first}"
        );
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn invalid_json() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": [
            { "raw_body": "{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":[{\"uri\": oops" },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        let first = alpha(&ws, &p).await;
        assert!(
            first.starts_with("error: fake's answer to textDocument/definition was rejected: it is not valid JSON-RPC"),
            "{first}"
        );
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn fifty_megabyte_message() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": [{ "oversized": 50_000_000 }] },
    ] }));
    runtime().block_on(async {
        // Moving 50 MB through a debug build on a loaded CI machine has taken
        // more than the 3 s the other fault tests give a request; this test is
        // about the rejection, not the time.
        let ws = workspace(Budgets {
            request: Duration::from_secs(20),
            ..budgets()
        });
        let first = alpha(&ws, &p).await;
        assert!(
            first.starts_with(
                "error: fake's answer to textDocument/definition was rejected: it is 500000"
            ) && first.ends_with("bytes, over the 33554432-byte limit\n"),
            "{first}"
        );
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn non_protocol_text_on_stdout() {
    let p = project(json!({ "rules": [
        { "method": "$spawn", "actions": [{ "raw": "Debugger listening on ws://127.0.0.1:9229\nnpm WARN config\n" }] },
        { "method": "textDocument/definition", "nth": 1, "actions": [{ "raw": "loaded 3 plugins\r\n" }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn a_push_for_an_old_version_is_never_returned() {
    let p = project(json!({
        "push": "versioned",
        "rules": [
            // After the edit, the server first publishes for the old text,
            // then (later) for the new one.
            { "method": "textDocument/didChange", "actions": [
                { "publish": { "which": "previous", "versioned": true } },
                { "sleep_ms": 300 },
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        p.write("a.fake", "def alpha\nalpha\nWARN\n");
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 1 diagnostic\n3:1 warning: found WARN [fake]\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn when_only_an_old_version_arrives_the_answer_says_so() {
    let p = project(json!({
        "push": "versioned",
        "rules": [
            { "method": "textDocument/didChange", "actions": [
                { "publish": { "which": "previous", "versioned": true } },
                "ignore",
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            document: Duration::from_secs(1),
            ..budgets()
        });
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        p.write("a.fake", "def alpha\n");
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: no diagnostics\nnote: fake was still analysing after 1.0 s; results may be incomplete\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn unversioned_pushes_wait_for_quiet() {
    let p = project(json!({
        "push": "unversioned",
        "rules": [
            // After an edit, a publish for the old text comes first, then
            // (within the quiet period) the one for the new text.
            { "method": "textDocument/didChange", "actions": [
                { "publish": { "which": "previous", "versioned": false } },
                { "sleep_ms": 50 },
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        p.write("a.fake", "def alpha\nWARN\n");
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 1 diagnostic\n2:1 warning: found WARN [fake]\n"
        );
        ws.shutdown().await;
    });
}

/// Asks for diagnostics until the answer is `want`, within 15 s.
/// Asks `a.fake`'s diagnostics until they are `want`; every answer before
/// must be `before` (the state the background work has not changed yet),
/// never another: a stale or half-merged answer in between fails.
async fn diags_until(
    ws: &sightline::Engine,
    p: &sightline_test_support::Project,
    before: &str,
    want: &str,
) {
    let got = sightline_test_support::poll_until_async(Duration::from_secs(15), || async {
        let answer = diags(ws, &p.path("a.fake")).await;
        if answer == want {
            return Some(());
        }
        assert_eq!(answer, before, "an answer in between");
        None
    })
    .await;
    // Every answer until then was `before`.
    assert!(got.is_some(), "never got {want:?}; last: {before:?}");
}

#[test]
fn a_pull_registration_after_the_first_pull_is_used_next_time() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "identifier": "first", "interFileDependencies": false, "workspaceDiagnostics": false } },
        "rules": [
            { "method": "textDocument/diagnostic", "nth": 1, "actions": [{ "register_pull": "second" }] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 1 diagnostic\n2:7 error: found ERR (first) [first]\n"
        );
        wait_for_log(&p, "response String(\"fake-1\") ok null").await;
        diags_until(
            &ws,
            &p,
            "a.fake: 1 diagnostic\n2:7 error: found ERR (first) [first]\n",
            "a.fake: 2 diagnostics\n2:7 error: found ERR (first) [first]\n2:7 error: found ERR (second) [second]\n",
        )
        .await;
        assert!(fake::log(&p).contains(r#""identifier":"second""#));
        ws.shutdown().await;
    });
}

#[test]
fn the_first_pull_answers_and_slower_ones_merge_later() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "identifier": "fast", "interFileDependencies": false, "workspaceDiagnostics": false } },
        "rules": [
            { "method": "initialized", "actions": [{ "register_pull": "slow" }] },
            { "method": "textDocument/diagnostic", "identifier": "slow", "actions": [{ "delay_ms": 1500 }] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 1 diagnostic\n2:7 error: found ERR (fast) [fast]\n"
        );
        // The slow answer lands in the background and joins later answers.
        diags_until(
            &ws,
            &p,
            "a.fake: 1 diagnostic\n2:7 error: found ERR (fast) [fast]\n",
            "a.fake: 2 diagnostics\n2:7 error: found ERR (fast) [fast]\n2:7 error: found ERR (slow) [slow]\n",
        )
        .await;
        // After an edit, the fast provider answers alone at first; the slow
        // provider's answer for the old text is not shown.
        p.write("a.fake", "def alpha\nERR alpha\n");
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 1 diagnostic\n2:1 error: found ERR (fast) [fast]\n"
        );
        diags_until(
            &ws,
            &p,
            "a.fake: 1 diagnostic\n2:1 error: found ERR (fast) [fast]\n",
            "a.fake: 2 diagnostics\n2:1 error: found ERR (fast) [fast]\n2:1 error: found ERR (slow) [slow]\n",
        )
        .await;
        ws.shutdown().await;
    });
}

#[test]
fn a_refresh_during_a_pull_pulls_again() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "interFileDependencies": false, "workspaceDiagnostics": false } },
        "rules": [
            { "method": "textDocument/diagnostic", "nth": 1, "actions": [
                { "request": { "method": "workspace/diagnostic/refresh", "params": null } },
                { "delay_ms": 100 },
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let pulls = fake::log(&p).matches("<- textDocument/diagnostic").count();
        assert_eq!(pulls, 2, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}

#[test]
fn a_server_that_never_answers_shutdown_is_still_killed() {
    let p = project(json!({ "rules": [
        { "method": "$spawn", "actions": ["spawn_child"] },
        { "method": "shutdown", "actions": ["hang"] },
        { "method": "exit", "actions": ["ignore"] },
        { "method": "$eof", "actions": ["hang"] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let mut pids = ws.servers().pids();
        pids.push(fake::child_pid(&p));
        assert!(pids.iter().all(|&pid| sightline_test_support::alive(pid)));
        ws.shutdown().await;
        fake::wait_gone(&pids).await;
    });
}

#[test]
fn a_flood_of_a_hundred_thousand_notifications() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/definition", "nth": 1, "actions": [
            { "flood": { "count": 100_000, "method": "window/logMessage" } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            request: Duration::from_secs(30),
            ..budgets()
        });
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn an_unknown_server_request_gets_method_not_found() {
    let p = project(json!({ "rules": [
        { "method": "textDocument/didOpen", "actions": [
            { "request": { "method": "custom/somethingNew", "params": {} } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        wait_for_log(&p, "response String(\"fake-1\") error -32601").await;
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

/// The text a tool gives for `hover` on `alpha` in `a.fake`.
async fn hover(ws: &sightline::Engine, p: &sightline_test_support::Project) -> String {
    match ws.hover(&p.path("a.fake"), 2, 1).await {
        Ok(h) => sightline::hover_text(&h),
        Err(e) => sightline::error_text(&e),
    }
}

/// Capabilities a server registers after `initialize` count as offered, the
/// way declared ones do, until it unregisters them: hover and references
/// here are declared off and registered once the first definition is asked.
#[test]
fn dynamically_registered_capabilities_are_used_until_unregistered() {
    let p = project(json!({
        "capabilities": { "hoverProvider": false, "referencesProvider": false },
        "rules": [
            { "method": "textDocument/definition", "nth": 1, "actions": [
                { "request": { "method": "client/registerCapability", "params": { "registrations": [
                    { "id": "hover-1", "method": "textDocument/hover", "registerOptions": { "documentSelector": [{ "pattern": "**/*.fake" }] } },
                    { "id": "refs-1", "method": "textDocument/references" },
                ] } } },
            ] },
            { "method": "textDocument/hover", "nth": 1, "actions": [
                { "request": { "method": "client/unregisterCapability", "params": { "unregisterations": [
                    { "id": "hover-1", "method": "textDocument/hover" },
                ] } } },
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            hover(&ws, &p).await,
            "unsupported: fake does not support hover\n"
        );
        assert_eq!(alpha(&ws, &p).await, ALPHA_DEF);
        wait_for_log(&p, "response String(\"fake-1\") ok null").await;
        assert_eq!(hover(&ws, &p).await, "`alpha`\n");
        assert_eq!(
            refs(&ws, &p.path("a.fake"), 2, 1).await,
            "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n"
        );
        wait_for_log(&p, "response String(\"fake-2\") ok null").await;
        assert_eq!(
            hover(&ws, &p).await,
            "unsupported: fake does not support hover\n"
        );
        // Only the hover registration went.
        assert_eq!(
            refs(&ws, &p.path("a.fake"), 2, 1).await,
            "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n"
        );
        ws.shutdown().await;
    });
}

// ----- the engine's merging, with well-behaved fake servers ---------------

#[test]
fn the_same_finding_pushed_and_pulled_shows_once() {
    // Pushes (versioned) and an unnamed pull provider report the same errors.
    let p = project(json!({
        "capabilities": { "diagnosticProvider": { "interFileDependencies": false, "workspaceDiagnostics": false } },
    }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let log = fake::log(&p);
        assert!(
            log.contains("publish version 1") && log.contains("<- textDocument/diagnostic"),
            "{log}"
        );
        ws.shutdown().await;
    });
}

#[test]
fn two_servers_on_one_file_merge_without_duplicates() {
    // A second server for `.fake` files: the same program under another id.
    let twin: &'static sightline::ServerSpec = Box::leak(Box::new(sightline::ServerSpec {
        id: "fake-twin",
        ..sightline::FAKE
    }));
    let p = project(json!({}));
    p.write("a.fake", "def alpha\nalpha ERR\nWARN\n");
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            servers: vec![&sightline::FAKE, twin],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: budgets(),
            ..sightline::Options::default()
        });
        assert_eq!(
            diags(&ws, &p.path("a.fake")).await,
            "a.fake: 2 diagnostics\n2:7 error: found ERR [fake]\n3:1 warning: found WARN [fake]\n"
        );
        assert_eq!(ws.servers().pids().len(), 2);
        ws.shutdown().await;
    });
}

#[test]
fn a_busy_status_notification_holds_cross_file_questions() {
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [
            { "notify": { "method": "experimental/serverStatus", "params": { "health": "ok", "quiescent": false, "message": "loading crates" } } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            ready: Duration::from_millis(500),
            ..budgets()
        });
        assert_eq!(
            refs(&ws, &p.path("b.fake"), 1, 1).await,
            "not ready: fake was still indexing (loading crates) after 0.5 s; ask again shortly\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn workspace_diagnostics_cover_every_file_and_reuse_unchanged_results() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "interFileDependencies": true, "workspaceDiagnostics": true } },
    }));
    p.write("c.fake", "WARN\n");
    let render = |all: Vec<sightline::Diagnostics>| -> String {
        all.iter().map(sightline::diagnostics_text).collect()
    };
    runtime().block_on(async {
        let ws = workspace(budgets());
        let first = ws.workspace_diagnostics(&p.path("a.fake")).await.unwrap();
        assert_eq!(
            render(first),
            "a.fake: 1 diagnostic\n2:7 error: found ERR [fake]\nb.fake: no diagnostics\nc.fake: 1 diagnostic\n1:1 warning: found WARN [fake]\n"
        );
        // A file nobody opened changes on disk; the others are unchanged.
        p.write("c.fake", "ok\nERR\n");
        let second = ws.workspace_diagnostics(&p.path("a.fake")).await.unwrap();
        assert_eq!(
            render(second),
            "a.fake: 1 diagnostic\n2:7 error: found ERR [fake]\nb.fake: no diagnostics\nc.fake: 1 diagnostic\n2:1 error: found ERR [fake]\n"
        );
        let log = fake::log(&p);
        assert!(log.contains(r#""previousResultIds":[{"#), "{log}");
        ws.shutdown().await;
    });
}

/// A project check asks a server that offers `workspace/diagnostic` once
/// for all its files, not file by file, and sees a change on disk.
#[test]
fn a_project_check_uses_workspace_diagnostics_where_offered() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "interFileDependencies": true, "workspaceDiagnostics": true } },
    }));
    p.write("c.fake", "ERR\nERR\n");
    runtime().block_on(async {
        let ws = workspace(budgets());
        let checked = ws.check(Some(p.root())).await.unwrap();
        assert_eq!(
            checked.text(),
            "3 errors in 2 files (3 checked)\nc.fake: 2 errors\n  1:1 found ERR [fake]\n  2:1 found ERR [fake]\na.fake: 1 error\n  2:7 found ERR [fake]\n"
        );
        assert_eq!(fake::received(&p, "workspace/diagnostic"), 1, "{}", fake::log(&p));
        assert_eq!(fake::received(&p, "textDocument/diagnostic"), 0, "{}", fake::log(&p));
        p.write("c.fake", "fixed\n");
        let checked = ws.check(Some(p.root())).await.unwrap();
        assert_eq!(
            checked.text(),
            "1 error in 1 file (3 checked)\na.fake: 1 error\n  2:7 found ERR [fake]\n"
        );
        assert_eq!(fake::received(&p, "workspace/diagnostic"), 2);
        ws.shutdown().await;
    });
}

#[test]
fn references_reuse_the_definition_just_asked_until_anything_changes() {
    let p = project(json!({ "rules": [] }));
    let asked = |p: &sightline_test_support::Project| fake::received(p, "textDocument/definition");
    runtime().block_on(async {
        let ws = workspace(budgets());
        let a = p.path("a.fake");
        assert_eq!(defs(&ws, &a, 2, 1).await, ALPHA_DEF);
        assert_eq!(asked(&p), 1);
        let both = "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n";
        assert_eq!(refs(&ws, &a, 2, 1).await, both);
        // The declaration was taken out with the definition kept from the
        // question before: the server was not asked again.
        assert_eq!(asked(&p), 1, "{}", fake::log(&p));
        // The definition tool itself always asks the server.
        assert_eq!(defs(&ws, &a, 2, 1).await, ALPHA_DEF);
        assert_eq!(asked(&p), 2, "{}", fake::log(&p));
        // Another file changes on disk: nothing kept counts any more.
        p.write("b.fake", "alpha again\nalpha\n");
        let three =
            "3 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\nb.fake:2:1 alpha\n";
        assert_eq!(refs(&ws, &a, 2, 1).await, three);
        assert_eq!(asked(&p), 3, "{}", fake::log(&p));
        ws.shutdown().await;
    });
}
