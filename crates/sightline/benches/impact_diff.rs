//! `sightline impact` on a 50-file diff of a real project, through the
//! daemon: mobx 6.16.1 (npm, 58 TypeScript modules) committed, then 50 of
//! its modules each given a new export and `isPlainObject` (used across
//! the sources) a second required parameter. The time of the whole answer
//! (git, the revision's texts held, the errors and users before, the disk's
//! after), cold (the daemon and typescript-language-server started by it)
//! and warm, and its size.
//!
//! Run with `cargo bench -p sightline-mcp --bench impact_diff`.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sightline_test_support::stats::median;
use sightline_test_support::{DaemonDirs, isolation, path_with_tools, sightline_bin};

const WARM_ROUNDS: usize = 5;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@b"])
        .args(args)
        .current_dir(dir)
        .envs(isolation::env())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.success(), "git {args:?}");
}

/// Every `.ts` file under `dir`, sorted.
fn modules(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ts") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One `sightline impact` through the daemon of `dirs`: its time, exit
/// code and answer.
fn impact(root: &Path, dirs: &DaemonDirs, data: &Path) -> (Duration, i32, String) {
    let t = Instant::now();
    let out = Command::new(sightline_bin())
        .args(["impact", "--dir"])
        .arg(root)
        .envs(isolation::env())
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data)
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(dirs.env())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        t.elapsed(),
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    sightline_test_support::pinned::mobx_project(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "mobx 6.16.1"]);
    let files = modules(&root.join("src"));
    assert!(files.len() >= 50, "{} modules", files.len());
    for (n, f) in files.iter().take(50).enumerate() {
        let mut text = std::fs::read_to_string(f).unwrap();
        text.push_str(&format!("\nexport const impactBench{n} = {n};\n"));
        std::fs::write(f, text).unwrap();
    }
    let utils = root.join("src/utils/utils.ts");
    let text = std::fs::read_to_string(&utils).unwrap();
    let changed = text.replacen(
        "export function isPlainObject(value: any) {",
        "export function isPlainObject(value: any, strict: boolean) {",
        1,
    );
    assert_ne!(text, changed);
    std::fs::write(&utils, changed).unwrap();

    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let (cold, code, answer) = impact(&root, &dirs, data.path());
    assert_eq!(code, 1, "{answer}");
    assert!(
        answer.contains("changed function isPlainObject"),
        "{answer}"
    );
    let mut warm = Vec::new();
    for _ in 0..WARM_ROUNDS {
        let (took, code, again) = impact(&root, &dirs, data.path());
        assert_eq!(code, 1, "{again}");
        warm.push(took);
    }
    let first = answer.lines().next().unwrap_or_default();
    println!("{first}");
    println!(
        "impact of a 50-file diff of mobx: cold (daemon and server started) {:.1} s; warm p50 {:.1} s over {WARM_ROUNDS}; answer {} lines, {} characters",
        cold.as_secs_f64(),
        median(warm).as_secs_f64(),
        answer.lines().count(),
        answer.len(),
    );
    println!(
        "---\n{}",
        answer.lines().take(30).collect::<Vec<_>>().join("\n")
    );
    dirs.stop();
}
