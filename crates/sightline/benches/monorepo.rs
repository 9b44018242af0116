//! A monorepo's first question, and the memory its servers hold: TanStack
//! Query 5.90.2's 15 packages as an npm workspace (`tools/install`), the
//! references of `shouldThrowError` (declared in query-core, called in
//! react-query, solid-query and vue-query), in one run:
//!
//! - Direct client: typescript-language-server rooted at the workspace,
//!   started, the declaring file and one file of each consumer package
//!   opened (the projects the answer needs, chosen by an oracle), and
//!   references asked: the floor for a cold answer.
//! - sightline: `sightline references` through a new daemon (its start,
//!   the server's, finding and opening the packages that mention the name,
//!   and the answer).
//!
//! Then the memory of the servers (the server and its tsserver processes):
//! sightline's one server after the question; one server holding all 15
//! packages' projects (a file of each open); and, as a server rooted at each
//! package would, 15 servers each holding its own package.
//!
//! Run with `cargo bench -p sightline-mcp --bench monorepo`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use sightline_test_support::direct::{Direct, uri};
use sightline_test_support::pinned::tanstack_workspace;
use sightline_test_support::{DaemonDirs, descendants, path_with_tools, rss_kib_of, tool};

const ROUNDS: usize = 3;

/// The server's resident memory with its children's, in MiB.
fn tree_mib(pid: u32) -> f64 {
    let kib: u64 = std::iter::once(pid)
        .chain(descendants(pid))
        .filter_map(rss_kib_of)
        .sum();
    kib as f64 / 1024.0
}

/// The first `.ts` file of a package's `src`, by name.
fn first_file(package: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(package.join("src"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ts" || x == "tsx"))
        .collect();
    files.sort();
    files.into_iter().next().unwrap()
}

fn open(d: &mut Direct, path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    d.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(path), "languageId": "typescript", "version": 0, "text": text } }),
    );
}

/// typescript-language-server with the pinned TypeScript's tsserver, as
/// sightline starts it.
fn start(root: &Path) -> Direct {
    let tsserver = sightline_test_support::tsserver_js();
    let caps = json!({ "textDocument": { "publishDiagnostics": { "versionSupport": true } } });
    let init = json!({ "tsserver": { "path": tsserver, "useSyntaxServer": "never" } });
    Direct::start(&tool("typescript-language-server"), root, caps, init)
}

/// The declaration's file, and its 0-based line and character.
fn declaration(root: &Path) -> (PathBuf, usize, usize) {
    let file = root.join("packages/query-core/src/utils.ts");
    let text = std::fs::read_to_string(&file).unwrap();
    let (line, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("export function shouldThrowError"))
        .unwrap();
    (file, line, l.find("shouldThrowError").unwrap())
}

fn direct_cold(root: &Path) -> (Duration, usize) {
    let (file, line, character) = declaration(root);
    let t = Instant::now();
    let mut d = start(root);
    open(&mut d, &file);
    for consumer in [
        "packages/react-query/src/useMutation.ts",
        "packages/solid-query/src/useMutation.ts",
        "packages/vue-query/src/useMutation.ts",
    ] {
        open(&mut d, &root.join(consumer));
    }
    // As an editor shows it: once the server has published the file's
    // diagnostics, its projects are loaded (asked earlier, tsserver
    // answers no references).
    let file_uri = uri(&file);
    d.wait_for("textDocument/publishDiagnostics", |n| {
        n["params"]["uri"] == file_uri.as_str()
    });
    let r = d.request(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri(&file) }, "position": { "line": line, "character": character }, "context": { "includeDeclaration": false } }),
    );
    let took = t.elapsed();
    let n = r["result"].as_array().map_or(0, Vec::len);
    assert_eq!(n, 14, "the direct client's answer: {r}");
    (took, n)
}

fn sightline_cold(root: &Path) -> (Duration, usize, f64) {
    let (file, line, character) = declaration(root);
    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let place = format!("{}:{}:{}", file.display(), line + 1, character + 1);
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["references", &place])
        .envs(sightline_test_support::isolation::env())
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DATA_DIR", data.path())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .envs(dirs.env())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = t.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    let count = text
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let pid: u32 = std::fs::read_to_string(dirs.runtime().join("sightline/daemon.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let servers_mib = descendants(pid)
        .into_iter()
        .filter(|p| {
            // The daemon's direct children are its servers (sandboxed).
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    s.rsplit_once(')')
                        .map(|(_, a)| a.split_whitespace().nth(1).map(str::to_owned))
                })
                .flatten()
                .is_some_and(|pp| pp == pid.to_string())
        })
        .map(tree_mib)
        .sum();
    dirs.stop();
    (took, count, servers_mib)
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let packages = tanstack_workspace(&root);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;

    let mut direct = Vec::new();
    let mut through = Vec::new();
    let mut mib = 0.0;
    for _ in 0..ROUNDS {
        let (d, n) = direct_cold(&root);
        assert_eq!(n, 14, "the direct client found {n} references");
        direct.push(d);
        let (s, n, m) = sightline_cold(&root);
        assert_eq!(n, 14, "sightline found {n} references");
        through.push(s);
        mib = m;
    }
    direct.sort();
    through.sort();
    let (direct, through) = (direct[ROUNDS / 2], through[ROUNDS / 2]);
    println!(
        "monorepo: TanStack Query 5.90.2, {} packages (npm workspace, no root tsconfig)",
        packages.len()
    );
    println!("  references of shouldThrowError (14, in 4 packages), cold, median of {ROUNDS}:");
    println!(
        "    direct client (start, open the 4 files, ask): {:8.0} ms",
        ms(direct)
    );
    println!(
        "    sightline (a new daemon, through the CLI):     {:8.0} ms",
        ms(through)
    );
    println!(
        "    ratio (sightline / direct): {:.2}x",
        through.as_secs_f64() / direct.as_secs_f64()
    );
    println!("  memory of the servers:");
    println!("    sightline's one server after the question:     {mib:8.0} MiB");

    // One server holding every package's project.
    let mut one = start(&root);
    for p in &packages {
        let f = first_file(&root.join("packages").join(p));
        open(&mut one, &f);
        // Once its diagnostics are published, tsserver has built the
        // file's project.
        let u = uri(&f);
        one.wait_for("textDocument/publishDiagnostics", |n| {
            n["params"]["uri"] == u.as_str()
        });
    }
    let whole = tree_mib(one.pid());
    drop(one);
    println!(
        "    one server, all {} packages loaded:             {whole:8.0} MiB",
        packages.len()
    );

    // A server per package, each holding its own.
    let mut each = 0.0;
    for p in &packages {
        let package = root.join("packages").join(p);
        let mut d = start(&package);
        let f = first_file(&package);
        open(&mut d, &f);
        let u = uri(&f);
        d.wait_for("textDocument/publishDiagnostics", |n| {
            n["params"]["uri"] == u.as_str()
        });
        each += tree_mib(d.pid());
    }
    println!(
        "    a server per package ({}):                      {each:8.0} MiB",
        packages.len()
    );
}
