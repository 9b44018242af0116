//! `dry_run` on the edit tools, through the daemon (`sightline mcp
//! --edit-tools`): the servers are told the new text in memory and asked,
//! nothing is written, and a later question sees the disk. Each preview's
//! delta is compared with that of the same edit made right after it, on
//! pinned real projects: click 8.5.1 with pyright (each edit tool, the
//! first of them on a cold server) and mobx 6.16.1's `src/` with
//! typescript-language-server.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::pinned::mobx_project;
use sightline_test_support::{path_with_tools, require};

use super::by_symbol::package;

/// The project's settings: no formatter (a preview holds the text as given,
/// so the real edits are not formatted either), and 30 s for the files
/// using what changed and for pyright's diagnostics, so that a loaded
/// machine checks them all before and after each edit alike (the defaults
/// are 5 s; under load, pyright took longer to check click's core.py again
/// after a change to utils.py).
const SETTINGS: &str = r#"{ "formatter": false, "dependents_ms": 30000,
    "lsp": { "pyright": { "diagnostics": { "document_ms": 30000 } } } }"#;

/// The answer of a real edit without the checkpoint line it ends with.
fn without_checkpoint(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("checkpoint: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Calls `tool` with `args` as a dry run, checks that no file under
/// `root` changed, then makes the edit; returns both answers.
fn preview_then_edit(d: &mut McpDriver, root: &Path, tool: &str, args: Value) -> (String, String) {
    let before = tree(root);
    let mut dry = args.clone();
    dry["dry_run"] = json!(true);
    let preview = d.call("s", tool, dry);
    assert!(!preview.is_error, "{}", preview.text);
    assert!(
        preview.text.starts_with("preview: nothing was written\n"),
        "{}",
        preview.text
    );
    assert!(
        !preview.text.contains("checkpoint: "),
        "a preview makes no checkpoint:\n{}",
        preview.text
    );
    assert!(tree(root) == before, "the preview of {tool} changed a file");
    let real = d.call("s", tool, args);
    assert!(!real.is_error, "{}", real.text);
    (preview.text, without_checkpoint(&real.text))
}

/// A copy of click 8.5.1 with [`SETTINGS`].
fn click() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, root) = package("click");
    std::fs::write(root.join("sightline.json"), SETTINGS).unwrap();
    (tmp, root)
}

/// Every file under `root` with its bytes.
fn tree(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_owned()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn each_edit_tool_s_dry_run_answers_the_delta_of_the_edit_made_after_it() {
    require("pyright-langserver");
    let (_tmp, root) = click();
    let utils = root.join("click/utils.py");
    let core = root.join("click/core.py");
    let core_text = std::fs::read_to_string(&core).unwrap();
    let call = core_text
        .lines()
        .position(|l| l.trim_start().starts_with("cmd_name = make_str(args[0])"))
        .unwrap()
        + 1;
    let mut d = McpDriver::start();
    d.open_args("s", &root, &path_with_tools(), &["mcp", "--edit-tools"]);

    // The first call of the session, on a server that has answered
    // nothing: a new required parameter, which breaks the call in core.py.
    let body = "def make_str(value: t.Any, strict: bool) -> str:\n    \"\"\"Converts a value into a valid string.\"\"\"\n    return str(value)\n";
    let args = json!({ "file": utils, "symbol": "make_str", "text": body });
    let (preview, real) = preview_then_edit(&mut d, &root, "replace_symbol_body", args);
    assert!(
        preview.contains(&format!(
            "\n{call}:20 error: Argument missing for parameter \"strict\""
        )),
        "the preview names the broken call:\n{preview}"
    );
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    insta::assert_snapshot!(
        "dry_run_symbol_edit",
        preview.replace(&root.display().to_string(), "[project]")
    );

    // The edit was written: core.py has the error now. The edit that
    // undoes it brings no error, previewed or made.
    let (preview, real) = preview_then_edit(
        &mut d,
        &root,
        "edit",
        json!({ "file": utils, "old": "value: t.Any, strict: bool", "new": "value: t.Any" }),
    );
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    assert!(real.ends_with("(1 replacement)\nno errors\n"), "{real}");

    // A preview leaves every server with the disk's text: core.py's
    // errors are those of the disk after the preview, not of the preview.
    let after_edit = d.call("s", "lsp_diagnostics", json!({ "file": core }));
    let patch = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n-def make_str(value: t.Any) -> str:\n+def make_str(value: t.Any, strict: bool) -> str:\n*** End Patch\n",
        utils.display()
    );
    let mut dry = json!({ "patch": patch, "dry_run": true });
    let preview = d.call("s", "apply_patch", dry.clone());
    assert!(
        preview.text.contains(&format!("\n{call}:20 error: ")),
        "{}",
        preview.text
    );
    let disk = d.call("s", "lsp_diagnostics", json!({ "file": core }));
    assert_eq!(
        disk.text, after_edit.text,
        "core.py after the patch's preview"
    );
    dry["dry_run"] = json!(false);
    let real = d.call("s", "apply_patch", dry);
    assert_eq!(
        preview.text,
        format!(
            "preview: nothing was written\n{}",
            without_checkpoint(&real.text)
        )
    );

    // A new file: the preview creates nothing.
    let extra = root.join("click/extra.py");
    let (preview, real) = preview_then_edit(
        &mut d,
        &root,
        "write",
        json!({ "file": extra, "content": "from .utils import make_str\n\nname: int = make_str(1)\n" }),
    );
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    assert!(real.contains("click/extra.py: 1 new error"), "{real}");

    // safe_delete forced, previewed: what the delete would break.
    std::fs::remove_file(&extra).unwrap();
    let (preview, real) = preview_then_edit(
        &mut d,
        &root,
        "safe_delete",
        json!({ "file": utils, "symbol": "make_str", "force": true }),
    );
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    assert!(real.contains("\nclick/core.py: "), "{real}");
    d.close("s");
}

#[test]
fn a_typescript_dry_run_answers_the_delta_of_the_edit_made_after_it() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mobx");
    mobx_project(&root);
    std::fs::write(root.join("sightline.json"), SETTINGS).unwrap();
    let file = root.join("src/utils/utils.ts");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("export function stringifyKey(key: any): string {"));
    let mut d = McpDriver::start();
    d.open_args("s", &root, &path_with_tools(), &["mcp", "--edit-tools"]);
    // A second required parameter breaks the three calls of stringifyKey,
    // in observableobject.ts and observablemap.ts.
    let args = json!({
        "file": file,
        "old": "export function stringifyKey(key: any): string {",
        "new": "export function stringifyKey(key: any, quoted: boolean): string {",
    });
    // Previewed alone first: a later question about a caller is answered
    // for the disk, where the call is right.
    let map = root.join("src/types/observablemap.ts");
    let mut dry = args.clone();
    dry["dry_run"] = json!(true);
    let alone = d.call("s", "edit", dry);
    assert!(
        alone.text.contains("observablemap.ts: 2 new errors"),
        "{}",
        alone.text
    );
    let disk = d.call("s", "lsp_diagnostics", json!({ "file": map }));
    assert!(!disk.text.contains("Expected 2 arguments"), "{}", disk.text);
    let (preview, real) = preview_then_edit(&mut d, &root, "edit", args);
    assert_eq!(preview, alone.text);
    assert!(
        preview.contains("src/types/observablemap.ts: 2 new errors")
            && preview.contains("src/types/observableobject.ts: 1 new error"),
        "{preview}"
    );
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));

    // isFunction is named in 16 files, more than typescript-language-
    // server keeps open at once (8): the staged file stays open while the
    // callers are opened and checked, so each is checked against it.
    let callers = std::process::Command::new("grep")
        .args(["-rlw", "isFunction"])
        .arg(root.join("src"))
        .output()
        .unwrap();
    let callers = String::from_utf8(callers.stdout).unwrap().lines().count();
    assert!(callers > 9, "{callers} files name isFunction");
    let args = json!({
        "file": file,
        "old": "export function isFunction(fn: any): fn is Function {",
        "new": "export function isFunction(fn: any, strict: boolean): fn is Function {",
    });
    let (preview, real) = preview_then_edit(&mut d, &root, "edit", args);
    assert!(preview.contains("(it uses what changed)"), "{preview}");
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    d.close("s");
}

#[test]
fn another_session_s_questions_during_a_dry_run_are_answered_for_the_disk() {
    require("pyright-langserver");
    let (_tmp, root) = click();
    let utils = root.join("click/utils.py");
    let core = root.join("click/core.py");
    let mut d = McpDriver::start();
    // Two sessions of one daemon, sharing its pyright.
    d.open_args("a", &root, &path_with_tools(), &["mcp", "--edit-tools"]);
    d.open_args("b", &root, &path_with_tools(), &["mcp"]);
    // The disk's whole answer. On a slow machine a cold pyright can still
    // be analysing click's 3,000-line core.py after the document budget; that
    // answer says so and shows only what was published for the file, so
    // it is asked again until pyright has answered whole (CI saw "no
    // diagnostics" with the note, where the whole answer has 13).
    let mut disk = d.call("b", "lsp_diagnostics", json!({ "file": core }));
    for _ in 0..10 {
        if !disk.text.contains(STILL_ANALYSING) {
            break;
        }
        disk = d.call("b", "lsp_diagnostics", json!({ "file": core }));
    }
    assert!(
        !disk.is_error && !disk.text.contains("strict") && !disk.text.contains("note: "),
        "{}",
        disk.text
    );
    // a previews a change that breaks a call in core.py, while b asks for
    // core.py's errors every 100 ms.
    let body = "def make_str(value: t.Any, strict: bool) -> str:\n    \"\"\"Converts a value into a valid string.\"\"\"\n    return str(value)\n";
    let mut calls = vec![(
        "a",
        "replace_symbol_body",
        json!({ "file": utils, "symbol": "make_str", "text": body, "dry_run": true }),
        0,
    )];
    for i in 1..=20 {
        calls.push(("b", "lsp_diagnostics", json!({ "file": core }), 100 * i));
    }
    let answers = d.together(&calls);
    assert!(
        answers[0]
            .text
            .contains("error: Argument missing for parameter \"strict\""),
        "{}",
        answers[0].text
    );
    // The test proves something only when b asked while a's preview ran:
    // some of b's questions were sent before the preview was answered.
    let (_, preview_ended) = answers[0].span_ms.unwrap();
    let during = answers[1..]
        .iter()
        .filter(|a| a.span_ms.unwrap().0 < preview_ended)
        .count();
    assert!(
        during > 0,
        "none of b's questions was asked during the preview (it ended at {preview_ended} ms)"
    );
    // Each answer is the disk's: the whole answer, or, when pyright was
    // re-checking core.py after the preview told it the disk's text again
    // and had not ended within the budget, an answer that says so and
    // shows some of the disk's findings. None holds the preview's error.
    let whole = findings(&disk.text);
    for (i, a) in answers.iter().enumerate().skip(1) {
        assert!(
            !a.is_error && !a.text.contains("strict"),
            "b's question {i}: {}",
            a.text
        );
        if a.text.contains(STILL_ANALYSING) {
            let some = findings(&a.text);
            assert!(
                some[1..].iter().all(|f| whole.contains(f)),
                "b's question {i} during the preview: {}",
                a.text
            );
        } else {
            assert_eq!(a.text, disk.text, "b's question {i} during the preview");
        }
    }
    d.close("a");
    d.close("b");
}

/// The note of an answer given when the budget ran out.
const STILL_ANALYSING: &str = "note: pyright was still analysing after ";

/// An answer's lines without its notes: its header, then its findings.
fn findings(answer: &str) -> Vec<&str> {
    answer
        .lines()
        .filter(|l| !l.starts_with("note: "))
        .collect()
}

/// A preview cancelled by its client while it waits for the server (the
/// fake server, scripted to publish nothing for the preview's change) ends
/// as a finished one does: the server is told the disk's text again, the
/// turn is given back, and the next question is answered for the disk.
#[test]
fn a_cancelled_dry_run_leaves_the_server_with_the_disk_s_text() {
    let p = super::mcp::fake_pyright_project(json!({ "rules": [
        { "method": "textDocument/didChange", "nth": 1, "actions": ["ignore"] },
    ] }));
    // A budget longer than the driver waits for the restore (30 s): only
    // the cancel can end the preview in time.
    p.write(
        "sightline.json",
        r#"{ "lsp": { "pyright": { "diagnostics": { "document_ms": 60000 } } } }"#,
    );
    let a_py = p.path("a.py");
    let disk = std::fs::read(&a_py).unwrap();
    let mut d = McpDriver::start();
    d.trust(p.root());
    d.open_args("s", p.root(), &path_with_tools(), &["mcp", "--edit-tools"]);
    // Opened with the disk's text first: the preview's text then comes as
    // the first change, which the server is scripted to leave unanswered.
    let before = d.call("s", "lsp_diagnostics", json!({ "file": a_py }));
    assert_eq!(
        before.text,
        "a.py: 1 diagnostic\n2:7 error: found ERR [fake]\n"
    );
    let log = p.path("fake-lsp.log");
    let answer = d.send(json!({
        "cmd": "cancel", "session": "s", "tool": "edit",
        "args": { "file": a_py, "old": "alpha ERR", "new": "alpha fine", "dry_run": true },
        "file": log,
        // Started: the preview's text is told. Then, once cancelled, the
        // disk's text is told again (without the restore, this never shows
        // and the driver says so).
        "started": "<- textDocument/didChange",
        "cancelled": "alpha ERR\\n\"}],\"textDocument\"",
    }));
    assert!(answer["cancelled"].is_number(), "{answer}");
    assert!(
        d.log("s").contains("edit: cancelled by the client"),
        "{}",
        d.log("s")
    );
    assert_eq!(std::fs::read(&a_py).unwrap(), disk);
    let after = d.call("s", "lsp_diagnostics", json!({ "file": a_py }));
    assert_eq!((after.is_error, after.text), (false, before.text));
    d.close("s");
}

/// `edit` with `then`: a chain of speculative edits across files, previewed
/// as one change. mobx's `stringifyKey` gains a parameter (3 calls break,
/// 2 in observablemap.ts and 1 in observableobject.ts), then the calls in
/// observablemap.ts are fixed: the preview of the chain holds only the
/// call the chain left broken, writes nothing, and the chain made for
/// real answers the same.
#[test]
fn a_chain_of_edits_across_files_previews_the_errors_of_all_of_them_together() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mobx");
    mobx_project(&root);
    std::fs::write(root.join("sightline.json"), SETTINGS).unwrap();
    let file = root.join("src/utils/utils.ts");
    let map = root.join("src/types/observablemap.ts");
    let mut d = McpDriver::start();
    d.open_args("s", &root, &path_with_tools(), &["mcp", "--edit-tools"]);
    let args = json!({
        "file": file,
        "old": "export function stringifyKey(key: any): string {",
        "new": "export function stringifyKey(key: any, quoted: boolean): string {",
        "then": [{
            "file": map,
            "old": "stringifyKey(key)",
            "new": "stringifyKey(key, false)",
            "replace_all": true,
        }],
    });
    let (preview, real) = preview_then_edit(&mut d, &root, "edit", args);
    assert!(
        preview.contains("src/types/observableobject.ts: 1 new error"),
        "{preview}"
    );
    assert!(!preview.contains("observablemap.ts: "), "{preview}");
    assert_eq!(preview, format!("preview: nothing was written\n{real}"));
    let fixed = std::fs::read_to_string(&map).unwrap();
    assert_eq!(fixed.matches("stringifyKey(key, false)").count(), 2);

    // A link of the chain that cannot be made refuses all of it.
    let before = tree(&root);
    let broken = d.call(
        "s",
        "edit",
        json!({
            "file": file,
            "old": "export function stringifyKey(key: any, quoted: boolean): string {",
            "new": "export function stringifyKey(key: any): string {",
            "then": [{ "file": map, "old": "no such text", "new": "x" }],
        }),
    );
    assert!(broken.is_error, "{}", broken.text);
    assert!(
        broken.text.contains("`old` was not found in"),
        "{}",
        broken.text
    );
    assert!(tree(&root) == before, "a refused chain wrote");
    d.close("s");
}

/// A change to what a function returns, where its return type is inferred
/// (no annotation), breaks its users in other packages: the dry run lists
/// them, through the daemon, in TypeScript (an npm workspace of two
/// packages, no root tsconfig) and in Python. Before, a function's body
/// was never its declaration, and only the edited file was listed.
#[test]
fn a_changed_return_of_an_inferred_function_lists_its_users_in_other_packages() {
    require("typescript-language-server");
    require("pyright-langserver");
    let p = sightline_test_support::Project::new(&[
        (
            "package.json",
            r#"{ "name": "root", "private": true, "workspaces": ["packages/*"] }"#,
        ),
        (
            "packages/shared/package.json",
            r#"{ "name": "@demo/shared", "version": "1.0.0", "main": "src/index.ts", "types": "src/index.ts" }"#,
        ),
        (
            "packages/shared/tsconfig.json",
            r#"{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }"#,
        ),
        (
            "packages/shared/src/index.ts",
            "export function label(n: number) {\n  return n + 1;\n}\n",
        ),
        (
            "packages/app/package.json",
            r#"{ "name": "@demo/app", "version": "1.0.0", "dependencies": { "@demo/shared": "1.0.0" } }"#,
        ),
        (
            "packages/app/tsconfig.json",
            r#"{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }"#,
        ),
        (
            "packages/app/src/use.ts",
            "import { label } from \"@demo/shared\";\n\nexport const shown: number = label(1);\n",
        ),
        ("py/pyproject.toml", "[project]\nname = \"py\"\n"),
        ("py/lib.py", "def total(n: int):\n    return n + 1\n"),
        (
            "py/app.py",
            "from lib import total\n\nvalue: int = total(1)\n",
        ),
    ]);
    let modules = p.root().join("node_modules/@demo");
    std::fs::create_dir_all(&modules).unwrap();
    std::os::unix::fs::symlink(p.root().join("packages/shared"), modules.join("shared")).unwrap();
    let daemon = sightline_test_support::DaemonDirs::new();
    let env: Vec<(&str, String)> = daemon
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let index = p.root().join("packages/shared/src/index.ts");
    let index_s = index.display().to_string();
    let (ts, status) = sightline_test_support::run_cli(
        &[
            "edit",
            &index_s,
            "--old",
            "return n + 1;",
            "--new",
            "return String(n);",
            "--dry-run",
        ],
        &env,
    );
    assert_eq!(status, 1, "{ts}");
    assert!(ts.starts_with("preview: nothing was written"), "{ts}");
    assert!(ts.contains("use.ts"), "{ts}");
    assert!(
        ts.contains("3:14 error: Type 'string' is not assignable to type 'number'"),
        "{ts}"
    );
    let lib = p.root().join("py/lib.py").display().to_string();
    let (py, status) = sightline_test_support::run_cli(
        &[
            "edit",
            &lib,
            "--old",
            "return n + 1",
            "--new",
            "return str(n)",
            "--dry-run",
        ],
        &env,
    );
    assert_eq!(status, 1, "{py}");
    assert!(py.contains("app.py"), "{py}");
    assert!(py.contains("3:14 error"), "{py}");
    // Nothing was written.
    assert!(
        std::fs::read_to_string(&index)
            .unwrap()
            .contains("return n + 1;")
    );
}
