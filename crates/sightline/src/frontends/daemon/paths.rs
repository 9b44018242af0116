//! Where the daemon lives: a private runtime directory (0700, owned by this
//! user) holding its socket (0600) and lock on Unix, its pid file everywhere,
//! and a size-bounded log under the state directory.

#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, PermissionsExt};
#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

#[cfg(unix)]
use crate::frontends::daemon::DaemonError;

/// The log is started over when it has grown past this, at the daemon's
/// start and while it runs (`bound_log`).
pub(crate) const LOG_BYTES: u64 = 1 << 20;

/// `$XDG_RUNTIME_DIR/sightline`, else (Linux) `/run/user/<uid>/sightline`
/// where the session has it, else `/tmp/sightline-<uid>` (on Windows,
/// `%TEMP%\sightline-<user>`).
pub fn runtime_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("sightline");
    }
    // A client started without `XDG_RUNTIME_DIR` (Codex clears its MCP
    // servers' environment) finds the directory the user's session has
    // (systemd's `/run/user/UID`), and else one that no variable moves
    // (`TMPDIR` is cleared too): every client of the user meets in one.
    #[cfg(target_os = "linux")]
    {
        let session = PathBuf::from(format!("/run/user/{}", user()));
        if session.is_dir() {
            return session.join("sightline");
        }
    }
    let tmp = if cfg!(unix) {
        PathBuf::from("/tmp")
    } else {
        std::env::temp_dir()
    };
    tmp.join(format!("sightline-{}", user()))
}

/// This user, as the runtime directory's name carries it.
#[cfg(unix)]
fn user() -> String {
    uid().to_string()
}

#[cfg(windows)]
fn user() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "user".into())
}

/// The daemon's socket (Unix; Windows names a pipe instead).
#[cfg(unix)]
pub fn socket() -> PathBuf {
    runtime_dir().join("daemon.sock")
}

/// The lock the running daemon holds.
pub fn lock() -> PathBuf {
    runtime_dir().join("daemon.lock")
}

/// `$XDG_STATE_HOME/sightline/daemon.log`, else under the platform's state
/// directory (`~/.local/state` on Linux) or, where it has none, its local
/// data directory (`~/Library/Application Support` on macOS,
/// `%LOCALAPPDATA%` on Windows).
pub fn log() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::state_dir)
        .or_else(dirs::data_local_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("sightline")
        .join("daemon.log")
}

/// This process's effective user id.
#[cfg(unix)]
pub fn uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Creates the runtime directory 0700 (in one step, so that a client
/// starting at the same moment never sees it open), or checks that the one
/// there is this user's directory; one this user left open is closed to
/// 0700. A directory of another user, or a link, could hold a socket that is
/// not ours.
#[cfg(unix)]
pub fn ensure_private(dir: &Path) -> Result<(), DaemonError> {
    use std::os::unix::fs::DirBuilderExt;
    let io = |e: std::io::Error| DaemonError::Io(format!("{}: {e}", dir.display()));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io)?;
    let meta = std::fs::symlink_metadata(dir).map_err(io)?;
    if !meta.is_dir() || meta.uid() != uid() {
        return Err(DaemonError::Unsafe(format!(
            "{} is not a directory of this user (owner {})",
            dir.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    Ok(())
}

/// Keeps the running daemon's log under [`LOG_BYTES`]: once it has grown
/// past that, it becomes `daemon.log.old` and the daemon's stderr (which is
/// the log, see `transport::start`) moves to a new one. A daemon whose
/// stderr is something else (a terminal) is left alone. On Windows the log
/// is started over only when the daemon starts.
pub fn bound_log() {
    #[cfg(unix)]
    {
        let path = log();
        let Ok(meta) = std::fs::metadata(&path) else {
            return;
        };
        if meta.len() <= LOG_BYTES {
            return;
        }
        // SAFETY: fstat writes only the struct it is given.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(2, &mut st) } != 0
            || st.st_dev as u64 != meta.dev()
            || st.st_ino as u64 != meta.ino()
        {
            return;
        }
        if std::fs::rename(&path, path.with_extension("log.old")).is_err() {
            return;
        }
        let Ok(fresh) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        else {
            return;
        };
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 replaces descriptor 2 with the new log atomically;
        // `fresh` is closed after, the copy at 2 stays open.
        unsafe { libc::dup2(fresh.as_raw_fd(), 2) };
    }
}

/// Opens the log for appending, started over when it is too big.
pub fn open_log() -> Option<std::fs::File> {
    let path = log();
    std::fs::create_dir_all(path.parent()?).ok()?;
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LOG_BYTES) {
        let _ = std::fs::rename(&path, path.with_extension("log.old"));
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ok()
}
