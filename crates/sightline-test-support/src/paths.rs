//! Where things are: the repository, the pinned servers `tools/install`
//! puts in `tools/`, and the binaries of this build (`sightline`, and the
//! fake server of `crates/sightline-fake-lsp`).

use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Where `tools/install` puts the pinned servers.
pub fn tools_bin() -> PathBuf {
    repo_root().join("tools/node_modules/.bin")
}

/// Fails (never skips) when a server the test needs is missing.
pub fn require(command: &str) {
    let p = tools_bin().join(command);
    assert!(
        p.is_file(),
        "{command} is not installed at {}; run `tools/install` (the README's test command `scripts/test` does this)",
        p.display()
    );
}

/// Fails with the install hint unless rustup has rust-analyzer, which
/// comes with the toolchain (`tools/install` adds the component).
pub fn require_rust_analyzer() {
    let found = std::process::Command::new("rustup")
        .args(["which", "rust-analyzer"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "rust-analyzer is not installed; run `tools/install` (it runs `rustup component add rust-analyzer rust-src`)"
    );
}

/// The pinned server `name` in `tools/`, which must be there.
pub fn tool(name: &str) -> PathBuf {
    let p = tools_bin().join(name);
    assert!(
        p.is_file(),
        "{name} missing at {}; run tools/install",
        p.display()
    );
    p
}

/// The pinned TypeScript's `tsserver.js` (beside `tsc` in `tools/`), which
/// a direct client hands typescript-language-server as sightline does.
pub fn tsserver_js() -> PathBuf {
    tool("tsc")
        .parent()
        .unwrap()
        .join("../typescript/lib/tsserver.js")
        .canonicalize()
        .unwrap()
}

/// PATH with the pinned servers first.
pub fn path_with_tools() -> String {
    format!(
        "{}:{}",
        tools_bin().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The directory of this build's binaries: the one above the running test
/// or bench executable (`target/debug/deps/all-...` is in `target/debug`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the running test has a path");
    exe.parent()
        .and_then(Path::parent)
        .expect("a test executable lives in <profile>/deps")
        .to_owned()
}

/// A binary of this build, which must have been built.
fn built(name: &str, package: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.is_file(),
        "{} is not built; run the tests with `cargo test --workspace` (or build it with `cargo build -p {package}`)",
        p.display()
    );
    p
}

/// The `sightline` binary of this build.
pub fn sightline_bin() -> PathBuf {
    built("sightline", "sightline-mcp")
}

/// The scripted fake server of this build (`crates/sightline-fake-lsp`),
/// built again first when its sources are newer than it: `cargo test -p
/// sightline-mcp` builds that package's binaries alone, and a fake server
/// left from an earlier build would answer by older rules.
pub fn fake_lsp_bin() -> PathBuf {
    static FRESH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FRESH
        .get_or_init(|| {
            let bin = bin_dir().join("sightline-fake-lsp");
            let sources = repo_root().join("crates/sightline-fake-lsp");
            let built_at = std::fs::metadata(&bin).and_then(|m| m.modified()).ok();
            if built_at.is_none_or(|at| newest(&sources).is_some_and(|n| n > at)) {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let status = std::process::Command::new(cargo)
                    .args(["build", "--locked", "-p", "sightline-fake-lsp"])
                    .current_dir(repo_root())
                    .status();
                assert!(
                    status.is_ok_and(|s| s.success()),
                    "the fake server is older than its sources and could not be built: run `cargo build -p sightline-fake-lsp`"
                );
            }
            built("sightline-fake-lsp", "sightline-fake-lsp")
        })
        .clone()
}

/// When the newest file under `dir` (its `src/` and manifest) changed.
fn newest(dir: &Path) -> Option<std::time::SystemTime> {
    let mut stack = vec![dir.join("src"), dir.join("Cargo.toml")];
    let mut newest = None;
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if let Ok(at) = meta.modified() {
            newest = newest.max(Some(at));
        }
    }
    newest
}

/// `FILE:LINE:COL` (absolute, 1-based, the column in characters) of
/// `name` on the first line of `dir/file` that holds `needle`: a place read
/// from the sources, for the tests that ask about it.
pub fn place_of(dir: &Path, file: &str, needle: &str, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("{file} has no line with {needle:?}"));
    let byte = line
        .find(name)
        .unwrap_or_else(|| panic!("{file}:{} has no {name:?}", n + 1));
    let col = line[..byte].chars().count() + 1;
    format!("{}:{}:{col}", dir.join(file).display(), n + 1)
}
