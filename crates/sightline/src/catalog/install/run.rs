//! Installing a server into the data directory: under an exclusive file
//! lock, each step sandboxed (with the network), npm packages into a
//! temporary directory renamed into place, a PyPI virtualenv counted only
//! once its completion marker is written, a toolchain command run as is.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::catalog::install::{
    InstallError, install_dir, installed_bin, is_installed, locate, pypi_marker,
};
use crate::catalog::spec::{Install, ServerSpec};
use crate::files::data_dir;
use crate::progress::Progress;

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
        // Windows's Python is `python` (the launcher `py` aside).
        Install::Pypi { .. } => {
            if cfg!(windows) {
                "python"
            } else {
                "python3"
            }
        }
        Install::Toolchain(argv) => argv[0],
        Install::Path | Install::Download(_) => {
            return Err(InstallError::Manual {
                server: spec.id.to_owned(),
                command,
            });
        }
    };
    if let Some(failed) = super::remembered::recent(spec) {
        return Err(failed);
    }
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
    let boxed = SandboxedInstall {
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
    super::remembered::remember(spec, &result);
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
struct SandboxedInstall<'a> {
    sandbox: &'a crate::sandbox::Sandbox,
    spec: &'a ServerSpec,
    /// The private temporary directories handed out, removed at the end.
    tmps: std::sync::Mutex<Vec<PathBuf>>,
}

impl Drop for SandboxedInstall<'_> {
    fn drop(&mut self) {
        if let Ok(tmps) = self.tmps.lock() {
            for t in tmps.iter() {
                let _ = std::fs::remove_dir_all(t);
            }
        }
    }
}

impl SandboxedInstall<'_> {
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
        self.sandbox.apply_child_env(cmd.as_std_mut(), true);
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
    boxed: &SandboxedInstall<'_>,
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

async fn install_pypi(
    boxed: &SandboxedInstall<'_>,
    python: &Path,
) -> Result<PathBuf, InstallError> {
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
        let python = sightline_lsp::find_in(&super::venv_bin(&venv), "python")
            .unwrap_or_else(|| super::venv_bin(&venv).join("python"));
        result = match boxed.command(&python, &pip_args) {
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

async fn install_toolchain(boxed: &SandboxedInstall<'_>) -> Result<PathBuf, InstallError> {
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

/// Holds an exclusive lock on a file until dropped (std's `File::lock`:
/// `flock` on Unix, `LockFileEx` on Windows; closing the file releases it).
struct FileLock {
    _file: std::fs::File,
}

fn lock_exclusive(path: &Path) -> std::io::Result<FileLock> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    // Blocking is fine on this thread.
    file.lock()?;
    Ok(FileLock { _file: file })
}
