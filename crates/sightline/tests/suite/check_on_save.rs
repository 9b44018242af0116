//! A check run on save (rust-analyzer's `cargo check`), played by the fake
//! server with rust-analyzer's timing: a check cancelled at once and begun
//! again, whose findings come only from the second run.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline::{DiagnosticsQuirks, FAKE, Publishes, Quirks, SaveCheck, ServerSpec};
use sightline::{Engine, Options};
use sightline_test_support::{diags, runtime};

use super::fake::{self, A_DIAGS, budgets, project};

/// The fake server, checking on save as rust-analyzer does.
fn checking(restart_ms: u64) -> &'static ServerSpec {
    Box::leak(Box::new(ServerSpec {
        id: "fake-check",
        quirks: Quirks {
            diagnostics: DiagnosticsQuirks {
                save_check: Some(SaveCheck {
                    title: "cargo ",
                    restart_ms,
                }),
                ..DiagnosticsQuirks::NONE
            },
            ..Quirks::NONE
        },
        ..FAKE
    }))
}

/// rust-analyzer's pull answers hold only its own analysis; rustc's
/// findings come from the check's publishes. On the first save the check
/// begins, is cancelled 10 ms later (its progress ends as a finished one's
/// does), begins again 60 ms after, and publishes and ends a second later
/// (long after an answer that took the first end as final is given).
fn script() -> Value {
    on_first_save(vec![
        check_begins(),
        json!({ "later": { "ms": 10, "actions": [check_ends()] } }),
        json!({ "later": { "ms": 70, "actions": [check_begins()] } }),
        json!({ "later": { "ms": 1000, "actions": [publish()] } }),
        json!({ "later": { "ms": 1010, "actions": [check_ends()] } }),
    ])
}

/// A server whose pull answers are empty (rust-analyzer's own analysis of
/// the fixture) and that does `actions` on the first save.
fn on_first_save(actions: Vec<Value>) -> Value {
    json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": {
            "identifier": "native", "interFileDependencies": false, "workspaceDiagnostics": false,
        } },
        "rules": [
            { "method": "textDocument/diagnostic", "actions": [{ "reply": { "kind": "full", "items": [] } }] },
            { "method": "textDocument/didSave", "nth": 1, "actions": actions },
        ],
    })
}

fn check_begins() -> Value {
    json!({ "progress_titled": { "token": "flycheck", "title": "cargo check" } })
}

fn check_ends() -> Value {
    json!({ "progress_end": { "token": "flycheck", "after_ms": 0 } })
}

/// The check's findings: the fake's for the file's current text.
fn publish() -> Value {
    json!({ "publish": { "which": "current", "versioned": false } })
}

fn ask(restart_ms: u64) -> String {
    diagnose(&project(script()), checking(restart_ms))
}

/// The diagnostics of `a.fake`, asked of `spec` alone.
fn diagnose(p: &sightline_test_support::Project, spec: &'static ServerSpec) -> String {
    runtime().block_on(async {
        let ws = Engine::new(Options {
            servers: vec![spec],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: budgets(),
            ..Options::default()
        });
        let answer = diags(&ws, &p.path("a.fake")).await;
        ws.shutdown().await;
        answer
    })
}

/// The end of the cancelled run is not taken as the check's: the answer
/// waits out the restart and holds the second run's findings. Without the
/// wait (a server whose ends are final) the same script answers empty,
/// which is what sightline answered for rust-analyzer before.
#[test]
fn a_check_cancelled_and_begun_again_is_waited_for() {
    assert_eq!(ask(250), A_DIAGS);
    assert_eq!(ask(0), "a.fake: no diagnostics\n");
}

/// rust-analyzer cancels its check when a workspace reload begins (the
/// first check wrote `Cargo.lock`), and begins it again only once it is
/// quiescent, which can be long after the cancelled run ended. Here the
/// reload takes 600 ms, well past the settle time: the end during the
/// reload is not taken as the check's. Before, the answer after an edit
/// was empty on CI's loaded machine (`servers::native::rust_analyzer`).
#[test]
fn a_check_cancelled_by_a_reload_is_waited_for_until_the_server_is_idle() {
    let status = |quiescent: bool| {
        json!({ "notify": {
            "method": "experimental/serverStatus",
            "params": { "health": "ok", "quiescent": quiescent },
        } })
    };
    let script = on_first_save(vec![
        check_begins(),
        json!({ "later": { "ms": 10, "actions": [status(false), check_ends()] } }),
        json!({ "later": { "ms": 600, "actions": [status(true)] } }),
        json!({ "later": { "ms": 660, "actions": [check_begins()] } }),
        json!({ "later": { "ms": 1400, "actions": [publish()] } }),
        json!({ "later": { "ms": 1410, "actions": [check_ends()] } }),
    ]);
    let p = project(script);
    assert_eq!(diagnose(&p, checking(250)), A_DIAGS, "{}", fake::log(&p));
}

/// A server that publishes each version twice (Volar: astro, vue), the
/// first without its TypeScript findings: only the second counts.
#[test]
fn of_two_publishes_for_a_version_the_second_counts() {
    let ask = |twice: bool| {
        let p = project(json!({}));
        let uri = format!("file://{}", p.path("a.fake").display());
        fake::set_script(
            &p,
            json!({
                "push": "none",
                "rules": [{ "method": "textDocument/didOpen", "actions": [
                    { "later": { "ms": 50, "actions": [{ "notify": {
                        "method": "textDocument/publishDiagnostics",
                        "params": { "uri": uri, "version": 1, "diagnostics": [] },
                    } }] } },
                    { "later": { "ms": 400, "actions": [{ "publish": { "which": "current", "versioned": true } }] } },
                ] }],
            }),
        );
        let spec: &'static ServerSpec = Box::leak(Box::new(ServerSpec {
            id: "fake-twice",
            quirks: Quirks {
                diagnostics: DiagnosticsQuirks {
                    publishes: if twice {
                        Publishes::TwicePerVersion
                    } else {
                        Publishes::OncePerVersion
                    },
                    ..DiagnosticsQuirks::NONE
                },
                ..Quirks::NONE
            },
            ..FAKE
        }));
        diagnose(&p, spec)
    };
    assert_eq!(ask(true), A_DIAGS);
    assert_eq!(ask(false), "a.fake: no diagnostics\n");
}

/// After a change whose check does not end within the budget, the last
/// check's findings, which rust-analyzer publishes again stamped with the
/// new version, are not shown as current: a revert that removed an error
/// answered that error for 5 s (issue 31). The note says why.
#[test]
fn the_last_check_s_errors_are_not_shown_after_a_change_it_has_not_checked() {
    let p = project(json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "interFileDependencies": false, "workspaceDiagnostics": false } },
        "rules": [
            // The first save's check ends, with its findings.
            { "method": "textDocument/didSave", "nth": 1, "actions": [
                { "progress_titled": { "token": "check-1", "title": "cargo check" } },
                { "publish": { "which": "current", "versioned": true } },
                { "progress_end": { "token": "check-1", "after_ms": 50 } },
            ] },
            // The change is published with the last check's findings.
            { "method": "textDocument/didChange", "actions": [
                { "publish": { "which": "previous_as_current", "versioned": true } },
            ] },
            // The second check never ends.
            { "method": "textDocument/didSave", "nth": 2, "actions": [
                { "progress_titled": { "token": "check-2", "title": "cargo check" } },
            ] },
        ],
    }));
    runtime().block_on(async {
        let ws = Engine::new(Options {
            servers: vec![checking(0)],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: budgets(),
            ..Options::default()
        });
        let first = diags(&ws, &p.path("a.fake")).await;
        assert!(first.contains("found ERR"), "{first}\n{}", fake::log(&p));
        // The error is reverted.
        p.write("a.fake", "def alpha\nalpha fine\n");
        let after = diags(&ws, &p.path("a.fake")).await;
        assert!(
            !after.contains("found ERR"),
            "the removed error was shown: {after}\n{}",
            fake::log(&p)
        );
        assert!(
            after.contains("has not re-checked a.fake since the change"),
            "{after}"
        );
        ws.shutdown().await;
    });
}
