//! Finding a server's executable, and installing it into sightline's data
//! directory when it is missing and installs are allowed: npm and PyPI
//! packages at pinned versions, or the toolchain command that provides it.
//!
//! An install runs under an exclusive file lock, so concurrent installs of one
//! server (two sightline processes, or two calls in one) happen once. npm
//! installs go into a temporary directory renamed into place; a PyPI
//! virtualenv (whose scripts hold absolute paths) is built in place and
//! counts only once its completion marker is written. Either way a failed or
//! killed install leaves nothing that is taken for a server.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::progress::Progress;
use crate::registry::{Install, ServerSpec};

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{tool} is not on PATH, so {server} cannot be installed; install {tool}, or run `{command}` by hand"
    )]
    ToolMissing {
        tool: String,
        server: String,
        command: String,
    },
    #[error("installing {server} failed (`{command}`): {tail}")]
    Failed {
        server: String,
        command: String,
        tail: String,
    },
    #[error("{server} is not installed automatically; {command}")]
    Manual { server: String, command: String },
    #[error("installing {server}: {source}")]
    Io {
        server: String,
        #[source]
        source: std::io::Error,
    },
}

/// The directory sightline keeps installed servers in:
/// `$SIGHTLINE_DATA_DIR`, else `$XDG_DATA_HOME/sightline` (`~/.local/share/sightline`).
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SIGHTLINE_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    dirs::data_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("sightline")
}

/// Whether automatic installs are switched off.
pub fn downloads_disabled() -> bool {
    std::env::var("SIGHTLINE_DISABLE_LSP_DOWNLOAD")
        .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

fn install_dir(spec: &ServerSpec) -> PathBuf {
    data_dir().join("servers").join(spec.id.replace(' ', "-"))
}

/// Where an install of `spec` puts its executable.
pub fn installed_bin(spec: &ServerSpec) -> PathBuf {
    let dir = install_dir(spec);
    match spec.install {
        Install::Pypi { .. } => dir.join("venv").join("bin").join(spec.command),
        Install::Toolchain(_) => dir.join("bin").join(spec.command),
        _ => dir.join("node_modules").join(".bin").join(spec.command),
    }
}

/// A PyPI install counts once this marker exists.
fn pypi_marker(spec: &ServerSpec) -> PathBuf {
    install_dir(spec).join("complete")
}

fn is_installed(spec: &ServerSpec, bin: &Path) -> bool {
    bin.is_file()
        && match spec.install {
            Install::Pypi { .. } => pypi_marker(spec).is_file(),
            _ => true,
        }
}

/// Looks for the executable: the project's own `node_modules/.bin` (nearest
/// first, and only under a trusted directory, see
/// [`crate::config::trusted_at`]), then the extra `search_path`, then PATH,
/// then sightline's install directory.
pub fn locate(spec: &ServerSpec, root: &Path, search_path: &[PathBuf]) -> Option<PathBuf> {
    for dir in root.ancestors() {
        let local = dir.join("node_modules").join(".bin").join(spec.command);
        if local.is_file() && crate::config::trusted_at(dir) {
            return Some(local);
        }
    }
    if let Some(p) = search_path
        .iter()
        .map(|d| d.join(spec.command))
        .find(|p| p.is_file())
    {
        return Some(p);
    }
    if let Ok(p) = which::which(spec.command)
        && !is_rustup_proxy_without_component(spec, &p)
    {
        return Some(p);
    }
    let installed = installed_bin(spec);
    is_installed(spec, &installed).then_some(installed)
}

/// rustup puts a `rust-analyzer` proxy on PATH that fails until the
/// component is added; that is not a server.
fn is_rustup_proxy_without_component(spec: &ServerSpec, found: &Path) -> bool {
    if spec.command != "rust-analyzer" || !found.to_string_lossy().contains(".cargo/bin") {
        return false;
    }
    !std::process::Command::new("rustup")
        .args(["which", "rust-analyzer"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The version of a located executable, when it can be told without running
/// it: from the npm package it belongs to, or from sightline's PyPI marker.
pub fn version_of(spec: &ServerSpec, bin: &Path) -> Option<String> {
    if bin == installed_bin(spec)
        && let Install::Pypi { version, .. } = spec.install
    {
        return Some(version.to_owned());
    }
    let real = std::fs::canonicalize(bin).ok()?;
    for dir in real.ancestors().skip(1).take(4) {
        let manifest = dir.join("package.json");
        if let Ok(text) = std::fs::read_to_string(&manifest)
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
            && let Some(version) = v.get("version").and_then(|v| v.as_str())
        {
            return Some(version.to_owned());
        }
    }
    None
}

/// Installs the server into the data directory and returns the executable.
pub async fn install(
    spec: &'static ServerSpec,
    progress: &dyn Progress,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<PathBuf, InstallError> {
    let command = spec.install_command();
    let io = |source| InstallError::Io {
        server: spec.id.to_owned(),
        source,
    };
    let tool = match spec.install {
        Install::Npm(_) => "npm",
        Install::Pypi { .. } => "python3",
        Install::Toolchain(argv) => argv[0],
        Install::Path | Install::Download(_) => {
            return Err(InstallError::Manual {
                server: spec.id.to_owned(),
                command,
            });
        }
    };
    let program = which::which(tool).map_err(|_| InstallError::ToolMissing {
        tool: tool.to_owned(),
        server: spec.id.to_owned(),
        command: command.clone(),
    })?;
    let servers = data_dir().join("servers");
    std::fs::create_dir_all(&servers).map_err(io)?;
    let lock_path = servers.join(format!(".{}.lock", spec.id.replace(' ', "-")));
    let lock = tokio::task::spawn_blocking(move || lock_exclusive(&lock_path))
        .await
        .map_err(|e| io(std::io::Error::other(e)))?
        .map_err(io)?;
    let bin = installed_bin(spec);
    if is_installed(spec, &bin) {
        // Another process finished the same install while we waited.
        drop(lock);
        return Ok(bin);
    }
    let key = format!("install {}", spec.id);
    progress.begin(
        &key,
        &format!(
            "installing {} into {}",
            what(spec),
            install_dir(spec).display()
        ),
    );
    let boxed = Boxed {
        sandbox,
        spec,
        tmps: std::sync::Mutex::new(Vec::new()),
    };
    let result = match spec.install {
        Install::Npm(_) => install_npm(&boxed, &program, &servers).await,
        Install::Pypi { .. } => install_pypi(&boxed, &program).await,
        _ => install_toolchain(&boxed).await,
    };
    match &result {
        Ok(p) => progress.end(&key, &format!("installed {}", p.display())),
        Err(e) => progress.end(&key, &e.to_string()),
    }
    drop(lock);
    result
}

/// What an install fetches, for progress messages.
fn what(spec: &ServerSpec) -> String {
    match spec.install {
        Install::Npm(pkgs) => pkgs
            .iter()
            .map(|p| format!("{}@{}", p.name, p.version))
            .collect::<Vec<_>>()
            .join(" "),
        Install::Pypi { package, version } => format!("{package}=={version}"),
        _ => spec.install_command(),
    }
}

/// An install in the sandbox: it may write the data directory, the package
/// managers' caches and the toolchains' homes, nothing else.
struct Boxed<'a> {
    sandbox: &'a crate::sandbox::Sandbox,
    spec: &'a ServerSpec,
    /// The private temporary directories handed out, removed at the end.
    tmps: std::sync::Mutex<Vec<PathBuf>>,
}

impl Drop for Boxed<'_> {
    fn drop(&mut self) {
        if let Ok(tmps) = self.tmps.lock() {
            for t in tmps.iter() {
                let _ = std::fs::remove_dir_all(t);
            }
        }
    }
}

impl Boxed<'_> {
    fn command(
        &self,
        program: &Path,
        args: &[String],
    ) -> Result<tokio::process::Command, InstallError> {
        let home = dirs::home_dir().unwrap_or_default();
        let cache = dirs::cache_dir().unwrap_or_else(|| home.join(".cache"));
        let writable = vec![
            data_dir(),
            home.join(".npm"),
            cache.clone(),
            home.join(".cargo"),
            home.join(".rustup"),
            home.join("go"),
            home.join(".local"),
        ];
        let tmp = crate::sandbox::private_tmp(&format!("install-{}", self.spec.id));
        if let Ok(mut tmps) = self.tmps.lock() {
            tmps.push(tmp.clone());
        }
        let (program, args) = self
            .sandbox
            // An installer downloads: it is the one child that always
            // gets the network.
            .command(program, args, &writable, &tmp, true)
            .map_err(|e| InstallError::Failed {
                server: self.spec.id.to_owned(),
                command: self.spec.install_command(),
                tail: e.to_string(),
            })?;
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args).env("TMPDIR", tmp);
        Ok(cmd)
    }
}

/// Runs an install step; its output is kept for the error.
async fn run(spec: &ServerSpec, mut cmd: tokio::process::Command) -> Result<(), InstallError> {
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|source| InstallError::Io {
            server: spec.id.to_owned(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let tail: Vec<&str> = text.lines().rev().take(5).collect();
    Err(InstallError::Failed {
        server: spec.id.to_owned(),
        command: spec.install_command(),
        tail: tail.into_iter().rev().collect::<Vec<_>>().join(" | "),
    })
}

async fn install_npm(
    boxed: &Boxed<'_>,
    npm: &Path,
    servers: &Path,
) -> Result<PathBuf, InstallError> {
    let spec = boxed.spec;
    let io = |source| InstallError::Io {
        server: spec.id.to_owned(),
        source,
    };
    let tmp = servers.join(format!(
        ".{}.tmp-{}",
        spec.id.replace(' ', "-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io)?;
    let mut args: Vec<String> = vec![
        "install".into(),
        "--prefix".into(),
        tmp.display().to_string(),
    ];
    args.extend(
        [
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=error",
        ]
        .iter()
        .map(|a| a.to_string()),
    );
    args.extend(what(spec).split(' ').map(str::to_owned));
    let cmd = match boxed.command(npm, &args) {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let result = match run(spec, cmd).await {
        Ok(()) if tmp.join("node_modules/.bin").join(spec.command).is_file() => {
            let dest = install_dir(spec);
            let _ = std::fs::remove_dir_all(&dest);
            std::fs::rename(&tmp, &dest)
                .map_err(io)
                .map(|()| installed_bin(spec))
        }
        Ok(()) => Err(InstallError::Failed {
            server: spec.id.to_owned(),
            command: spec.install_command(),
            tail: format!("the packages provide no `{}`", spec.command),
        }),
        Err(e) => Err(e),
    };
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

async fn install_pypi(boxed: &Boxed<'_>, python: &Path) -> Result<PathBuf, InstallError> {
    let spec = boxed.spec;
    let dir = install_dir(spec);
    // A leftover of a killed install has no marker; start afresh.
    let _ = std::fs::remove_dir_all(&dir);
    let venv = dir.join("venv");
    let venv_args = vec![
        "-m".to_owned(),
        "venv".to_owned(),
        venv.display().to_string(),
    ];
    let mut result = match boxed.command(python, &venv_args) {
        Ok(cmd) => run(spec, cmd).await,
        Err(e) => Err(e),
    };
    if result.is_ok() {
        let pip_args: Vec<String> = [
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([what(spec)])
        .collect();
        result = match boxed.command(&venv.join("bin").join("python"), &pip_args) {
            Ok(cmd) => run(spec, cmd).await,
            Err(e) => Err(e),
        };
    }
    let bin = installed_bin(spec);
    let result = result.and_then(|()| {
        if !bin.is_file() {
            return Err(InstallError::Failed {
                server: spec.id.to_owned(),
                command: spec.install_command(),
                tail: format!("the package provides no `{}`", spec.command),
            });
        }
        std::fs::write(pypi_marker(spec), what(spec)).map_err(|source| InstallError::Io {
            server: spec.id.to_owned(),
            source,
        })
    });
    match result {
        Ok(()) => Ok(bin),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

async fn install_toolchain(boxed: &Boxed<'_>) -> Result<PathBuf, InstallError> {
    let spec = boxed.spec;
    let Install::Toolchain(argv) = spec.install else {
        unreachable!("only toolchain installs come here")
    };
    let bin_dir = install_dir(spec).join("bin");
    let _ = std::fs::create_dir_all(&bin_dir);
    let program = which::which(argv[0]).unwrap_or_else(|_| PathBuf::from(argv[0]));
    let args: Vec<String> = argv[1..].iter().map(|a| a.to_string()).collect();
    let mut cmd = boxed.command(&program, &args)?;
    // `go install` puts the binary in GOBIN; other toolchains ignore it.
    cmd.env("GOBIN", &bin_dir);
    run(spec, cmd).await?;
    let found = locate(spec, &bin_dir, std::slice::from_ref(&bin_dir)).or_else(|| {
        // rustup adds the component to the toolchain, not to PATH.
        let out = std::process::Command::new("rustup")
            .args(["which", spec.command])
            .stdin(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    found.ok_or_else(|| InstallError::Failed {
        server: spec.id.to_owned(),
        command: spec.install_command(),
        tail: format!("`{}` is still not found", spec.command),
    })
}

/// Holds an exclusive `flock` until dropped.
struct FileLock(std::fs::File);

fn lock_exclusive(path: &Path) -> std::io::Result<FileLock> {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    // SAFETY: flock on a descriptor we own; blocking is fine on this thread.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(FileLock(file))
}

impl Drop for FileLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: unlocking a descriptor we own.
        unsafe {
            libc::flock(self.0.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// Finds a TypeScript with `tsserver.js` for typescript-language-server: the
/// workspace's own `node_modules` first, then the one installed beside the
/// server. TypeScript 7 (the native port) has no `tsserver.js` and is skipped.
pub fn find_tsserver(root: &Path, server_bin: &Path) -> Option<PathBuf> {
    let candidate = |nm: &Path| {
        let p = nm.join("typescript").join("lib").join("tsserver.js");
        p.is_file().then_some(p)
    };
    for dir in root.ancestors().filter(|d| crate::config::trusted_at(d)) {
        if let Some(p) = candidate(&dir.join("node_modules")) {
            return Some(p);
        }
    }
    // `node_modules/.bin/x` links into `node_modules/<pkg>/...`: walk up from
    // the real file to the `node_modules` directory that holds it.
    let real = std::fs::canonicalize(server_bin).ok()?;
    real.ancestors()
        .filter(|d| d.file_name().is_some_and(|n| n == "node_modules"))
        .find_map(candidate)
}
