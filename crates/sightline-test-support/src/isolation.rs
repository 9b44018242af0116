//! Every test process is its own world: before any test thread starts, each
//! test and bench binary calls [`isolate`] (from a constructor, see
//! `tests/all.rs`), which points `XDG_RUNTIME_DIR`, `XDG_DATA_HOME`,
//! `SIGHTLINE_DATA_DIR`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME` and
//! `XDG_CACHE_HOME` at directories of this process alone. No test then
//! reads or changes the user's daemon, trust list, installs or
//! configuration, whether it runs `sightline` as a child or an engine in
//! process. [`release`] (at exit) stops a daemon a test started there
//! without a runtime directory of its own, and removes the tree.
//!
//! `HOME` stays: npm's and cargo's caches under it are what the offline
//! package and rust-analyzer tests read.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The variables [`isolate`] sets, each with its directory under the tree.
pub const PRIVATE_DIRS: &[(&str, &str)] = &[
    ("XDG_RUNTIME_DIR", "run"),
    ("XDG_DATA_HOME", "data"),
    ("SIGHTLINE_DATA_DIR", "data/sightline"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_STATE_HOME", "state"),
    ("XDG_CACHE_HOME", "cache"),
];

static TREE: OnceLock<PathBuf> = OnceLock::new();

/// The values the process inherited, before [`isolate`] replaced them.
static INHERITED: OnceLock<Vec<(&'static str, Option<std::ffi::OsString>)>> = OnceLock::new();

/// Points the [`PRIVATE_DIRS`] variables at a fresh tree of this process.
/// Call it from a constructor, before any thread runs: setting the
/// environment is sound only then.
pub fn isolate() {
    INHERITED.get_or_init(|| {
        PRIVATE_DIRS
            .iter()
            .map(|(k, _)| (*k, std::env::var_os(k)))
            .collect()
    });
    let tree = TREE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("sightline-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (_, sub) in PRIVATE_DIRS {
            std::fs::create_dir_all(dir.join(sub)).expect("a private test directory");
        }
        // The daemon refuses a runtime directory others may enter.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ =
                std::fs::set_permissions(dir.join("run"), std::fs::Permissions::from_mode(0o700));
        }
        dir
    });
    for (k, sub) in PRIVATE_DIRS {
        // SAFETY: called from a constructor, before `main` and before any
        // other thread of this process exists.
        unsafe { std::env::set_var(k, tree.join(sub)) };
    }
    // The tree goes, and a daemon started there stops, when the process
    // exits after its tests.
    #[cfg(unix)]
    extern "C" fn at_exit() {
        release();
    }
    // SAFETY: registering a plain function with the C runtime.
    #[cfg(unix)]
    unsafe {
        libc::atexit(at_exit);
    }
    // The user's other settings of sightline go too: a test asks for the
    // daemon or for in-process answers itself, and sets the limits it is
    // about.
    for var in [
        "SIGHTLINE_NO_DAEMON",
        "SIGHTLINE_DAEMON",
        "SIGHTLINE_CONFIG",
        "SIGHTLINE_DISABLE_LSP_DOWNLOAD",
        "SIGHTLINE_WATCH_LIMIT",
        "SIGHTLINE_DAEMON_IDLE_SECS",
        "SIGHTLINE_DAEMON_MEMORY_LIMIT_MB",
        "SIGHTLINE_BUILD_ID",
        "SIGHTLINE_PANIC_IN",
        // uv's cache, which its formatter runs may write: without the
        // variable it is the private `XDG_CACHE_HOME/uv`.
        "UV_CACHE_DIR",
    ] {
        // SAFETY: as above.
        unsafe { std::env::remove_var(var) };
    }
}

/// The private tree, once [`isolate`] ran.
pub fn tree() -> Option<&'static Path> {
    TREE.get().map(PathBuf::as_path)
}

/// The [`PRIVATE_DIRS`] variables with their directories, for a harness
/// to set on a child explicitly: a child whose environment is built from
/// nothing (the MCP SDK gives a server only `HOME`, `PATH` and a few more)
/// would otherwise fall back to the user's directories. A binary that did
/// not isolate itself fails here rather than run against them.
pub fn env() -> Vec<(&'static str, PathBuf)> {
    let tree = tree().expect(
        "this test binary is not isolated: call sightline_test_support::isolation::isolate from a constructor (see tests/all.rs)",
    );
    PRIVATE_DIRS
        .iter()
        .map(|(k, sub)| (*k, tree.join(sub)))
        .collect()
}

/// What the process inherited for `var` (one of [`PRIVATE_DIRS`]).
pub fn inherited(var: &str) -> Option<std::ffi::OsString> {
    INHERITED
        .get()?
        .iter()
        .find(|(k, _)| *k == var)
        .and_then(|(_, v)| v.clone())
}

/// Stops a daemon started in the private runtime directory and removes the
/// tree; [`isolate`] registers it to run at exit, after every test.
pub fn release() {
    let Some(tree) = TREE.get() else {
        return;
    };
    let pid_file = tree.join("run/sightline/daemon.pid");
    if let Ok(pid) = std::fs::read_to_string(&pid_file)
        && let Ok(pid) = pid.trim().parse::<u32>()
    {
        let bin = crate::paths::bin_dir().join("sightline");
        let _ = std::process::Command::new(bin)
            .args(["daemon", "stop"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        if crate::alive(pid) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    }
    let _ = std::fs::remove_dir_all(tree);
}

/// [`isolate`] for a binary with a `main` (the benchmarks): call it first
/// thing in `main`, while the process has one thread; [`release`] runs at
/// exit.
pub fn isolate_main() {
    isolate();
}
