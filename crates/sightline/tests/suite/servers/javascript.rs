//! The JavaScript and TypeScript servers and their linters
//! (`catalog/table/javascript.rs`): TypeScript 7's native server, Vue in
//! hybrid mode, Deno, and Biome, ESLint and oxlint joining
//! typescript-language-server.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

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
        crate::suite::fake::wait_gone(&started).await;
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
