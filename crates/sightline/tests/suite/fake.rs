//! Harness for the scripted fake server: a project holding `fake-lsp.json`,
//! a workspace that serves `.fake` files with it, and its log.

#![allow(clippy::unwrap_used, dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use sightline::{Budgets, FAKE};
use sightline::{Engine, Options};

use sightline_test_support::{Project, poll_until_async};

/// `a.fake` defines `alpha` and has one error on line 2; `b.fake` uses it.
pub const A: &str = "def alpha\nalpha ERR\n";
pub const B: &str = "alpha again\n";
pub const A_DIAGS: &str = "a.fake: 1 diagnostic\n2:7 error: found ERR [fake]\n";
pub const ALPHA_DEF: &str = "1 definition\na.fake:1:5 def alpha\n";

pub fn fake_bin() -> PathBuf {
    sightline_test_support::fake_lsp_bin()
}

/// A project whose fake server follows `script`.
pub fn project(script: Value) -> Project {
    let p = Project::new(&[("a.fake", A), ("b.fake", B)]);
    std::fs::create_dir_all(p.path(".git")).unwrap();
    set_script(&p, script);
    p
}

pub fn set_script(p: &Project, script: Value) {
    p.write(
        "fake-lsp.json",
        &serde_json::to_string_pretty(&script).unwrap(),
    );
}

/// Budgets short enough that a fault shows within a test, long enough for a
/// loaded machine.
pub fn budgets() -> Budgets {
    Budgets {
        request: Duration::from_secs(3),
        document: Duration::from_secs(3),
        ready: Duration::from_secs(3),
        initialize: Duration::from_secs(5),
        backoff: Duration::from_millis(100),
        cooldown: Duration::from_secs(2),
        ..Budgets::default()
    }
}

pub fn workspace(budgets: Budgets) -> Engine {
    Engine::new(Options {
        servers: vec![&FAKE],
        search_path: vec![fake_bin().parent().unwrap().to_path_buf()],
        downloads: Some(false),
        budgets,
        ..Options::default()
    })
}

pub fn log(p: &Project) -> String {
    std::fs::read_to_string(p.path("fake-lsp.log")).unwrap_or_default()
}

/// How many `method` messages the fake server received.
pub fn received(p: &Project, method: &str) -> usize {
    let start = format!("<- {method} ");
    log(p).lines().filter(|l| l.starts_with(&start)).count()
}

/// Polls the fake server's log until `needle` shows up, within 15 s.
pub async fn wait_for_log(p: &Project, needle: &str) -> String {
    let found = poll_until_async(Duration::from_secs(15), || async {
        let text = log(p);
        text.contains(needle).then_some(text)
    })
    .await;
    found.unwrap_or_else(|| panic!("the fake server never logged {needle:?}:\n{}", log(p)))
}

/// Polls until no process in `pids` is alive, within 15 s.
pub async fn wait_gone(pids: &[u32]) {
    let alive = || -> Vec<u32> {
        pids.iter()
            .copied()
            .filter(|&p| sightline_test_support::alive(p))
            .collect()
    };
    let gone = poll_until_async(Duration::from_secs(15), || async {
        alive().is_empty().then_some(())
    })
    .await;
    assert!(gone.is_some(), "still alive after 15 s: {:?}", alive());
}

/// The pid of the `sleep` child the fake server started, from its log.
pub fn child_pid(p: &Project) -> u32 {
    log(p)
        .lines()
        .find_map(|l| l.strip_prefix("child ").and_then(|n| n.trim().parse().ok()))
        .expect("the fake server started no child")
}

pub fn path(p: &Project, rel: &str) -> PathBuf {
    p.path(rel)
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}
