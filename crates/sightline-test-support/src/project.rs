//! Temporary projects: a directory of files that goes when the test ends.

use std::path::{Path, PathBuf};

/// A project in a temporary directory.
pub struct Project {
    /// Held so that the directory lives as long as the project.
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    /// A new project holding `files` (relative path, text).
    pub fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let p = Project { _dir: dir, root };
        for (rel, text) in files {
            p.write(rel, text);
        }
        p
    }

    /// The project's directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `rel` in the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes `text` to `rel`, making its directories.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// The function every tenth package of [`Project::npm_workspace`] calls.
pub const WORKSPACE_FUNCTION: &str = "computeTotal";

impl Project {
    /// An npm workspace of `packages` packages under `packages/` (a git
    /// repository, `"workspaces": ["packages/*"]`): `core` declares
    /// [`WORKSPACE_FUNCTION`] in `core/src/index.ts`, and every tenth of
    /// the others (`p0000`, `p0010`, ...) depends on `@w/core` and calls it
    /// once; the rest declare a constant of their own.
    pub fn npm_workspace(packages: usize) -> Project {
        let p = Project::new(&[
            (
                "package.json",
                r#"{ "name": "root", "private": true, "workspaces": ["packages/*"] }"#,
            ),
            (".git/HEAD", "ref: refs/heads/main\n"),
            (
                "packages/core/package.json",
                r#"{ "name": "@w/core", "dependencies": {} }"#,
            ),
            (
                "packages/core/src/index.ts",
                "export function computeTotal(a: number): number {\n  return a;\n}\n",
            ),
        ]);
        for i in 0..packages.saturating_sub(1) {
            let name = format!("p{i:04}");
            let uses = i % 10 == 0;
            let (deps, src) = if uses {
                (
                    r#""@w/core": "*""#,
                    format!(
                        "import {{ computeTotal }} from \"../../core/src/index\";\nexport const v{i} = computeTotal({i});\n"
                    ),
                )
            } else {
                ("", format!("export const v{i} = {i};\n"))
            };
            p.write(
                &format!("packages/{name}/package.json"),
                &format!(r#"{{ "name": "@w/{name}", "dependencies": {{ {deps} }} }}"#),
            );
            p.write(&format!("packages/{name}/src/index.ts"), &src);
        }
        p
    }
}
