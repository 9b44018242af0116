//! `sightline check` / `lsp_check` on a real server: every file of the
//! project checked, the summary first, files by error count, and the CLI's
//! exit status.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

use sightline::{Engine, Options};
use sightline_test_support::{
    Project, path_with_tools, require, runtime, sightline_bin, tools_bin,
};

fn project() -> Project {
    Project::new(&[
        ("pyproject.toml", ""),
        ("ok.py", "a: int = 1\n"),
        ("one.py", "b: int = \"s\"\n"),
        ("pkg/two.py", "c: int = \"t\"\nd: str = 1\n"),
        // Ignored by the project's .gitignore: never checked.
        ("build_out/gen.py", "e: int = \"u\"\n"),
        (".gitignore", "build_out/\n"),
    ])
}

const SUMMARY: &str = "3 errors in 2 files (3 checked)\n";

#[test]
fn a_project_check_lists_every_file_s_errors_most_first() {
    require("pyright-langserver");
    let p = project();
    runtime().block_on(async {
        let ws = Engine::new(Options {
            root: Some(p.root().to_owned()),
            search_path: vec![tools_bin()],
            downloads: Some(false),
            ..Options::default()
        });
        let c = ws.check(None).await.unwrap();
        let text = c.text();
        assert!(text.starts_with(SUMMARY), "{text}");
        let files: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' '))
            .skip(1)
            .collect();
        assert_eq!(files, ["pkg/two.py: 2 errors", "one.py: 1 error"]);
        // Unchanged: the same answer again.
        assert_eq!(ws.check(None).await.unwrap().text(), text);
        // A subtree.
        let sub = ws.check(Some(&p.path("pkg"))).await.unwrap();
        assert!(
            sub.text()
                .starts_with("2 errors in 1 file (1 checked)\ntwo.py: 2 errors\n"),
            "{}",
            sub.text()
        );
        ws.shutdown().await;
    });
    // The CLI: the same text, exit status 1 on errors.
    let out = Command::new(sightline_bin())
        .args(["--no-daemon", "check"])
        .current_dir(p.root())
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(SUMMARY),
        "{out:?}"
    );
    assert_eq!(out.status.code(), Some(1));
}
