//! Startup overhead of the sandbox launcher: a child started through
//! `sightline __sandbox` (exec plus Landlock) against the same child started
//! directly, in one run. Prints both medians and their ratio. Run with
//! `cargo bench -p sightline-mcp --bench sandbox`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sightline_test_support::{stats::median, stats::us};

const ROUNDS: usize = 200;

fn time(mut cmd: Command) -> Duration {
    let t = Instant::now();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    t.elapsed()
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let launcher = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/release/sightline")
        .canonicalize()
        .expect("build the release binary first: cargo build --release -p sightline-mcp");
    let work = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let program = which::which("true").unwrap();
    let (mut direct, mut boxed) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        direct.push(time(Command::new(&program)));
        let mut cmd = Command::new(&launcher);
        cmd.args(["__sandbox", "--mode", "workspace-write", "--write"])
            .arg(work.path())
            .arg("--write")
            .arg(tmp.path())
            .arg("--")
            .arg(&program);
        boxed.push(time(cmd));
    }
    let (d, s) = (median(direct), median(boxed));
    println!("start-up of `true`, {ROUNDS} rounds each, interleaved");
    println!("  direct spawn median:        {:8.1} us", us(d));
    println!("  through the sandbox median: {:8.1} us", us(s));
    println!("  added by exec + Landlock:   {:8.1} us", us(s) - us(d));
    println!(
        "  ratio (sandboxed / direct): {:.2}x",
        s.as_secs_f64() / d.as_secs_f64()
    );
}
