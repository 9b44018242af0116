//! The packages `scripts/package` builds (the README's test command runs it
//! before the tests): the Python wheel installed into a fresh venv and the
//! npm packages into a fresh prefix, each from the local files alone, then
//! the installed `sightline mcp` driven by the official MCP SDK to answer
//! `lsp_diagnostics` for a Python file.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{Project, repo_root};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The npm binary package of this platform, as the launcher names it
/// (`process.platform`-`process.arch`).
fn binary_package() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("sightline-{os}-{cpu}")
}

/// A file `scripts/package` made, failing (never skipping) when it is not
/// there.
fn built(name: &str) -> PathBuf {
    let dir = repo_root().join("target/package");
    let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(name))
        })
    });
    found.unwrap_or_else(|| {
        panic!(
            "{name}* is not in {}; run `scripts/package` (the README's test command `scripts/test` does this)",
            dir.display()
        )
    })
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The installed program's version, then its answer to `lsp_diagnostics`
/// over MCP (through its own daemon, in the driver's runtime directory).
fn answers_over_mcp(program: &Path) {
    assert_eq!(
        run(Command::new(program).arg("--version")),
        format!("sightline {VERSION}\n")
    );
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "app.py",
            "def total(n: int) -> int:\n    return n\n\nbroken: str = total(1)\n",
        ),
    ]);
    let mut d = McpDriver::start();
    d.open_command("s", p.root(), program);
    let a = d.call("s", "lsp_diagnostics", json!({ "file": p.path("app.py") }));
    assert!(!a.is_error, "{}", a.text);
    assert_eq!(
        a.text,
        "app.py: 1 diagnostic\n4:15 error: Type \"int\" is not assignable to declared type \"str\" \"int\" is not assignable to \"str\" [Pyright]\n"
    );
    d.close("s");
}

#[test]
fn the_wheel_installs_into_a_fresh_venv_and_answers_over_mcp() {
    let wheel = built(&format!("sightline-{VERSION}-py3-none-"));
    let t = tempfile::tempdir().unwrap();
    let venv = t.path().join("venv");
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
    run(Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .arg(&wheel));
    answers_over_mcp(&venv.join("bin/sightline"));
}

/// Installs `packages` (tarballs) into a fresh prefix under `dir` from the
/// files alone: `--offline`, with npm's cache the test's own and empty.
fn npm_install(dir: &Path, packages: &[&Path], extra: &[&str]) -> PathBuf {
    let prefix = dir.join("prefix");
    run(Command::new("npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .args(extra)
        .arg("--prefix")
        .arg(&prefix)
        .arg("--cache")
        .arg(dir.join("npm-cache"))
        .args(packages));
    prefix
}

#[test]
fn the_npm_packages_install_into_a_fresh_prefix_and_answer_over_mcp() {
    let launcher = built(&format!("sightline-{VERSION}.tgz"));
    let binary = built(&format!("{}-", binary_package()));
    let t = tempfile::tempdir().unwrap();
    // The launcher's optional packages for other platforms are skipped.
    let prefix = npm_install(t.path(), &[&binary, &launcher], &[]);
    answers_over_mcp(&prefix.join("node_modules/.bin/sightline"));
}

/// Without its platform's package (installed with `--omit=optional`), the
/// launcher says what is missing in one line and exits 2.
#[test]
fn the_npm_launcher_without_its_binary_package_says_so() {
    let launcher = built(&format!("sightline-{VERSION}.tgz"));
    let t = tempfile::tempdir().unwrap();
    let prefix = npm_install(t.path(), &[&launcher], &["--omit=optional"]);
    let out = Command::new(prefix.join("node_modules/.bin/sightline"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: the package {}, which holds sightline's binary, is not installed; install sightline again without --omit=optional\n",
            binary_package()
        )
    );
}
