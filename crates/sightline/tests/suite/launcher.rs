//! A server whose launcher refuses to start it: the answer names the
//! command that installs what is missing, through the daemon.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use sightline_test_support::{DaemonDirs, Project};

/// rustup's proxy for a toolchain without rust-analyzer, as rustup 1.29
/// printed it with `RUST_BACKTRACE=1` (frames cut short): the answer was
/// the backtrace's last line.
const RUSTUP_REFUSAL: &str = "error: Unknown binary 'rust-analyzer' in official toolchain 'nightly-x86_64-unknown-linux-gnu'.

Stack backtrace:
   0: anyhow::kind::Adhoc::new
   1: anyhow::__private::format_err.3718
   6: rustup_init::run_rustup_inner::{{closure}}
  15: <unknown>";

#[test]
fn a_rustup_proxy_without_its_component_answers_the_install_command() {
    let p = Project::new(&[
        (".git/HEAD", ""),
        (
            "Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", "pub fn f() {}\n"),
    ]);
    p.write(
        "rust-analyzer",
        &format!("#!/bin/sh\ncat >&2 <<'END'\n{RUSTUP_REFUSAL}\nEND\nexit 1\n"),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        p.path("rust-analyzer"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let config = p.path("user-config.json");
    std::fs::write(
        &config,
        json!({ "lsp": { "rust": { "command": [p.path("rust-analyzer")] } } }).to_string(),
    )
    .unwrap();
    let dirs = DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let out = dirs
        .command(p.root(), &config, data.path())
        .args(["diagnostics", "src/lib.rs"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "unavailable: rust is not installed: its launcher lacks it; run `rustup component add rust-analyzer --toolchain nightly-x86_64-unknown-linux-gnu`\n",
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2));
    dirs.stop();
}
