//! The sandbox every child process starts in: servers, formatters and
//! installers all get their command from [`Sandbox::command`], which runs them
//! through `sightline __sandbox`. That launcher applies Landlock to itself,
//! then execs the target, so the rules hold for the target and everything it
//! starts. Modes:
//!
//! - `workspace-write` (default): read anything; write only inside the
//!   writable roots of [`crate::sandbox::confine::Roots`] (the workspace directory
//!   and the user's `writable_roots`), a private temporary directory
//!   (`TMPDIR`) and the cache directories the server is known to need;
//! - `read-only`: write only the private temporary directory;
//! - `danger-full-access`: no sandbox.
//!
//! In both sandboxed modes a child also gets no network unless its entry
//! asks for it (installers, and servers such as rust-analyzer whose build
//! tool fetches dependencies): Landlock refuses TCP bind and connect where
//! the kernel's ABI has network rules (v4 and later), and a seccomp filter
//! refuses new `AF_INET`/`AF_INET6` sockets on every kernel. Unix sockets
//! (Biome's daemon, tsserver's pipes) are unaffected.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::ToolError;

mod caches;
pub mod confine;
mod denial;
mod launch;
mod tmp;

pub use caches::{Cache, cache_paths};
pub use denial::explain_denial;
pub use launch::launch;
pub use tmp::{private_env, private_tmp};

/// How much children (and the edit tools) may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write the workspace's writable roots, caches and a private `TMPDIR`.
    WorkspaceWrite,
    /// Write only a private `TMPDIR`.
    ReadOnly,
    /// No sandbox.
    DangerFullAccess,
}

impl Mode {
    /// The mode a configuration or `--sandbox` names.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "workspace-write" => Some(Mode::WorkspaceWrite),
            "read-only" => Some(Mode::ReadOnly),
            "danger-full-access" => Some(Mode::DangerFullAccess),
            _ => None,
        }
    }

    /// The mode's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::DangerFullAccess => "danger-full-access",
        }
    }
}

/// The running kernel's Landlock ABI version, or `None` when it has none.
pub fn kernel_abi() -> Option<i64> {
    static ABI: OnceLock<Option<i64>> = OnceLock::new();
    *ABI.get_or_init(|| {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
        // SAFETY: the documented version query: no pointers are read.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        (v > 0).then_some(v)
    })
}

/// The sandbox of an engine: its mode, the launcher, and the writable roots.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The mode.
    pub mode: Mode,
    launcher: Option<PathBuf>,
    /// Run children unsandboxed when Landlock or the launcher is missing,
    /// instead of refusing.
    allow_unsandboxed: bool,
    /// Where `workspace-write` lets children and the edit tools write.
    roots: crate::sandbox::confine::Roots,
}

impl Sandbox {
    /// A sandbox in `mode`, launching through `launcher` (else found beside
    /// this program or on PATH); `allow_unsandboxed` runs children without it
    /// where Landlock or the launcher is missing.
    pub fn new(mode: Mode, launcher: Option<PathBuf>, allow_unsandboxed: bool) -> Sandbox {
        let s = Sandbox {
            mode,
            launcher: launcher.or_else(default_launcher),
            allow_unsandboxed,
            roots: crate::sandbox::confine::Roots::default(),
        };
        s.log_status_once();
        s
    }

    /// The same sandbox, writing only inside `roots` in `workspace-write`.
    pub fn confined_to(mut self, roots: crate::sandbox::confine::Roots) -> Sandbox {
        self.roots = roots;
        self
    }

    /// What a child working in `project` (a server's root) may write in
    /// `workspace-write`, besides its caches and `TMPDIR`.
    pub fn writable_for_project(&self, project: &Path) -> Vec<PathBuf> {
        self.roots.for_project(Some(project))
    }

    /// What work on `file` (a formatter's run) may write in
    /// `workspace-write`: the same roots a write of it is judged by.
    pub fn writable_for_file(&self, file: &Path) -> Vec<PathBuf> {
        self.roots.for_file(file)
    }

    /// Refuses sightline's own write of `path` when the mode does not allow
    /// it: the rules its children obey, applied before anything is written.
    pub fn check_write(&self, path: &Path) -> Result<(), ToolError> {
        self.roots.check(self.mode, path)
    }

    /// One line for logs and `sightline servers`.
    pub fn status(&self) -> String {
        match (self.mode, kernel_abi(), &self.launcher) {
            (Mode::DangerFullAccess, _, _) => {
                "sandbox: danger-full-access (children run unsandboxed)".into()
            }
            (m, Some(abi), Some(_)) => format!("sandbox: {} (Landlock ABI {abi})", m.as_str()),
            (m, None, _) if self.allow_unsandboxed => format!(
                "sandbox: {} requested, but this kernel has no Landlock; children run unsandboxed (allow_unsandboxed)",
                m.as_str()
            ),
            (m, None, _) => format!(
                "sandbox: {} requested, but this kernel has no Landlock; servers and formatters are refused (set \"allow_unsandboxed\": true or \"sandbox\": \"danger-full-access\")",
                m.as_str()
            ),
            (m, Some(_), None) => format!(
                "sandbox: {} requested, but the `sightline` launcher was not found; children are refused",
                m.as_str()
            ),
        }
    }

    fn log_status_once(&self) {
        static LOGGED: OnceLock<()> = OnceLock::new();
        let degraded = self.mode != Mode::DangerFullAccess
            && (kernel_abi().is_none() || self.launcher.is_none());
        if degraded {
            LOGGED.get_or_init(|| tracing::warn!("{}", self.status()));
        }
    }

    /// The program and arguments that run `program args` in the sandbox,
    /// writing only `writable` (in `workspace-write`) and `tmp`, with
    /// internet sockets only when `network` is true.
    pub fn command(
        &self,
        program: &Path,
        args: &[String],
        writable: &[PathBuf],
        tmp: &Path,
        network: bool,
    ) -> Result<(PathBuf, Vec<String>), ToolError> {
        if self.mode == Mode::DangerFullAccess {
            return Ok((program.to_owned(), args.to_vec()));
        }
        let why = match (kernel_abi(), &self.launcher) {
            (None, _) => "this kernel has no Landlock",
            (Some(_), None) => "the `sightline` launcher was not found",
            (Some(_), Some(launcher)) => {
                let mut argv = vec![
                    "__sandbox".to_owned(),
                    "--mode".into(),
                    self.mode.as_str().into(),
                ];
                let mut dirs: Vec<&Path> = vec![tmp];
                if self.mode == Mode::WorkspaceWrite {
                    dirs.extend(writable.iter().map(PathBuf::as_path));
                }
                for d in dirs {
                    argv.push("--write".into());
                    argv.push(d.display().to_string());
                }
                if network {
                    argv.push("--network".into());
                }
                argv.push("--".into());
                argv.push(program.display().to_string());
                argv.extend(args.iter().cloned());
                return Ok((launcher.clone(), argv));
            }
        };
        if self.allow_unsandboxed {
            return Ok((program.to_owned(), args.to_vec()));
        }
        Err(ToolError::Unavailable(format!(
            "{} cannot run in the {} sandbox: {why}; set \"allow_unsandboxed\": true or \"sandbox\": \"danger-full-access\" to run it anyway",
            program
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            self.mode.as_str()
        )))
    }
}

/// The `sightline` binary: this one, or the one beside the running program
/// (tests and the fake server run from the same build directory), or PATH.
fn default_launcher() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    if exe.file_name().is_some_and(|n| n == "sightline") {
        return Some(exe);
    }
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join("sightline"))
        .find(|p| p.is_file())
        .or_else(|| which::which("sightline").ok())
}
