//! Server lifetime: no process outlives sightline, even when it is killed with
//! SIGKILL while pyright and tsserver run.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use sightline_test_support::{BatchSession, Project, alive, descendants, poll_until_async};

#[test]
fn sigkill_leaves_no_server_behind() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("package.json", "{}"),
        ("tsconfig.json", "{}"),
        ("a.py", "x: int = 1\n"),
        ("b.ts", "export const y: number = 1;\n"),
    ]);
    let mut s = BatchSession::builder().start();
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("a.py").display())),
        "a.py: no diagnostics\n"
    );
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("b.ts").display())),
        "b.ts: no diagnostics\n"
    );
    let family = descendants(s.pid());
    let names: Vec<String> = family
        .iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).ok())
        .map(|c| c.replace('\0', " "))
        .collect();
    assert!(names.iter().any(|n| n.contains("pyright")), "{names:?}");
    assert!(names.iter().any(|n| n.contains("tsserver")), "{names:?}");
    s.kill();
    assert_all_gone(&family);
}

#[test]
fn closing_stdin_shuts_servers_down() {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let mut s = BatchSession::builder().start();
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("a.py").display())),
        "a.py: no diagnostics\n"
    );
    let family: Vec<u32> = descendants(s.pid());
    assert!(!family.is_empty());
    drop(s);
    assert_all_gone(&family);
}

// ----- with the scripted fake server ---------------------------------------

use serde_json::json;
use sightline::Budgets;

use super::fake::{self, A_DIAGS, ALPHA_DEF, budgets, project, wait_for_log, wait_gone, workspace};
use sightline_test_support::{defs, diags, refs, runtime};

#[test]
fn a_server_failing_again_and_again_is_broken_then_retried_after_a_cool_down() {
    let p = project(json!({ "rules": [
        { "method": "initialize", "actions": [{ "crash": 5 }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            cooldown: Duration::from_secs(3),
            ..budgets()
        });
        let failed = "error: fake failed to initialize: fake exited with status 5; stderr: fake: crashing on initialize as scripted\n";
        // Three failed starts (the second and third after a back-off)...
        for _ in 0..3 {
            assert_eq!(diags(&ws, &p.path("a.fake")).await, failed);
        }
        // ...and the server is reported broken, with the reason, and not
        // started again.
        let broken = diags(&ws, &p.path("a.fake")).await;
        assert!(
            broken.starts_with("error: fake is broken: it failed 3 times in 3 s; last failure: fake failed to initialize: fake exited with status 5; stderr: fake: crashing on initialize as scripted; sightline tries it again in "),
            "{broken}"
        );
        assert_eq!(std::fs::read_to_string(p.path("fake-lsp.runs")).unwrap(), "3");
        // `sightline servers` reports it broken, with the reason.
        let state = fake_state(&ws, &p);
        assert!(state.starts_with("broken for ") && state.contains("crashing on initialize"), "{state}");
        // Once the cool-down has passed, it is tried again.
        fake::set_script(&p, json!({}));
        // Until then, each answer says it is broken.
        let retried = poll_until_async(Duration::from_secs(15), || async {
            let answer = diags(&ws, &p.path("a.fake")).await;
            assert!(answer == A_DIAGS || answer.contains("is broken"), "{answer}");
            (answer == A_DIAGS).then_some(())
        })
        .await;
        assert!(retried.is_some(), "never retried");
        assert_eq!(std::fs::read_to_string(p.path("fake-lsp.runs")).unwrap(), "4");
        let pid = ws.servers().pids()[0];
        assert_eq!(fake_state(&ws, &p), format!("running for {} (pid {pid})", p.root().display()));
        ws.shutdown().await;
    });
}

#[test]
fn idle_servers_shut_down_and_start_again_on_demand() {
    let p = project(json!({}));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            idle_server: Duration::from_millis(500),
            ..budgets()
        });
        assert_eq!(alpha_def(&ws, &p).await, ALPHA_DEF);
        let pids = ws.servers().pids();
        wait_for_log(&p, "<- exit").await;
        wait_gone(&pids).await;
        assert!(ws.servers().pids().is_empty());
        assert_eq!(alpha_def(&ws, &p).await, ALPHA_DEF);
        assert_eq!(
            std::fs::read_to_string(p.path("fake-lsp.runs")).unwrap(),
            "2"
        );
        ws.shutdown().await;
    });
}

#[test]
fn documents_not_asked_about_are_closed() {
    let p = project(json!({}));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            idle_document: Duration::from_millis(300),
            ..budgets()
        });
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let log = wait_for_log(&p, "<- textDocument/didClose").await;
        assert!(log.contains("a.fake"), "{log}");
        // Asking again opens it again.
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        let log = fake::log(&p);
        assert_eq!(log.matches("<- textDocument/didOpen").count(), 2, "{log}");
        ws.shutdown().await;
    });
}

#[test]
fn cross_file_questions_wait_for_indexing_to_end() {
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [
            { "progress_begin": "index" },
            { "progress_end": { "token": "index", "after_ms": 800 } },
        ] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(budgets());
        assert_eq!(
            refs(&ws, &p.path("b.fake"), 1, 1).await,
            "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn a_server_indexing_past_the_budget_answers_not_ready() {
    let p = project(json!({ "rules": [
        { "method": "initialized", "actions": [{ "progress_begin": "index" }] },
    ] }));
    runtime().block_on(async {
        let ws = workspace(Budgets {
            ready: Duration::from_millis(500),
            ..budgets()
        });
        assert_eq!(
            refs(&ws, &p.path("b.fake"), 1, 1).await,
            "not ready: fake was still indexing (indexing) after 0.5 s; ask again shortly\n"
        );
        // Questions about one file do not wait for the index.
        assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, ALPHA_DEF);
        ws.shutdown().await;
    });
}

/// The fake server's line of `sightline servers`, without its id and
/// extension columns.
fn fake_state(ws: &sightline::Engine, p: &sightline_test_support::Project) -> String {
    let states = ws.servers().states(p.root());
    let fake: Vec<_> = states.into_iter().filter(|s| s.id == "fake").collect();
    let text = sightline::servers_text(&fake);
    text.trim_end()
        .split_once(".fake")
        .unwrap()
        .1
        .trim()
        .to_owned()
}

async fn alpha_def(ws: &sightline::Engine, p: &sightline_test_support::Project) -> String {
    defs(ws, &p.path("a.fake"), 2, 1).await
}

/// Starts `sightline-fake-lsp host` (a sightline process serving `a.fake`
/// with a fake server that ignores `shutdown`, `exit` and the end of its
/// input, and has a child of its own), and waits for its first answer.
fn host(p: &sightline_test_support::Project) -> (std::process::Child, Vec<u32>) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(fake::fake_bin())
        .arg("host")
        .arg(p.path("a.fake"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answer = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line == "ready" {
            break;
        }
        answer.push_str(&line);
        answer.push('\n');
    }
    assert_eq!(answer, A_DIAGS);
    let family = descendants(child.id());
    assert!(family.contains(&fake::child_pid(p)), "{family:?}");
    (child, family)
}

fn stubborn_project() -> sightline_test_support::Project {
    project(json!({ "rules": [
        { "method": "$spawn", "actions": ["spawn_child"] },
        { "method": "shutdown", "actions": ["hang"] },
        { "method": "exit", "actions": ["ignore"] },
        { "method": "$eof", "actions": ["hang"] },
    ] }))
}

/// Polls for the real condition (every process gone), within 15 s.
fn assert_all_gone(family: &[u32]) {
    let left = || -> Vec<u32> { family.iter().copied().filter(|&p| alive(p)).collect() };
    let gone = sightline_test_support::poll_until(Duration::from_secs(15), || {
        left().is_empty().then_some(())
    });
    assert!(gone.is_some(), "still alive after 15 s: {:?}", left());
}

#[test]
fn sigterm_with_a_server_ignoring_shutdown_leaves_nothing_behind() {
    let p = stubborn_project();
    let (mut child, family) = host(&p);
    unsafe_free_kill(child.id(), "TERM");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "an orderly exit after SIGTERM");
    assert_all_gone(&family);
}

#[test]
fn sigkill_with_a_server_ignoring_shutdown_leaves_nothing_behind() {
    let p = stubborn_project();
    let (mut child, family) = host(&p);
    child.kill().unwrap();
    let _ = child.wait();
    assert_all_gone(&family);
}

/// Sends a signal with the `kill` command.
fn unsafe_free_kill(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok);
}
