//! Monorepos, through the daemon, cold (the first question of a new daemon)
//! and warm: TanStack Query 5.90.2's packages from npm laid out as the npm
//! workspace they are developed in (15 packages, no root `tsconfig.json`),
//! with typescript-language-server; and attrs, referencing, jsonschema and
//! jsonschema-specifications from PyPI laid out as a uv workspace with one
//! `.venv` at its root and no `VIRTUAL_ENV`, with pyright. What each answer
//! must hold is read from the sources (every use of the name, by a word
//! search) and from the type checker itself (`tsc -p` on each package).

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use sightline_test_support::pinned::{schemas_workspace, tanstack_workspace};
use sightline_test_support::project::WORKSPACE_FUNCTION;
use sightline_test_support::{DaemonDirs, Project, require, run_cli, run_hook};

use super::servers::tools;
use sightline_test_support::place_of as at;

/// The exported function of `@tanstack/query-core` the tests ask about:
/// react-query, solid-query and vue-query call it.
const NAME: &str = "shouldThrowError";
const CORE_UTILS: &str = "packages/query-core/src/utils.ts";
const CONSUMERS: &[&str] = &["react-query", "solid-query", "vue-query"];

/// A command's output and exit status, through the daemon of `dirs`, or
/// through one of its own when `None` (cold: its first question).
fn run(args: &[&str], dirs: Option<&DaemonDirs>) -> (String, i32) {
    let mut env: Vec<(&str, String)> = Vec::new();
    if let Some(d) = dirs {
        env.extend(
            d.env()
                .into_iter()
                .map(|(k, v)| (k, v.display().to_string())),
        );
        // One data directory for every command: the daemon serves only
        // commands of its own settings.
        env.push((
            "SIGHTLINE_DATA_DIR",
            d.runtime().join("data").display().to_string(),
        ));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run_cli(args, &env)
}

fn ask(args: &[&str], dirs: Option<&DaemonDirs>) -> String {
    let (out, code) = run(args, dirs);
    assert_eq!(code, 0, "sightline {args:?} failed: {out}");
    out
}

fn relative(dir: &Path, place: &str) -> String {
    place
        .strip_prefix(&format!("{}/", dir.display()))
        .unwrap_or(place)
        .to_owned()
}

/// Every place (`PATH:LINE:COL`, from `dir`) where `name` stands as a
/// whole word in the files under `dir/packages` ending in one of `exts`,
/// with the line; `keep` picks the lines that count.
fn word_uses(
    dir: &Path,
    name: &str,
    exts: &[&str],
    keep: impl Fn(&str, usize) -> bool,
) -> BTreeSet<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found = BTreeSet::new();
    let mut stack = vec![dir.join("packages")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if !exts.iter().any(|x| p.to_string_lossy().ends_with(x)) {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (n, line) in text.lines().enumerate() {
                for (byte, _) in line.match_indices(name) {
                    let before = line[..byte].chars().next_back();
                    let after = line[byte + name.len()..].chars().next();
                    if before.is_some_and(ident) || after.is_some_and(ident) || !keep(line, byte) {
                        continue;
                    }
                    let col = line[..byte].chars().count() + 1;
                    found.insert(format!(
                        "{}:{}:{col}",
                        relative(dir, &p.display().to_string()),
                        n + 1
                    ));
                }
            }
        }
    }
    found
}

/// The places an answer lists (`PATH:LINE:COL`), and its notes.
fn places(answer: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut found = BTreeSet::new();
    let mut notes = Vec::new();
    for line in answer.lines().skip(1) {
        if let Some(note) = line.strip_prefix("note: ") {
            notes.push(note.to_owned());
        } else if let Some(place) = line.split_whitespace().next() {
            found.insert(place.to_owned());
        }
    }
    (found, notes)
}

/// The package (`packages/NAME`) of a place.
fn package(place: &str) -> String {
    place.split('/').take(2).collect::<Vec<_>>().join("/")
}

/// The errors `tsc -p` reports for each of `packages`, each as
/// `FILE(LINE): error TSNNNN: message` with `new` read as `old` (a column
/// moves with a longer name; a line does not).
fn tsc_errors(
    dir: &Path,
    packages: &[&str],
    old: &str,
    new: &str,
) -> BTreeMap<String, Vec<String>> {
    packages
        .iter()
        .map(|p| {
            let out = Command::new(tools("node_modules/.bin/tsc"))
                .args(["-p", &format!("packages/{p}")])
                .current_dir(dir)
                .output()
                .unwrap();
            let mut errors: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.contains("error TS"))
                .map(|l| {
                    let l = l.replace(new, old);
                    let (place, rest) = l.split_once("): ").unwrap();
                    let place = place.rsplit_once(',').map_or(place, |(line, _)| line);
                    format!("{place}): {rest}")
                })
                .collect();
            errors.sort();
            ((*p).to_owned(), errors)
        })
        .collect()
}

/// TanStack Query's workspace in `dir`, and the declaration of [`NAME`].
fn tanstack_in(dir: &Path) -> String {
    let packages = tanstack_workspace(dir);
    assert!(packages.len() >= 14, "{packages:?}");
    at(dir, CORE_UTILS, &format!("export function {NAME}"), NAME)
}

/// The uses of [`NAME`] outside its declaration, read from the sources.
fn tanstack_uses(dir: &Path, declaration: &str) -> BTreeSet<String> {
    let mut uses = word_uses(dir, NAME, &[".ts", ".tsx"], |_, _| true);
    assert!(uses.remove(&relative(dir, declaration)));
    let packages: BTreeSet<String> = uses.iter().map(|u| package(u)).collect();
    let want: BTreeSet<String> = ["packages/query-core"]
        .into_iter()
        .chain(CONSUMERS.iter().copied())
        .map(|p| {
            if p.starts_with("packages/") {
                p.to_owned()
            } else {
                format!("packages/{p}")
            }
        })
        .collect();
    assert_eq!(packages, want, "{uses:?}");
    uses
}

#[test]
fn references_reach_every_package_of_an_npm_workspace_cold_warm_and_in_process() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let declaration = tanstack_in(dir);
    let uses = tanstack_uses(dir, &declaration);
    assert_eq!(uses.len(), 14, "{uses:?}");

    // Cold: a new daemon's first question.
    let cold = ask(&["references", &declaration], None);
    assert_eq!(places(&cold), (uses.clone(), Vec::new()), "{cold}");
    assert!(cold.starts_with("14 references\n"), "{cold}");
    // Warm: one daemon, asked twice; and in process.
    let dirs = DaemonDirs::new();
    for _ in 0..2 {
        let warm = ask(&["references", &declaration], Some(&dirs));
        assert_eq!(warm, cold);
    }
    let alone = ask(&["references", "--no-daemon", &declaration], None);
    assert_eq!(alone, cold);
}

#[test]
fn a_rename_across_packages_is_whole_and_leaves_the_type_check_as_it_was() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let declaration = tanstack_in(dir);
    let uses = tanstack_uses(dir, &declaration);
    let checked = ["query-core", "react-query", "solid-query", "vue-query"];
    let renamed = "shouldThrowOnError";
    let before = tsc_errors(dir, &checked, NAME, renamed);
    assert!(
        before["react-query"].iter().any(|e| e.contains("TS2307")),
        "{before:?}"
    );

    let out = ask(&["rename", &declaration, renamed], None);
    assert!(
        out.starts_with(&format!(
            "renamed {NAME} → {renamed}: 15 edits in 8 files\n"
        )),
        "{out}"
    );
    assert!(out.ends_with("\nno new errors\n"), "{out}");
    assert!(word_uses(dir, NAME, &[".ts", ".tsx"], |_, _| true).is_empty());
    let now = word_uses(dir, renamed, &[".ts", ".tsx"], |_, _| true);
    assert_eq!(now.len(), uses.len() + 1, "{now:?}");
    assert_eq!(tsc_errors(dir, &checked, NAME, renamed), before);
}

#[test]
fn packages_past_the_budget_are_named_and_a_rename_that_cannot_reach_them_is_not_done() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let declaration = tanstack_in(dir);
    let uses = tanstack_uses(dir, &declaration);
    std::fs::write(
        dir.join("sightline.json"),
        r#"{ "workspace": { "max_packages": 1 } }"#,
    )
    .unwrap();
    let dirs = DaemonDirs::new();

    let answer = ask(&["references", &declaration], Some(&dirs));
    let (found, notes) = places(&answer);
    assert!(found.is_subset(&uses), "{answer}");
    assert!(found.len() < uses.len(), "{answer}");
    assert_eq!(
        notes,
        [format!(
            "2 packages that mention `{NAME}` were not searched, over the 1 a question loads (sightline.json's \"workspace\": {{\"max_packages\": N}} raises it): packages/solid-query, packages/vue-query"
        )],
        "{answer}"
    );
    // Each package not searched has uses the answer lacks.
    for missing in uses.difference(&found) {
        assert!(
            ["packages/solid-query", "packages/vue-query"].contains(&package(missing).as_str()),
            "{missing}: {answer}"
        );
    }

    let text = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap();
    let files: Vec<String> = uses
        .iter()
        .map(|u| u.split(':').next().unwrap().to_owned())
        .collect();
    let before: Vec<String> = files.iter().map(|f| text(f)).collect();
    let (out, code) = run(&["rename", &declaration, "shouldThrowOnError"], Some(&dirs));
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("rename not done: 2 packages that mention"),
        "{out}"
    );
    assert!(out.contains("nothing was written"), "{out}");
    let after: Vec<String> = files.iter().map(|f| text(f)).collect();
    assert!(before == after, "a refused rename wrote");
}

const OLD_SIGNATURE: &str = "  params: Parameters<T>,\n): boolean {";
const NEW_SIGNATURE: &str = "  params: Parameters<T>,\n  fallback: boolean,\n): boolean {";

/// The errors `tsc -p` reports in the consumer packages after the change
/// to [`NAME`]'s signature and not before, as `PATH:LINE:COL`, read from
/// a copy of the workspace with the change made by hand.
fn broken_by_the_signature(dir: &Path) -> BTreeSet<String> {
    let copy = tempfile::tempdir().unwrap();
    tanstack_workspace(copy.path());
    let utils = copy.path().join(CORE_UTILS);
    let text = std::fs::read_to_string(&utils).unwrap();
    std::fs::write(&utils, text.replacen(OLD_SIGNATURE, NEW_SIGNATURE, 1)).unwrap();
    let mut found = BTreeSet::new();
    for p in CONSUMERS {
        let out = Command::new(tools("node_modules/.bin/tsc"))
            .args(["-p", &format!("packages/{p}")])
            .current_dir(copy.path())
            .output()
            .unwrap();
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            if l.contains("error TS2554") {
                let (file, rest) = l.split_once('(').unwrap();
                let (line, rest) = rest.split_once(',').unwrap();
                let col = rest.split_once(')').unwrap().0;
                found.insert(format!("{file}:{line}:{col}"));
            }
        }
    }
    let _ = dir;
    found
}

/// The files an edit answer lists with new errors, each with its errors'
/// places (`PATH:LINE:COL`), and the count of files past the list.
fn listed(answer: &str) -> (BTreeMap<String, Vec<String>>, usize) {
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    let mut more = 0;
    for line in answer.lines() {
        if let Some(rest) = line.strip_prefix("... and ") {
            more = rest.split_whitespace().next().unwrap().parse().unwrap();
        } else if let Some((file, rest)) = line.split_once(": ")
            && rest.contains("new error")
            && !rest.starts_with("no new")
        {
            current = Some(file.to_owned());
            files.entry(file.to_owned()).or_default();
        } else if let (Some(file), Some((place, _))) = (&current, line.split_once(" error: "))
            && place.split(':').all(|n| n.parse::<usize>().is_ok())
        {
            files.get_mut(file).unwrap().push(format!("{file}:{place}"));
        } else if !line.starts_with(char::is_numeric) {
            current = None;
        }
    }
    (files, more)
}

/// An edit's answer against the type checker: each file listed holds
/// exactly the errors `tsc` reports in it, the files listed and counted
/// are all the broken ones, and those listed are of the three consumer
/// packages.
fn check_impact(answer: &str, broken: &BTreeSet<String>) {
    let (files, more) = listed(answer);
    let broken_files: BTreeSet<&str> = broken
        .iter()
        .map(|b| b.split(':').next().unwrap())
        .collect();
    for (file, errors) in &files {
        let theirs: BTreeSet<&String> = broken
            .iter()
            .filter(|b| b.starts_with(&format!("{file}:")))
            .collect();
        let ours: BTreeSet<&String> = errors.iter().collect();
        assert_eq!(ours, theirs, "{file}: {answer}");
    }
    assert_eq!(files.len() + more, broken_files.len(), "{answer}");
    assert_eq!(
        answer.matches("Expected 3 arguments, but got 2.").count(),
        files.values().map(Vec::len).sum::<usize>(),
        "{answer}"
    );
    let packages: BTreeSet<String> = files.keys().map(|f| package(f)).collect();
    let consumers: BTreeSet<String> = CONSUMERS.iter().map(|c| format!("packages/{c}")).collect();
    assert_eq!(packages, consumers, "{answer}");
}

#[test]
fn an_edit_that_breaks_consumer_packages_lists_them_as_a_preview_an_edit_and_an_agent_s_hook() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    tanstack_in(dir);
    let broken = broken_by_the_signature(dir);
    // tsc: 7 calls in 6 files of three packages.
    assert_eq!(broken.len(), 7, "{broken:?}");
    let utils = dir.join(CORE_UTILS);
    let original = std::fs::read_to_string(&utils).unwrap();
    let file = utils.display().to_string();
    let dirs = DaemonDirs::new();

    // A preview, cold: nothing written.
    let args = |dry: bool| {
        let mut a = vec![
            "edit",
            &file,
            "--old",
            OLD_SIGNATURE,
            "--new",
            NEW_SIGNATURE,
        ];
        if dry {
            a.insert(1, "--dry-run");
        }
        a
    };
    let (preview, _) = run(&args(true), Some(&dirs));
    assert!(
        preview.starts_with("preview: nothing was written"),
        "{preview}"
    );
    check_impact(&preview, &broken);
    assert_eq!(std::fs::read_to_string(&utils).unwrap(), original);

    // The edit, warm.
    let (edited, _) = run(&args(false), Some(&dirs));
    check_impact(&edited, &broken);
    assert_ne!(std::fs::read_to_string(&utils).unwrap(), original);
    std::fs::write(&utils, &original).unwrap();

    // An agent's own edit, through Claude Code's hooks: before the tool,
    // then the file written as the agent's tool writes it, then after.
    let hook = |payload: Value| run_hook(dir, &dirs, &["--budget-ms", "120000"], &payload).0;
    let input =
        json!({ "file_path": utils, "old_string": OLD_SIGNATURE, "new_string": NEW_SIGNATURE });
    let event = |name: &str| json!({ "session_id": "monorepo", "cwd": dir, "hook_event_name": name, "tool_name": "Edit", "tool_input": input });
    hook(event("PreToolUse"));
    std::fs::write(&utils, original.replacen(OLD_SIGNATURE, NEW_SIGNATURE, 1)).unwrap();
    let after = hook(event("PostToolUse"));
    let answer: Value = serde_json::from_str(&after).unwrap_or_else(|_| panic!("{after}"));
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{after}"));
    // Only calls tsc reports broken, every one in each file listed, and
    // the files past the list counted.
    let heard: BTreeSet<String> = context
        .lines()
        .filter(|l| l.contains("Expected 3 arguments"))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect();
    let file = |p: &String| p.split(':').next().unwrap().to_owned();
    let heard_files: BTreeSet<String> = heard.iter().map(file).collect();
    let in_heard: BTreeSet<String> = broken
        .iter()
        .filter(|b| heard_files.contains(&file(b)))
        .cloned()
        .collect();
    assert_eq!(heard, in_heard, "{context}");
    let more: usize = context
        .lines()
        .find_map(|l| l.strip_prefix("... and "))
        .map_or(0, |r| r.split_whitespace().next().unwrap().parse().unwrap());
    let broken_files: BTreeSet<String> = broken.iter().map(file).collect();
    assert_eq!(heard_files.len() + more, broken_files.len(), "{context}");
}

/// The uv workspace in `dir`, with budgets for a loaded machine: a cold
/// pyright analyses the files that use what an edit changed (attrs' own
/// `_make.py`, 3,000 lines, among them) for longer than the default 5 s.
fn schemas_in(dir: &Path) -> PathBuf {
    schemas_workspace(dir);
    std::fs::write(
        dir.join("sightline.json"),
        r#"{ "dependents_ms": 60000, "lsp": { "pyright": { "diagnostics": { "document_ms": 30000 } } } }"#,
    )
    .unwrap();
    dir.join("packages")
}

#[test]
fn a_uv_workspace_with_its_venv_at_the_root_answers_into_the_provider_and_from_every_consumer() {
    require("pyright-langserver");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    schemas_in(dir);
    let types = "packages/jsonschema/src/jsonschema/_types.py";
    let core = "packages/referencing/src/referencing/_core.py";
    let stub = "packages/attrs/src/attr/__init__.pyi";
    let attrs_stub = "packages/attrs/src/attrs/__init__.pyi";
    let evolve = relative(dir, &at(dir, stub, "def evolve(inst", "evolve"));
    let evolve_body = relative(
        dir,
        &at(
            dir,
            "packages/attrs/src/attr/_make.py",
            "def evolve(",
            "evolve",
        ),
    );
    // attrs' stub declares `frozen` twice (overloads).
    let frozen: Vec<String> = word_uses(dir, "frozen", &[".pyi"], |line, _| {
        line.starts_with("def frozen(")
    })
    .into_iter()
    .filter(|u| u.starts_with(attrs_stub))
    .collect();
    assert_eq!(frozen.len(), 2, "{frozen:?}");
    let cases = [
        (
            at(dir, types, "from attrs import evolve", "evolve"),
            vec![evolve.clone(), evolve_body.clone()],
        ),
        (
            at(dir, types, "from attrs import evolve", "frozen"),
            frozen.clone(),
        ),
        (
            at(dir, core, "return evolve(self, resources", "evolve"),
            vec![evolve.clone(), evolve_body],
        ),
        (
            at(dir, core, "from referencing._attrs import", "referencing"),
            vec!["packages/referencing/src/referencing/__init__.py:1:1".to_owned()],
        ),
    ];
    let dirs = DaemonDirs::new();
    for round in ["cold", "warm"] {
        for (place, want) in &cases {
            let answer = ask(&["definition", place], Some(&dirs));
            let (found, notes) = places(&answer);
            assert!(notes.is_empty(), "{round} {place}: {answer}");
            let want: BTreeSet<String> = want.iter().cloned().collect();
            assert_eq!(found, want, "{round} {place}: {answer}");
        }
    }

    // Every use of attrs' `evolve` in the other packages, read from the
    // sources: each import and bare call (`.evolve(...)` is jsonschema's
    // own method, `def evolve` its declaration, and `cls.evolve = evolve`
    // assigns that local function).
    let uses: BTreeSet<String> = word_uses(dir, "evolve", &[".py"], |line, byte| {
        !line[..byte].ends_with('.')
            && !line[..byte].trim_end().ends_with("def")
            && !line.contains(".evolve = evolve")
    })
    .into_iter()
    .filter(|u| !u.starts_with("packages/attrs/"))
    .collect();
    let packages: BTreeSet<String> = uses.iter().map(|u| package(u)).collect();
    assert_eq!(packages.len(), 2, "{uses:?}");
    assert!(uses.len() >= 10, "{uses:?}");
    let answer = ask(
        &["references", &dir.join(&evolve).display().to_string()],
        Some(&dirs),
    );
    let (found, notes) = places(&answer);
    assert!(notes.is_empty(), "{answer}");
    let outside: BTreeSet<String> = found
        .iter()
        .filter(|f| !f.starts_with("packages/attrs/"))
        .cloned()
        .collect();
    assert_eq!(outside, uses, "{answer}");

    // A change to the provider's signature breaks each call in both
    // consumer packages: a preview lists every one, and writes nothing.
    let stub_file = dir.join(stub);
    let before = std::fs::read_to_string(&stub_file).unwrap();
    let old = "def evolve(inst: _T, **changes: Any) -> _T: ...";
    let new = "def evolve(inst: _T, strict: bool, **changes: Any) -> _T: ...";
    assert!(before.contains(old));
    let file = stub_file.display().to_string();
    let (preview, _) = run(
        &["edit", "--dry-run", &file, "--old", old, "--new", new],
        Some(&dirs),
    );
    let calls: BTreeSet<String> = uses
        .iter()
        .filter(|u| {
            let (file, rest) = u.split_once(':').unwrap();
            let line: usize = rest.split(':').next().unwrap().parse().unwrap();
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            let line = text.lines().nth(line - 1).unwrap();
            // `**kwargs` may hold the new parameter: no error there.
            !line.contains("import") && !line.contains("**")
        })
        .map(|u| u.rsplit_once(':').unwrap().0.to_owned())
        .collect();
    let (files, more) = listed(&preview);
    assert_eq!(more, 0, "{preview}");
    let lines: BTreeSet<String> = files
        .values()
        .flatten()
        .map(|e| e.rsplit_once(':').unwrap().0.to_owned())
        .collect();
    assert_eq!(lines, calls, "{preview}");
    assert!(
        preview.contains("Argument missing for parameter \"strict\""),
        "{preview}"
    );
    let packages: BTreeSet<String> = files.keys().map(|f| package(f)).collect();
    assert_eq!(
        packages,
        BTreeSet::from([
            "packages/jsonschema".to_owned(),
            "packages/referencing".to_owned()
        ]),
        "{preview}"
    );
    assert_eq!(std::fs::read_to_string(&stub_file).unwrap(), before);
}

/// The errors the pyright CLI reports for the whole uv workspace, with the
/// workspace's interpreter, each as `FILE:LINE: message`, `new` read as
/// `old` (a longer name moves a column, never a line).
fn pyright_errors(dir: &Path, old: &str, new: &str) -> Vec<String> {
    let out = Command::new(tools("node_modules/.bin/pyright"))
        .args(["--outputjson", "--pythonpath"])
        .arg(dir.join(".venv/bin/python"))
        .current_dir(dir)
        .envs(sightline_test_support::isolation::env())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "pyright --outputjson: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut errors: Vec<String> = report["generalDiagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            format!(
                "{}:{}: {}",
                relative(dir, d["file"].as_str().unwrap()),
                d["range"]["start"]["line"],
                d["message"].as_str().unwrap().replace(new, old)
            )
        })
        .collect();
    errors.sort();
    errors
}

#[test]
fn a_rename_across_a_uv_workspace_leaves_pyright_s_check_as_it_was() {
    require("pyright-langserver");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    schemas_in(dir);
    let core = "packages/referencing/src/referencing/_core.py";
    let declaration = at(dir, core, "def combine(self", "combine");
    // The method's declaration and its calls, in referencing and in
    // jsonschema (`SPECIFICATIONS.combine(...)`), read from the sources.
    let calls = |name: &str| {
        word_uses(dir, name, &[".py"], |line, byte| {
            line[..byte].ends_with('.') || line[..byte].trim_end().ends_with("def")
        })
    };
    let uses = calls("combine");
    let packages: BTreeSet<String> = uses.iter().map(|u| package(u)).collect();
    assert!(packages.contains("packages/jsonschema"), "{uses:?}");
    let before = pyright_errors(dir, "combine", "merge_registries");

    let out = ask(&["rename", &declaration, "merge_registries"], None);
    assert!(
        out.starts_with("renamed combine → merge_registries: "),
        "{out}"
    );
    assert_eq!(calls("combine"), BTreeSet::new(), "{out}");
    assert_eq!(calls("merge_registries").len(), uses.len(), "{out}");
    assert_eq!(pyright_errors(dir, "combine", "merge_registries"), before);
}

#[test]
fn incoming_calls_and_workspace_symbols_reach_every_package() {
    require("typescript-language-server");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let declaration = tanstack_in(dir);
    let dirs = DaemonDirs::new();

    // Each call of `shouldThrowError`, read from the sources (the name
    // followed by `(`), is an incoming call, in the function around it.
    let calls: BTreeSet<String> = word_uses(dir, NAME, &[".ts", ".tsx"], |line, byte| {
        line[byte + NAME.len()..].starts_with('(') && !line.contains("function")
    });
    assert_eq!(calls.len(), 7, "{calls:?}");
    let answer = ask(&["calls", "in", &declaration], Some(&dirs));
    let (found, notes) = places(&answer);
    assert_eq!((found, notes), (calls, Vec::new()), "{answer}");
    assert!(answer.contains("(in function useMutation)"), "{answer}");

    // The function `useBaseQuery`, declared in react-query, solid-query and
    // vue-query: each package's, from a question asked at the root.
    // Each at the start of its declaration's line, as tsserver places it.
    let declared: BTreeSet<String> = word_uses(dir, "useBaseQuery", &[".ts", ".tsx"], |line, _| {
        line.starts_with("export function useBaseQuery")
    })
    .into_iter()
    .map(|u| format!("{}:1", u.rsplit_once(':').unwrap().0))
    .collect();
    assert_eq!(declared.len(), 3, "{declared:?}");
    let root = dir.display().to_string();
    let answer = ask(
        &["workspace-symbols", "--root", &root, "useBaseQuery"],
        Some(&dirs),
    );
    let functions: BTreeSet<String> = answer
        .lines()
        .filter(|l| l.ends_with(" function useBaseQuery"))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert_eq!(functions, declared, "{answer}");
}

#[test]
fn packages_no_readable_workspace_declares_are_named_and_a_rename_that_cannot_reach_them_is_not_done()
 {
    require("typescript-language-server");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    std::fs::create_dir_all(root.join(".git")).unwrap();
    // The root's `workspaces` is not valid JSON (a brace is missing).
    write(
        "package.json",
        "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"packages/*\"]\n",
    );
    write("packages/core/package.json", "{\"name\": \"@x/core\"}");
    write(
        "packages/core/src/index.ts",
        "export function computeTotal(a: number): number {\n  return a;\n}\n",
    );
    write(
        "packages/web/package.json",
        "{\"name\": \"@x/web\", \"dependencies\": {\"@x/core\": \"*\"}}",
    );
    write(
        "packages/web/src/app.ts",
        "import { computeTotal } from \"@x/core\";\nexport const t = computeTotal(1);\n",
    );
    let dirs = DaemonDirs::new();
    let index = root.join("packages/core/src/index.ts");
    let at = format!("{}:1:17", index.display());
    let answer = ask(&["references", &at], Some(&dirs));
    let note = format!(
        "1 other package of the repository that mentions `computeTotal` was not searched ({} is not valid JSON, so no workspace is read): packages/web",
        root.join("package.json").display()
    );
    assert!(answer.contains(&note), "{answer}");
    let (out, code) = run(&["rename", &at, "computeSum"], Some(&dirs));
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with(&format!(
            "error: rename not done: {note}; nothing was written"
        )),
        "{out}"
    );
    assert!(
        std::fs::read_to_string(&index)
            .unwrap()
            .contains("computeTotal"),
        "the rename wrote"
    );
}

/// A workspace of 1,000 packages, 100 of which call the function: the
/// question loads the budget's 40 (the default `max_packages`), names the
/// other 60, and is asked again warm with the same answer. The work is
/// bounded by the budget, not by the packages (each manifest is read once
/// per question); the time for 100, 1,000 and 5,000 packages is
/// `benches/packages.rs`'s.
#[test]
fn a_thousand_package_workspace_loads_its_budget_and_names_the_rest() {
    require("typescript-language-server");
    let ws = Project::npm_workspace(1000);
    let place = format!("{}:1:17", ws.path("packages/core/src/index.ts").display());
    let dirs = DaemonDirs::new();
    // The JSON answer: the text lists the first places only.
    let cold = ask(&["references", "--json", &place], Some(&dirs));
    let answer: Value = serde_json::from_str(&cold).unwrap();
    let found: BTreeSet<String> = answer["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}:{}", l["path"].as_str().unwrap(), l["line"]))
        .collect();
    let notes: Vec<String> = answer["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    let callers: BTreeSet<String> = found.iter().map(|p| package(p)).collect();
    assert_eq!(callers.len(), 40, "{cold}");
    // Each caller's import and call, nothing else.
    assert_eq!(found.len(), 80, "{cold}");
    assert_eq!(notes.len(), 1, "{cold}");
    let note = &notes[0];
    assert!(
        note.starts_with(&format!(
            "60 packages that mention `{WORKSPACE_FUNCTION}` were not searched, over the 40 a question loads"
        )),
        "{cold}"
    );
    let named: BTreeSet<String> = note
        .rsplit_once("): ")
        .unwrap()
        .1
        .split(", ")
        .map(str::to_owned)
        .collect();
    assert!(callers.is_disjoint(&named), "{cold}");
    let every: BTreeSet<String> = (0..999)
        .step_by(10)
        .map(|i| format!("packages/p{i:04}"))
        .collect();
    assert_eq!(
        callers.union(&named).cloned().collect::<BTreeSet<_>>(),
        every,
        "{cold}"
    );
    let warm = ask(&["references", "--json", &place], Some(&dirs));
    assert_eq!(warm, cold);
}

/// The uses of a class in a uv workspace do not depend on what was asked
/// before: a new daemon's first question, and the same question after
/// another file's diagnostics, are the same whole answer (before, the
/// second listed 20 of the 24).
#[test]
fn references_in_a_uv_workspace_do_not_depend_on_the_question_before() {
    require("pyright-langserver");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    schemas_in(dir);
    let core = "packages/referencing/src/referencing/_core.py";
    let class = at(dir, core, "class Resource(", "Resource");
    // The JSON answer: the text lists the first places only.
    let first = ask(&["references", "--json", &class], Some(&DaemonDirs::new()));
    let answer: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(answer["notes"], json!([]), "{first}");
    let found: BTreeSet<String> = answer["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}:{}:{}",
                l["path"].as_str().unwrap(),
                l["line"],
                l["column"]
            )
        })
        .collect();
    // Its uses in the consumer package (`referencing.Resource`) and every
    // import of it are among them.
    let uses = word_uses(dir, "Resource", &[".py"], |line, byte| {
        line[..byte].ends_with("referencing.")
            || line.trim_start().starts_with("from referencing import")
            || line
                .trim_start()
                .starts_with("from referencing._core import")
    });
    assert!(
        uses.iter().any(|u| u.starts_with("packages/jsonschema/")),
        "{uses:?}"
    );
    for used in &uses {
        assert!(found.contains(used), "{used}: {first}");
    }

    let dirs = DaemonDirs::new();
    let other = dir.join("packages/jsonschema/src/jsonschema/validators.py");
    // Exit 1: the file has errors of its own.
    let (said, code) = run(&["diagnostics", &other.display().to_string()], Some(&dirs));
    assert!(said.contains(" diagnostics") && code == 1, "{said}");
    let after = ask(&["references", "--json", &class], Some(&dirs));
    assert_eq!(after, first);
}
