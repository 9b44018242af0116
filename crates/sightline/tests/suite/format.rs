//! Formatters, for real, at the versions `tools/install` pins: each one's
//! enable condition both true and false, and overrides by configuration key.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::{Value, json};
use sightline::Config;
use sightline::{FormatOutcome as Outcome, Formatters};

use sightline_test_support::{Project, repo_root, runtime};

fn tools(rel: &str) -> PathBuf {
    repo_root().join("tools").join(rel)
}

/// Formatters finding programs only in `tools/` (and the Rust toolchain for
/// rustfmt), configured by `config` as the user's file.
fn formatters(config: Value) -> Formatters {
    for p in [
        "node_modules/.bin/prettier",
        "node_modules/.bin/biome",
        ".venv/bin/ruff",
        ".venv/bin/shfmt",
        ".venv/bin/clang-format",
        ".venv/bin/uv",
    ] {
        assert!(
            tools(p).is_file(),
            "{p} is not installed; run `tools/install` (the README's test command does this)"
        );
    }
    let mut c = Config::default();
    c.merge_text(
        &PathBuf::from("/test/config.json"),
        &config.to_string(),
        false,
    )
    .unwrap();
    let rustfmt_dir = which::which("rustfmt")
        .map(|p| p.parent().unwrap().display().to_string())
        .unwrap_or_default();
    Formatters::new(
        c.formatting(),
        vec![tools("node_modules/.bin"), tools(".venv/bin")],
        sandbox(),
    )
    .with_path(&rustfmt_dir)
}

/// The default sandbox (workspace-write), launched by this build's binary.
fn sandbox() -> sightline::Sandbox {
    sightline::Sandbox::new(
        sightline::SandboxMode::WorkspaceWrite,
        Some(sightline_test_support::sightline_bin()),
        false,
    )
}

/// (whether `name` is on for `rel`, why) in project `p`.
fn on(f: &Formatters, p: &Project, rel: &str, name: &str) -> (bool, String) {
    let d = f.detect(&p.path(rel));
    let d = d
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("{name} does not handle {rel}"));
    (d.enabled, d.why.clone())
}

/// Formats `rel` and returns (the outcome of `name`, the new text).
fn run(f: &Formatters, p: &Project, rel: &str, name: &str) -> (Outcome, String) {
    let reports = runtime().block_on(f.format(&p.path(rel)));
    let r = reports
        .into_iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("{name} did not run"));
    (r.outcome, std::fs::read_to_string(p.path(rel)).unwrap())
}

const MESSY_TS: &str = "const  x = {a:1,b:2}\n";

#[test]
fn prettier_runs_when_the_project_depends_on_it() {
    let f = formatters(json!({}));
    let yes = Project::new(&[
        (".git/HEAD", ""),
        (
            "package.json",
            r#"{"devDependencies": {"prettier": "3.10.1"}}"#,
        ),
        ("a.ts", MESSY_TS),
    ]);
    assert!(on(&f, &yes, "a.ts", "prettier").0);
    assert_eq!(
        run(&f, &yes, "a.ts", "prettier"),
        (Outcome::Formatted, "const x = { a: 1, b: 2 };\n".into())
    );
    let no = Project::new(&[
        (".git/HEAD", ""),
        ("package.json", "{}"),
        ("a.ts", MESSY_TS),
    ]);
    assert_eq!(
        on(&f, &no, "a.ts", "prettier"),
        (
            false,
            "no package.json in the project lists prettier".into()
        )
    );
}

#[test]
fn biome_runs_when_the_project_has_its_config() {
    let f = formatters(json!({}));
    let yes = Project::new(&[(".git/HEAD", ""), ("biome.json", "{}"), ("a.ts", MESSY_TS)]);
    let (outcome, text) = run(&f, &yes, "a.ts", "biome");
    assert_eq!(
        (outcome, text.as_str()),
        (Outcome::Formatted, "const x = { a: 1, b: 2 };\n")
    );
    let no = Project::new(&[(".git/HEAD", ""), ("a.ts", MESSY_TS)]);
    assert_eq!(
        on(&f, &no, "a.ts", "biome"),
        (false, "no biome.json or biome.jsonc in the project".into())
    );
}

#[test]
fn ruff_runs_when_the_project_uses_it_and_uv_otherwise() {
    let f = formatters(json!({}));
    let yes = Project::new(&[
        (".git/HEAD", ""),
        ("pyproject.toml", "[tool.ruff]\n"),
        ("a.py", "x=[1,2 ,3]\n"),
    ]);
    assert_eq!(
        run(&f, &yes, "a.py", "ruff"),
        (Outcome::Formatted, "x = [1, 2, 3]\n".into())
    );
    // With ruff on, uv stays off.
    assert_eq!(
        on(&f, &yes, "a.py", "uv"),
        (false, "ruff formats this file".into())
    );
    let no = Project::new(&[
        (".git/HEAD", ""),
        ("pyproject.toml", "[project]\nname = \"x\"\n"),
        ("a.py", "x=1\n"),
    ]);
    assert!(!on(&f, &no, "a.py", "ruff").0);
    assert_eq!(
        on(&f, &no, "a.py", "uv"),
        (true, "uv is on PATH and ruff is not used".into())
    );
}

/// uv formats with a ruff it downloaded before, kept in its cache, where
/// it also takes a lock on every run: the run may write that cache (this
/// test's private `XDG_CACHE_HOME/uv`). Without the network, which no
/// formatter gets, a uv with no ruff there says so at once. Before, the
/// sandbox denied the cache, and every run failed with "Failed to
/// initialize cache".
#[test]
fn uv_writes_its_cache_and_says_when_it_has_no_ruff() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        (
            "pyproject.toml",
            "[project]\nname = \"a\"\nversion = \"0\"\n",
        ),
        ("a.py", "x=1\n"),
    ]);
    let f = formatters(json!({}));
    let (outcome, text) = run(&f, &p, "a.py", "uv");
    let cache = PathBuf::from(std::env::var_os("XDG_CACHE_HOME").unwrap()).join("uv");
    assert!(cache.join("CACHEDIR.TAG").is_file(), "{outcome:?}");
    // The cache is the test's own, fresh: there is no ruff in it yet.
    let Outcome::Failed { message } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        message.contains(
            "Network connectivity is disabled, but the requested data wasn't found in the cache"
        ),
        "{message}"
    );
    assert!(
        !message.contains("the sandbox may have denied"),
        "{message}"
    );
    assert_eq!(text, "x=1\n");
}

#[test]
fn disabling_ruff_or_uv_disables_both() {
    let p = Project::new(&[(".git/HEAD", ""), ("ruff.toml", ""), ("a.py", "x=1\n")]);
    for key in ["ruff", "uv"] {
        let f = formatters(json!({ "formatter": { key: { "disabled": true } } }));
        assert_eq!(
            on(&f, &p, "a.py", "ruff"),
            (false, "disabled in the configuration".into()),
            "{key}"
        );
        assert_eq!(
            on(&f, &p, "a.py", "uv"),
            (false, "disabled in the configuration".into()),
            "{key}"
        );
    }
}

#[test]
fn shfmt_runs_when_found() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        ("a.sh", "if [ -n \"$x\" ];then\necho hi\nfi\n"),
    ]);
    let f = formatters(json!({}));
    assert_eq!(
        run(&f, &p, "a.sh", "shfmt"),
        (
            Outcome::Formatted,
            "if [ -n \"$x\" ]; then\n\techo hi\nfi\n".into()
        )
    );
    let c = Config::default();
    let bare = Formatters::new(c.formatting(), vec![], sandbox()).with_path("/nonexistent");
    assert_eq!(
        on(&bare, &p, "a.sh", "shfmt"),
        (false, "`shfmt` is not found".into())
    );
}

#[test]
fn clang_format_runs_with_a_config_file_and_an_override_without_command_keeps_detection() {
    let yes = Project::new(&[
        (".git/HEAD", ""),
        (".clang-format", "BasedOnStyle: LLVM\n"),
        ("a.c", "int main(){return 0;}\n"),
    ]);
    // An override keyed `clang-format` (the name, not a name derived from
    // the program) keeps detection working.
    let f = formatters(json!({ "formatter": { "clang-format": { "environment": { "X": "1" } } } }));
    assert_eq!(
        run(&f, &yes, "a.c", "clang-format"),
        (Outcome::Formatted, "int main() { return 0; }\n".into())
    );
    let no = Project::new(&[(".git/HEAD", ""), ("a.c", "int main(){return 0;}\n")]);
    assert_eq!(
        on(&f, &no, "a.c", "clang-format"),
        (
            false,
            "no .clang-format or _clang-format in the project".into()
        )
    );
}

#[test]
fn rustfmt_runs_when_found() {
    let p = Project::new(&[(".git/HEAD", ""), ("a.rs", "fn main(){let x=1;}\n")]);
    let f = formatters(json!({}));
    assert_eq!(
        run(&f, &p, "a.rs", "rustfmt"),
        (
            Outcome::Formatted,
            "fn main() {\n    let x = 1;\n}\n".into()
        )
    );
    let bare = Formatters::new(Config::default().formatting(), vec![], sandbox())
        .with_path("/nonexistent");
    assert_eq!(
        on(&bare, &p, "a.rs", "rustfmt"),
        (false, "`rustfmt` is not found".into())
    );
}

#[test]
fn detection_starts_at_the_file_in_a_monorepo() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        (
            "packages/web/package.json",
            r#"{"devDependencies": {"prettier": "3.10.1"}}"#,
        ),
        ("packages/web/src/a.ts", MESSY_TS),
        ("packages/api/package.json", "{}"),
        ("packages/api/biome.json", "{}"),
        ("packages/api/src/b.ts", MESSY_TS),
    ]);
    let f = formatters(json!({}));
    assert!(on(&f, &p, "packages/web/src/a.ts", "prettier").0);
    assert!(!on(&f, &p, "packages/web/src/a.ts", "biome").0);
    assert!(!on(&f, &p, "packages/api/src/b.ts", "prettier").0);
    assert!(on(&f, &p, "packages/api/src/b.ts", "biome").0);
}

#[test]
fn a_hung_formatter_is_stopped_and_reported_and_the_edit_stays() {
    let p = Project::new(&[(".git/HEAD", ""), ("notes.txt", "old\n")]);
    let config = json!({ "formatter": { "slow": { "command": ["sleep", "30"], "extensions": [".txt"], "timeout_ms": 500 } } });
    let mut c = Config::default();
    c.merge_text(
        &PathBuf::from("/test/config.json"),
        &config.to_string(),
        false,
    )
    .unwrap();
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            config: c,
            downloads: Some(false),
            ..Default::default()
        });
        let answer = ws
            .editor()
            .write(&p.path("notes.txt"), "new\n")
            .await
            .unwrap();
        assert_eq!(
            answer.text(),
            format!(
                "wrote {f}\n{f}: slow timed out after 0.5 s and was stopped\nno errors\n",
                f = p.path("notes.txt").display()
            )
        );
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(p.path("notes.txt")).unwrap(),
        "new\n"
    );
}

#[test]
fn range_formatting_touches_only_the_edited_lines() {
    // Through the TypeScript server's range formatting.
    let ts = Project::new(&[
        ("tsconfig.json", "{}"),
        (
            "a.ts",
            "const  a = {x:1}\nconst  b = {y:2}\nconst  c = {z:3}\n",
        ),
    ]);
    // Through clang-format's --lines.
    let c = Project::new(&[
        (".git/HEAD", ""),
        (".clang-format", "BasedOnStyle: LLVM\n"),
        ("a.c", "int  a=1;\nint  b=2;\nint  c=3;\n"),
    ]);
    runtime().block_on(async {
        let ws = sightline::Engine::new(sightline::Options {
            search_path: vec![tools("node_modules/.bin"), tools(".venv/bin")],
            downloads: Some(false),
            ..Default::default()
        });
        let answer = ws
            .editor()
            .edit_with(&ts.path("a.ts"), "{y:2}", "{y:20}", false, true)
            .await
            .unwrap();
        assert!(
            answer
                .text()
                .contains("a.ts: formatted with typescript (lines 2-2)"),
            "{}",
            answer.text()
        );
        ws.shutdown().await;
        // clangd formats ranges itself; without it, clang-format does.
        let mut config = Config::default();
        config
            .merge_text(
                &PathBuf::from("/test/config.json"),
                r#"{ "lsp": { "clangd": { "disabled": true } } }"#,
                false,
            )
            .unwrap();
        let ws = sightline::Engine::new(sightline::Options {
            search_path: vec![tools("node_modules/.bin"), tools(".venv/bin")],
            downloads: Some(false),
            config,
            ..Default::default()
        });
        let answer = ws
            .editor()
            .edit_with(&c.path("a.c"), "b=2", "b=20", false, true)
            .await
            .unwrap();
        assert!(
            answer
                .text()
                .contains("a.c: formatted with clang-format (lines 2-2)"),
            "{}",
            answer.text()
        );
        ws.shutdown().await;
    });
    assert_eq!(
        std::fs::read_to_string(ts.path("a.ts")).unwrap(),
        "const  a = {x:1}\nconst b = { y: 20 }\nconst  c = {z:3}\n"
    );
    assert_eq!(
        std::fs::read_to_string(c.path("a.c")).unwrap(),
        "int  a=1;\nint b = 20;\nint  c=3;\n"
    );
}
