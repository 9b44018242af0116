//! Other folders in one workspace (`sightline mcp --folder DIR`, the user
//! configuration's `workspace.folders`): a library checked out beside its
//! consumer, which depends on it through `node_modules`. A session in the
//! library finds the consumer's uses by references and keeps them whole in
//! a rename only when the consumer's folder is one of its folders; without
//! it the consumer is not seen. Through the daemon, over MCP.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{path_with_tools, require, tsc};

const LIB: &str =
    "export function computeTotal(a: number, b: number): number {\n  return a + b;\n}\n";
const APP: &str = "import { computeTotal } from \"@acme/lib\";\n\nexport const total: number = computeTotal(1, 2);\n";

/// `top/lib` (the library, `@acme/lib`) and `top/app` (its consumer, with
/// `node_modules/@acme/lib` linked to the library), no workspace between
/// them.
fn folders(top: &Path) {
    let write = |rel: &str, text: &str| {
        let p = top.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let tsconfig = "{\"compilerOptions\": {\"strict\": true, \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"target\": \"esnext\", \"noEmit\": true}, \"include\": [\"src\"]}";
    write(
        "lib/package.json",
        "{\"name\": \"@acme/lib\", \"version\": \"1.0.0\", \"types\": \"src/index.ts\", \"main\": \"src/index.ts\"}",
    );
    write("lib/tsconfig.json", tsconfig);
    write("lib/src/index.ts", LIB);
    write(
        "app/package.json",
        "{\"name\": \"app\", \"private\": true, \"dependencies\": {\"@acme/lib\": \"1.0.0\"}}",
    );
    write("app/tsconfig.json", tsconfig);
    write("app/src/main.ts", APP);
    std::fs::create_dir_all(top.join("app/node_modules/@acme")).unwrap();
    std::os::unix::fs::symlink("../../../lib", top.join("app/node_modules/@acme/lib")).unwrap();
}

#[test]
fn a_consumer_in_another_folder_is_found_by_references_and_kept_whole_by_a_rename() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    folders(&top);
    let lib = top.join("lib");
    let app = top.join("app");
    let index = lib.join("src/index.ts");
    let main = app.join("src/main.ts");
    assert_eq!(
        tsc(&app),
        "",
        "the consumer type-checks against the library"
    );

    let mut d = McpDriver::start();
    // Without the folder: the library alone.
    d.open("alone", &lib);
    let refs = d.call(
        "alone",
        "lsp_references",
        json!({ "file": index, "line": 1, "column": 17 }),
    );
    assert!(!refs.is_error, "{}", refs.text);
    assert!(!refs.text.contains("main.ts"), "{}", refs.text);
    d.close("alone");

    let folder = app.display().to_string();
    d.open_args(
        "s",
        &lib,
        &path_with_tools(),
        &["mcp", "--edit-tools", "--folder", &folder],
    );
    let refs = d.call(
        "s",
        "lsp_references",
        json!({ "file": index, "line": 1, "column": 17 }),
    );
    let main_s = main.display().to_string();
    assert_eq!(
        refs.text,
        format!(
            "2 references\n{main_s}:1:10 import {{ computeTotal }} from \"@acme/lib\";\n{main_s}:3:30 export const total: number = computeTotal(1, 2);\n"
        ),
        "{}",
        refs.text
    );

    let renamed = d.call(
        "s",
        "rename",
        json!({ "file": index, "line": 1, "column": 17, "new_name": "computeSum" }),
    );
    assert!(!renamed.is_error, "{}", renamed.text);
    assert!(
        renamed
            .text
            .starts_with("renamed computeTotal → computeSum: 3 edits in 2 files"),
        "{}",
        renamed.text
    );
    assert_eq!(
        std::fs::read_to_string(&main).unwrap(),
        APP.replace("computeTotal", "computeSum")
    );
    assert_eq!(tsc(&app), "", "the consumer still type-checks");
    d.close("s");
}

/// A folder is written by the renames that reach it: `--folder` naming the
/// file system's root or a folder holding the workspace is one error line
/// (exit 2) before any session starts, through the daemon or not.
#[test]
fn a_folder_that_is_the_root_or_holds_the_workspace_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    let app = top.join("app");
    std::fs::create_dir(&app).unwrap();
    let daemon = sightline_test_support::DaemonDirs::new();
    for (folder, why) in [
        ("/".to_owned(), "it is the file system's root"),
        (top.display().to_string(), "it holds the workspace"),
        ("..".to_owned(), "it holds the workspace"),
    ] {
        for no_daemon in [false, true] {
            let mut args = vec!["mcp", "--folder", folder.as_str()];
            if no_daemon {
                args.insert(0, "--no-daemon");
            }
            let (code, stdout, stderr) =
                sightline_test_support::refusal(&args, &app, &daemon, None);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
            assert!(
                lines[0].starts_with("error: `") && lines[0].contains(why),
                "{args:?}: {stderr}"
            );
            assert!(stdout.is_empty(), "{args:?}");
        }
    }
    // The user configuration's folders alike: one holding the workspace is
    // refused when the session starts.
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sightline")).unwrap();
    std::fs::write(
        config.path().join("sightline/config.json"),
        format!(
            "{{ \"workspace\": {{ \"folders\": [\"{}\"] }} }}",
            top.display()
        ),
    )
    .unwrap();
    for no_daemon in [false, true] {
        let mut args = vec!["mcp"];
        if no_daemon {
            args.insert(0, "--no-daemon");
        }
        let (code, _, stderr) =
            sightline_test_support::refusal(&args, &app, &daemon, Some(config.path()));
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr
                .trim_end()
                .ends_with(&format!("it holds the workspace `{}`", app.display())),
            "{args:?}: {stderr}"
        );
    }
}

/// TanStack Query's query-core (npm) checked out as `lib/`, and its real
/// consumer react-query as `app/` beside it, depending on it through
/// `node_modules/@tanstack/query-core` (no workspace between them), each
/// with the monorepo's own `tsconfig.json`.
fn tanstack_lib_and_consumer(top: &Path) {
    let source = sightline_test_support::pinned::tanstack_source();
    for (name, folder) in [("query-core", "lib"), ("react-query", "app")] {
        let to = top.join(folder);
        std::fs::create_dir_all(&to).unwrap();
        let copied = std::process::Command::new("cp")
            .arg("-r")
            .arg(source.join(name).join("src"))
            .arg(to.join("src"))
            .status()
            .unwrap();
        assert!(copied.success());
        std::fs::copy(
            source.join(name).join("package.json"),
            to.join("package.json"),
        )
        .unwrap();
        std::fs::write(
            to.join("tsconfig.json"),
            sightline_test_support::pinned::TANSTACK_TSCONFIG,
        )
        .unwrap();
    }
    std::fs::create_dir_all(top.join("app/node_modules/@tanstack")).unwrap();
    std::os::unix::fs::symlink(
        "../../../lib",
        top.join("app/node_modules/@tanstack/query-core"),
    )
    .unwrap();
}

/// On pinned real code: a session in query-core with react-query's folder
/// finds react-query's uses of `shouldThrowError` by references, and a
/// rename keeps them whole (through the re-export in query-core's index):
/// react-query's `tsc` says the same after as before.
#[test]
fn a_real_consumer_in_another_folder_is_found_and_kept_whole_by_a_rename() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    tanstack_lib_and_consumer(&top);
    let (lib, app) = (top.join("lib"), top.join("app"));
    let utils = lib.join("src/utils.ts");
    let line = std::fs::read_to_string(&utils)
        .unwrap()
        .lines()
        .position(|l| l.starts_with("export function shouldThrowError"))
        .unwrap()
        + 1;
    let before = (tsc(&lib), tsc(&app));

    let mut d = McpDriver::start();
    let folder = app.display().to_string();
    d.open_args(
        "s",
        &lib,
        &path_with_tools(),
        &["mcp", "--edit-tools", "--folder", &folder],
    );
    let at = json!({ "file": utils, "line": line, "symbol": "shouldThrowError" });
    let refs = d.call("s", "lsp_references", at.clone());
    assert!(!refs.is_error, "{}", refs.text);
    // Every line of react-query's sources that names it (each is an import
    // or a call of it) is among the references.
    let mut app_uses = Vec::new();
    for file in ["errorBoundaryUtils.ts", "useMutation.ts"] {
        let path = app.join("src").join(file);
        for (n, l) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
            if l.contains("shouldThrowError") {
                app_uses.push(format!("{}:{}:", path.display(), n + 1));
            }
        }
    }
    assert!(app_uses.len() >= 4, "{app_uses:?}");
    for u in &app_uses {
        assert!(refs.text.contains(u.as_str()), "{u} not in:\n{}", refs.text);
    }

    let mut renamed_args = at;
    renamed_args["new_name"] = json!("shouldThrowErrorFor");
    let renamed = d.call("s", "rename", renamed_args);
    assert!(!renamed.is_error, "{}", renamed.text);
    assert!(
        renamed
            .text
            .starts_with("renamed shouldThrowError → shouldThrowErrorFor"),
        "{}",
        renamed.text
    );
    for file in ["errorBoundaryUtils.ts", "useMutation.ts"] {
        let text = std::fs::read_to_string(app.join("src").join(file)).unwrap();
        assert!(
            text.contains("shouldThrowErrorFor")
                && !text.contains("shouldThrowError,")
                && !text.contains("shouldThrowError("),
            "{file}:\n{}",
            renamed.text
        );
    }
    assert_eq!((tsc(&lib), tsc(&app)), before, "{}", renamed.text);
    d.close("s");
}
