//! pyright, for real: cross-file answers, alias-following references,
//! multi-byte columns, fresh diagnostics after edits on disk, caps and errors.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use sightline_test_support::{Project, defs, diags, refs, runtime, workspace};

const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";

const APP: &str = r#"from lib import add
from lib import add as plus

# add appears in this comment but is not a reference
label = "add is only a string here"
total = add(1, 2)
名前 = "🙂 données"; more = add(3, 4)
print(plus(5, 6), label, total, 名前, more)
"#;

fn project() -> Project {
    Project::new(&[("pyproject.toml", ""), ("lib.py", LIB), ("app.py", APP)])
}

#[test]
fn definition_crosses_files() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        assert_eq!(
            defs(&ws, &p.path("app.py"), 6, 9).await,
            "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn references_follow_import_aliases_and_skip_comments_and_strings() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        // The comment and the string on lines 4 and 5 hold the word `add`,
        // which must not be listed; the call through `plus` on line 8 must.
        assert_eq!(
            refs(&ws, &p.path("lib.py"), 1, 5).await,
            "5 references\n\
             app.py:1:17 from lib import add\n\
             app.py:2:17 from lib import add as plus\n\
             app.py:6:9 total = add(1, 2)\n\
             app.py:7:26 名前 = \"🙂 données\"; more = add(3, 4)\n\
             app.py:8:7 print(plus(5, 6), label, total, 名前, more)\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn columns_count_characters_after_emoji_and_cjk() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        // Column 26 of line 7 is `add` only when counted in characters: in
        // utf-16 units the emoji takes two, in bytes the CJK takes three each.
        assert_eq!(
            defs(&ws, &p.path("app.py"), 7, 26).await,
            "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n"
        );
        // `名前` itself, at column 1, and its use at column 33 of line 8.
        assert_eq!(
            refs(&ws, &p.path("app.py"), 7, 1).await,
            "1 reference\napp.py:8:33 print(plus(5, 6), label, total, 名前, more)\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn diagnostics_are_fresh_after_edits_on_disk() {
    let p = project();
    p.write(
        "broken.py",
        "from lib import add\n\ncount: str = add(1, 2)\nprint(undefined_name)\n",
    );
    runtime().block_on(async {
        let ws = workspace();
        let file = p.path("broken.py");
        assert_eq!(
            diags(&ws, &file).await,
            "broken.py: 2 diagnostics\n\
             3:14 error: Type \"int\" is not assignable to declared type \"str\" \"int\" is not assignable to \"str\" [Pyright]\n\
             4:7 error: \"undefined_name\" is not defined [Pyright]\n"
        );
        // Another program fixes the file on disk; the same process must see it.
        p.write("broken.py", "from lib import add\n\ncount: int = add(1, 2)\nprint(count)\n");
        assert_eq!(diags(&ws, &file).await, "broken.py: no diagnostics\n");
        // And breaks it differently.
        p.write("broken.py", "from lib import add\n\ncount: int = add(\"x\", 2)\n");
        let text = diags(&ws, &file).await;
        assert!(text.starts_with("broken.py: 1 diagnostic\n3:18 error: Argument of type \"Literal['x']\""), "{text}");
        ws.shutdown().await;
    });
}

#[test]
fn a_dependency_edited_on_disk_is_seen() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        let app = p.path("app.py");
        assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
        // lib.py is open once a question touched it; editing it on disk must
        // reach the server before the next answer.
        assert!(
            refs(&ws, &p.path("lib.py"), 1, 5)
                .await
                .starts_with("5 references")
        );
        p.write(
            "lib.py",
            "def add(a: int, b: int) -> str:\n    return str(a + b)\n",
        );
        // Whole, right after the dependency's edit: no `note:` that the
        // answer may be stale or partial.
        let text = diags(&ws, &app).await;
        assert_eq!(text, "app.py: no diagnostics\n");
        p.write("app.py", "from lib import add\n\nn: int = add(1, 2)\n");
        let text = diags(&ws, &app).await;
        assert!(
            text.starts_with("app.py: 1 diagnostic\n3:10 error: Type \"str\" is not assignable")
                && !text.contains("note:"),
            "{text}"
        );
        ws.shutdown().await;
    });
}

#[test]
fn more_than_fifty_references_are_capped() {
    let p = project();
    let calls: String = (0..60).map(|i| format!("add({i}, {i})\n")).collect();
    p.write("many.py", &format!("from lib import add\n{calls}"));
    runtime().block_on(async {
        let ws = workspace();
        let text = refs(&ws, &p.path("lib.py"), 1, 5).await;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "66 references", "{text}");
        assert_eq!(lines.len(), 52, "{text}");
        assert_eq!(lines[51], "... and 16 more");
        ws.shutdown().await;
    });
}

#[test]
fn bad_input_gets_one_error_line() {
    let p = project();
    std::fs::create_dir_all(p.path("pkg")).unwrap();
    std::fs::write(p.path("blob.py"), b"\x00\x01\x02binary").unwrap();
    runtime().block_on(async {
        let ws = workspace();
        let app = p.path("app.py");
        let d = |f: &Path| {
            let f = f.to_owned();
            let ws = &ws;
            async move { diags(ws, &f).await }
        };
        assert_eq!(d(Path::new("app.py")).await, "error: file must be an absolute path, got `app.py`\n");
        let missing = p.path("missing.py");
        assert_eq!(d(&missing).await, format!("error: file not found: {}\n", missing.display()));
        let dir = p.path("pkg");
        assert_eq!(d(&dir).await, format!("error: {} is a directory, not a file\n", dir.display()));
        let blob = p.path("blob.py");
        assert_eq!(d(&blob).await, format!("error: {} is a binary file, not source text\n", blob.display()));
        assert_eq!(defs(&ws, &app, 0, 1).await, "error: line must be 1 or more (lines are 1-based)\n");
        assert_eq!(defs(&ws, &app, 99, 1).await, format!("error: line 99 is past the end of {} (8 lines)\n", app.display()));
        assert_eq!(defs(&ws, &app, 6, 0).await, "error: column must be 1 or more (columns are 1-based)\n");
        assert_eq!(defs(&ws, &app, 6, 40).await, "error: column 40 is past the end of line 6 (17 characters)\n");
        assert_eq!(
            defs(&ws, &app, 6, 6).await,
            "error: line 6 column 6 is on whitespace, not a symbol; symbols on this line start at columns 1 (total), 9 (add)\n"
        );
        let outside = tempfile::tempdir().unwrap();
        let lone = outside.path().canonicalize().unwrap().join("lone.py");
        std::fs::write(&lone, "x = 1\n").unwrap();
        assert_eq!(
            d(&lone).await,
            format!(
                "error: {} is outside every workspace: no pyproject.toml, setup.py, package.json, tsconfig.json, .git above it\n",
                lone.display()
            )
        );
        // Nothing was started for any of these.
        assert!(ws.servers().pids().is_empty());
        ws.shutdown().await;
    });
}

#[test]
fn concurrent_first_calls_share_one_server() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        let app = p.path("app.py");
        let lib = p.path("lib.py");
        let (a, b) = tokio::join!(defs(&ws, &app, 6, 9), diags(&ws, &lib));
        assert!(a.starts_with("1 definition"), "{a}");
        assert_eq!(b, "lib.py: no diagnostics\n");
        assert_eq!(ws.servers().pids().len(), 1);
        ws.shutdown().await;
    });
}

#[test]
fn a_dependency_never_opened_edited_on_disk_is_seen() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("lib.py", LIB),
        ("user.py", "from lib import add\n\nn: int = add(1, 2)\n"),
    ]);
    runtime().block_on(async {
        let ws = workspace();
        let user = p.path("user.py");
        assert_eq!(diags(&ws, &user).await, "user.py: no diagnostics\n");
        // pyright read lib.py from disk and caches it; no question opened it.
        p.write(
            "lib.py",
            "def add(a: int, b: int) -> str:\n    return str(a + b)\n",
        );
        let text = diags(&ws, &user).await;
        assert!(
            text.starts_with("user.py: 1 diagnostic\n3:10 error: Type \"str\" is not assignable")
                && !text.contains("note:"),
            "{text}"
        );
        ws.shutdown().await;
    });
}

/// References asked at any signature of an overloaded function treat its
/// declarations alike: none is listed (nor, with declarations, all are),
/// whichever signature is asked.
#[test]
fn the_declarations_of_an_overloaded_function_are_treated_alike() {
    sightline_test_support::require("pyright-langserver");
    const CONV: &str = "from typing import overload\n\n\n@overload\ndef conv(x: int) -> int: ...\n@overload\ndef conv(x: str) -> str: ...\ndef conv(x):\n    return x\n";
    const USE: &str = "from conv import conv\n\na = conv(1)\nb = conv(\"b\")\n";
    let p = Project::new(&[("pyproject.toml", ""), ("conv.py", CONV), ("use.py", USE)]);
    let dirs = sightline_test_support::DaemonDirs::new();
    let config = dirs.runtime().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let data = tempfile::tempdir().unwrap();
    let ask = |args: &[&str]| {
        let out = dirs
            .command(p.root(), &config, data.path())
            .args(args)
            .env("PATH", sightline_test_support::path_with_tools())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let uses = "3 references\nuse.py:1:18 from conv import conv\nuse.py:3:5 a = conv(1)\nuse.py:4:5 b = conv(\"b\")\n";
    for line in ["5", "7", "8"] {
        assert_eq!(
            ask(&["references", &format!("conv.py:{line}:5")]),
            uses,
            "asked at line {line}"
        );
    }
}
