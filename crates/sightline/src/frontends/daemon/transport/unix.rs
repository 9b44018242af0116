//! The daemon's Unix socket: `daemon.sock` (0600) in the private runtime
//! directory (0700), beside the `daemon.lock` the running daemon holds.

use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use tokio::net::UnixStream;

use crate::frontends::daemon::{DaemonError, paths};

/// A connection to or from the daemon.
pub type Stream = UnixStream;

/// A connection's two halves.
pub fn split(
    s: Stream,
) -> (
    tokio::net::unix::OwnedReadHalf,
    tokio::net::unix::OwnedWriteHalf,
) {
    s.into_split()
}

/// Where the daemon listens, for messages.
pub fn address() -> String {
    paths::socket().display().to_string()
}

/// Connects to the daemon's socket, if one answers there, after checking
/// that the directory is this user's and private and that the daemon runs
/// as this user: a socket anyone else could have put there gets nothing.
pub async fn connect() -> Result<Option<Stream>, DaemonError> {
    paths::ensure_private(&paths::runtime_dir())?;
    let Ok(s) = UnixStream::connect(paths::socket()).await else {
        return Ok(None);
    };
    match s.peer_cred().map(|c| c.uid()) {
        Ok(uid) if uid == paths::uid() => Ok(Some(s)),
        other => Err(DaemonError::Unsafe(format!(
            "the daemon socket {} belongs to uid {other:?}",
            paths::socket().display()
        ))),
    }
}

/// The descriptor the started daemon finds its ready pipe at.
const READY_FD: i32 = 3;

/// A daemon being started: the read end of its ready pipe.
pub struct Starting(tokio::net::unix::pipe::Receiver);

impl Starting {
    /// Whether the daemon said it listens before `deadline`: `Ok(false)`
    /// when it exited without a word (another daemon holds the lock), `Err`
    /// when the deadline passed.
    pub async fn wait(mut self, deadline: tokio::time::Instant) -> Result<bool, ()> {
        use tokio::io::AsyncReadExt;
        let mut byte = [0u8; 1];
        let said = tokio::time::timeout_at(deadline, self.0.read(&mut byte))
            .await
            .map_err(|_| ())?;
        Ok(matches!(said, Ok(1)))
    }
}

/// Starts `sightline daemon` detached: its own session, stdio to null and
/// its log. Of several clients starting one at once, the lock lets one
/// daemon through; the others exit at once.
pub fn start() -> Result<Starting, DaemonError> {
    let exe = std::env::current_exe().map_err(|e| DaemonError::Io(format!("current exe: {e}")))?;
    let (tx, rx) =
        tokio::net::unix::pipe::pipe().map_err(|e| DaemonError::Io(format!("ready pipe: {e}")))?;
    let tx = tx
        .into_blocking_fd()
        .map_err(|e| DaemonError::Io(format!("ready pipe: {e}")))?;
    let tx_raw = tx.as_raw_fd();
    let log = paths::open_log();
    let mut cmd = std::process::Command::new(exe);
    // Each client's virtualenv comes with its hello; the daemon's own
    // environment must not lend the first client's to everyone else.
    cmd.arg("daemon")
        .arg(format!("--ready-fd={READY_FD}"))
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log.map_or_else(Stdio::null, Stdio::from));
    // The daemon serves every client: it gets only what the allow-list
    // names of this one's environment, and so does anything it starts.
    crate::sandbox::child_env::restrict(&mut cmd);
    // SAFETY: setsid, dup2 and fcntl are async-signal-safe and touch only
    // the child. The write end moves to READY_FD without close-on-exec (dup2
    // clears it; a descriptor already there keeps it, so it is cleared).
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(move || {
            libc::setsid();
            let moved = if tx_raw == READY_FD {
                libc::fcntl(READY_FD, libc::F_SETFD, 0)
            } else {
                libc::dup2(tx_raw, READY_FD)
            };
            if moved < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| DaemonError::Io(format!("starting the daemon: {e}")))?;
    // Only the daemon holds the write end now: its exit ends the pipe.
    drop(tx);
    // Reaped by a thread, so that it leaves no zombie while this client runs.
    std::thread::spawn(move || {
        let mut child = child;
        let _ = child.wait();
    });
    Ok(Starting(rx))
}

/// The write end of the pipe on which the client that started this daemon
/// waits for it to listen.
pub struct Ready(Option<std::fs::File>);

impl Ready {
    /// Takes `fd` (`daemon --ready-fd`), closed on exec so that no server
    /// holds it open.
    pub fn take(fd: Option<i64>) -> Ready {
        Ready(
            fd.and_then(|fd| i32::try_from(fd).ok())
                .filter(|fd| *fd > 2)
                .and_then(|fd| {
                    // SAFETY: the fd is the one the starting client put there
                    // for this process alone; F_SETFD touches only its flags.
                    unsafe {
                        if libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) != 0 {
                            return None;
                        }
                        Some(<std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd))
                    }
                }),
        )
    }

    /// Tells the client that the socket listens, and closes the pipe.
    pub fn listening(&mut self) {
        if let Some(mut f) = self.0.take() {
            use std::io::Write;
            let _ = f.write_all(b"!");
        }
    }
}

/// The daemon's hold on its address: the lock, and the socket it removes
/// when dropped, after which a client starting finds no daemon and starts
/// its own at once.
pub struct Claim {
    _lock: std::fs::File,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(paths::socket());
    }
}

/// The daemon's socket.
pub struct Listener(tokio::net::UnixListener);

impl Listener {
    /// Takes the lock (`None` when another daemon holds it) and listens.
    pub fn bind() -> Result<Option<(Listener, Claim)>, DaemonError> {
        paths::ensure_private(&paths::runtime_dir())?;
        let io = |what: &str, e: std::io::Error| DaemonError::Io(format!("{what}: {e}"));
        let Some(lock) = super::take_lock()? else {
            return Ok(None);
        };
        let socket = paths::socket();
        let _ = std::fs::remove_file(&socket);
        let listener = tokio::net::UnixListener::bind(&socket).map_err(|e| io("bind", e))?;
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| io("chmod", e))?;
        Ok(Some((Listener(listener), Claim { _lock: lock })))
    }

    /// The next client of this user; `None` for a failed accept or a peer
    /// of another uid, refused.
    pub async fn accept(&mut self) -> Option<Stream> {
        let (stream, _) = self.0.accept().await.ok()?;
        let uid = stream.peer_cred().map(|c| c.uid());
        if uid.as_ref().ok() != Some(&paths::uid()) {
            tracing::warn!("daemon: refused a client of uid {uid:?}");
            return None;
        }
        Some(stream)
    }
}
