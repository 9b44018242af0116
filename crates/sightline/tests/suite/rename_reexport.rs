//! A rename through a re-export, in both of `public_names`' modes, through
//! the daemon (`sightline mcp --edit-tools`) with typescript-language-server
//! on mobx 6.16.1's `src/`: `isComputed` is declared in
//! `src/api/iscomputed.ts`, re-exported by `src/internal.ts` (`export *`)
//! and by `src/mobx.ts` (`export { isComputed, ... } from "./internal"`),
//! and a module of the project imports it from `src/mobx.ts`.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::pinned::{MOBX_TSCONFIG, mobx_project};
use sightline_test_support::{path_with_tools, require};

const APP: &str = "import { isComputed } from \"./src/mobx\"\n\nexport const computed: boolean = isComputed({})\n";

/// A copy of mobx's sources in `dir`, with a module that imports from its
/// public entry point.
fn mobx_with_importer(dir: &Path) -> PathBuf {
    mobx_project(dir);
    let tsconfig = MOBX_TSCONFIG.replace(
        r#""include": ["src", "env.d.ts"]"#,
        r#""include": ["src", "env.d.ts", "app.ts"]"#,
    );
    assert_ne!(tsconfig, MOBX_TSCONFIG);
    std::fs::write(dir.join("tsconfig.json"), tsconfig).unwrap();
    std::fs::write(dir.join("app.ts"), APP).unwrap();
    std::fs::write(dir.join("sightline.json"), "{ \"formatter\": false }").unwrap();
    dir.join("src/api/iscomputed.ts")
}

/// Line `n` of `src/mobx.ts`, trimmed: in mobx 6.16.1 its export list
/// names `isComputed` on line 81 and `isComputedProp` on line 82.
fn export_line(root: &Path, n: usize) -> String {
    std::fs::read_to_string(root.join("src/mobx.ts"))
        .unwrap()
        .lines()
        .nth(n - 1)
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn a_rename_through_a_re_export_renames_importers_or_keeps_an_alias() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let kept = tmp.path().join("kept");
    let renamed = tmp.path().join("renamed");
    let kept_file = mobx_with_importer(&kept);
    let renamed_file = mobx_with_importer(&renamed);
    let mut d = McpDriver::start();
    d.open_args("k", &kept, &path_with_tools(), &["mcp", "--edit-tools"]);
    d.open_args("r", &renamed, &path_with_tools(), &["mcp", "--edit-tools"]);

    // keep: the re-export in mobx.ts keeps the public name, and the module
    // that imports it through mobx.ts is left as it was.
    let answer = d.call(
        "k",
        "rename",
        json!({ "file": kept_file, "symbol": "isComputed", "kind": "function", "new_name": "isAComputed", "public_names": "keep" }),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(export_line(&kept, 81), "isAComputed as isComputed,");
    assert_eq!(std::fs::read_to_string(kept.join("app.ts")).unwrap(), APP);
    assert!(
        answer.text.contains(
            "\nkept the public name `isComputed` as an alias (1 place; public_names: \"rename\" renames it for its importers too):\nsrc/mobx.ts:81 isAComputed as isComputed,\n"
        ),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("\nno errors\n"), "{}", answer.text);
    insta::assert_snapshot!("rename_keeping_public_names", answer.text);

    // The default renames it everywhere: in the re-export and in the module
    // that imports it through it, and says nothing of aliases.
    let answer = d.call(
        "r",
        "rename",
        json!({ "file": renamed_file, "symbol": "isComputed", "kind": "function", "new_name": "isAComputed" }),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(export_line(&renamed, 81), "isAComputed,");
    assert_eq!(
        std::fs::read_to_string(renamed.join("app.ts")).unwrap(),
        APP.replace("isComputed(", "isAComputed(")
            .replace("{ isComputed }", "{ isAComputed }")
    );
    assert!(
        !answer.text.contains("kept the public name"),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("\nno errors\n"), "{}", answer.text);
    insta::assert_snapshot!("rename_everywhere", answer.text);

    // The preference was set back after the default rename (tsserver's
    // own default keeps aliases, and a rename asking to keep them sets
    // nothing): keeping the next one keeps its alias.
    let answer = d.call(
        "r",
        "rename",
        json!({ "file": renamed_file, "symbol": "isComputedProp", "kind": "function", "new_name": "isComputedProperty", "public_names": "keep" }),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(
        export_line(&renamed, 82),
        "isComputedProperty as isComputedProp,"
    );
    d.close("k");
    d.close("r");
}
