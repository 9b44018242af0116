//! Every built-in server's root rule on temporary trees, including the
//! cases a plain nearest-marker rule gets wrong.

#![allow(clippy::unwrap_used)]
use std::path::PathBuf;

use crate::catalog::builtin;
use crate::catalog::roots::root_for_server;

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
    // A workspace's packages share one server at the workspace's root,
    // also when the configured workspace is one package (an agent started
    // there); a Deno package in it stays Deno's.
    let ws = [
        "pnpm-workspace.yaml=packages:\n  - 'packages/*'\n",
        "packages/core/package.json={}",
        "packages/web/package.json={}",
        "packages/edge/package.json={}",
        "packages/edge/deno.json={}",
    ];
    assert_eq!(root("typescript", &ws, "packages/web/src/a.ts"), ".");
    assert_eq!(root("typescript", &ws, "packages/edge/main.ts"), "-");
    let (_dir, top) = tree(&ws);
    let core = top.join("packages/core");
    assert_eq!(
        root_for_server(
            builtin("typescript").unwrap(),
            &core.join("a.ts"),
            Some(&core)
        ),
        Some(top.clone())
    );
    // One package is no workspace.
    assert_eq!(
        root(
            "typescript",
            &[
                "package.json={\"workspaces\": [\"app\"]}",
                "app/package.json={}"
            ],
            "app/a.ts"
        ),
        "app"
    );
    // pyright: a uv workspace's members, from its root.
    let uv = [
        "pyproject.toml=[tool.uv.workspace]\nmembers = [\"libs/*\"]\n",
        "libs/a/pyproject.toml",
        "libs/b/pyproject.toml",
    ];
    assert_eq!(root("pyright", &uv, "libs/a/src/a/x.py"), ".");
    assert_eq!(root("ty", &uv, "libs/a/src/a/x.py"), "libs/a");
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
    // Without `go.work`, the nearest `go.mod` is the root.
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
    // Not only settings files: the wrapper and build files count too.
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
    assert_eq!(root("bash", &["sub/pyproject.toml"], "sub/run.sh"), ".");
    assert_eq!(root("texlab", &["t/.latexmkrc"], "t/paper.tex"), "t");
    assert_eq!(
        root("dockerfile", &["svc/package.json"], "svc/Dockerfile"),
        "."
    );
    assert_eq!(root("dockerfile", &[], "build.dockerfile"), ".");
    assert_eq!(root("gleam", &["g/gleam.toml"], "g/src/a.gleam"), "g");
    assert_eq!(root("clojure-lsp", &["c/deps.edn"], "c/src/a.clj"), "c");
    assert_eq!(root("nixd", &["n/flake.nix"], "n/mod/a.nix"), "n");
    assert_eq!(root("nixd", &[".git/", "n/mod/"], "n/mod/a.nix"), ".");
    assert_eq!(root("tinymist", &["t/typst.toml"], "t/doc.typ"), "t");
    assert_eq!(root("json", &["j/package.json"], "j/data.json"), ".");
    assert_eq!(root("css", &[], "style.css"), ".");
    assert_eq!(root("html", &[], "index.html"), ".");
}

/// The servers that read each file alone serve a whole repository from one
/// root, though each package has markers of its own: `check` of a monorepo
/// starts one JSON server, not one per package.
#[test]
fn a_server_that_reads_files_alone_has_one_root_per_repository() {
    let (_dir, top) = tree(&[".git/", "a/package.json", "b/c/package.json", "b/c/d.json"]);
    for (id, files) in [
        ("json", ["a/package.json", "b/c/d.json"]),
        ("css", ["a/x.css", "b/c/y.scss"]),
        ("html", ["a/x.html", "b/c/y.html"]),
        ("bash", ["a/x.sh", "b/c/y.sh"]),
        ("dockerfile", ["a/Dockerfile", "b/c/Dockerfile"]),
    ] {
        let spec = builtin(id).unwrap();
        for file in files {
            assert_eq!(
                root_for_server(spec, &top.join(file), None),
                Some(top.clone()),
                "{id} {file}"
            );
        }
    }
    // Outside a repository, the project around the file.
    let (_dir, top) = tree(&["p/package.json"]);
    let json = builtin("json").unwrap();
    assert_eq!(
        root_for_server(json, &top.join("p/x.json"), None),
        Some(top.join("p"))
    );
}

#[test]
fn every_reference_server_has_a_root_case() {
    // Without whitespace, so that formatting cannot hide a case.
    let src: String = include_str!("root_tests.rs")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    for id in super::CONFIG_IDS {
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
