//! The first edit on servers that have not answered yet, on a pinned real
//! project (click 8.5.1, from `tools/.venv`): a signature change to a
//! function several modules call. The files a full pyright run says it broke
//! are every one listed, compared or not, and the CLI's exit status says
//! the change brought errors.
//!
//! The project's `dependents_ms` of 1 ms is what a cold server on a large
//! project amounts to: nothing about the users can be had before the change
//! is written, so every look-up happens after it.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use sightline_test_support::{
    DaemonDirs, path_with_tools, repo_root, require, sightline_bin, tool,
};

const OLD: &str = "def resolve_color_default(color: bool | None = None) -> bool | None:";
const NEW: &str = "def resolve_color_default(color: bool | None, strict: bool) -> bool | None:";

/// click's package, copied into a project of its own.
fn click_project(dir: &Path, config: &str) {
    let venv = repo_root().join("tools/.venv/lib");
    let site = std::fs::read_dir(&venv)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("site-packages/click"))
        .find(|p| p.is_dir())
        .expect("click is not in tools/.venv; run tools/install");
    std::fs::create_dir_all(dir.join("click")).unwrap();
    for e in std::fs::read_dir(site).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "py") {
            std::fs::copy(e.path(), dir.join("click").join(e.file_name())).unwrap();
        }
    }
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"click-copy\"\nversion = \"0\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("sightline.json"), config).unwrap();
}

/// Error counts by file, by a full `pyright` run over the project.
fn pyright_errors(dir: &Path) -> BTreeMap<PathBuf, usize> {
    let out = Command::new(tool("pyright"))
        .args(["--outputjson", "."])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut counts = BTreeMap::new();
    for d in report["generalDiagnostics"].as_array().unwrap() {
        if d["severity"] == "error" {
            *counts
                .entry(PathBuf::from(d["file"].as_str().unwrap()))
                .or_insert(0) += 1;
        }
    }
    counts
}

/// `sightline ARGS` in `root`, cold: in a world of its own (data directory
/// and daemon), so no server of another test or of the user is warm.
fn cli_in(root: &Path, args: &[&str]) -> std::process::Output {
    let data = tempfile::tempdir().unwrap();
    let daemon = DaemonDirs::new();
    Command::new(sightline_bin())
        .args(args)
        .current_dir(root)
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data.path())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(daemon.env())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_cold_edit_lists_every_module_a_full_pyright_run_says_it_broke() {
    require("pyright-langserver");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    click_project(&root, r#"{ "dependents_ms": 1 }"#);
    let globals = root.join("click/globals.py");
    assert!(std::fs::read_to_string(&globals).unwrap().contains(OLD));
    let before = pyright_errors(&root);

    let out = cli_in(
        &root,
        &["edit", "click/globals.py", "--old", OLD, "--new", NEW],
    );
    let answer = String::from_utf8(out.stdout).unwrap();

    let after = pyright_errors(&root);
    let broken: Vec<String> = after
        .iter()
        .filter(|(f, n)| before.get(*f).copied().unwrap_or(0) < **n && **f != globals)
        .map(|(f, _)| f.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        broken.len() >= 3,
        "the change was meant to break at least three modules: {broken:?}"
    );
    for file in &broken {
        let listed = answer
            .lines()
            .any(|l| l.starts_with(&format!("{file}: ")) && l.ends_with("(it uses what changed)"));
        assert!(listed, "{file} got new errors but is not listed:\n{answer}");
    }
    // `dependents_ms` is no clock: however small, the users are asked
    // before the change for as long as pyright works on them, so each is
    // compared (it was "N errors, not compared: no answer before the
    // change" with the old errors listed as if the edit's).
    assert!(!answer.contains("not compared"), "{answer}");
    assert_eq!(out.status.code(), Some(1), "{answer}");
}

/// A change that breaks nothing exits 0 even where errors were there
/// before: click has errors of its own that pyright reports.
#[test]
fn an_edit_that_breaks_nothing_exits_zero_in_a_project_with_errors() {
    require("pyright-langserver");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    click_project(&root, "{}");
    assert!(
        pyright_errors(&root).contains_key(&root.join("click/types.py")),
        "click's types.py was expected to have errors of its own"
    );
    let out = cli_in(
        &root,
        &[
            "edit",
            "click/types.py",
            "--old",
            "import os\n",
            "--new",
            "import os  # the paths below\n",
        ],
    );
    let answer = String::from_utf8(out.stdout).unwrap();
    assert!(answer.contains("no new errors"), "{answer}");
    assert_eq!(out.status.code(), Some(0), "{answer}");
}

/// A rename across three of click's modules, two of which have errors of
/// their own, on a cold server: those errors were there before, so the
/// answer says no new errors and the CLI exits 0.
#[test]
fn a_cold_rename_in_a_project_with_errors_exits_zero() {
    require("pyright-langserver");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    click_project(&root, "{}");
    let types = std::fs::read_to_string(root.join("click/types.py")).unwrap();
    let line = types
        .lines()
        .position(|l| l == "def convert_type(")
        .expect("click's convert_type")
        + 1;
    let out = cli_in(
        &root,
        &[
            "rename",
            &format!("click/types.py:{line}:5"),
            "to_param_type",
        ],
    );
    let answer = String::from_utf8(out.stdout).unwrap();
    assert!(
        answer.starts_with("renamed convert_type → to_param_type: "),
        "{answer}"
    );
    assert!(
        answer.contains("click/types.py: no new errors; 5 were already there"),
        "{answer}"
    );
    assert!(answer.ends_with("no new errors\n"), "{answer}");
    assert_eq!(out.status.code(), Some(0), "{answer}");
}
