//! The pinned real third-party projects the soak test and the replay
//! benchmark read, and how each is made to build offline: mobx's `src/`
//! (npm, in `tools/node_modules`) and memchr 2.8.3 (crates.io, a dependency
//! of this workspace). click is read straight from `tools/.venv`; zlib
//! 1.3.1's C sources from `tools/sources` (the libz-sys 1.1.22 crate, which
//! `tools/install` fetches from crates.io).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::paths::repo_root;

/// mobx compiles its `src/` with Node's types, which `tools/` does not
/// install: these are the globals it uses.
pub const MOBX_ENV: &str = "declare var global: typeof globalThis
declare var console: { log(...a: any[]): void; warn(...a: any[]): void; error(...a: any[]): void }
declare function setTimeout(f: () => void, ms?: number): unknown
declare function clearTimeout(handle: unknown): void
";

/// Type-checks clean with TypeScript 5.9 (`tsc -p .`): mobx's own build
/// leaves implicit `any` and `this` on.
pub const MOBX_TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "esnext",
    "lib": ["esnext"],
    "module": "esnext",
    "moduleResolution": "bundler",
    "strict": true,
    "noImplicitAny": false,
    "noImplicitThis": false,
    "noEmit": true
  },
  "include": ["src", "env.d.ts"]
}
"#;

/// memchr's sources, from cargo's registry: this workspace depends on
/// memchr 2.8.3, so building it (which the test command does first) fetched
/// them.
pub fn memchr_source() -> PathBuf {
    registry_source("memchr", "2.8.3")
}

/// The sources of `name` `version`, a dependency of this workspace, from
/// cargo's registry (building the workspace fetched them).
pub fn registry_source(name: &str, version: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Only this platform's packages: the lock also names other platforms'
    // (android_system_properties, ...), whose sources a build here never
    // fetched, and `--offline` cannot.
    let rustc = Command::new("rustc").arg("-vV").output().unwrap();
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", &host])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name && p["version"] == version)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("{name} {version} is not a dependency of this workspace any more (see Cargo.lock); pin the version it has"));
    let dir = Path::new(manifest).parent().unwrap().to_owned();
    assert!(
        dir.join("src/lib.rs").is_file(),
        "{name} {version}'s sources are not at {}; run `cargo fetch`",
        dir.display()
    );
    dir
}

/// The crates of [`cargo_workspace`]: four crates.io crates that depend on
/// each other (regex-automata on aho-corasick, memchr and regex-syntax;
/// aho-corasick on memchr), all dependencies of this workspace.
pub const CARGO_WORKSPACE_CRATES: [(&str, &str); 4] = [
    ("memchr", "2.8.3"),
    ("aho-corasick", "1.1.5"),
    ("regex-syntax", "0.8.12"),
    ("regex-automata", "0.4.19"),
];

/// A Cargo workspace in `dir` of [`CARGO_WORKSPACE_CRATES`], joined by
/// path (`[patch.crates-io]`), with a `Cargo.lock` and its packages
/// fetched, as a user's checkout is after `cargo fetch`. Each crate's
/// dev-dependencies, benches, tests and examples are left out: their
/// dev-dependencies are not ones this workspace fetched. Resolving the
/// lock asks crates.io (for the optional dependencies, which no build
/// here fetched).
pub fn cargo_workspace(dir: &Path) {
    let mut members = Vec::new();
    let mut patch = String::new();
    for (name, version) in CARGO_WORKSPACE_CRATES {
        let source = registry_source(name, version);
        let to = dir.join(name);
        copy_tree(&source, &to);
        let manifest = std::fs::read_to_string(source.join("Cargo.toml")).unwrap();
        std::fs::write(to.join("Cargo.toml"), without_dev_sections(&manifest)).unwrap();
        let _ = std::fs::remove_file(to.join("Cargo.lock"));
        members.push(format!("{name:?}"));
        patch.push_str(&format!("{name} = {{ path = {name:?} }}\n"));
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n\n[patch.crates-io]\n{patch}",
            members.join(", ")
        ),
    )
    .unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    for step in [&["generate-lockfile"][..], &["fetch"]] {
        let out = Command::new(&cargo)
            .args(step)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cargo {} failed in the workspace: {}",
            step[0],
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A packaged (normalized) `Cargo.toml` without its dev-dependencies and
/// its bench, test and example targets: each is a section of its own there.
fn without_dev_sections(manifest: &str) -> String {
    let mut kept = String::new();
    let mut dropping = false;
    for line in manifest.lines() {
        let header = line.trim_start();
        if header.starts_with('[') {
            dropping = header.starts_with("[dev-dependencies")
                || header.starts_with("[target.") && header.contains("dev-dependencies")
                || ["[[bench]]", "[[test]]", "[[example]]"].contains(&header);
        }
        if !dropping {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept.replace("autobenches = true", "autobenches = false")
        .replace("autotests = true", "autotests = false")
        .replace("autoexamples = true", "autoexamples = false")
}

/// Copies the tree `from` to `to` (regular files and directories).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// memchr's own manifest, without its dependencies (optional ones, and the
/// dev-dependency quickcheck), none of which are downloaded: `cargo check`
/// runs offline. Its tests use quickcheck, so rust-analyzer's check (all
/// targets) reports rustc errors in about 15 files: findings every answer
/// must keep, before and after each edit.
pub const MEMCHR_CARGO_TOML: &str = r#"[package]
name = "memchr"
version = "2.8.3"
edition = "2021"

[lib]
path = "src/lib.rs"

[features]
default = ["std"]
std = ["alloc"]
alloc = []
libc = []
logging = []
use_std = ["std"]

[workspace]
"#;

/// A copy of mobx's `src/` (from `tools/node_modules`) in `dir`, with
/// [`MOBX_TSCONFIG`] and [`MOBX_ENV`].
pub fn mobx_project(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let src = repo_root().join("tools/node_modules/mobx/src");
    assert!(
        src.is_dir(),
        "mobx's sources are not at {}; run `tools/install`",
        src.display()
    );
    let copied = Command::new("cp")
        .arg("-r")
        .arg(&src)
        .arg(dir.join("src"))
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(dir.join("tsconfig.json"), MOBX_TSCONFIG).unwrap();
    std::fs::write(dir.join("env.d.ts"), MOBX_ENV).unwrap();
}

/// zlib's C sources, as `tools/install` unpacked them from the libz-sys
/// crate.
pub fn zlib_source() -> PathBuf {
    let dir = repo_root().join("tools/sources/libz-sys-1.1.22/src/zlib");
    assert!(
        dir.join("zlib.h").is_file(),
        "zlib's sources are not at {}; run `tools/install`",
        dir.display()
    );
    dir
}

/// A copy of zlib's `.c` and `.h` files in `dir`, with the compilation
/// database clangd indexes the project from (every `.c` file, as zlib's
/// own build compiles it on Linux).
pub fn zlib_project(dir: &Path) {
    let mut commands = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(zlib_source())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !(name.ends_with(".c") || name.ends_with(".h")) {
            continue;
        }
        std::fs::copy(&path, dir.join(&name)).unwrap();
        if name.ends_with(".c") {
            commands.push(serde_json::json!({
                "directory": dir,
                "file": name,
                "arguments": ["cc", "-c", "-I.", "-DHAVE_UNISTD_H", "-DHAVE_STDARG_H", &name],
            }));
        }
    }
    std::fs::write(
        dir.join("compile_commands.json"),
        serde_json::to_string_pretty(&commands).unwrap(),
    )
    .unwrap();
}

/// TanStack Query's packages, as `tools/install` unpacked them from npm
/// (`tools/tanstack-query.sha256` pins each).
pub fn tanstack_source() -> PathBuf {
    let dir = repo_root().join("tools/sources/tanstack-query");
    assert!(
        dir.join(".complete").is_file(),
        "TanStack Query's packages are not at {}; run `tools/install`",
        dir.display()
    );
    dir
}

/// Each package's own `tsconfig.json`: its `src/`, resolving the other
/// packages to their sources through the condition TanStack's own
/// monorepo builds with (`@tanstack/custom-condition`).
pub const TANSTACK_TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "customConditions": ["@tanstack/custom-condition"],
    "jsx": "react-jsx",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["src"]
}
"#;

/// TanStack Query as the npm workspace it is developed in: a root
/// `package.json` whose `workspaces` names `packages/*` (and no root
/// `tsconfig.json`), each package's `src/` and `package.json` with a
/// `tsconfig.json` of its own, and `node_modules/@tanstack/NAME` linked to
/// each package, as `npm install` links a workspace's packages. The built
/// `build/` is left out, so an import of another package resolves to its
/// sources. Returns the package names.
pub fn tanstack_workspace(dir: &Path) -> Vec<String> {
    let source = tanstack_source();
    std::fs::write(
        dir.join("package.json"),
        r#"{ "name": "tanstack-query-workspace", "private": true, "workspaces": ["packages/*"] }"#,
    )
    .unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&source)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("src").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    std::fs::create_dir_all(dir.join("node_modules/@tanstack")).unwrap();
    for name in &names {
        let package = dir.join("packages").join(name);
        std::fs::create_dir_all(&package).unwrap();
        let copied = Command::new("cp")
            .arg("-r")
            .arg(source.join(name).join("src"))
            .arg(package.join("src"))
            .status()
            .unwrap();
        assert!(copied.success());
        std::fs::copy(
            source.join(name).join("package.json"),
            package.join("package.json"),
        )
        .unwrap();
        std::fs::write(package.join("tsconfig.json"), TANSTACK_TSCONFIG).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            Path::new("../../packages").join(name),
            dir.join("node_modules/@tanstack").join(name),
        )
        .unwrap();
    }
    names
}

/// The Python distributions of the uv workspace the monorepo tests lay
/// out, each with the import packages it ships: attrs, and three that
/// depend on it or on each other (referencing on attrs, jsonschema on
/// attrs and referencing, jsonschema-specifications on referencing).
pub const SCHEMA_PACKAGES: &[(&str, &[&str])] = &[
    ("attrs", &["attr", "attrs"]),
    ("referencing", &["referencing"]),
    ("jsonschema", &["jsonschema"]),
    ("jsonschema-specifications", &["jsonschema_specifications"]),
];

/// The site-packages of `tools/.venv`, where `tools/install` put the
/// pinned distributions (tools/requirements.txt).
pub fn tools_site_packages() -> PathBuf {
    let lib = repo_root().join("tools/.venv/lib");
    std::fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("{}: {e}; run `tools/install`", lib.display()))
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.join("attrs").is_dir())
        .unwrap_or_else(|| panic!("attrs is not in {}; run `tools/install`", lib.display()))
}

/// attrs 26.1.0, referencing 0.37.0, jsonschema 4.26.0 and
/// jsonschema-specifications 2025.9.1 (pinned in tools/requirements.txt) as
/// the uv workspace they would be developed in: a root `pyproject.toml`
/// whose `[tool.uv.workspace]` names `packages/*`, each distribution's
/// sources under `packages/NAME/src` with a `pyproject.toml` of its own,
/// and one `.venv` at the root into which each is installed editable, as
/// `uv sync` does (a `.pth` file naming each `src`).
pub fn schemas_workspace(dir: &Path) {
    let site = tools_site_packages();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"schemas\"\nversion = \"0\"\n\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\n",
    )
    .unwrap();
    let mut pth = String::new();
    for (name, modules) in SCHEMA_PACKAGES {
        let src = dir.join("packages").join(name).join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            dir.join("packages").join(name).join("pyproject.toml"),
            format!("[project]\nname = \"{name}\"\nversion = \"0\"\n"),
        )
        .unwrap();
        for module in *modules {
            let copied = Command::new("cp")
                .arg("-r")
                .arg(site.join(module))
                .arg(&src)
                .status()
                .unwrap();
            assert!(copied.success());
        }
        let _ = Command::new("find")
            .arg(&src)
            .args([
                "-name",
                "__pycache__",
                "-prune",
                "-exec",
                "rm",
                "-rf",
                "{}",
                "+",
            ])
            .status();
        pth.push_str(&format!("{}\n", src.display()));
    }
    let venv = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(dir.join(".venv"))
        .status()
        .unwrap();
    assert!(venv.success());
    let lib = std::fs::read_dir(dir.join(".venv/lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::write(lib.join("site-packages/_schemas.pth"), pth).unwrap();
}

/// The digest of httpx 0.28.1's sources as tools/requirements.txt pins it:
/// sha256 of its `.py` files and `py.typed`, concatenated in path order.
const HTTPX_SOURCES_SHA256: &str =
    "3652b2975057cb5cd634005dde7f63d92a74848f67670790c8e9f95e7b14995e";

/// httpx 0.28.1 (7.9k lines, from PyPI through tools/requirements.txt,
/// its sources checked against [`HTTPX_SOURCES_SHA256`]) as a project in
/// `dir`: `httpx/` and a `pyproject.toml`. Its dependencies (anyio,
/// httpcore, certifi, idna) resolve through tools/.venv's python, first on
/// [`crate::path_with_tools`].
pub fn httpx_project(dir: &Path) {
    let source = tools_site_packages().join("httpx");
    let mut files: Vec<PathBuf> = walk_files(&source)
        .into_iter()
        .filter(|p| {
            !p.components().any(|c| c.as_os_str() == "__pycache__")
                && (p.extension().is_some_and(|e| e == "py") || p.ends_with("py.typed"))
        })
        .collect();
    files.sort_by_key(|p| {
        p.strip_prefix(&source)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    });
    let mut all = Vec::new();
    for f in &files {
        all.extend(std::fs::read(f).unwrap());
        let to = dir.join("httpx").join(f.strip_prefix(&source).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(f, &to).unwrap();
    }
    let digest = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&all)?;
            c.wait_with_output()
        })
        .unwrap();
    let digest = String::from_utf8_lossy(&digest.stdout);
    assert!(
        digest.starts_with(HTTPX_SOURCES_SHA256),
        "httpx's sources in {} are not 0.28.1's ({digest}); run `tools/install`",
        source.display()
    );
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"httpx\"\nversion = \"0.28.1\"\n",
    )
    .unwrap();
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
