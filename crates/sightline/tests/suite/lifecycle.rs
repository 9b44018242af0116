//! Server lifetime: no process outlives sightline, even when it is killed with
//! SIGKILL while pyright and tsserver run.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use super::support::{BatchSession, Project, alive, descendants};

#[test]
fn sigkill_leaves_no_server_behind() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("package.json", "{}"),
        ("tsconfig.json", "{}"),
        ("a.py", "x: int = 1\n"),
        ("b.ts", "export const y: number = 1;\n"),
    ]);
    let mut s = BatchSession::builder().start();
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("a.py").display())),
        "a.py: no diagnostics\n"
    );
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("b.ts").display())),
        "b.ts: no diagnostics\n"
    );
    let family = descendants(s.pid());
    let names: Vec<String> = family
        .iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).ok())
        .map(|c| c.replace('\0', " "))
        .collect();
    assert!(names.iter().any(|n| n.contains("pyright")), "{names:?}");
    assert!(names.iter().any(|n| n.contains("tsserver")), "{names:?}");
    s.kill();
    // Poll for the real condition (every process gone), within a bound.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left: Vec<u32> = family.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still alive 15 s after SIGKILL: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn closing_stdin_shuts_servers_down() {
    let p = Project::new(&[("pyproject.toml", ""), ("a.py", "x: int = 1\n")]);
    let mut s = BatchSession::builder().start();
    assert_eq!(
        s.ask(&format!("diagnostics {}", p.path("a.py").display())),
        "a.py: no diagnostics\n"
    );
    let family: Vec<u32> = descendants(s.pid());
    assert!(!family.is_empty());
    drop(s);
    let deadline = Instant::now() + Duration::from_secs(15);
    while family.iter().any(|&p| alive(p)) {
        assert!(Instant::now() < deadline, "servers outlived a clean exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}
