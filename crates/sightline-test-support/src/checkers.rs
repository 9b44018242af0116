//! The other programs a test runs on its fixtures: git, to commit one, and
//! the project's own type checker (`tsc`), to judge an edit by.

use std::path::Path;
use std::process::Command;

use crate::paths::path_with_tools;

/// `git ARGS` in `dir` as a test's committer, in the process's private
/// directories; it must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .envs(crate::isolation::env())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tsc --noEmit -p .` in `dir` (the pinned TypeScript): its output, paths
/// as they are.
pub fn tsc(dir: &Path) -> String {
    let out = Command::new("tsc")
        .args(["--noEmit", "-p", "."])
        .current_dir(dir)
        .env("PATH", path_with_tools())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}
