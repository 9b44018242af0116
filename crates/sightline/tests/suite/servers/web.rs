//! The servers of the web's other formats (`catalog/table/web.rs`): Astro,
//! Svelte, and the VS Code JSON, CSS and HTML servers.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

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
