//! Supertypes and subtypes through the daemon's CLI (`sightline types`),
//! on each kind of server: clangd answers through its own type hierarchy;
//! pyright, typescript-language-server and rust-analyzer offer none, and
//! the answer says it is made of the bases the declaration names (each
//! resolved with `definition`) and of `implementation`, or of the class
//! headers among the references. On pinned real projects: click 8.5.1,
//! mobx 6.16.1's `src/`, memchr 2.8.3; clangd on a few C++ classes.

#![allow(clippy::unwrap_used)]

use sightline_test_support::pinned::{MEMCHR_CARGO_TOML, memchr_source, mobx_project};
use sightline_test_support::{Project, repo_root, require};

use super::by_symbol::{Daemon, package};

/// The places of an answer (`PATH:LINE:COL KIND NAME` lines), as `PATH NAME`.
fn places(answer: &str) -> Vec<String> {
    answer
        .lines()
        .filter(|l| !l.starts_with("note: ") && l.contains(' '))
        .skip(1)
        .map(|l| {
            let mut parts = l.split(' ');
            let at = parts.next().unwrap();
            let name = parts.nth(1).unwrap_or("");
            let path = at.split(':').next().unwrap();
            format!("{path} {name}")
        })
        .collect()
}

#[test]
fn pyright_supertypes_are_the_named_bases_and_subtypes_the_deriving_classes() {
    require("pyright-langserver");
    let (_tmp, root) = package("click");
    let core = root.join("click/core.py").display().to_string();
    let d = Daemon::new();
    let (up, code) = d.run(&["types", "up", &core, "--symbol", "Group"], "");
    assert_eq!(code, 0, "{up}");
    assert!(
        up.contains(
            "\nnote: pyright offers no type hierarchy: these are the bases its declaration names"
        ),
        "{up}"
    );
    assert_eq!(places(&up), ["click/core.py Command"], "{up}");
    let (down, code) = d.run(
        &[
            "types", "down", &core, "--symbol", "Command", "--kind", "class",
        ],
        "",
    );
    assert_eq!(code, 0, "{down}");
    assert!(
        down.contains("these are the classes whose declaration names it as a base"),
        "{down}"
    );
    assert!(
        places(&down).contains(&"click/core.py Group".to_owned()),
        "{down}"
    );
    insta::assert_snapshot!("pyright_supertypes", up);
}

#[test]
fn typescript_supertypes_and_subtypes_of_mobx_classes() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    mobx_project(root);
    let d = Daemon::new();
    let value = root
        .join("src/types/observablevalue.ts")
        .display()
        .to_string();
    let (up, code) = d.run(
        &[
            "types",
            "up",
            &value,
            "--symbol",
            "ObservableValue",
            "--kind",
            "class",
        ],
        "",
    );
    assert_eq!(code, 0, "{up}");
    assert!(
        places(&up).contains(&"src/core/atom.ts Atom".to_owned()),
        "{up}"
    );
    assert!(
        places(&up).contains(&"src/types/observablevalue.ts IObservableValue".to_owned()),
        "{up}"
    );
    let atom = root.join("src/core/atom.ts").display().to_string();
    let (down, code) = d.run(
        &[
            "types", "down", &atom, "--symbol", "Atom", "--kind", "class",
        ],
        "",
    );
    assert_eq!(code, 0, "{down}");
    assert!(
        down.contains("these are its implementations (goToImplementation)"),
        "{down}"
    );
    assert_eq!(
        places(&down),
        ["src/types/observablevalue.ts ObservableValue"],
        "{down}"
    );
    insta::assert_snapshot!("typescript_subtypes", down);
}

#[test]
fn rust_analyzer_supertraits_and_implementations_of_memchr_s_vector() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("memchr");
    std::fs::create_dir_all(&root).unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(memchr_source().join("src"))
        .arg(root.join("src"))
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(root.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    let vector = root.join("src/vector.rs");
    let source = std::fs::read_to_string(&vector).unwrap();
    // `impl Vector for T` for each architecture; rust-analyzer analyses
    // only this machine's (the others are behind `cfg`).
    let implemented: Vec<String> = source
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("impl Vector for "))
        .map(|t| t.trim_end_matches(" {").to_owned())
        .collect();
    let v = vector.display().to_string();
    let d = Daemon::new();
    let (up, code) = d.run(&["types", "up", &v, "--symbol", "Vector"], "");
    assert_eq!(code, 0, "{up}");
    let names: Vec<String> = places(&up)
        .iter()
        .map(|p| p.rsplit(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["Debug", "Copy"], "{up}");
    let (down, code) = d.run(&["types", "down", &v, "--symbol", "Vector"], "");
    assert_eq!(code, 0, "{down}");
    let names: Vec<String> = places(&down)
        .iter()
        .map(|p| p.rsplit(' ').next().unwrap().to_owned())
        .collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| implemented.contains(n)),
        "{down}"
    );
    if cfg!(target_arch = "x86_64") {
        assert_eq!(names, ["__m128i", "__m256i"], "{down}");
    }
}

#[test]
fn clangd_answers_through_its_type_hierarchy() {
    require_clangd();
    let p = Project::new(&[
        ("compile_flags.txt", "-xc++\n-std=c++17\n"),
        (
            "shapes.h",
            "struct Shape { virtual ~Shape() = default; virtual double area() const = 0; };\n\
             struct Named { const char *name = nullptr; };\n\
             struct Circle : Shape, Named { double r = 1; double area() const override { return 3 * r * r; } };\n\
             struct Square : Shape { double s = 1; double area() const override { return s * s; } };\n",
        ),
        (
            "main.cc",
            "#include \"shapes.h\"\nint main() { Circle c; return (int)c.area(); }\n",
        ),
    ]);
    let d = Daemon::new();
    let h = p.path("shapes.h").display().to_string();
    let (up, code) = d.run(&["types", "up", &h, "--symbol", "Circle"], "");
    assert_eq!(code, 0, "{up}");
    assert!(
        !up.contains("note:"),
        "clangd's own hierarchy needs no note:\n{up}"
    );
    let mut names: Vec<String> = places(&up)
        .iter()
        .map(|p| p.rsplit(' ').next().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["Named", "Shape"], "{up}");
    let (down, code) = d.run(&["types", "down", &h, "--symbol", "Shape"], "");
    assert_eq!(code, 0, "{down}");
    let mut names: Vec<String> = places(&down)
        .iter()
        .map(|p| p.rsplit(' ').next().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["Circle", "Square"], "{down}");
    insta::assert_snapshot!("clangd_subtypes", down);
}

fn require_clangd() {
    let clangd = repo_root().join("tools/.venv/bin/clangd");
    assert!(
        clangd.is_file(),
        "clangd is not installed at {}; run `tools/install`",
        clangd.display()
    );
}
