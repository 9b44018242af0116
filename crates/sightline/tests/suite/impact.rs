//! What an edit broke, on real servers: the errors an edit introduced (not
//! those already there), in the edited file and in the files that use what
//! it changed, opened before or not; checkpoints and `since`.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline::Config;
use sightline::{Engine, Options};
use sightline_test_support::{Project, require, runtime, tools_bin};

use super::servers::{gopls_config, workspace as configured};

fn engine(p: &Project) -> Engine {
    engine_with(p, json!({}))
}

/// An engine rooted at the project, with this user configuration.
fn engine_with(p: &Project, config: Value) -> Engine {
    require("pyright-langserver");
    require("typescript-language-server");
    let mut c = Config::default();
    c.merge_text(&p.path("user-config.json"), &config.to_string(), false)
        .unwrap();
    Engine::new(Options {
        root: Some(p.root().to_owned()),
        search_path: vec![tools_bin()],
        downloads: Some(false),
        config: c,
        ..Options::default()
    })
}

/// A required parameter added to `add` in lib.py: the two files that call
/// it, never opened before, are reported with the broken calls; a file
/// that only mentions the name in a comment is not.
#[test]
fn pyright_a_new_required_parameter_reports_the_callers_never_opened() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n\n\ndef other() -> int:\n    return 1\n",
        ),
        ("app1.py", "from lib import add\n\ntotal = add(1, 2)\n"),
        (
            "pkg/app2.py",
            "import lib\n\n\ndef f() -> int:\n    return lib.add(3, 4)\n",
        ),
        ("notes.py", "# add is documented elsewhere\nx = 1\n"),
    ]);
    runtime().block_on(async {
        let ws = engine(&p);
        let a = ws
            .editor().write(
                &p.path("lib.py"),
                "def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n\n\ndef other() -> int:\n    return 1\n",
            )
            .await
            .unwrap();
        assert_eq!(
            a.text(),
            format!(
                "wrote {}\napp1.py: 1 new error (it uses what changed)\n3:9 error: Argument missing for parameter \"c\" [Pyright]\npkg/app2.py: 1 new error (it uses what changed)\n5:12 error: Argument missing for parameter \"c\" [Pyright]\n",
                p.path("lib.py").display()
            )
        );
        // The files followed were the two callers; the comment's mention
        // of the name is not a use.
        assert_eq!(a.baseline.dependents, [p.path("app1.py"), p.path("pkg/app2.py")]);
        // A change inside `add`'s body alone changes no declaration: no
        // file is followed.
        let a = ws
            .editor().edit(&p.path("lib.py"), "return a + b + c", "return a + b - c", false)
            .await
            .unwrap();
        assert!(a.baseline.dependents.is_empty(), "{:?}", a.baseline);
        ws.shutdown().await;
    });
}

/// A file with 12 errors edited on one line: only the new error is listed,
/// the 12 are counted; lines shifted above them do not make them new; one
/// fixed is counted as fixed.
#[test]
fn pyright_errors_already_there_are_counted_not_listed() {
    let mut bad = String::from("import os\n\n");
    for i in 0..12 {
        bad.push_str(&format!("v{i}: int = \"s{i}\"\n"));
    }
    bad.push_str("ok: int = 1\n");
    let p = Project::new(&[("pyproject.toml", ""), ("bad.py", &bad)]);
    let file = p.path("bad.py");
    runtime().block_on(async {
        let ws = engine(&p);
        let a = ws.editor().edit(&file, "ok: int = 1", "ok: int = None", false).await.unwrap();
        assert_eq!(
            a.text(),
            format!(
                "edited {} (1 replacement)\nbad.py: 1 new error; 12 were already there (lsp_diagnostics lists them)\n15:11 error: Type \"None\" is not assignable to declared type \"int\" \"None\" is not assignable to \"int\" [Pyright]\n",
                file.display()
            )
        );
        // Two lines above every error: nothing new.
        let a = ws.editor().edit(&file, "import os\n", "import os\n# one\n# two\n", false).await.unwrap();
        assert_eq!(
            a.text(),
            format!(
                "edited {} (1 replacement)\nbad.py: no new errors; 13 were already there (lsp_diagnostics lists them)\nno new errors\n",
                file.display()
            )
        );
        // One fixed.
        let a = ws.editor().edit(&file, "v0: int = \"s0\"", "v0: int = 0", false).await.unwrap();
        assert_eq!(
            a.text(),
            format!(
                "edited {} (1 replacement)\nbad.py: no new errors; 1 fixed; 12 were already there (lsp_diagnostics lists them)\nno new errors\n",
                file.display()
            )
        );
        ws.shutdown().await;
    });
}

/// A TypeScript project whose `use.ts` imports `Shape` from `shapes.ts`
/// through a re-export in `index.ts`; `edit` in `shapes.ts` answers.
fn shapes_edit(use_ts: &str, old: &str, new: &str) -> (Project, String) {
    let p = Project::new(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        (
            "shapes.ts",
            "export interface Shape {\n  width: number;\n  name: string;\n}\n",
        ),
        ("index.ts", "export * from \"./shapes\";\n"),
        ("use.ts", use_ts),
    ]);
    let text = runtime().block_on(async {
        let ws = engine(&p);
        let a = ws
            .editor()
            .edit(&p.path("shapes.ts"), old, new, false)
            .await
            .unwrap();
        ws.shutdown().await;
        a.text()
    });
    (p, text)
}

/// An exported interface's field type changed: the file that imports it
/// through a re-export is reported.
#[test]
fn typescript_a_field_type_change_reaches_a_user_through_a_re_export() {
    let (p, text) = shapes_edit(
        "import { Shape } from \"./index\";\n\nconst s: Shape = { width: 1, name: \"a\" };\nexport const w: number = s.width;\n",
        "width: number",
        "width: string",
    );
    assert_eq!(
        text,
        format!(
            "edited {} (1 replacement)\nuse.ts: 2 new errors (it uses what changed)\n3:20 error: Type 'number' is not assignable to type 'string'. [typescript]\n4:14 error: Type 'string' is not assignable to type 'number'. [typescript]\n",
            p.path("shapes.ts").display()
        )
    );
}

/// A required member added to an exported interface: the object literal
/// that builds one, in a file that imports it through a re-export, breaks.
#[test]
fn typescript_a_new_required_member_reaches_a_user_through_a_re_export() {
    let (p, text) = shapes_edit(
        "import { Shape } from \"./index\";\n\nexport const s: Shape = { width: 1, name: \"a\" };\n",
        "  name: string;\n",
        "  name: string;\n  depth: number;\n",
    );
    assert_eq!(
        text,
        format!(
            "edited {} (1 replacement)\nuse.ts: 1 new error (it uses what changed)\n3:14 error: Property 'depth' is missing in type '{{ width: number; name: string; }}' but required in type 'Shape'. [typescript]\n",
            p.path("shapes.ts").display()
        )
    );
}

/// `dependents_ms` is no clock: at 1 ms the users of a change are still
/// asked before it for as long as pyright works on them, so what the change
/// broke in them is the exact delta. (At 1 ms they used to be listed whole
/// as "not compared: no answer before the change".)
#[test]
fn a_tiny_dependents_ms_still_compares_the_users_before_and_after() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("app.py", "from lib import add\n\ntotal = add(1, 2)\n"),
    ]);
    runtime().block_on(async {
        let ws = engine_with(&p, json!({ "dependents_ms": 1 }));
        // The server is started and the project loaded first, so that the
        // budget is spent on the users alone.
        let _ = ws.diagnostics(&p.path("lib.py")).await.unwrap();
        let a = ws
            .editor().edit(&p.path("lib.py"), "b: int)", "b: int, c: int)", false)
            .await
            .unwrap();
        let text = a.text();
        assert!(
            text.contains(
                "app.py: 1 new error (it uses what changed)\n3:9 error: Argument missing for parameter \"c\" [Pyright]\n"
            ),
            "{text}"
        );
        ws.shutdown().await;
    });
}

/// gopls: a parameter added to a function of one package; its caller in
/// another package of the module is reported.
#[test]
fn gopls_a_signature_change_reaches_a_caller_in_another_package() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
        (
            "util/util.go",
            "package util\n\nfunc Scale(x int) int {\n\treturn x * 2\n}\n",
        ),
        (
            "main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shapes/util\"\n)\n\nfunc main() {\n\tfmt.Println(util.Scale(3))\n}\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = configured(gopls_config());
        let a = ws
            .editor().edit(&p.path("util/util.go"), "Scale(x int)", "Scale(x int, y int)", false)
            .await
            .unwrap();
        assert_eq!(
            a.text(),
            format!(
                "edited {} (1 replacement)\nmain.go: 1 new error (it uses what changed)\n10:14 error: not enough arguments in call to util.Scale [compiler]\n",
                p.path("util/util.go").display()
            )
        );
        ws.shutdown().await;
    });
}

/// `lsp_check` on a project with errors in three files, a checkpoint, one
/// fixed and one broken: `since` gives the delta.
#[test]
fn a_project_checkpoint_then_since_gives_the_delta() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("a.py", "x: int = \"a\"\n"),
        ("b.py", "y: int = \"b\"\nz: int = \"bb\"\n"),
        ("pkg/c.py", "w: str = 1\n"),
        ("ok.py", "fine = 1\n"),
    ]);
    runtime().block_on(async {
        let ws = engine(&p);
        let checked = ws.check(None).await.unwrap();
        assert_eq!(
            checked.text().lines().filter(|l| !l.starts_with(' ')).collect::<Vec<_>>(),
            ["4 errors in 3 files (4 checked)", "b.py: 2 errors", "a.py: 1 error", "pkg/c.py: 1 error"]
        );
        let (cp, summary) = ws.editor().checkpoint(None).await.unwrap();
        assert_eq!(summary, "4 errors in 3 files (4 checked)");
        p.write("a.py", "x: int = 1\n");
        p.write("ok.py", "fine: int = \"no\"\n");
        let since = ws.editor().since("cp1", &cp, None, None).await.unwrap();
        assert_eq!(
            since.text(),
            "since cp1: 1 new error in 1 file; 1 fixed; 3 were already there\nok.py: 1 new error\n  1:13 Type \"Literal['no']\" is not assignable to declared type \"int\" \"Literal['no']\" is not assignable to \"int\" [Pyright]\na.py: 0 new errors; 1 fixed\n"
        );
        // For one file.
        let since = ws.editor().since("cp1", &cp, Some(&p.path("b.py")), None).await.unwrap();
        assert_eq!(since.text(), "since cp1: 0 new errors in 0 files; 0 fixed; 2 were already there\n");
        ws.shutdown().await;
    });
}
