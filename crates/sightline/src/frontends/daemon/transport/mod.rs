//! How clients reach the daemon, one interface per platform: a Unix socket
//! in the private runtime directory, with the peer's uid checked
//! (`SO_PEERCRED`/`getpeereid`) and a `flock` that lets one daemon through
//! (`unix`); a named pipe whose ACL admits only this user, with both ends'
//! users checked and the first pipe instance as the lock (`windows`). Both
//! start the daemon detached and wait on a pipe it writes to once it
//! listens, not on a timer.

#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::{Claim, Listener, Ready, Stream, address, connect, split, start};
#[cfg(windows)]
pub use windows::{Claim, Listener, Ready, Stream, address, connect, split, start};

/// Takes the daemon's lock, `daemon.lock` in the runtime directory (std's
/// `File::try_lock`: `flock` on Unix, `LockFileEx` on Windows), which lets
/// one daemon through; `None` when another holds it. It is released when
/// the file closes, which the system does even when the daemon is killed.
fn take_lock() -> Result<Option<std::fs::File>, crate::frontends::daemon::DaemonError> {
    use crate::frontends::daemon::{DaemonError, paths};
    let io = |e: std::io::Error| DaemonError::Io(format!("lock: {e}"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(paths::lock())
        .map_err(io)?;
    match lock.try_lock() {
        Ok(()) => Ok(Some(lock)),
        Err(std::fs::TryLockError::WouldBlock) => {
            tracing::info!("daemon: another daemon holds {}", paths::lock().display());
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
    }
}
