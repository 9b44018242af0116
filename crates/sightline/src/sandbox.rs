//! The sandbox every child process starts in: servers, formatters and
//! installers all get their command from [`Sandbox::command`], which runs them
//! through `sightline __sandbox`. That launcher applies Landlock to itself,
//! then execs the target, so the rules hold for the target and everything it
//! starts. Modes:
//!
//! - `workspace-write` (default): read anything; write only inside the
//!   writable roots of [`crate::confine::Roots`] (the workspace directory
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    WorkspaceWrite,
    ReadOnly,
    DangerFullAccess,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "workspace-write" => Some(Mode::WorkspaceWrite),
            "read-only" => Some(Mode::ReadOnly),
            "danger-full-access" => Some(Mode::DangerFullAccess),
            _ => None,
        }
    }

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

#[derive(Debug, Clone)]
pub struct Sandbox {
    pub mode: Mode,
    launcher: Option<PathBuf>,
    /// Run children unsandboxed when Landlock or the launcher is missing,
    /// instead of refusing.
    allow_unsandboxed: bool,
    /// Where `workspace-write` lets children and the edit tools write.
    roots: crate::confine::Roots,
}

impl Sandbox {
    pub fn new(mode: Mode, launcher: Option<PathBuf>, allow_unsandboxed: bool) -> Sandbox {
        let s = Sandbox {
            mode,
            launcher: launcher.or_else(default_launcher),
            allow_unsandboxed,
            roots: crate::confine::Roots::default(),
        };
        s.log_status_once();
        s
    }

    /// The same sandbox, writing only inside `roots` in `workspace-write`.
    pub fn confined_to(mut self, roots: crate::confine::Roots) -> Sandbox {
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

/// Removes private temporary directories left by sightline processes that
/// no longer run (killed before they could clean up). Names end in
/// `-PID-N`.
fn sweep_stale_tmps() {
    static SWEPT: OnceLock<()> = OnceLock::new();
    SWEPT.get_or_init(|| {
        let Ok(entries) = std::fs::read_dir(crate::install::data_dir().join("tmp")) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
}

/// A private temporary directory for one child, made now.
pub fn private_tmp(name: &str) -> PathBuf {
    sweep_stale_tmps();
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = crate::install::data_dir().join("tmp").join(format!(
        "{}-{}-{n}",
        name.replace([' ', '/'], "-"),
        std::process::id()
    ));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Cache directories a server is known to write (see `servers.md`): they
/// must exist before the rules are built, which the launcher sees to.
pub fn cache_dirs(server: &str) -> Vec<PathBuf> {
    let Some(home) = dirs::home_dir() else {
        return Vec::new();
    };
    let cache = dirs::cache_dir().unwrap_or_else(|| home.join(".cache"));
    match server {
        "typescript" | "typescript-native" | "vue" | "astro" | "svelte" => {
            vec![cache.join("typescript")]
        }
        "clangd" => vec![cache.join("clangd")],
        "gopls" => vec![cache.join("gopls"), cache.join("go-build"), home.join("go")],
        "rust" => {
            vec![std::env::var_os("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from)]
        }
        "ty" => vec![cache.join("ty")],
        "ruff" => vec![cache.join("ruff")],
        _ => Vec::new(),
    }
}

/// The environment that points a server's scratch space into its private
/// temporary directory: `TMPDIR`, and for Biome its cache. `biome lsp-proxy`
/// starts (or joins) a daemon that binds its socket and writes its logs in
/// `$XDG_CACHE_HOME/biome`; a private one means the daemon is this server's
/// own, sandboxed like it and gone with it, never one shared with an editor
/// or another sightline (a daemon still stopping after its last client went
/// answered a new proxy with nothing).
pub fn private_env(server: &str, tmp: &Path) -> Vec<(String, String)> {
    let mut env = vec![("TMPDIR".to_owned(), tmp.display().to_string())];
    if server == "biome" {
        env.push((
            "XDG_CACHE_HOME".to_owned(),
            tmp.join("cache").display().to_string(),
        ));
    }
    env
}

/// A hint for a failure that may be the sandbox at work: the denied path,
/// when the program's error names it.
pub fn explain_denial(text: &str) -> Option<String> {
    // ASCII lowercasing keeps every byte offset, so `at` is an offset in
    // `text` too (full Unicode lowercasing can change lengths: `İ` grows).
    let lower = text.to_ascii_lowercase();
    let at = lower
        .find("permission denied")
        .or_else(|| lower.find("eacces"))
        .or_else(|| lower.find("operation not permitted"))?;
    let after = &text[at..];
    let path = after
        .split(|c: char| c == '\'' || c == '"' || c.is_whitespace())
        .find(|w| is_path(w))
        .or_else(|| {
            text[..at]
                .split(|c: char| c == '\'' || c == '"' || c.is_whitespace() || c == ':')
                .rev()
                .find(|w| is_path(w))
        });
    Some(match path {
        Some(p) => format!("the sandbox may have denied writing {p}"),
        None => "the sandbox may have denied a write outside the workspace".into(),
    })
}

/// An absolute path, not the rest of a URL (`https://...` split at `:`).
fn is_path(word: &str) -> bool {
    word.starts_with('/') && !word.starts_with("//")
}

/// `sightline __sandbox --mode M [--write DIR]... [--network] -- PROGRAM ARGS...`:
/// restricts this process with Landlock (and, without `--network`, a
/// seccomp filter against internet sockets), then becomes PROGRAM. Never
/// returns.
pub fn launch(args: &[String]) -> ! {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
        path_beneath_rules,
    };
    use std::os::unix::process::CommandExt;

    let fail = |m: String| -> ! {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("sightline sandbox: {m}\n").as_bytes(),
        );
        std::process::exit(126)
    };
    let Some(sep) = args.iter().position(|a| a == "--") else {
        fail(
            "usage: sightline __sandbox --mode MODE [--write DIR]... [--network] -- PROGRAM ARGS..."
                .into(),
        )
    };
    let (opts, rest) = (&args[..sep], &args[sep + 1..]);
    let Some(program) = rest.first() else {
        fail("no program to run".into())
    };
    let mut writable: Vec<PathBuf> = Vec::new();
    let mut network = false;
    let mut i = 0;
    while i < opts.len() {
        match opts[i].as_str() {
            "--mode" => i += 1,
            "--network" => network = true,
            "--write" => {
                if let Some(d) = opts.get(i + 1) {
                    writable.push(PathBuf::from(d));
                }
                i += 1;
            }
            other => fail(format!("unknown option {other}")),
        }
        i += 1;
    }
    // Landlock skips paths that do not exist: make them first.
    for d in &writable {
        let _ = std::fs::create_dir_all(d);
    }
    let abi = ABI::V7;
    // Handling TCP bind and connect with no rule allowing any port refuses
    // them all; a kernel older than ABI v4 skips this (best effort), and
    // the seccomp filter below still holds.
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi));
    if !network {
        ruleset = ruleset.and_then(|r| r.handle_access(AccessNet::from_all(abi)));
    }
    let status = ruleset
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_all(abi))))
        .and_then(|r| r.add_rules(path_beneath_rules(&writable, AccessFs::from_all(abi))))
        .and_then(|r| r.restrict_self());
    match status {
        Ok(s) if s.ruleset == RulesetStatus::NotEnforced => fail(format!(
            "Landlock is not enforced; {program} was not started"
        )),
        Ok(s) if s.ruleset == RulesetStatus::PartiallyEnforced => {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"sightline sandbox: Landlock is only partly enforced by this kernel\n",
            );
        }
        Ok(_) => {}
        Err(e) => fail(format!("cannot apply Landlock: {e}")),
    }
    if !network && let Err(e) = refuse_internet_sockets() {
        fail(format!("cannot apply the network filter: {e}"))
    }
    let e = std::process::Command::new(program).args(&rest[1..]).exec();
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("sightline sandbox: cannot run {program}: {e}\n").as_bytes(),
    );
    std::process::exit(127)
}

/// Installs a seccomp filter under which `socket(AF_INET | AF_INET6, ...)`
/// and every io_uring call fail with `EACCES` (as Codex confines its
/// children). Landlock has
/// already set `no_new_privs`, which an unprivileged filter needs.
fn refuse_internet_sockets() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let family = |f: i32| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, f as u64)
            .and_then(|c| SeccompRule::new(vec![c]))
    };
    let rules = vec![family(libc::AF_INET), family(libc::AF_INET6)]
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    // io_uring can open a socket without the `socket` syscall
    // (IORING_OP_SOCKET), so a child without the network gets no io_uring.
    let filter = SeccompFilter::new(
        [
            (libc::SYS_socket, rules),
            (libc::SYS_io_uring_setup, Vec::new()),
            (libc::SYS_io_uring_enter, Vec::new()),
            (libc::SYS_io_uring_register, Vec::new()),
        ]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::explain_denial;

    #[test]
    fn a_denial_names_the_path_but_never_a_url() {
        assert_eq!(
            explain_denial("mkdir /home/u/.cache/x: Permission denied").as_deref(),
            Some("the sandbox may have denied writing /home/u/.cache/x")
        );
        // Biome: a bug-report URL above, the error without a path.
        let biome = "report it to https://github.com/biomejs/biome/issues/ along with\n\
                     Message: failed to create initial log file, kind: PermissionDenied, message: \"Permission denied\"";
        assert_eq!(
            explain_denial(biome).as_deref(),
            Some("the sandbox may have denied a write outside the workspace")
        );
        assert_eq!(explain_denial("connection refused"), None);
    }

    #[test]
    fn text_whose_lowercase_is_longer_does_not_panic() {
        // `İ` lowercases to two characters, so an offset found in a fully
        // lowercased copy lands inside a character of the original.
        let text = format!(
            "{}Permission denied{} /tmp/x",
            "İ".repeat(20),
            "é".repeat(10)
        );
        assert_eq!(
            explain_denial(&text).as_deref(),
            Some("the sandbox may have denied writing /tmp/x")
        );
    }
}
