//! Finding a server's executable, and installing it from npm into sightline's
//! data directory when it is missing and downloads are allowed.
//!
//! An install runs under an exclusive file lock, so concurrent installs of one
//! server (two sightline processes, or two calls in one) happen once. It goes
//! into a temporary directory that is renamed into place only once the
//! executable is there, so a failed or killed install leaves nothing half-done.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::progress::Progress;
use crate::registry::ServerSpec;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "npm is not on PATH, so {server} cannot be installed; install Node.js and npm, or run `{command}` by hand"
    )]
    NpmMissing { server: String, command: String },
    #[error("installing {server} failed (`{command}`): {tail}")]
    Failed {
        server: String,
        command: String,
        tail: String,
    },
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
    data_dir().join("servers").join(spec.id)
}

fn installed_bin(spec: &ServerSpec) -> PathBuf {
    install_dir(spec)
        .join("node_modules")
        .join(".bin")
        .join(spec.command)
}

/// Looks for the executable: the project's own `node_modules/.bin` (nearest
/// first), then the extra `search_path`, then PATH, then sightline's install
/// directory.
pub fn locate(spec: &ServerSpec, root: &Path, search_path: &[PathBuf]) -> Option<PathBuf> {
    for dir in root.ancestors() {
        let local = dir.join("node_modules").join(".bin").join(spec.command);
        if local.is_file() {
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
    if let Ok(p) = which::which(spec.command) {
        return Some(p);
    }
    let installed = installed_bin(spec);
    installed.is_file().then_some(installed)
}

/// Installs the server's pinned npm packages into the data directory and
/// returns the executable.
pub async fn install(
    spec: &'static ServerSpec,
    progress: &dyn Progress,
) -> Result<PathBuf, InstallError> {
    let command = spec.install_command();
    let io = |source| InstallError::Io {
        server: spec.id.to_owned(),
        source,
    };
    let npm = which::which("npm").map_err(|_| InstallError::NpmMissing {
        server: spec.id.to_owned(),
        command: command.clone(),
    })?;
    let servers = data_dir().join("servers");
    std::fs::create_dir_all(&servers).map_err(io)?;
    let lock_path = servers.join(format!(".{}.lock", spec.id));
    let lock = tokio::task::spawn_blocking(move || lock_exclusive(&lock_path))
        .await
        .map_err(|e| io(std::io::Error::other(e)))?
        .map_err(io)?;
    let bin = installed_bin(spec);
    if bin.is_file() {
        // Another process finished the same install while we waited.
        drop(lock);
        return Ok(bin);
    }
    let key = format!("install {}", spec.id);
    let pkgs: Vec<String> = spec
        .npm
        .iter()
        .map(|p| format!("{}@{}", p.name, p.version))
        .collect();
    progress.begin(
        &key,
        &format!(
            "installing {} into {}",
            pkgs.join(" "),
            install_dir(spec).display()
        ),
    );
    let tmp = servers.join(format!(".{}.tmp-{}", spec.id, std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io)?;
    let mut cmd = tokio::process::Command::new(npm);
    cmd.arg("install")
        .arg("--prefix")
        .arg(&tmp)
        .args([
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=error",
        ])
        .args(&pkgs)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = cmd.output().await;
    let result = match output {
        Ok(out)
            if out.status.success()
                && tmp.join("node_modules/.bin").join(spec.command).is_file() =>
        {
            let dest = install_dir(spec);
            let _ = std::fs::remove_dir_all(&dest);
            std::fs::rename(&tmp, &dest)
                .map_err(io)
                .map(|()| installed_bin(spec))
        }
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = text.lines().rev().take(5).collect();
            Err(InstallError::Failed {
                server: spec.id.to_owned(),
                command: command.clone(),
                tail: tail.into_iter().rev().collect::<Vec<_>>().join(" | "),
            })
        }
        Err(e) => Err(io(e)),
    };
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    match &result {
        Ok(p) => progress.end(&key, &format!("installed {}", p.display())),
        Err(e) => progress.end(&key, &e.to_string()),
    }
    drop(lock);
    result
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
    for dir in root.ancestors() {
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
