//! The sandbox every child process starts in: servers, formatters and
//! installers all get their command from [`Sandbox::command`]. Each platform
//! confines them its own way ([`Mechanism`]): on Linux through `sightline
//! __sandbox` (`linux`), a launcher that applies Landlock to itself, then
//! execs the target, so the rules hold for the target and everything it
//! starts; on macOS under Seatbelt (`seatbelt`); on Windows not at all, which
//! is said, and refused unless the user allows unsandboxed children. Modes:
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
//! (Biome's daemon, tsserver's pipes) are unaffected. Seatbelt refuses
//! internet sockets the same way.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::ToolError;

mod caches;
pub mod child_env;
pub mod confine;
mod denial;
#[cfg(target_os = "linux")]
mod linux;
pub mod network_env;
// Compiled on macOS, and everywhere for its tests (the profile is a pure
// function).
#[cfg(any(target_os = "macos", test))]
mod seatbelt;
mod tmp;

pub use caches::{Cache, cache_paths};
pub use denial::explain_denial;
#[cfg(target_os = "linux")]
pub use linux::launch;

/// `sightline __sandbox` is Linux's launcher; elsewhere it refuses.
#[cfg(not(target_os = "linux"))]
pub fn launch(_args: &[String]) -> ! {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        b"sightline sandbox: the __sandbox launcher runs only on Linux\n",
    );
    std::process::exit(126)
}
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

/// How this platform confines children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Landlock, at this kernel's ABI version, through the launcher.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Landlock(i64),
    /// Seatbelt (`sandbox-exec`).
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    Seatbelt,
    /// None: why.
    Unavailable(&'static str),
}

impl Mechanism {
    /// This platform's.
    pub fn here() -> Mechanism {
        #[cfg(target_os = "linux")]
        return match linux::kernel_abi() {
            Some(abi) => Mechanism::Landlock(abi),
            None => Mechanism::Unavailable("this kernel has no Landlock"),
        };
        #[cfg(target_os = "macos")]
        return if Path::new(seatbelt::SANDBOX_EXEC).is_file() {
            Mechanism::Seatbelt
        } else {
            Mechanism::Unavailable("this macOS has no /usr/bin/sandbox-exec")
        };
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        return Mechanism::Unavailable("this platform has no sandbox sightline can apply");
    }

    /// Its name in status lines (`Landlock ABI 6`, `Seatbelt`).
    fn name(self) -> String {
        match self {
            Mechanism::Landlock(abi) => format!("Landlock ABI {abi}"),
            Mechanism::Seatbelt => "Seatbelt".into(),
            Mechanism::Unavailable(why) => why.into(),
        }
    }
}

/// What a child's environment loses and gets ([`Sandbox::child_env`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    /// The names removed.
    pub remove: Vec<String>,
    /// The names set, with their values.
    pub set: Vec<(String, String)>,
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
    /// The user's network settings (`network_env`), set in every child.
    network_env: Vec<(String, String)>,
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
            network_env: Vec::new(),
        };
        s.log_status_once();
        s
    }

    /// The same sandbox, its children given the user's network settings
    /// (`network_env`, names of [`network_env::NETWORK_VARS`] only).
    pub fn with_network_env(mut self, vars: Vec<(String, String)>) -> Sandbox {
        self.network_env = vars;
        self
    }

    /// A child's environment by one rule, whatever it is (a server, a
    /// formatter, an installer): only what the allow-list names of this
    /// process's (`child_env`, and those `SIGHTLINE_PASS_ENV` lets through), and,
    /// for a child with the `network`, the user's network settings over
    /// the inherited ones (a child without it has no use for them). What
    /// the child's own entry sets is applied after, and wins.
    pub fn child_env(&self, network: bool) -> ChildEnv {
        ChildEnv {
            remove: child_env::refused(),
            set: if network {
                self.network_env.clone()
            } else {
                Vec::new()
            },
        }
    }

    /// [`Sandbox::child_env`] applied to `cmd`.
    pub fn apply_child_env(&self, cmd: &mut std::process::Command, network: bool) {
        let env = self.child_env(network);
        for name in &env.remove {
            cmd.env_remove(name);
        }
        cmd.envs(env.set);
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
        let m = self.mode.as_str();
        match (self.mode, Mechanism::here(), &self.launcher) {
            (Mode::DangerFullAccess, _, _) => {
                "sandbox: danger-full-access (children run unsandboxed)".into()
            }
            (_, Mechanism::Landlock(_), None) => format!(
                "sandbox: {m} requested, but the `sightline` launcher was not found; children are refused"
            ),
            (_, Mechanism::Unavailable(why), _) if self.allow_unsandboxed => format!(
                "sandbox: {m} requested, but {why}; children run unsandboxed (allow_unsandboxed)"
            ),
            (_, Mechanism::Unavailable(why), _) => format!(
                "sandbox: {m} requested, but {why}; servers and formatters are refused (set \"allow_unsandboxed\": true or \"sandbox\": \"danger-full-access\")"
            ),
            (_, mechanism, _) => format!("sandbox: {m} ({})", mechanism.name()),
        }
    }

    fn log_status_once(&self) {
        static LOGGED: OnceLock<()> = OnceLock::new();
        let degraded = self.mode != Mode::DangerFullAccess
            && match Mechanism::here() {
                Mechanism::Landlock(_) => self.launcher.is_none(),
                Mechanism::Seatbelt => false,
                Mechanism::Unavailable(_) => true,
            };
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
        let mut dirs: Vec<PathBuf> = vec![tmp.to_owned()];
        if self.mode == Mode::WorkspaceWrite {
            dirs.extend(writable.iter().cloned());
        }
        let why = match (Mechanism::here(), &self.launcher) {
            (Mechanism::Unavailable(why), _) => why,
            (Mechanism::Landlock(_), None) => "the `sightline` launcher was not found",
            (Mechanism::Landlock(_), Some(launcher)) => {
                let mut argv = vec![
                    "__sandbox".to_owned(),
                    "--mode".into(),
                    self.mode.as_str().into(),
                ];
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
            #[cfg(target_os = "macos")]
            (Mechanism::Seatbelt, _) => {
                return Ok(seatbelt::command(program, args, &dirs, network));
            }
            #[cfg(not(target_os = "macos"))]
            (Mechanism::Seatbelt, _) => "Seatbelt exists only on macOS",
        };
        if self.allow_unsandboxed {
            return Ok((program.to_owned(), args.to_vec()));
        }
        Err(ToolError::unavailable(format!(
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
