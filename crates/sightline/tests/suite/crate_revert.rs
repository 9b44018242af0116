//! A cross-file break in a pinned real crate (memchr 2.8.3, from cargo's
//! registry), then its revert, twenty times in a row, through the daemon
//! with rust-analyzer: `is_prefix` in `src/arch/all/mod.rs` gains a
//! parameter, which breaks its call in `src/arch/all/twoway.rs`. Each
//! answer after the break must hold the broken call's error, and each
//! answer after the revert must be the answer from before the first break:
//! never the error the revert removed.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::time::Instant;

use sightline_test_support::pinned::{MEMCHR_CARGO_TOML, memchr_source};
use sightline_test_support::{DaemonDirs, run_cli};

const ROUNDS: usize = 20;
const OLD: &str = "pub fn is_prefix(haystack: &[u8], needle: &[u8]) -> bool {";
const NEW: &str = "pub fn is_prefix(haystack: &[u8], needle: &[u8], strict: bool) -> bool {";

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn a_reverted_cross_file_break_never_leaves_its_error_in_twenty_rounds() {
    sightline_test_support::require_rust_analyzer();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("memchr");
    copy_tree(&memchr_source().join("src"), &root.join("src"));
    std::fs::write(root.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    // Only the loading of the workspace (the standard library's too) gets
    // a longer budget than the defaults; the answers after each change get
    // the default 5 s, as users have.
    let config = tmp.path().join("config.json");
    std::fs::write(
        &config,
        r#"{ "lsp": { "rust": { "diagnostics": { "ready_ms": 60000 },
             "initialization": { "check": { "allTargets": false } } } } }"#,
    )
    .unwrap();
    let dirs = DaemonDirs::new();
    let mut env: Vec<(&str, String)> = dirs
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    env.push(("SIGHTLINE_CONFIG", config.display().to_string()));
    // One data directory for every command: the daemon serves only
    // commands of its own settings, and restarts for others.
    let data = tmp.path().join("data");
    env.push(("SIGHTLINE_DATA_DIR", data.display().to_string()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let defining = root.join("src/arch/all/mod.rs");
    let caller = root.join("src/arch/all/twoway.rs");
    let caller_arg = caller.display().to_string();
    let call_line = std::fs::read_to_string(&caller)
        .unwrap()
        .lines()
        .position(|l| l.contains("is_prefix(&v["))
        .unwrap()
        + 1;
    let diagnostics = || {
        let t = Instant::now();
        let (out, _) = run_cli(&["diagnostics", &caller_arg], &env);
        (out, t.elapsed().as_secs_f64())
    };
    let original = std::fs::read_to_string(&defining).unwrap();
    assert!(original.contains(OLD));
    let (before, _) = diagnostics();
    let daemon_pid =
        || std::fs::read_to_string(dirs.runtime().join("sightline/daemon.pid")).unwrap();
    let pid = daemon_pid();
    assert!(!before.contains(&format!("\n{call_line}:")), "{before}");
    let broken_error = |a: &str| {
        a.lines()
            .any(|l| l.starts_with(&format!("{call_line}:")) && l.contains(" error: "))
    };
    let (mut shown, mut left_behind, mut noted) = (0, Vec::new(), 0);
    let mut times = Vec::new();
    for round in 1..=ROUNDS {
        std::fs::write(&defining, original.replace(OLD, NEW)).unwrap();
        let (after_break, t_break) = diagnostics();
        shown += usize::from(broken_error(&after_break));
        std::fs::write(&defining, &original).unwrap();
        let (after_revert, t_revert) = diagnostics();
        times.push((t_break, t_revert));
        if after_revert.contains("\nnote: ") {
            noted += 1;
        }
        // A note may say the check has not re-run; the findings shown
        // must still be those of the code as it is.
        let findings = |a: &str| -> Vec<String> {
            a.lines()
                .filter(|l| !l.starts_with("note: "))
                .skip(1)
                .map(str::to_owned)
                .collect()
        };
        if broken_error(&after_revert)
            || !findings(&after_revert)
                .iter()
                .all(|l| findings(&before).contains(l))
        {
            left_behind.push(format!("round {round}:\n{after_revert}"));
        }
    }
    let (sum_break, sum_revert) = times
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let slowest = times.iter().map(|t| t.1).fold(0.0, f64::max);
    eprintln!(
        "crate revert: {ROUNDS} rounds; the break's error shown {shown}/{ROUNDS}; removed errors answered after the revert {}/{ROUNDS}; answers after the revert with a note {noted}/{ROUNDS}; mean {:.2} s after a break, {:.2} s after a revert (slowest {slowest:.2} s)",
        left_behind.len(),
        sum_break / ROUNDS as f64,
        sum_revert / ROUNDS as f64,
    );
    assert_eq!(
        daemon_pid(),
        pid,
        "the daemon was restarted: the rounds were not one session"
    );
    assert!(left_behind.is_empty(), "{}", left_behind.join("\n"));
    assert_eq!(shown, ROUNDS, "the break's error did not always show");
}
