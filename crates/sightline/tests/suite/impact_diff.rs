//! `sightline impact`: what a git diff changes, who uses it, and the errors
//! it brings, through the daemon (the default path) and `--no-daemon`, with
//! pyright and typescript-language-server: a changed signature with a
//! consumer and a test, a removed function and an added one; the staged
//! changes; and a bad revision or a directory outside git as one error line.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use sightline_test_support::{
    DaemonDirs, Project, git, isolation, path_with_tools, require, sightline_bin,
};

/// A repository of `files`, committed, with `changed` then written over
/// them (the working tree's diff).
fn repo(files: &[(&str, &str)], changed: &[(&str, &str)]) -> Project {
    let p = Project::new(files);
    git(p.root(), &["init", "-q"]);
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", "before"]);
    for (name, text) in changed {
        std::fs::write(p.path(name), text).unwrap();
    }
    p
}

/// `sightline ARGS` through the daemon of `daemon` (or alone, when
/// `--no-daemon` is among them): stdout, stderr and the exit code.
fn sightline(daemon: &DaemonDirs, data: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(sightline_bin())
        .args(args)
        .envs(isolation::env())
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data)
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(daemon.env())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

const CORE: &str = "def total(a: int, b: int) -> int:\n    return a + b\n\n\ndef gone(x: int) -> int:\n    return x\n\n\ndef kept(x: int) -> int:\n    return x\n";
const CORE_AFTER: &str = "def total(a: int, b: int, c: int) -> int:\n    return a + b + c\n\n\ndef kept(x: int) -> int:\n    return x\n\n\ndef added(y: int) -> int:\n    return y\n";
const REPORT: &str = "from pkg.core import total, gone\n\n\nclass Report:\n    def render(self) -> str:\n        return str(total(1, 2)) + str(gone(3))\n";
const TEST: &str =
    "from pkg.core import total\n\n\ndef test_total() -> None:\n    assert total(1, 2) == 3\n";

fn python_repo() -> Project {
    repo(
        &[
            ("pyproject.toml", ""),
            ("pkg/__init__.py", ""),
            ("pkg/core.py", CORE),
            ("pkg/report.py", REPORT),
            ("tests/test_core.py", TEST),
        ],
        &[("pkg/core.py", CORE_AFTER)],
    )
}

/// The answer for the Python repository's diff, on either path: `kept`
/// only moved (the lines of `gone` went), so it is not listed.
const PYTHON_IMPACT: &str = "impact of the working tree against HEAD: 1 changed file a server reads
changed function total (pkg/core.py:1): 4 uses in 2 files, 2 in tests
  pkg/report.py:1:22
  pkg/report.py:6:20 in Report.render
  tests/test_core.py:1:22 (test)
  tests/test_core.py:5:12 in test_total (test)
removed function gone (was pkg/core.py:5): 2 uses in 1 file
  pkg/report.py:1:29
  pkg/report.py:6:39 in Report.render
added function added (pkg/core.py:9)
pkg/report.py: 2 new errors (it uses what changed)
1:29 error: \"gone\" is unknown import symbol [Pyright]
6:20 error: Argument missing for parameter \"c\" [Pyright]
tests/test_core.py: 1 new error (it uses what changed)
5:12 error: Argument missing for parameter \"c\" [Pyright]
";

#[test]
fn a_python_diff_names_its_changed_removed_and_added_functions_their_uses_and_new_errors() {
    require("pyright-langserver");
    let p = python_repo();
    let daemon = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let root = p.root().display().to_string();
    let (out, err, code) = sightline(&daemon, data.path(), &["impact", "--dir", &root]);
    assert_eq!((out.as_str(), code), (PYTHON_IMPACT, 1), "{err}");
    // Nothing was written: the files are as the diff left them.
    assert_eq!(
        std::fs::read_to_string(p.path("pkg/core.py")).unwrap(),
        CORE_AFTER
    );
    assert_eq!(
        std::fs::read_to_string(p.path("pkg/report.py")).unwrap(),
        REPORT
    );

    // The same answer without the daemon.
    let alone = DaemonDirs::new();
    let (out, err, code) = sightline(
        &alone,
        data.path(),
        &["impact", "--no-daemon", "--dir", &root],
    );
    assert_eq!((out.as_str(), code), (PYTHON_IMPACT, 1), "{err}");

    // The JSON answer carries the same facts, typed.
    let (out, err, code) = sightline(&daemon, data.path(), &["impact", "--json", "--dir", &root]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let total = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "total")
        .unwrap();
    assert_eq!(total["change"], "changed");
    assert_eq!(
        total["uses"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["test"] == true)
            .count(),
        2
    );

    // A revision that names no commit, and a directory outside git: one
    // answer line each, exit 2.
    for (args, said) in [
        (
            vec!["impact", "nosuchrev", "--dir", &root],
            "error: `nosuchrev` names no commit here\n".to_owned(),
        ),
        (
            vec!["impact", "--dir", data.path().to_str().unwrap()],
            format!(
                "error: {} is not in a git repository\n",
                data.path().display()
            ),
        ),
    ] {
        // An answer, as every refusal is, on stdout.
        let (out, err, code) = sightline(&daemon, data.path(), &args);
        assert_eq!((out.as_str(), code), (said.as_str(), 2), "{args:?}: {err}");
    }
    daemon.stop();
}

const AREA: &str = "export function area(w: number, h: number): number {\n  return w * h;\n}\n";
const AREA_AFTER: &str =
    "export function area(w: number, h: number, d: number): number {\n  return w * h * d;\n}\n";
const APP: &str = "import { area } from \"./shapes\";\n\nexport function describe(): string {\n  return `area ${area(2, 3)}`;\n}\n";
const SPEC: &str = "import { area } from \"./shapes\";\n\ntest(\"area\", () => {\n  if (area(2, 3) !== 6) throw new Error(\"area\");\n});\n\ndeclare function test(name: string, body: () => void): void;\n";

/// The staged changes are compared with HEAD, whatever the working tree
/// holds since: the check reads the staged text, held in memory.
#[test]
fn the_staged_changes_of_a_typescript_project_are_its_impact_not_the_working_tree() {
    require("typescript-language-server");
    let p = repo(
        &[
            ("package.json", "{\"name\": \"shapes\", \"private\": true}"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
            ("src/shapes.ts", AREA),
            ("src/app.ts", APP),
            ("src/shapes.test.ts", SPEC),
        ],
        &[("src/shapes.ts", AREA_AFTER)],
    );
    git(p.root(), &["add", "src/shapes.ts"]);
    // The working tree goes back to HEAD's text: only the index differs.
    std::fs::write(p.path("src/shapes.ts"), AREA).unwrap();
    let daemon = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let root = p.root().display().to_string();

    let (out, err, code) = sightline(&daemon, data.path(), &["impact", "--dir", &root]);
    assert_eq!(
        (out.as_str(), code),
        (
            "impact of the working tree against HEAD: 0 changed files a server reads\nno errors\n",
            0
        ),
        "{err}"
    );

    let (out, err, code) = sightline(
        &daemon,
        data.path(),
        &["impact", "--staged", "--dir", &root],
    );
    assert_eq!(code, 1, "{out}{err}");
    let head = "impact of the staged changes against HEAD: 1 changed file a server reads\nchanged function area (src/shapes.ts:1): ";
    assert!(out.starts_with(head), "{out}");
    for line in [
        "  src/app.ts:4:18 in describe\n",
        "  src/shapes.test.ts:4:7 in test(\"area\") callback (test)\n",
        "src/app.ts: 1 new error (it uses what changed)\n",
        "src/shapes.test.ts: 1 new error (it uses what changed)\n",
        "Expected 3 arguments, but got 2.",
    ] {
        assert!(out.contains(line), "{line:?} missing from\n{out}");
    }
    // The working tree, which the servers were told again, has no errors.
    let (out, _, code) = sightline(
        &daemon,
        data.path(),
        &["diagnostics", &p.path("src/app.ts").display().to_string()],
    );
    assert_eq!((out.as_str(), code), ("src/app.ts: no diagnostics\n", 0));
    assert_eq!(
        std::fs::read_to_string(p.path("src/shapes.ts")).unwrap(),
        AREA
    );
    daemon.stop();
}

/// On httpx 0.28.1 (PyPI), committed, a change of one real function's
/// signature (`primitive_value_to_str` gains a required argument): the uses
/// `impact` lists are exactly the references a direct pyright client gives
/// for the declaration, and each call among them is a new error.
#[test]
fn the_impact_of_a_change_to_httpx_lists_the_references_pyright_itself_gives() {
    use sightline_test_support::direct::{Direct, uri};
    use sightline_test_support::pinned::httpx_project;
    use sightline_test_support::tools_bin;
    use std::collections::BTreeSet;

    require("pyright-langserver");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    httpx_project(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "httpx 0.28.1"]);
    let utils = root.join("httpx/_utils.py");
    let before = std::fs::read_to_string(&utils).unwrap();
    let declaration = "def primitive_value_to_str(value: PrimitiveData) -> str:";
    let line = before.lines().position(|l| l == declaration).unwrap();
    let after = before.replace(
        declaration,
        "def primitive_value_to_str(value: PrimitiveData, quote: bool) -> str:",
    );
    std::fs::write(&utils, &after).unwrap();

    let daemon = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let dir = root.display().to_string();
    let (out, err, code) = sightline(&daemon, data.path(), &["impact", "--json", "--dir", &dir]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let changed = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "primitive_value_to_str")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(changed["change"], "changed", "{changed:#}");
    let listed = uses_of(changed);

    // pyright itself, asked directly for the declaration's references.
    let mut pyright = Direct::start(
        &tools_bin().join("pyright-langserver"),
        &root,
        serde_json::json!({}),
        serde_json::json!({}),
    );
    pyright.notify(
        "textDocument/didOpen",
        serde_json::json!({"textDocument": {"uri": uri(&utils), "languageId": "python", "version": 1, "text": after}}),
    );
    // pyright answers references from the files it has found: asked at
    // once, before it checked the opened file, it answered none (seen on
    // CI). Its publish for the file says it has; it is then asked until its
    // answer has uses and is the same twice running (it enumerates the
    // workspace on its own time).
    let utils_uri = uri(&utils);
    pyright.wait_for("textDocument/publishDiagnostics", |n| {
        n["params"]["uri"] == utils_uri.as_str()
    });
    let ask = |pyright: &mut Direct| {
        pyright.request(
            "textDocument/references",
            serde_json::json!({
                "textDocument": {"uri": utils_uri},
                "position": {"line": line, "character": 4},
                "context": {"includeDeclaration": false},
            }),
        )
    };
    // An answer is taken once it has uses and the next is the same.
    let mut last = serde_json::Value::Null;
    let answer = sightline_test_support::poll_until(std::time::Duration::from_secs(120), || {
        let answer = ask(&mut pyright);
        let settled = answer["result"].as_array().is_some_and(|r| !r.is_empty())
            && answer["result"] == last["result"];
        last = answer.clone();
        settled.then_some(answer)
    })
    .expect("pyright's references did not settle within 120 s");
    let direct: BTreeSet<(String, u64, u64)> = answer["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|l| {
            (
                l["uri"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("file://")
                    .to_owned(),
                l["range"]["start"]["line"].as_u64().unwrap() + 1,
                l["range"]["start"]["character"].as_u64().unwrap() + 1,
            )
        })
        .collect();
    assert!(direct.len() >= 9, "{direct:?}");
    assert_eq!(listed, direct);

    // Every file with a call has the new errors; nothing was written.
    let errors: BTreeSet<String> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["errors"].as_array().unwrap().is_empty())
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    for file in ["httpx/_content.py", "httpx/_multipart.py", "httpx/_urls.py"] {
        assert!(
            errors.contains(&root.join(file).display().to_string()),
            "{file}: {v:#}"
        );
    }
    assert_eq!(std::fs::read_to_string(&utils).unwrap(), after);
    daemon.stop();
}

/// The uses `impact --json` lists for one declaration, as (path, line,
/// column).
fn uses_of(symbol: &serde_json::Value) -> std::collections::BTreeSet<(String, u64, u64)> {
    symbol["uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["path"].as_str().unwrap().to_owned(),
                u["line"].as_u64().unwrap(),
                u["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// query-core as `tools/install` unpacked `version`'s tarball: its
/// `src/`, or where the previous release is.
fn query_core_source(previous: bool) -> std::path::PathBuf {
    if previous {
        let dir = sightline_test_support::repo_root().join("tools/sources/query-core-5.90.1");
        assert!(
            dir.join(".complete").is_file(),
            "@tanstack/query-core 5.90.1 is not at {}; run `tools/install`",
            dir.display()
        );
        dir
    } else {
        sightline_test_support::pinned::tanstack_source().join("query-core")
    }
}

/// On TanStack's query-core (npm), the real upstream change from release
/// 5.90.1 to 5.90.2 (a mutation's `onMutate` result typed without
/// `undefined`), committed as 5.90.1 with 5.90.2 in the working tree:
/// `impact` names the declarations it changed, and the uses it lists for
/// each are exactly the references typescript-language-server itself gives
/// for that declaration.
#[test]
fn the_impact_of_a_real_query_core_release_lists_the_references_the_server_gives() {
    use sightline_test_support::direct::{Direct, uri};
    use std::collections::BTreeSet;

    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let lay_out = |previous: bool| {
        let source = query_core_source(previous);
        let _ = std::fs::remove_dir_all(root.join("src"));
        let copied = Command::new("cp")
            .arg("-r")
            .arg(source.join("src"))
            .arg(root.join("src"))
            .status()
            .unwrap();
        assert!(copied.success());
        std::fs::copy(source.join("package.json"), root.join("package.json")).unwrap();
    };
    lay_out(true);
    std::fs::write(
        root.join("tsconfig.json"),
        sightline_test_support::pinned::TANSTACK_TSCONFIG,
    )
    .unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "@tanstack/query-core 5.90.1"]);
    lay_out(false);

    let daemon = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let dir = root.display().to_string();
    let (out, err, code) = sightline(&daemon, data.path(), &["impact", "--json", "--dir", &dir]);
    assert!(code == 0 || code == 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: BTreeSet<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    // The release's version in package.json changed too.
    assert_eq!(
        files,
        BTreeSet::from(["mutation.ts", "package.json", "types.ts"]),
        "{v:#}"
    );
    let changed: Vec<&serde_json::Value> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["change"] == "changed" && s["uses_looked_for"] == true)
        .collect();
    assert!(!changed.is_empty(), "{v:#}");
    assert!(
        changed
            .iter()
            .any(|s| s["path"].as_str().unwrap().ends_with("types.ts")),
        "the changed option types are listed: {v:#}"
    );

    // typescript-language-server itself, with the pinned tsserver, asked
    // for each changed declaration's references once it has the project.
    let tsserver = sightline_test_support::tsserver_js();
    let mut ts = Direct::start(
        &sightline_test_support::tool("typescript-language-server"),
        &root,
        serde_json::json!({ "textDocument": { "publishDiagnostics": { "versionSupport": true } } }),
        serde_json::json!({ "tsserver": { "path": tsserver, "useSyntaxServer": "never" } }),
    );
    let mut opened = BTreeSet::new();
    for s in &changed {
        let path = std::path::PathBuf::from(s["path"].as_str().unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        if opened.insert(path.clone()) {
            ts.notify(
                "textDocument/didOpen",
                serde_json::json!({"textDocument": {"uri": uri(&path), "languageId": "typescript", "version": 1, "text": text}}),
            );
        }
        let line = s["line"].as_u64().unwrap() as usize - 1;
        let name = s["name"].as_str().unwrap().rsplit('.').next().unwrap();
        let character = text.lines().nth(line).unwrap().find(name).unwrap();
        let listed = uses_of(s);
        let answer = ts.request(
            "textDocument/references",
            serde_json::json!({
                "textDocument": {"uri": uri(&path)},
                "position": {"line": line, "character": character},
                "context": {"includeDeclaration": false},
            }),
        );
        // The server's places as `impact` shows them: 1-based, in
        // characters (the sources are ASCII, so UTF-16 units are
        // characters), the declaration itself left out.
        let direct: BTreeSet<(String, u64, u64)> = answer["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let p = l["uri"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("file://")
                    .to_owned();
                let start = &l["range"]["start"];
                (
                    p,
                    start["line"].as_u64().unwrap() + 1,
                    start["character"].as_u64().unwrap() + 1,
                )
            })
            .filter(|(p, line, _)| {
                !(*p == path.display().to_string() && *line == s["line"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(listed, direct, "{}", s["name"]);
    }
}
