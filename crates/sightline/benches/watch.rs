//! The file watch on a large tree, and how soon a changed configuration is
//! in the answers, in one run:
//! - a tree of 100,000 files (1,000 directories): the time to set the watch
//!   up, the memory it takes, its CPU while idle (it has no thread: the
//!   queue is read only when a question comes), and the cost of the drain
//!   each question pays, with inotify and with every directory polled;
//! - pyright: a `settings` change in sightline.json to the answer that
//!   follows it, against the same server's answer to a plain re-check;
//!   typescript: `strict` toggled in tsconfig.json to the fresh answer.
//!
//! Run with `cargo bench -p sightline-mcp --bench watch`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

use sightline::DiskWatch;
use sightline::{Engine, Options};
use sightline_test_support::stats::median;
use sightline_test_support::{Project, diags, repo_root, rss_kib, runtime};

const DIRS: usize = 1000;
const FILES_PER_DIR: usize = 100;

fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn big_tree(root: &Path) {
    for d in 0..DIRS {
        let dir = root.join(format!("pkg{}/sub{d}", d % 10));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..FILES_PER_DIR {
            std::fs::write(dir.join(format!("m{f}.py")), "x = 1\n").unwrap();
        }
    }
}

fn watch_figures() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    big_tree(&root);
    let rss_before = rss_kib();
    let t = Instant::now();
    let w = DiskWatch::new(&root).unwrap();
    let setup = t.elapsed();
    let rss_after = rss_kib();
    let cpu = cpu_time();
    std::thread::sleep(Duration::from_secs(5));
    let idle_cpu = cpu_time() - cpu;
    let drains: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            assert!(w.drain().is_empty());
            t.elapsed()
        })
        .collect();
    // A branch switch's worth: 1,000 files rewritten, drained at once.
    for d in 0..10 {
        for f in 0..FILES_PER_DIR {
            let p = root.join(format!("pkg{}/sub{d}/m{f}.py", d % 10));
            std::fs::write(p, "x = 2\n").unwrap();
        }
    }
    let t = Instant::now();
    let burst = w.drain();
    let burst_time = t.elapsed();
    drop(w);
    let polled = DiskWatch::with_limit(&root, 0).unwrap();
    let polls: Vec<Duration> = (0..5)
        .map(|_| {
            let t = Instant::now();
            assert!(polled.drain().is_empty());
            t.elapsed()
        })
        .collect();
    println!(
        "file watch on {} files in {DIRS} directories",
        DIRS * FILES_PER_DIR
    );
    println!(
        "  set up: {:.0} ms; memory: +{:.1} MiB; CPU while idle for 5 s: {:.1} ms",
        setup.as_secs_f64() * 1000.0,
        (rss_after.saturating_sub(rss_before)) as f64 / 1024.0,
        idle_cpu.as_secs_f64() * 1000.0
    );
    println!(
        "  drain before a question, nothing changed: median {:.1} us; 1,000 files changed: {} changes in {:.1} ms",
        median(drains).as_secs_f64() * 1e6,
        burst.len(),
        burst_time.as_secs_f64() * 1000.0
    );
    println!(
        "  past the watch limit (every directory polled): {:.0} ms a question",
        median(polls).as_secs_f64() * 1000.0
    );
}

fn engine(root: &Path) -> Engine {
    let tools = repo_root().join("tools");
    Engine::new(Options {
        root: Some(root.to_owned()),
        search_path: vec![tools.join("node_modules/.bin")],
        downloads: Some(false),
        virtual_env: None,
        config: sightline::Config::load(Some(root)).unwrap(),
        ..Options::default()
    })
}

fn config_figures() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import nothere\n\nnothere.x = 1\n"),
    ]);
    let quiet = r#"{ "lsp": { "pyright": { "settings": { "python": { "analysis": { "diagnosticSeverityOverrides": { "reportMissingImports": "none" } } } } } } }"#;
    let t = Project::new(&[
        ("tsconfig.json", "{}"),
        ("loose.ts", "export function f(a) {\n  return a;\n}\n"),
    ]);
    runtime().block_on(async {
        let ws = engine(p.root());
        let app = p.path("app.py");
        assert!(diags(&ws, &app).await.contains("could not be resolved"));
        let (mut settings, mut recheck) = (Vec::new(), Vec::new());
        for round in 0..10 {
            // The same server re-checking after its file changed on disk: the
            // floor for an answer that needs a new analysis.
            p.write("app.py", &format!("import nothere\n\nnothere.x = {round}\n"));
            let t0 = Instant::now();
            assert!(diags(&ws, &app).await.contains("could not be resolved"));
            recheck.push(t0.elapsed());
            p.write("sightline.json", quiet);
            let t0 = Instant::now();
            assert_eq!(diags(&ws, &app).await, "app.py: no diagnostics\n");
            settings.push(t0.elapsed());
            std::fs::remove_file(p.path("sightline.json")).unwrap();
            assert!(diags(&ws, &app).await.contains("could not be resolved"));
        }
        ws.shutdown().await;
        let ws = engine(t.root());
        let loose = t.path("loose.ts");
        assert!(!diags(&ws, &loose).await.contains("error"));
        let mut strict = Vec::new();
        for _ in 0..5 {
            t.write("tsconfig.json", "{ \"compilerOptions\": { \"strict\": true } }");
            let t0 = Instant::now();
            assert!(diags(&ws, &loose).await.contains("implicitly has an 'any' type."));
            strict.push(t0.elapsed());
            t.write("tsconfig.json", "{}");
            assert!(!diags(&ws, &loose).await.contains("error"));
        }
        ws.shutdown().await;
        println!("a configuration change to the fresh answer (medians)");
        println!(
            "  pyright, a `settings` edit in sightline.json: {:.0} ms (a re-check after an edit of the file: {:.0} ms)",
            median(settings).as_secs_f64() * 1000.0,
            median(recheck).as_secs_f64() * 1000.0
        );
        println!(
            "  typescript, `strict` turned on in tsconfig.json: {:.0} ms",
            median(strict).as_secs_f64() * 1000.0
        );
    });
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    watch_figures();
    config_figures();
}
