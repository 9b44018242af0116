//! Workspace roots: for each server, the directory it serves a file from.
//! The default is the nearest ancestor holding a project marker; each server
//! refines it (see [`RootRule`]). Glob markers (`*.csproj`) really match.

use std::path::{Path, PathBuf};

use crate::registry::{RootRule, ServerSpec};

/// The default markers of DESIGN §2.2, in no particular order: the nearest
/// directory holding any of them wins.
pub const DEFAULT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "package.json",
    "tsconfig.json",
    ".git",
];

/// Whether `dir` holds `marker`: a name (which may hold a `/`), or a glob
/// matched against the names of its entries.
pub fn has_marker(dir: &Path, marker: &str) -> bool {
    if !marker.contains(['*', '?', '[', '{']) {
        return dir.join(marker).exists();
    }
    let Ok(glob) = globset::Glob::new(marker) else {
        return false;
    };
    let matcher = glob.compile_matcher();
    std::fs::read_dir(dir)
        .is_ok_and(|entries| entries.flatten().any(|e| matcher.is_match(e.file_name())))
}

/// The nearest ancestor of `file` (starting at its directory) holding a marker.
pub fn find_root(file: &Path, markers: &[&str]) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .find(|d| markers.iter().any(|m| has_marker(d, m)))
        .map(Path::to_owned)
}

/// The root for `file`: the nearest marker directory, else the configured
/// workspace directory when the file lies inside it.
pub fn root_for(file: &Path, workspace: Option<&Path>) -> Option<PathBuf> {
    if let Some(found) = find_root(file, DEFAULT_MARKERS) {
        // A marker above the configured workspace (a `.git` at the top of a
        // monorepo, say) must not widen the workspace the user asked for.
        if let Some(ws) = workspace
            && file.starts_with(ws)
            && !found.starts_with(ws)
        {
            return Some(ws.to_owned());
        }
        return Some(found);
    }
    workspace
        .filter(|ws| file.starts_with(ws))
        .map(Path::to_owned)
}

/// The root `spec` serves `file` from, or `None` when it does not attach.
pub fn root_for_server(
    spec: &ServerSpec,
    file: &Path,
    workspace: Option<&Path>,
) -> Option<PathBuf> {
    let default = || root_for(file, workspace);
    let found = match spec.root {
        RootRule::Default => return default(),
        RootRule::Nearest { markers, exclude } => {
            if !exclude.is_empty()
                && find_root(file, exclude).is_some_and(|d| within(&d, file, workspace))
            {
                return None;
            }
            find_root(file, markers)
        }
        RootRule::Strict { markers } => {
            return find_root(file, markers).map(|r| clamp(r, file, workspace));
        }
        RootRule::CargoWorkspace => find_root(file, &["Cargo.toml"]).map(|krate| {
            // The nearest ancestor whose manifest declares `[workspace]`.
            krate
                .ancestors()
                .find(|d| {
                    std::fs::read_to_string(d.join("Cargo.toml"))
                        .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
                })
                .map(Path::to_owned)
                .unwrap_or(krate)
        }),
        RootRule::Go => find_root(file, &["go.work"]).or_else(|| find_root(file, &["go.mod"])),
        RootRule::Java => {
            return gradle_or_maven(file)
                .or_else(|| find_root(file, &[".project", ".classpath"]))
                .map(|r| clamp(r, file, workspace));
        }
        RootRule::Gradle => gradle_or_maven(file),
        RootRule::Nix => find_root(file, &["flake.nix"]).or_else(|| find_root(file, &[".git"])),
    };
    match found {
        Some(r) => Some(clamp(r, file, workspace)),
        None => default(),
    }
}

/// Whether `dir` lies between the file and the workspace boundary (the
/// workspace when the file is inside it, else the filesystem root).
fn within(dir: &Path, file: &Path, workspace: Option<&Path>) -> bool {
    match workspace {
        Some(ws) if file.starts_with(ws) => dir.starts_with(ws),
        _ => true,
    }
}

/// A marker above the configured workspace (a `.git` at the top of a
/// monorepo, say) must not widen the workspace the user asked for.
fn clamp(root: PathBuf, file: &Path, workspace: Option<&Path>) -> PathBuf {
    match workspace {
        Some(ws) if file.starts_with(ws) && !root.starts_with(ws) => ws.to_owned(),
        _ => root,
    }
}

/// Gradle: settings, then the wrapper, then a build file; else the top of
/// the Maven module chain.
fn gradle_or_maven(file: &Path) -> Option<PathBuf> {
    find_root(file, &["settings.gradle", "settings.gradle.kts"])
        .or_else(|| find_root(file, &["gradlew", "gradlew.bat"]))
        .or_else(|| find_root(file, &["build.gradle", "build.gradle.kts"]))
        .or_else(|| maven_top(file))
}

/// The nearest `pom.xml`, climbed while the parent's `pom.xml` lists this
/// directory among its `<module>`s.
fn maven_top(file: &Path) -> Option<PathBuf> {
    let mut dir = find_root(file, &["pom.xml"])?;
    while let Some(parent) = dir.parent() {
        let Ok(pom) = std::fs::read_to_string(parent.join("pom.xml")) else {
            break;
        };
        let Ok(rel) = dir.strip_prefix(parent) else {
            break;
        };
        let rel = rel.to_string_lossy();
        if !maven_modules(&pom).iter().any(|m| *m == rel) {
            break;
        }
        dir = parent.to_owned();
    }
    Some(dir)
}

/// The `<module>` entries of a POM, comments stripped, `./` and trailing `/`
/// removed.
fn maven_modules(pom: &str) -> Vec<String> {
    let mut text = pom.to_owned();
    while let Some(start) = text.find("<!--") {
        let end = text[start..]
            .find("-->")
            .map_or(text.len(), |e| start + e + 3);
        text.replace_range(start..end, "");
    }
    text.split("<module>")
        .skip(1)
        .filter_map(|part| part.split("</module>").next())
        .map(|m| {
            m.trim()
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nearest_marker_wins() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(top.join("pkgs/api/src")).unwrap();
        std::fs::write(top.join("pkgs/api/pyproject.toml"), "").unwrap();
        std::fs::create_dir_all(top.join("pkgs/web/src")).unwrap();
        std::fs::write(top.join("pkgs/web/package.json"), "{}").unwrap();
        let api = top.join("pkgs/api/src/a.py");
        let web = top.join("pkgs/web/src/b.ts");
        let loose = top.join("scripts/c.py");
        assert_eq!(
            find_root(&api, DEFAULT_MARKERS).unwrap(),
            top.join("pkgs/api")
        );
        assert_eq!(
            find_root(&web, DEFAULT_MARKERS).unwrap(),
            top.join("pkgs/web")
        );
        assert_eq!(find_root(&loose, DEFAULT_MARKERS).unwrap(), top);
        // A configured workspace below the `.git` is not widened.
        let ws = top.join("scripts");
        assert_eq!(root_for(&loose, Some(&ws)).unwrap(), ws);
    }

    #[test]
    fn no_marker_means_no_root_unless_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x/y.py");
        assert_eq!(find_root(&f, &["no-such-marker-here"]), None);
        assert_eq!(root_for(&f, Some(dir.path())).unwrap(), dir.path());
    }
}

#[cfg(test)]
mod rule_tests {
    //! Every built-in server's root rule on temporary trees, including the
    //! reference agent's bugs.

    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::registry::builtin;

    /// A tree: paths ending in `/` are directories, others files (a
    /// `Cargo.toml` or `pom.xml` may carry text after `=`).
    fn tree(entries: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        for e in entries {
            let (path, text) = e.split_once('=').unwrap_or((e, ""));
            let p = top.join(path);
            if path.ends_with('/') {
                std::fs::create_dir_all(&p).unwrap();
            } else {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, text).unwrap();
            }
        }
        (dir, top)
    }

    /// The root `id` gives `file` in a tree, relative to the top (`.` for
    /// the top, `-` for "does not attach"); the top is the workspace.
    fn root(id: &str, entries: &[&str], file: &str) -> String {
        let (_dir, top) = tree(entries);
        let spec = builtin(id).unwrap_or_else(|| panic!("no server {id}"));
        let file = top.join(file);
        assert!(
            spec.handles(&file),
            "{id} does not handle {}",
            file.display()
        );
        match root_for_server(spec, &file, Some(&top)) {
            None => "-".into(),
            Some(r) if r == top => ".".into(),
            Some(r) => r.strip_prefix(&top).unwrap().display().to_string(),
        }
    }

    #[test]
    fn javascript_family() {
        assert_eq!(root("deno", &["app/deno.json"], "app/src/main.ts"), "app");
        assert_eq!(root("deno", &["app/package.json"], "app/src/main.ts"), "-");
        assert_eq!(
            root("typescript", &["app/package.json"], "app/src/main.ts"),
            "app"
        );
        assert_eq!(
            root("typescript", &["app/tsconfig.json"], "app/src/main.tsx"),
            "app"
        );
        // Deno projects are not the TypeScript server's.
        assert_eq!(
            root(
                "typescript",
                &["deno.json", "app/package.json"],
                "app/src/main.ts"
            ),
            "-"
        );
        assert_eq!(root("typescript", &[], "src/main.ts"), ".");
        assert_eq!(
            root("typescript-native", &["web/package.json"], "web/a.ts"),
            "web"
        );
        assert_eq!(root("vue", &["web/package.json"], "web/src/App.vue"), "web");
        assert_eq!(
            root("eslint", &["web/package-lock.json"], "web/a.js"),
            "web"
        );
        assert_eq!(root("oxlint", &["web/.oxlintrc.json"], "web/a.js"), "web");
        assert_eq!(root("biome", &["web/biome.json"], "web/a.css"), "web");
        assert_eq!(
            root("svelte", &["web/pnpm-lock.yaml"], "web/App.svelte"),
            "web"
        );
        assert_eq!(
            root(
                "astro",
                &["site/package.json"],
                "site/src/pages/index.astro"
            ),
            "site"
        );
    }

    #[test]
    fn python_family() {
        assert_eq!(
            root("pyright", &["svc/pyproject.toml"], "svc/pkg/mod.py"),
            "svc"
        );
        assert_eq!(
            root("pyright", &["svc/requirements.txt"], "svc/mod.pyi"),
            "svc"
        );
        assert_eq!(root("pyright", &[], "scripts/x.py"), ".");
        assert_eq!(
            root("basedpyright", &["svc/setup.cfg"], "svc/mod.py"),
            "svc"
        );
        assert_eq!(root("ty", &["svc/ty.toml"], "svc/mod.py"), "svc");
    }

    #[test]
    fn go_uses_go_work_then_go_mod() {
        assert_eq!(
            root("gopls", &["go.work", "mod/go.mod"], "mod/pkg/x.go"),
            "."
        );
        // The reference agent never reached `go.mod`.
        assert_eq!(root("gopls", &["mod/go.mod"], "mod/pkg/x.go"), "mod");
        assert_eq!(root("gopls", &[], "x.go"), ".");
    }

    #[test]
    fn rust_walks_up_to_the_workspace() {
        let ws = "Cargo.toml=[workspace]\nmembers = [\"crates/*\"]\n";
        assert_eq!(
            root(
                "rust",
                &[ws, "crates/a/Cargo.toml=[package]\n"],
                "crates/a/src/lib.rs"
            ),
            "."
        );
        assert_eq!(
            root(
                "rust",
                &["crates/a/Cargo.toml=[package]\n"],
                "crates/a/src/lib.rs"
            ),
            "crates/a"
        );
    }

    #[test]
    fn glob_markers_really_match() {
        assert_eq!(
            root("csharp", &["src/App/App.csproj"], "src/App/Program.cs"),
            "src/App"
        );
        assert_eq!(
            root("csharp", &["All.sln", "src/x/"], "src/x/Program.cs"),
            "."
        );
        assert_eq!(
            root("razor", &["web/Web.csproj"], "web/Pages/Index.razor"),
            "web"
        );
        assert_eq!(root("fsharp", &["lib/Lib.fsproj"], "lib/Lib.fs"), "lib");
        assert_eq!(
            root(
                "sourcekit-lsp",
                &["ios/App.xcodeproj/"],
                "ios/App/View.swift"
            ),
            "ios"
        );
        assert_eq!(
            root("terraform", &["infra/main.tf"], "infra/vars.tfvars"),
            "infra"
        );
        assert_eq!(
            root(
                "haskell-language-server",
                &["hs/pkg.cabal"],
                "hs/src/Main.hs"
            ),
            "hs"
        );
        assert_eq!(root("julials", &["jl/Project.toml"], "jl/src/M.jl"), "jl");
    }

    #[test]
    fn java_and_kotlin_chains() {
        assert_eq!(
            root(
                "jdtls",
                &["settings.gradle", "app/build.gradle"],
                "app/src/A.java"
            ),
            "."
        );
        assert_eq!(
            root("jdtls", &["app/build.gradle"], "app/src/A.java"),
            "app"
        );
        let parent = "pom.xml=<project><modules><!-- <module>gone</module> --><module>./core/</module></modules></project>";
        assert_eq!(
            root(
                "jdtls",
                &[parent, "core/pom.xml=<project/>"],
                "core/src/A.java"
            ),
            "."
        );
        assert_eq!(
            root(
                "jdtls",
                &["pom.xml=<project/>", "core/pom.xml=<project/>"],
                "core/src/A.java"
            ),
            "core"
        );
        assert_eq!(
            root("jdtls", &["eclipse/.project"], "eclipse/src/A.java"),
            "eclipse"
        );
        assert_eq!(root("jdtls", &[], "src/A.java"), "-");
        // The reference agent's kotlin rule only ever saw settings files.
        assert_eq!(root("kotlin-ls", &["k/gradlew"], "k/src/A.kt"), "k");
        assert_eq!(
            root("kotlin-ls", &["k/build.gradle.kts"], "k/src/A.kt"),
            "k"
        );
        assert_eq!(
            root("kotlin-ls", &["k/pom.xml=<project/>"], "k/src/A.kt"),
            "k"
        );
    }

    #[test]
    fn the_other_languages() {
        assert_eq!(root("ruby-lsp", &["r/Gemfile"], "r/lib/a.rb"), "r");
        assert_eq!(root("elixir-ls", &["e/mix.exs"], "e/lib/a.ex"), "e");
        assert_eq!(root("zls", &["z/build.zig"], "z/src/main.zig"), "z");
        assert_eq!(
            root("clangd", &["c/compile_commands.json"], "c/src/a.cpp"),
            "c"
        );
        assert_eq!(root("clangd", &["c/.clangd"], "c/include/a.h"), "c");
        assert_eq!(root("yaml-ls", &["y/yarn.lock"], "y/ci.yml"), "y");
        assert_eq!(root("lua-ls", &["l/.luarc.json"], "l/init.lua"), "l");
        assert_eq!(
            root("php intelephense", &["p/composer.json"], "p/src/a.php"),
            "p"
        );
        // A `package.json` beside the schema no longer turns prisma off.
        assert_eq!(
            root(
                "prisma",
                &["db/package.json", "db/prisma/schema.prisma"],
                "db/prisma/schema.prisma"
            ),
            "db/prisma"
        );
        assert_eq!(
            root(
                "prisma",
                &["db/package.json", "db/prisma/schema.prisma"],
                "db/other.prisma"
            ),
            "db"
        );
        assert_eq!(root("dart", &["d/pubspec.yaml"], "d/lib/a.dart"), "d");
        assert_eq!(root("ocaml-lsp", &["o/dune-project"], "o/bin/main.ml"), "o");
        assert_eq!(root("bash", &["sub/pyproject.toml"], "sub/run.sh"), "sub");
        assert_eq!(root("texlab", &["t/.latexmkrc"], "t/paper.tex"), "t");
        assert_eq!(
            root("dockerfile", &["svc/package.json"], "svc/Dockerfile"),
            "svc"
        );
        assert_eq!(root("dockerfile", &[], "build.dockerfile"), ".");
        assert_eq!(root("gleam", &["g/gleam.toml"], "g/src/a.gleam"), "g");
        assert_eq!(root("clojure-lsp", &["c/deps.edn"], "c/src/a.clj"), "c");
        assert_eq!(root("nixd", &["n/flake.nix"], "n/mod/a.nix"), "n");
        assert_eq!(root("nixd", &[".git/", "n/mod/"], "n/mod/a.nix"), ".");
        assert_eq!(root("tinymist", &["t/typst.toml"], "t/doc.typ"), "t");
        assert_eq!(root("json", &["j/package.json"], "j/data.json"), "j");
        assert_eq!(root("css", &[], "style.css"), ".");
        assert_eq!(root("html", &[], "index.html"), ".");
    }

    #[test]
    fn every_reference_server_has_a_root_case() {
        // Without whitespace, so that formatting cannot hide a case.
        let src: String = include_str!("roots.rs")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        for id in crate::builtin::REFERENCE_IDS {
            let id: String = id.chars().filter(|c| !c.is_whitespace()).collect();
            assert!(
                src.contains(&format!("root(\"{id}\"")),
                "no root test for {id}"
            );
        }
    }

    #[test]
    fn a_monorepo_routes_each_file_to_its_own_package() {
        let (_dir, top) = tree(&[
            ".git/",
            "py/api/pyproject.toml",
            "py/api/src/api/app.py",
            "py/worker/pyproject.toml",
            "py/worker/worker.py",
            "ts/web/package.json",
            "ts/web/src/index.ts",
            "ts/admin/package.json",
            "ts/admin/tsconfig.json",
            "ts/admin/src/main.tsx",
        ]);
        let cases = [
            ("pyright", "py/api/src/api/app.py", "py/api"),
            ("pyright", "py/worker/worker.py", "py/worker"),
            ("typescript", "ts/web/src/index.ts", "ts/web"),
            ("typescript", "ts/admin/src/main.tsx", "ts/admin"),
        ];
        for (id, file, want) in cases {
            // With the monorepo top as the workspace, and with none.
            for ws in [Some(top.as_path()), None] {
                let got = root_for_server(builtin(id).unwrap(), &top.join(file), ws).unwrap();
                assert_eq!(got, top.join(want), "{file} with workspace {ws:?}");
            }
        }
    }
}
