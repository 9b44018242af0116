//! Freshness on real servers: 200 random edits written to disk, each followed
//! by a diagnostics call, whose errors must be exactly the ones the edit
//! introduced. Edits touch the asked file, a dependency it imports, or both.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::BTreeSet;

use sightline_test_support::{Project, runtime, workspace};

const EDITS: usize = 200;
const SLOTS: usize = 8;

/// xorshift64*, seeded from `SIGHTLINE_FRESHNESS_SEED` or a fixed default so
/// that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn from_env() -> Rng {
        let seed = std::env::var("SIGHTLINE_FRESHNESS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_1234_abcd_0001_u64);
        eprintln!("freshness seed: {seed}");
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One language's fixture: the asked file's text for a set of bad slots and
/// the dependency's state, and the dependency's text.
struct Lang {
    ext: &'static str,
    marker: (&'static str, &'static str),
    main: fn(&[bool], bool) -> (String, BTreeSet<usize>),
    dep: fn(bool) -> String,
}

fn python_main(bad: &[bool], dep_is_str: bool) -> (String, BTreeSet<usize>) {
    let mut text = String::from("import dep\n\n");
    let mut errors = BTreeSet::new();
    for (i, b) in bad.iter().enumerate() {
        if *b {
            text.push_str(&format!("v{i}: int = \"s{i}\"\n"));
            errors.insert(i + 3);
        } else {
            text.push_str(&format!("v{i}: int = {i}\n"));
        }
    }
    text.push_str("limit: int = dep.LIMIT\n");
    if dep_is_str {
        errors.insert(bad.len() + 3);
    }
    (text, errors)
}

fn python_dep(is_str: bool) -> String {
    if is_str {
        "LIMIT: str = \"many\"\n".into()
    } else {
        "LIMIT: int = 10\n".into()
    }
}

fn ts_main(bad: &[bool], dep_is_str: bool) -> (String, BTreeSet<usize>) {
    let mut text = String::from("import { LIMIT } from \"./dep\";\n\n");
    let mut errors = BTreeSet::new();
    for (i, b) in bad.iter().enumerate() {
        if *b {
            text.push_str(&format!("export const v{i}: number = \"s{i}\";\n"));
            errors.insert(i + 3);
        } else {
            text.push_str(&format!("export const v{i}: number = {i};\n"));
        }
    }
    text.push_str("export const limit: number = LIMIT;\n");
    if dep_is_str {
        errors.insert(bad.len() + 3);
    }
    (text, errors)
}

fn ts_dep(is_str: bool) -> String {
    if is_str {
        "export const LIMIT: string = \"many\";\n".into()
    } else {
        "export const LIMIT: number = 10;\n".into()
    }
}

/// The lines holding errors in a diagnostics answer.
fn error_lines(d: &sightline::Diagnostics) -> BTreeSet<usize> {
    d.diagnostics
        .iter()
        .filter(|f| f.severity == sightline::Severity::Error)
        .map(|f| f.line)
        .collect()
}

fn run(lang: Lang) {
    let main_rel = format!("main.{}", lang.ext);
    let dep_rel = format!("dep.{}", lang.ext);
    let mut bad = vec![false; SLOTS];
    let mut dep_is_str = false;
    let (text, _) = (lang.main)(&bad, dep_is_str);
    let p = Project::new(&[
        lang.marker,
        (&main_rel, &text),
        (&dep_rel, &(lang.dep)(dep_is_str)),
    ]);
    let mut rng = Rng::from_env();
    let mut stale = Vec::new();
    runtime().block_on(async {
        let ws = workspace();
        for edit in 0..EDITS {
            // Change the asked file, the dependency, or both.
            let touch_dep = rng.chance(30);
            let touch_main = !touch_dep || rng.chance(50);
            if touch_main {
                for b in bad.iter_mut() {
                    if rng.chance(25) {
                        *b = !*b;
                    }
                }
                let (text, _) = (lang.main)(&bad, dep_is_str);
                p.write(&main_rel, &text);
            }
            if touch_dep {
                dep_is_str = !dep_is_str;
                p.write(&dep_rel, &(lang.dep)(dep_is_str));
            }
            let (_, want) = (lang.main)(&bad, dep_is_str);
            // An `error:` or `not ready:` answer is no answer, never a
            // fresh empty set.
            match ws.diagnostics(&p.path(&main_rel)).await {
                Ok(d) if error_lines(&d) == want && d.notes.is_empty() => {}
                Ok(d) => stale.push(format!(
                    "edit {edit}: want errors on {want:?}, got {}",
                    sightline::diagnostics_text(&d)
                )),
                Err(e) => stale.push(format!("edit {edit}: want errors on {want:?}, got {e}")),
            }
        }
        ws.shutdown().await;
    });
    eprintln!("{}: stale answers: {} of {EDITS}", lang.ext, stale.len());
    assert!(
        stale.is_empty(),
        "{} stale answers:\n{}",
        stale.len(),
        stale.join("\n")
    );
}

#[test]
fn two_hundred_random_edits_in_a_pyright_project_all_answer_fresh() {
    run(Lang {
        ext: "py",
        marker: ("pyproject.toml", ""),
        main: python_main,
        dep: python_dep,
    });
}

#[test]
fn two_hundred_random_edits_in_a_typescript_project_all_answer_fresh() {
    run(Lang {
        ext: "ts",
        marker: ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        main: ts_main,
        dep: ts_dep,
    });
}
