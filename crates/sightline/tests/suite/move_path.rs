//! `sightline move` through the daemon, on pinned real projects: a module
//! and a folder of mobx 6.16.1 (npm) with typescript-language-server, a
//! module of memchr 2.8.3 (crates.io) with rust-analyzer, and httpx 0.28.1
//! (PyPI) with pyright, whose moves that would break imports are refused
//! with the importers named. What the project's own checker says (`tsc`,
//! `cargo check`) must be the same before and after each move.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use sightline_test_support::pinned::{
    MEMCHR_CARGO_TOML, httpx_project, memchr_source, mobx_project,
};
use sightline_test_support::{DaemonDirs, require, require_rust_analyzer, run_cli, tsc};

/// A command through the daemon of `dirs` (one data directory for all).
fn run(dirs: &DaemonDirs, args: &[&str]) -> (String, i32) {
    let mut env: Vec<(&str, String)> = dirs
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    env.push((
        "SIGHTLINE_DATA_DIR",
        dirs.runtime().join("data").display().to_string(),
    ));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run_cli(args, &env)
}

/// Every file under `dir` with its text.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                files.push((rel, std::fs::read_to_string(e.path()).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_typescript_module_and_folder_move_with_their_imports_and_tsc_stays_clean() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    mobx_project(&dir);
    let before = tsc(&dir);
    let dirs = DaemonDirs::new();
    let old = dir.join("src/utils/utils.ts");
    let new = dir.join("src/utils/helpers.ts");
    let (old_s, new_s) = (old.display().to_string(), new.display().to_string());

    // A preview writes nothing.
    let files = tree(&dir);
    let (preview, code) = run(&dirs, &["move", "--dry-run", &old_s, &new_s]);
    assert_eq!(code, 0, "{preview}");
    assert!(preview.starts_with("move "), "{preview}");
    assert!(preview.contains("src/internal.ts"), "{preview}");
    assert_eq!(tree(&dir), files, "a preview wrote");

    let (moved, code) = run(&dirs, &["move", &old_s, &new_s]);
    assert_eq!(code, 0, "{moved}");
    assert!(moved.starts_with("moved "), "{moved}");
    assert!(!old.exists() && new.is_file(), "{moved}");
    let internal = std::fs::read_to_string(dir.join("src/internal.ts")).unwrap();
    assert!(internal.contains("./utils/helpers"), "{internal}");
    assert!(!internal.contains("./utils/utils\""), "{internal}");
    assert_eq!(tsc(&dir), before, "{moved}");

    // A folder, with every import into it.
    let (moved, code) = run(
        &dirs,
        &[
            "move",
            &dir.join("src/utils").display().to_string(),
            &dir.join("src/support").display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{moved}");
    assert!(!dir.join("src/utils").exists(), "{moved}");
    assert!(dir.join("src/support/helpers.ts").is_file(), "{moved}");
    assert_eq!(tsc(&dir), before, "{moved}");
}

#[test]
fn a_rust_module_moves_with_its_mod_and_use_paths_and_cargo_check_stays_clean() {
    require_rust_analyzer();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap().join("memchr");
    std::fs::create_dir_all(&dir).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(memchr_source().join("src"))
        .arg(dir.join("src"))
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(dir.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    // A checkout, as a user's crate is: the workspace sightline may write.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let check = || {
        let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["check", "--lib", "--offline", "--quiet"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", tmp.path().join("target"))
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (clean, said) = check();
    assert!(clean, "memchr does not check before the move: {said}");
    let dirs = DaemonDirs::new();
    let old = dir.join("src/memmem/searcher.rs");
    let new = dir.join("src/memmem/search_impl.rs");
    let (moved, code) = run(
        &dirs,
        &[
            "move",
            &old.display().to_string(),
            &new.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{moved}");
    assert!(!old.exists() && new.is_file(), "{moved}");
    let module = std::fs::read_to_string(dir.join("src/memmem/mod.rs")).unwrap();
    assert!(module.contains("mod search_impl;"), "{moved}");
    assert!(!module.contains("searcher::"), "{moved}");
    let (clean, said) = check();
    assert!(clean, "cargo check fails after the move: {said}\n{moved}");
}

#[test]
fn a_python_module_with_importers_is_not_moved_and_they_are_named() {
    require("pyright-langserver");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    httpx_project(&dir);
    let files = tree(&dir);
    let dirs = DaemonDirs::new();
    let old = dir.join("httpx/_utils.py");
    let (refused, code) = run(
        &dirs,
        &[
            "move",
            &old.display().to_string(),
            &dir.join("httpx/_helpers.py").display().to_string(),
        ],
    );
    assert_ne!(code, 0, "{refused}");
    assert!(
        refused.contains("move not done: pyright cannot update the imports of a moved module"),
        "{refused}"
    );
    for importer in ["httpx/_auth.py", "httpx/_client.py", "httpx/_models.py"] {
        assert!(refused.contains(importer), "{importer}: {refused}");
    }
    assert!(refused.contains("nothing was written"), "{refused}");
    assert_eq!(tree(&dir), files, "a refused move wrote");

    // A module nothing imports moves.
    std::fs::write(dir.join("httpx/_scratch.py"), "VALUE = 1\n").unwrap();
    let (moved, code) = run(
        &dirs,
        &[
            "move",
            &dir.join("httpx/_scratch.py").display().to_string(),
            &dir.join("httpx/_draft.py").display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{moved}");
    assert!(dir.join("httpx/_draft.py").is_file() && !dir.join("httpx/_scratch.py").exists());
}

/// The packages of TanStack Query that use query-core (through
/// `@tanstack/query-core`) and type-check on their own with `tsc -p`.
const TANSTACK_CHECKED: &[&str] = &["query-core", "react-query", "solid-query", "vue-query"];

/// `tsc -p packages/NAME` in `dir`, for each checked package.
fn tanstack_tsc(dir: &Path) -> Vec<(String, String)> {
    TANSTACK_CHECKED
        .iter()
        .map(|p| {
            let out = Command::new(sightline_test_support::tool("tsc"))
                .args(["-p", &format!("packages/{p}")])
                .current_dir(dir)
                .output()
                .unwrap();
            // The status too: a tsc that cannot run at all would print
            // the same before and after.
            (
                format!("{p}: {}", out.status),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        })
        .collect()
}

/// TanStack Query (npm, as its monorepo lays it out): a module of
/// query-core whose exports react-query, solid-query and vue-query use
/// moves into a folder of its own, with every import of it and the
/// package's re-export; each package's `tsc` says the same after as before.
#[test]
fn a_query_core_module_that_several_packages_use_moves_and_each_package_s_tsc_is_unchanged() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    sightline_test_support::pinned::tanstack_workspace(&dir);
    let before = tanstack_tsc(&dir);
    let core = dir.join("packages/query-core/src");
    let old = core.join("focusManager.ts");
    let new = core.join("managers/focusManager.ts");
    let dirs = DaemonDirs::new();
    let (moved, code) = run(
        &dirs,
        &[
            "move",
            &old.display().to_string(),
            &new.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{moved}");
    assert!(moved.starts_with("moved "), "{moved}");
    assert!(!old.exists() && new.is_file(), "{moved}");
    for importer in [
        "queryClient.ts",
        "queryObserver.ts",
        "retryer.ts",
        "index.ts",
    ] {
        let text = std::fs::read_to_string(core.join(importer)).unwrap();
        assert!(
            text.contains("'./managers/focusManager'"),
            "{importer} was not updated: {moved}"
        );
        assert!(!text.contains("'./focusManager'"), "{importer}: {moved}");
    }
    // The moved module's own imports now climb one folder.
    let moved_text = std::fs::read_to_string(&new).unwrap();
    assert!(moved_text.contains("'../"), "{moved_text}");
    assert_eq!(tanstack_tsc(&dir), before, "{moved}");
}
