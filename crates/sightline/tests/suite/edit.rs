//! The edit tools: byte-order marks, line endings, atomic writes, refused
//! stale edits, all-or-nothing patches, moves, and the errors block against
//! real pyright and typescript-language-server.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sightline_test_support::{Project, runtime, sightline_bin, workspace};

const BOM: &str = "\u{feff}";

#[test]
fn the_byte_order_mark_is_kept_and_never_added() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("bom.txt", &format!("{BOM}alpha\n")),
        ("plain.txt", "alpha\n"),
    ]);
    runtime().block_on(async {
        let ws = workspace();
        ws.editor()
            .edit(&p.path("bom.txt"), "alpha", "beta", false)
            .await
            .unwrap();
        ws.editor()
            .edit(&p.path("plain.txt"), "alpha", "beta", false)
            .await
            .unwrap();
        // `write` with content lacking the mark keeps the file's.
        ws.editor()
            .write(&p.path("bom.txt"), "gamma\n")
            .await
            .unwrap();
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(p.path("bom.txt")).unwrap(),
        format!("{BOM}gamma\n")
    );
    assert_eq!(
        std::fs::read_to_string(p.path("plain.txt")).unwrap(),
        "beta\n"
    );
}

#[test]
fn the_byte_order_mark_survives_a_formatter_that_drops_it() {
    // ruff rewrites the file without the mark; the file should keep it.
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("ruff.toml", ""),
        ("a.py", &format!("{BOM}x=1\n")),
    ]);
    let ruff_dir = sightline_test_support::repo_root().join("tools/.venv/bin");
    assert!(
        ruff_dir.join("ruff").is_file(),
        "ruff is not installed; run tools/install"
    );
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            search_path: vec![sightline_test_support::tools_bin(), ruff_dir],
            downloads: Some(false),
            ..Default::default()
        });
        let a = ws
            .editor()
            .edit(&p.path("a.py"), "x=1", "x=[1,2]", false)
            .await
            .unwrap();
        assert!(
            a.text().contains("a.py: formatted with ruff"),
            "{}",
            a.text()
        );
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(p.path("a.py")).unwrap(),
        format!("{BOM}x = [1, 2]\n")
    );
}

#[test]
fn crlf_line_endings_are_kept() {
    let p = Project::new(&[(".git/HEAD", ""), ("win.txt", "one\r\ntwo\r\nthree\r\n")]);
    runtime().block_on(async {
        let ws = workspace();
        ws.editor()
            .edit(&p.path("win.txt"), "one\ntwo", "uno\ndos\nmas", false)
            .await
            .unwrap();
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read(p.path("win.txt")).unwrap(),
        b"uno\r\ndos\r\nmas\r\nthree\r\n"
    );
    runtime().block_on(async {
        let ws = workspace();
        ws.editor()
            .write(&p.path("win.txt"), "a\nb\n")
            .await
            .unwrap();
        ws.shutdown().await;
    });
    assert_eq!(std::fs::read(p.path("win.txt")).unwrap(), b"a\r\nb\r\n");
}

#[test]
fn replace_all_over_overlapping_multibyte_matches_writes_what_str_replace_does() {
    // `──` is in `───` twice, overlapping; `replace` replaces the first only.
    // This once panicked on a byte offset inside a `─`.
    let p = Project::new(&[(".git/HEAD", ""), ("box.txt", "s = \"───\"\n")]);
    let text = runtime().block_on(async {
        let ws = workspace();
        let a = ws
            .editor()
            .edit_with(&p.path("box.txt"), "──", "-", true, true)
            .await
            .unwrap();
        ws.shutdown().await;
        a.text()
    });
    assert!(
        text.starts_with("edited ") && text.contains("(1 replacement)"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(p.path("box.txt")).unwrap(),
        "s = \"-─\"\n"
    );
}

#[test]
fn a_write_killed_midway_leaves_the_old_file_or_the_new_one_never_half() {
    let p = Project::new(&[(".git/HEAD", ""), ("big.txt", "old\n")]);
    // 200 MB of new content, so that the write takes a while.
    let line =
        "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012345678\n";
    let new: String = line.repeat(200 * 1024 * 1024 / line.len());
    let mut child = Command::new(sightline_bin())
        // In process (`--no-daemon`): this process is the writer killed;
        // through the daemon the daemon writes.
        .args(["--no-daemon", "write", p.path("big.txt").to_str().unwrap()])
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(new.as_bytes()).unwrap();
    }
    // Kill it as soon as its temporary file shows up: mid-write, which is
    // the case under test. A run that never shows one tests nothing.
    let deadline = Instant::now() + Duration::from_secs(30);
    let tmp_seen = loop {
        let tmp = std::fs::read_dir(p.root())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".sightline-tmp"));
        if tmp || Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            break tmp;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        tmp_seen,
        "no temporary file appeared before sightline write ended ({status})"
    );
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "sightline write was not killed midway: it ended on its own ({status})"
        );
    }
    let after = std::fs::read(p.path("big.txt")).unwrap();
    assert!(
        after == b"old\n" || after == new.as_bytes(),
        "big.txt is {} bytes: half written",
        after.len()
    );
}

#[test]
fn an_edit_of_a_file_changed_since_it_was_read_is_refused() {
    let p = Project::new(&[(".git/HEAD", ""), ("a.txt", "one\n")]);
    runtime().block_on(async {
        let ws = workspace();
        assert_eq!(
            ws.editor().read(&p.path("a.txt"), None, None).unwrap(),
            "     1\tone\n"
        );
        // Another program changes it.
        p.write("a.txt", "one\ntwo\n");
        let e = ws
            .editor()
            .edit(&p.path("a.txt"), "one", "uno", false)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "error: {} changed on disk since it was last read; read it again before editing",
                p.path("a.txt").display()
            )
        );
        assert_eq!(
            std::fs::read_to_string(p.path("a.txt")).unwrap(),
            "one\ntwo\n"
        );
        // After reading it again, the edit goes through.
        ws.editor().read(&p.path("a.txt"), None, None).unwrap();
        ws.editor()
            .edit(&p.path("a.txt"), "one", "uno", false)
            .await
            .unwrap();
        let e = ws
            .editor()
            .edit(&p.path("a.txt"), "missing", "x", false)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "error: `old` was not found in {}",
                p.path("a.txt").display()
            )
        );
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(p.path("a.txt")).unwrap(),
        "uno\ntwo\n"
    );
}

#[test]
fn a_patch_with_one_bad_hunk_changes_nothing() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("a.txt", "one\ntwo\n"),
        ("b.txt", "three\n"),
    ]);
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+fresh\n*** Update File: a.txt\n@@\n-one\n+uno\n*** Update File: b.txt\n@@\n-four\n+cuatro\n*** End Patch\n";
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            root: Some(p.root().to_owned()),
            downloads: Some(false),
            ..Default::default()
        });
        let e = ws.editor().apply_patch(patch).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "error: {}: hunk 1 does not match the file; it expects:\nfour",
                p.path("b.txt").display()
            )
        );
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(p.path("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(std::fs::read_to_string(p.path("b.txt")).unwrap(), "three\n");
    assert!(!p.path("new.txt").exists());
}

/// Every file and directory under `root`, with each file's text (all of it:
/// the fixtures are UTF-8, byte-order mark and line endings included).
fn tree(root: &std::path::Path) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_owned()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
                out.push((rel, None));
            } else {
                out.push((rel, Some(std::fs::read_to_string(e.path()).unwrap())));
            }
        }
    }
    out.sort();
    out
}

/// A write that fails after others were made (the last file's directory is
/// a file the patch itself added a step before: a failure even root meets)
/// puts back every file's bytes, removes the files and directories the
/// patch created, and turns the directory that replaced a deleted file back
/// into that file.
#[test]
fn a_patch_that_fails_midway_puts_every_file_back() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("a.txt", &format!("{BOM}one\r\ntwo\r\n")),
        ("q.txt", "a file, for now\n"),
    ]);
    let before = tree(p.root());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** Delete File: q.txt\n*** Add File: q.txt/inner.txt\n+now a directory\n*** Add File: new/deep/f.txt\n+deep\n*** Add File: d\n+a file\n*** Add File: d/x.txt\n+under a file\n*** End Patch\n";
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            root: Some(p.root().to_owned()),
            downloads: Some(false),
            ..Default::default()
        });
        let e = ws.editor().apply_patch(patch).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "error: cannot write {}: File exists (os error 17)",
                p.path("d/x.txt").display()
            )
        );
        ws.shutdown().await;
    });
    assert_eq!(tree(p.root()), before);
}

#[test]
fn a_patch_moves_adds_and_deletes() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("old/name.txt", "keep\nchange\n"),
        ("gone.txt", "x\n"),
    ]);
    let patch = "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: new/name.txt\n@@\n keep\n-change\n+changed\n*** Delete File: gone.txt\n*** Add File: added.txt\n+hello\n*** End Patch\n";
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options { root: Some(p.root().to_owned()), downloads: Some(false), ..Default::default() });
        let a = ws.editor().apply_patch(patch).await.unwrap();
        let root = p.root().display();
        assert_eq!(
            a.text(),
            format!("moved {root}/old/name.txt to {root}/new/name.txt\ndeleted {root}/gone.txt\nadded {root}/added.txt\nno errors\n")
        );
        ws.shutdown().await;
    });
    assert!(!p.path("old/name.txt").exists() && !p.path("gone.txt").exists());
    assert_eq!(
        std::fs::read_to_string(p.path("new/name.txt")).unwrap(),
        "keep\nchanged\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.path("added.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn the_errors_block_against_pyright() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("app.py", "from lib import add\n\ntotal: int = add(1, 2)\n"),
    ]);
    runtime().block_on(async {
        let ws = workspace();
        // app.py is open in pyright once asked about.
        assert_eq!(sightline_test_support::diags(&ws, &p.path("app.py")).await, "app.py: no diagnostics\n");
        // `write` lists the file and other open files that now have errors.
        let a = ws.editor().write(&p.path("lib.py"), "def add(a: int, b: int) -> str:\n    return str(a + b)\n").await.unwrap();
        assert_eq!(
            a.text(),
            format!(
                "wrote {}\napp.py: 1 new error (it uses what changed)\n3:14 error: Type \"str\" is not assignable to declared type \"int\" \"str\" is not assignable to \"int\" [Pyright]\n",
                p.path("lib.py").display()
            )
        );
        // `edit` covers the edited file.
        let a = ws.editor().edit(&p.path("app.py"), "total: int", "total: str", false).await.unwrap();
        assert_eq!(a.text(), format!("edited {} (1 replacement)\napp.py: no new errors; 1 fixed\nno errors\n", p.path("app.py").display()));
        // `apply_patch` covers each changed file.
        let patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-total: str = add(1, 2)\n+total: str = add(1, \"2\")\n*** Add File: more.py\n+from lib import sub\n*** End Patch\n";
        let ws2 = sightline::Engine::new(sightline::Options {
            root: Some(p.root().to_owned()),
            search_path: vec![sightline_test_support::tools_bin()],
            downloads: Some(false),
            ..Default::default()
        });
        let a = ws2.editor().apply_patch(patch).await.unwrap();
        let root = p.root().display();
        assert_eq!(
            a.text(),
            format!(
                "updated {root}/app.py\nadded {root}/more.py\napp.py: 1 new error\n3:21 error: Argument of type \"Literal['2']\" cannot be assigned to parameter \"b\" of type \"int\" in function \"add\" \"Literal['2']\" is not assignable to \"int\" [Pyright]\nmore.py: 1 new error\n1:17 error: \"sub\" is unknown import symbol [Pyright]\n"
            )
        );
        ws.shutdown().await;
        ws2.shutdown().await;
    });
}

#[test]
fn the_errors_block_against_typescript() {
    let p = Project::new(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        (
            "lib.ts",
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        ),
        (
            "app.ts",
            "import { add } from \"./lib\";\n\nexport const total: number = add(1, 2);\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = workspace();
        assert_eq!(sightline_test_support::diags(&ws, &p.path("app.ts")).await, "app.ts: no diagnostics\n");
        let a = ws.editor().write(&p.path("lib.ts"), "export function add(a: number, b: number): string {\n  return String(a + b);\n}\n").await.unwrap();
        assert_eq!(
            a.text(),
            format!(
                "wrote {}\napp.ts: 1 new error (it uses what changed)\n3:14 error: Type 'string' is not assignable to type 'number'. [typescript]\n",
                p.path("lib.ts").display()
            )
        );
        let a = ws.editor().edit(&p.path("app.ts"), "total: number", "total: string", false).await.unwrap();
        assert_eq!(a.text(), format!("edited {} (1 replacement)\napp.ts: no new errors; 1 fixed\nno errors\n", p.path("app.ts").display()));
        ws.shutdown().await;
    });
}
