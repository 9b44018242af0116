//! Symbols named by name path on the other servers, through the daemon
//! (`sightline mcp --edit-tools`): typescript-language-server on mobx
//! 6.16.1's `src/` and rust-analyzer on memchr 2.8.3 (pyright's are in
//! `by_symbol`). Each: a method found by its class (or `impl`) and name, a
//! name that several symbols have, `read` by symbol, a body replaced with
//! the errors it brought in the callers, and `safe_delete` refused while
//! used, then forced.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::pinned::{MEMCHR_CARGO_TOML, memchr_source, mobx_project};
use sightline_test_support::{path_with_tools, require};

/// The project's settings: no formatter (the bodies stay as written, so
/// the snapshots are of the text given), and 30 s for the files
/// using what changed, so that a loaded machine checks them all before and
/// after each edit alike (the default is 5 s).
const SETTINGS: &str = r#"{ "formatter": false, "dependents_ms": 30000 }"#;

/// A copy of `from` as `dir/src`.
fn copy_src(from: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(dir.join("src"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(dir.join("sightline.json"), SETTINGS).unwrap();
}

/// The 1-based line of `file` that starts (after indentation) with `start`.
fn line_of(file: &Path, start: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .position(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starting with {start:?} in {}", file.display()))
        + 1
}

fn redacted(text: &str, root: &Path) -> String {
    text.replace(&root.display().to_string(), "[project]")
}

#[test]
fn typescript_symbols_by_name_path_on_mobx() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mobx");
    mobx_project(&root);
    std::fs::write(root.join("sightline.json"), SETTINGS).unwrap();
    let file: PathBuf = root.join("src/types/observablevalue.ts");
    let set_new = line_of(&file, "setNewValue_(newValue: T) {");
    let mut d = McpDriver::start();
    d.open_args("s", &root, &path_with_tools(), &["mcp", "--edit-tools"]);

    // A method by its class and name, the first question of the session.
    let def = d.call(
        "s",
        "lsp_definition",
        json!({ "file": file, "symbol": "ObservableValue/setNewValue_" }),
    );
    assert_eq!(
        def.text
            .lines()
            .nth(1)
            .map(|l| l.split(' ').next().unwrap()),
        Some(format!("src/types/observablevalue.ts:{set_new}:5").as_str()),
        "{}",
        def.text
    );
    // `set` is a method of the interface and of the class.
    let ambiguous = d.call(
        "s",
        "lsp_definition",
        json!({ "file": file, "symbol": "set" }),
    );
    assert!(ambiguous.is_error, "{}", ambiguous.text);
    assert!(
        ambiguous.text.ends_with(&format!(
            ":\nIObservableValue/set method {}\nObservableValue/set method {}\n",
            line_of(&file, "set(value: T): void"),
            line_of(&file, "public set(newValue: T) {"),
        )),
        "{}",
        ambiguous.text
    );
    let read = d.call(
        "s",
        "read",
        json!({ "file": file, "symbol": "ObservableValue/setNewValue_" }),
    );
    assert!(
        read.text.starts_with(&format!(
            "ObservableValue/setNewValue_ method (lines {set_new}-{})\n{set_new:>6}\t    setNewValue_(newValue: T) {{\n",
            set_new + 12
        )),
        "{}",
        read.text
    );

    // A new required parameter: every call breaks, here and in the two
    // files that call it on their observable values.
    let body = read
        .text
        .lines()
        .skip(1)
        .map(|l| l.split_once('\t').unwrap().1)
        .collect::<Vec<_>>()
        .join("\n")
        .replace(
            "setNewValue_(newValue: T)",
            "setNewValue_(newValue: T, reason: string)",
        );
    let replaced = d.call(
        "s",
        "replace_symbol_body",
        json!({ "file": file, "symbol": "ObservableValue/setNewValue_", "text": body }),
    );
    assert!(
        replaced
            .text
            .contains("\nsrc/types/observablevalue.ts: 1 new error")
            && replaced
                .text
                .contains("\nsrc/types/observablemap.ts: 4 new errors")
            && replaced
                .text
                .contains("\nsrc/types/observableobject.ts: 1 new error"),
        "{}",
        replaced.text
    );
    insta::assert_snapshot!(
        "typescript_replace_symbol_body",
        redacted(&replaced.text, &root)
    );

    // dehanceValue is used once, by get.
    let refused = d.call(
        "s",
        "safe_delete",
        json!({ "file": file, "symbol": "ObservableValue/dehanceValue" }),
    );
    assert!(refused.is_error, "{}", refused.text);
    let get = line_of(&file, "return this.dehanceValue(this.value_)");
    assert_eq!(
        refused.text,
        format!(
            "error: not deleted: ObservableValue/dehanceValue method is used 1 time outside it; remove the uses first, or delete anyway with force:\nsrc/types/observablevalue.ts:{get}:21 return this.dehanceValue(this.value_)\n"
        )
    );
    let forced = d.call(
        "s",
        "safe_delete",
        json!({ "file": file, "symbol": "ObservableValue/dehanceValue", "force": true }),
    );
    assert!(
        forced
            .text
            .contains("deleted ObservableValue/dehanceValue method (lines ")
            && forced
                .text
                .contains("Property 'dehanceValue' does not exist"),
        "{}",
        forced.text
    );
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("private dehanceValue(")
    );
    d.close("s");
}

#[test]
fn rust_symbols_by_name_path_on_memchr() {
    sightline_test_support::require_rust_analyzer();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("memchr");
    copy_src(&memchr_source().join("src"), &root);
    std::fs::write(root.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    // A cold rust-analyzer on a loaded machine loaded memchr for longer
    // than the default 10 s ready budget (the answer said so).
    std::fs::write(
        root.join("sightline.json"),
        r#"{ "lsp": { "rust": { "diagnostics": { "ready_ms": 60000 } } } }"#,
    )
    .unwrap();
    let file = root.join("src/memmem/mod.rs");
    let new = line_of(
        &file,
        "pub fn new<B: ?Sized + AsRef<[u8]>>(needle: &'n B) -> Finder<'n> {",
    );
    let mut d = McpDriver::start();
    d.open_args("s", &root, &path_with_tools(), &["mcp", "--edit-tools"]);

    // rust-analyzer's outline names an `impl` block by its header, and a
    // name path gives its type alone.
    let def = d.call(
        "s",
        "lsp_definition",
        json!({ "file": file, "symbol": "Finder/new" }),
    );
    assert_eq!(
        def.text
            .lines()
            .nth(1)
            .map(|l| l.split(' ').next().unwrap()),
        Some(format!("src/memmem/mod.rs:{new}:12").as_str()),
        "{}",
        def.text
    );
    let ambiguous = d.call(
        "s",
        "lsp_definition",
        json!({ "file": file, "symbol": "new" }),
    );
    assert!(ambiguous.is_error, "{}", ambiguous.text);
    assert!(
        ambiguous
            .text
            .contains(&format!("\nimpl Finder<'n>/new function {new}\n")),
        "{}",
        ambiguous.text
    );
    let read = d.call("s", "read", json!({ "file": file, "symbol": "Finder/new" }));
    let header = read.text.lines().next().unwrap();
    assert!(
        header.starts_with("impl Finder<'n>/new function (lines "),
        "{}",
        read.text
    );
    assert!(
        read.text.contains(&format!(
            "{new:>6}\t    pub fn new<B: ?Sized + AsRef<[u8]>>(needle: &'n B) -> Finder<'n> {{\n"
        )),
        "{}",
        read.text
    );

    // A second parameter breaks the module's `find`, which calls it.
    let body: String = read
        .text
        .lines()
        .skip(1)
        .map(|l| format!("{}\n", l.split_once('\t').unwrap().1))
        .collect::<String>()
        .replace(
            "(needle: &'n B) -> Finder<'n>",
            "(needle: &'n B, _strict: bool) -> Finder<'n>",
        );
    // Previewed first: rust-analyzer's own analysis finds the broken calls
    // in the text held in memory; its `cargo check` reads the disk, so it
    // is left out, and the answer says so. Nothing is written.
    let before = std::fs::read(&file).unwrap();
    let preview = d.call(
        "s",
        "replace_symbol_body",
        json!({ "file": file, "symbol": "Finder/new", "text": body, "dry_run": true }),
    );
    assert!(
        preview.text.starts_with("preview: nothing was written\n")
            && preview.text.contains("\nsrc/memmem/mod.rs: ")
            && preview.text.contains(" new error")
            && preview.text.contains(
                "\nnote: rust checks on save, which reads the disk: this preview holds rust's own analysis, not its check's errors\n"
            ),
        "{}",
        preview.text
    );
    assert!(!preview.text.contains("not compared"), "{}", preview.text);
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let replaced = d.call(
        "s",
        "replace_symbol_body",
        json!({ "file": file, "symbol": "Finder/new", "text": body }),
    );
    assert!(
        replaced
            .text
            .contains("this function takes 2 arguments but 1 argument was supplied"),
        "{}",
        replaced.text
    );

    // `FinderBuilder::new` is used by its `Default`, and elsewhere.
    let refused = d.call(
        "s",
        "safe_delete",
        json!({ "file": file, "symbol": "FinderBuilder/new" }),
    );
    assert!(refused.is_error, "{}", refused.text);
    assert!(
        refused
            .text
            .starts_with("error: not deleted: impl FinderBuilder/new function is used "),
        "{}",
        refused.text
    );
    let forced = d.call(
        "s",
        "safe_delete",
        json!({ "file": file, "symbol": "FinderBuilder/new", "force": true }),
    );
    assert!(
        forced
            .text
            .contains("deleted impl FinderBuilder/new function (lines "),
        "{}",
        forced.text
    );
    assert!(forced.text.contains("new error"), "{}", forced.text);
    d.close("s");
}
