//! Monorepo workspaces: the directory whose own files name the packages of
//! one workspace (`pnpm-workspace.yaml`, `package.json` `workspaces`,
//! `[tool.uv.workspace]`, ...; `manifests` reads each), and those packages;
//! the build tools' workspaces (Cargo, Go, Gradle and Maven, Nix) are
//! `build`'s. Every root a monorepo declares is read here.
//! A server that answers across projects is rooted at the workspace, not at
//! the package around the file (`catalog::roots`), so that a question about
//! a symbol reaches every package that can see it; `engine::packages` loads
//! the packages a server holds only once one of their files is open.

pub(crate) mod build;
mod manifests;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use manifests::Patterns;

/// A file that may declare a workspace, and its reader.
type Declaration = (&'static str, fn(&str) -> Option<Patterns>);

/// The languages whose package managers declare workspaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ecosystem {
    /// npm, pnpm, yarn, bun, lerna, nx, TypeScript project references.
    JavaScript,
    /// uv (Poetry, Hatch and PDM declare no workspace: `sightline.json`
    /// names theirs).
    Python,
}

impl Ecosystem {
    /// The files that declare a workspace, nearest first in each directory,
    /// with their readers; `sightline.json` serves every ecosystem.
    fn declarations(self) -> &'static [Declaration] {
        match self {
            Ecosystem::JavaScript => &[
                ("sightline.json", manifests::sightline_json),
                ("sightline.jsonc", manifests::sightline_json),
                ("pnpm-workspace.yaml", manifests::pnpm_workspace),
                ("package.json", manifests::package_json),
                ("lerna.json", manifests::lerna_json),
                ("nx.json", manifests::nx_json),
                ("tsconfig.json", manifests::tsconfig_references),
            ],
            Ecosystem::Python => &[
                ("sightline.json", manifests::sightline_json),
                ("sightline.jsonc", manifests::sightline_json),
                ("pyproject.toml", manifests::uv_workspace),
            ],
        }
    }

    /// The files one of which makes a directory a package.
    pub fn manifests(self) -> &'static [&'static str] {
        match self {
            Ecosystem::JavaScript => &["package.json", "tsconfig.json", "project.json"],
            Ecosystem::Python => &["pyproject.toml", "setup.py", "setup.cfg"],
        }
    }
}

/// A workspace: its root, the file that declares it, and its packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The directory of the declaring file.
    pub root: PathBuf,
    /// The declaring file's name (`pnpm-workspace.yaml`).
    pub declared_by: &'static str,
    /// Each package's directory, sorted; the root is one when it holds
    /// sources of its own, but is not listed.
    pub packages: Vec<PathBuf>,
}

impl Workspace {
    /// The package holding `file`: the deepest package directory above it.
    pub fn package_of(&self, file: &Path) -> Option<&Path> {
        self.packages
            .iter()
            .filter(|p| file.starts_with(p))
            .max_by_key(|p| p.components().count())
            .map(PathBuf::as_path)
    }

    /// A package's name as answers show it: its path from the root.
    pub fn name_of(&self, package: &Path) -> String {
        package
            .strip_prefix(&self.root)
            .unwrap_or(package)
            .display()
            .to_string()
    }
}

/// The nearest declaration above `file` that is there but cannot be read
/// as one (a `package.json` that is not valid JSON, a `pnpm-workspace.yaml`
/// that is not valid YAML or names no packages): its path and why, in
/// words that follow the path.
pub fn unreadable_declaration(file: &Path, ecosystem: Ecosystem) -> Option<(PathBuf, String)> {
    for dir in file.ancestors().skip(1) {
        for (name, read) in ecosystem.declarations() {
            let path = dir.join(name);
            let Ok(text) = crate::files::read_project_file(&path) else {
                continue;
            };
            if let Some(why) = why_unreadable(name, &text, *read) {
                return Some((path, why));
            }
        }
    }
    None
}

/// Why the declaration `name`, holding `text`, declares no workspace
/// though it is meant to; `None` when it reads, or declares none on purpose.
fn why_unreadable(name: &str, text: &str, read: fn(&str) -> Option<Patterns>) -> Option<String> {
    let no_packages = || "declares no packages that can be read".to_owned();
    match name {
        "package.json" | "lerna.json" | "nx.json" => {
            serde_json::from_str::<serde_json::Value>(text)
                .is_err()
                .then(|| "is not valid JSON".to_owned())
        }
        "pnpm-workspace.yaml" => match crate::syntax::yaml_top_level_strings(text, "packages") {
            Err(e) => Some(e.to_string()),
            Ok(_) => read(text).is_none().then(no_packages),
        },
        // A `pyproject.toml` is a workspace's only when it names uv's.
        "pyproject.toml" if text.contains("tool.uv") => match crate::syntax::toml_table(text) {
            Err(e) => Some(e.to_string()),
            Ok(document) => {
                let declared = document
                    .get("tool")
                    .and_then(|t| t.get("uv"))
                    .and_then(|u| u.get("workspace"))
                    .is_some();
                (declared && read(text).is_none_or(|p| p.include.is_empty())).then(no_packages)
            }
        },
        _ => None,
    }
}

/// How deep under a workspace root its packages are looked for.
const DEPTH: usize = 5;
/// At most this many packages are taken from one workspace.
const MOST_PACKAGES: usize = 500;
/// How long a workspace found is taken as still true.
const FRESH: Duration = Duration::from_secs(2);

type Cache = HashMap<(PathBuf, Ecosystem), (Instant, Option<Workspace>)>;
static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The workspace of `ecosystem` that holds `file` in one of its packages:
/// the nearest ancestor that declares one and lists the file's package.
pub fn workspace_of(file: &Path, ecosystem: Ecosystem) -> Option<Workspace> {
    let dir = file.parent()?.to_owned();
    let key = (dir.clone(), ecosystem);
    if let Ok(cache) = CACHE.lock()
        && let Some((at, found)) = cache.as_ref().and_then(|c| c.get(&key))
        && at.elapsed() < FRESH
    {
        return found.clone();
    }
    let found = find(file, ecosystem);
    if let Ok(mut cache) = CACHE.lock() {
        let cache = cache.get_or_insert_with(HashMap::new);
        if cache.len() > 4096 {
            cache.clear();
        }
        cache.insert(key, (Instant::now(), found.clone()));
    }
    found
}

fn find(file: &Path, ecosystem: Ecosystem) -> Option<Workspace> {
    for dir in file.ancestors().skip(1) {
        for (name, read) in ecosystem.declarations() {
            let text = match crate::files::read_project_file(&dir.join(name)) {
                Ok(text) => text,
                Err(e) if e.is_absent() => continue,
                Err(e) => {
                    tracing::warn!("{e}; its workspace is not read");
                    continue;
                }
            };
            let Some(patterns) = read(&text) else {
                continue;
            };
            let packages = expand(dir, &patterns, ecosystem.manifests());
            // One package is no workspace: a package's own `tsconfig.json`
            // that references `./src` must not hide the monorepo above it.
            if packages.len() >= 2 && packages.iter().any(|p| file.starts_with(p)) {
                return Some(Workspace {
                    root: dir.to_owned(),
                    declared_by: name,
                    packages,
                });
            }
        }
    }
    None
}

/// At most this many globs of one declaration are read: a workspace names
/// its packages in a few dozen; a file of a hundred thousand would cost
/// gigabytes of automaton on every question.
const MOST_PATTERNS: usize = 1000;

/// The directories under `root` that the patterns include and do not
/// exclude, and that hold a manifest.
pub fn expand(root: &Path, patterns: &Patterns, manifests: &[&str]) -> Vec<PathBuf> {
    if patterns.include.len() + patterns.exclude.len() > MOST_PATTERNS {
        tracing::warn!(
            "{}: {} globs, over the {MOST_PATTERNS} read; its workspace is not read",
            root.display(),
            patterns.include.len() + patterns.exclude.len()
        );
        return Vec::new();
    }
    let set = |globs: &[String]| {
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = globset::GlobBuilder::new(g).literal_separator(true).build() {
                b.add(glob);
            }
        }
        b.build().ok()
    };
    let (Some(include), Some(exclude)) = (set(&patterns.include), set(&patterns.exclude)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut stack = vec![(root.to_owned(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        if depth >= DEPTH || found.len() >= MOST_PACKAGES {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || SKIPPED.contains(&name.as_ref()) {
                continue;
            }
            // Links are not followed: `node_modules` links the packages
            // back, and a link may point anywhere.
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if include.is_match(&rel)
                && !exclude.is_match(&rel)
                && manifests.iter().any(|m| path.join(m).is_file())
            {
                found.push(path.clone());
            }
            stack.push((path, depth + 1));
        }
    }
    found.sort();
    found
}

/// Directories that never hold a workspace's own packages.
const SKIPPED: &[&str] = &["node_modules", "target", "dist", "build", "__pycache__"];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_pnpm_workspace_holds_its_packages_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "package.json", "{}");
        write(
            root,
            "pnpm-workspace.yaml",
            "packages:\n  - 'packages/*'\n  - '!packages/old'\n",
        );
        write(root, "packages/core/package.json", "{}");
        write(root, "packages/core/src/a.ts", "");
        write(root, "packages/web/package.json", "{}");
        write(root, "packages/old/package.json", "{}");
        write(root, "packages/notes/README.md", "");
        write(root, "node_modules/x/package.json", "{}");
        let ws = workspace_of(&root.join("packages/core/src/a.ts"), Ecosystem::JavaScript).unwrap();
        assert_eq!(ws.root, root);
        assert_eq!(ws.declared_by, "pnpm-workspace.yaml");
        assert_eq!(
            ws.packages,
            [root.join("packages/core"), root.join("packages/web")]
        );
        assert_eq!(
            ws.package_of(&root.join("packages/web/x.ts")),
            Some(root.join("packages/web").as_path())
        );
        // A file in no package is in no workspace; nor is Python's.
        assert_eq!(
            workspace_of(&root.join("packages/old/a.ts"), Ecosystem::JavaScript),
            None
        );
        assert_eq!(
            workspace_of(&root.join("packages/core/a.py"), Ecosystem::Python),
            None
        );
    }

    #[test]
    fn a_uv_workspace_and_one_named_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "pyproject.toml",
            "[project]\nname='r'\n[tool.uv.workspace]\nmembers = [\"libs/*\"]\n",
        );
        write(root, "libs/a/pyproject.toml", "");
        write(root, "libs/b/pyproject.toml", "");
        write(root, "libs/a/src/a/__init__.py", "");
        let ws = workspace_of(&root.join("libs/a/src/a/__init__.py"), Ecosystem::Python).unwrap();
        assert_eq!(
            (ws.root.as_path(), ws.declared_by),
            (root, "pyproject.toml")
        );
        assert_eq!(ws.name_of(&ws.packages[0]), "libs/a");

        let other = tempfile::tempdir().unwrap();
        let root = other.path();
        write(
            root,
            "sightline.json",
            "{\"workspace\": {\"packages\": [\"services/*\"]}}",
        );
        write(root, "services/api/setup.py", "");
        write(root, "services/jobs/setup.py", "");
        let ws = workspace_of(&root.join("services/api/api.py"), Ecosystem::Python).unwrap();
        assert_eq!(ws.declared_by, "sightline.json");
    }

    #[test]
    fn a_package_s_own_files_do_not_declare_the_workspace_above_it() {
        // The packages' `package.json`s have no `workspaces`, and web's
        // `tsconfig.json` references one project of its own: the root's
        // `workspaces` is the workspace.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "package.json", r#"{"workspaces": ["packages/**"]}"#);
        write(root, "packages/group/core/package.json", "{}");
        write(root, "packages/group/web/package.json", "{}");
        write(
            root,
            "packages/group/web/tsconfig.json",
            r#"{"references": [{"path": "./src"}]}"#,
        );
        write(root, "packages/group/web/src/tsconfig.json", "{}");
        for file in [
            "packages/group/core/index.ts",
            "packages/group/web/src/a.ts",
        ] {
            let ws = workspace_of(&root.join(file), Ecosystem::JavaScript).unwrap();
            assert_eq!(ws.root, root, "{file}");
        }
    }
}
