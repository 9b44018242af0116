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
    format!("sightline-mcp-{os}-{cpu}")
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
    let found = found.unwrap_or_else(|| {
        panic!(
            "{name}* is not in {}; run `scripts/package` (the README's test command `scripts/test` does this)",
            dir.display()
        )
    });
    // A package older than the sources tests an older build.
    let made = std::fs::metadata(&found)
        .and_then(|m| m.modified())
        .unwrap();
    let source = newest_source();
    assert!(
        made >= source.1,
        "{} is older than {} (a package of an earlier build); run `scripts/package`",
        found.display(),
        source.0.display()
    );
    found
}

/// The most recently changed file of the sources a package is built from
/// (`crates/*/src`, the manifests), and when.
fn newest_source() -> (PathBuf, std::time::SystemTime) {
    let crates = repo_root().join("crates");
    let mut stack: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .flatten()
        .flat_map(|c| [c.path().join("src"), c.path().join("Cargo.toml")])
        .collect();
    stack.push(repo_root().join("Cargo.toml"));
    let mut newest = (PathBuf::new(), std::time::SystemTime::UNIX_EPOCH);
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        } else if let Ok(at) = meta.modified()
            && at > newest.1
        {
            newest = (p, at);
        }
    }
    newest
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
    let wheel = built(&format!("sightline_mcp-{VERSION}-py3-none-"));
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
    let launcher = built(&format!("sightline-mcp-{VERSION}.tgz"));
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
    let launcher = built(&format!("sightline-mcp-{VERSION}.tgz"));
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
            "error: the package {}, which holds sightline's binary, is not installed; install sightline-mcp again without --omit=optional\n",
            binary_package()
        )
    );
}

/// The package names of the README's install lines (`uvx --from NAME`,
/// `pipx install NAME`, `npx -y NAME`, `npm install -g NAME`, `cargo install
/// NAME`), in the order written.
fn readme_install_names() -> Vec<(&'static str, String)> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let install = readme
        .split("## Install")
        .nth(1)
        .and_then(|s| s.split("```sh").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the README's Install section has a sh block");
    let mut out = Vec::new();
    for line in install.lines() {
        for part in line.split('#').flat_map(|p| p.split("or:")) {
            let words: Vec<&str> = part.split_whitespace().collect();
            let name = match words.as_slice() {
                ["uvx", "--from", name, ..] => Some(("pypi", name)),
                ["pipx", "install", name, ..] => Some(("pypi", name)),
                ["npx", "-y", name, ..] => Some(("npm", name)),
                ["npm", "install", "-g", name, ..] => Some(("npm", name)),
                ["cargo", "install", name, ..] => Some(("crates.io", name)),
                _ => None,
            };
            if let Some((registry, name)) = name {
                out.push((registry, (*name).to_owned()));
            }
        }
    }
    out
}

/// Every install line of the README names what `scripts/package` built
/// (the wheel's and the npm launcher's own names, each with a `sightline`
/// command) or the crate Cargo publishes (with its `sightline` binary), and
/// `uvx`/`npx` run that command.
#[test]
fn the_readme_install_lines_name_the_packages_built() {
    let names = readme_install_names();
    let registries: Vec<&str> = names.iter().map(|(r, _)| *r).collect();
    assert_eq!(
        registries,
        ["pypi", "pypi", "npm", "npm", "crates.io"],
        "{names:?}"
    );
    // The wheel's name and its one command.
    let wheel = built(&format!("sightline_mcp-{VERSION}-py3-none-"));
    let listing = run(Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
         z = zipfile.ZipFile(sys.argv[1])\n\
         meta = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))\n\
         print(next(l for l in z.read(meta).decode().splitlines() if l.startswith('Name: '))[6:])\n\
         print('\\n'.join(n.rsplit('/', 1)[1] for n in z.namelist() if '.data/scripts/' in n))",
        )
        .arg(&wheel));
    let mut lines = listing.lines();
    let wheel_name = lines.next().unwrap().to_owned();
    assert_eq!(lines.collect::<Vec<_>>(), ["sightline"], "{listing}");
    // The npm launcher's name and its one command.
    let t = tempfile::tempdir().unwrap();
    let launcher = built(&format!("sightline-mcp-{VERSION}.tgz"));
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&launcher)
        .arg("-C")
        .arg(t.path()));
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(t.path().join("package/package.json")).unwrap(),
    )
    .unwrap();
    let npm_name = manifest["name"].as_str().unwrap().to_owned();
    let bins: Vec<&String> = manifest["bin"].as_object().unwrap().keys().collect();
    assert_eq!(bins, ["sightline"]);
    // The crate that holds the binary.
    let meta: serde_json::Value = serde_json::from_str(&run(Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(repo_root())))
    .unwrap();
    let crate_name = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["targets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "sightline" && t["kind"] == json!(["bin"]))
        })
        .and_then(|p| p["name"].as_str())
        .unwrap()
        .to_owned();
    for (registry, name) in &names {
        let built_as = match *registry {
            "pypi" => &wheel_name,
            "npm" => &npm_name,
            _ => &crate_name,
        };
        assert_eq!(
            name, built_as,
            "the README installs `{name}` from {registry}"
        );
    }
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert!(readme.contains(&format!("uvx --from {wheel_name} sightline mcp")));
    assert!(readme.contains(&format!("npx -y {npm_name} mcp")));
}

/// The Claude Code plugin `scripts/package` makes: its manifest, the MCP
/// entry and the hooks, each running `sightline` from PATH.
#[test]
fn the_claude_code_plugin_holds_the_mcp_entry_and_the_hooks() {
    let dir = repo_root().join("target/package/claude-plugin");
    let read = |rel: &str| -> serde_json::Value {
        let path = dir.join(rel);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run `scripts/package`", path.display()));
        serde_json::from_str(&text).unwrap()
    };
    let manifest = read(".claude-plugin/plugin.json");
    assert_eq!(
        (manifest["name"].as_str(), manifest["version"].as_str()),
        (Some("sightline"), Some(VERSION))
    );
    assert_eq!(
        read(".mcp.json")["mcpServers"]["sightline"],
        json!({ "command": "sightline", "args": ["mcp"] })
    );
    let hooks = read("hooks/hooks.json");
    for event in ["SessionStart", "PreToolUse", "PostToolUse"] {
        assert_eq!(
            hooks["hooks"][event][0]["hooks"][0]["command"], "sightline hook --agent claude-code",
            "{event}: {hooks}"
        );
    }
    // Every tool's after-event brings the late checks of earlier edits.
    assert_eq!(hooks["hooks"]["PostToolUse"][0].get("matcher"), None);
    assert_eq!(
        hooks["hooks"]["PreToolUse"][0]["matcher"],
        "Edit|MultiEdit|Write|Grep|Bash"
    );
}
