//! The daemon's named pipe on Windows: `\\.\pipe\sightline-<hash>`, one name
//! per runtime directory (as the socket's path is on Unix). The pipe's ACL
//! admits only its owner, this user; the daemon checks each client's user
//! and each client the daemon's (by process token), so a pipe another user
//! squatted gets nothing. A lock on `daemon.lock` in the runtime directory
//! (`LockFileEx`, through std) lets one daemon through, as on Unix; the pipe
//! name itself cannot be the lock, as a draining daemon's sessions keep it
//! alive.

use std::os::windows::io::{AsRawHandle, FromRawHandle};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeServer, ServerOptions};
use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_PIPE_BUSY, HANDLE, HANDLE_FLAG_INHERIT, SetHandleInformation,
};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
};
use windows_sys::Win32::Security::{
    GetLengthSid, GetTokenInformation, SECURITY_ATTRIBUTES, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::System::Pipes::{
    CreatePipe, GetNamedPipeClientProcessId, GetNamedPipeServerProcessId,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, DETACHED_PROCESS, GetCurrentProcess, OpenProcess,
    OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
};

use crate::frontends::daemon::{DaemonError, paths};

/// Both directions of a pipe.
pub trait Duplex: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Duplex for T {}

/// A connection to or from the daemon (a pipe's client or server end).
pub type Stream = Box<dyn Duplex>;

/// A connection's two halves.
pub fn split(s: Stream) -> (tokio::io::ReadHalf<Stream>, tokio::io::WriteHalf<Stream>) {
    tokio::io::split(s)
}

/// The pipe's name: FNV-1a of the runtime directory, stable across builds.
pub fn address() -> String {
    let dir = paths::runtime_dir().display().to_string();
    let hash = dir.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!(r"\\.\pipe\sightline-{hash:016x}")
}

/// The user SID of a process, as bytes.
fn user_of(process: HANDLE) -> Option<Vec<u8>> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: the token handle is written by the call and closed below.
    if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
        return None;
    }
    let mut len = 0u32;
    // SAFETY: a size query (null buffer), then a buffer of that size.
    unsafe { GetTokenInformation(token, TokenUser, std::ptr::null_mut(), 0, &mut len) };
    // u64 words: TOKEN_USER holds pointers, so the buffer is aligned for it.
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    let ok =
        unsafe { GetTokenInformation(token, TokenUser, buf.as_mut_ptr().cast(), len, &mut len) };
    // SAFETY: the token is ours to close.
    unsafe { CloseHandle(token) };
    if ok == 0 {
        return None;
    }
    // SAFETY: the buffer holds a TOKEN_USER whose SID points into it.
    unsafe {
        let user = &*(buf.as_ptr().cast::<TOKEN_USER>());
        let sid = user.User.Sid;
        let n = GetLengthSid(sid) as usize;
        Some(std::slice::from_raw_parts(sid.cast::<u8>(), n).to_vec())
    }
}

/// Whether process `pid` runs as this process's user.
fn same_user(pid: u32) -> bool {
    // SAFETY: the pseudo-handle of this process needs no closing; the
    // other process's handle is checked and closed.
    unsafe {
        let ours = user_of(GetCurrentProcess());
        let other = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if other.is_null() {
            return false;
        }
        let theirs = user_of(other);
        CloseHandle(other);
        ours.is_some() && ours == theirs
    }
}

/// Connects to the daemon's pipe, if one answers there and its server runs
/// as this user.
pub async fn connect() -> Result<Option<Stream>, DaemonError> {
    let name = address();
    let mut busy = 0;
    let client = loop {
        match ClientOptions::new().open(&name) {
            Ok(c) => break c,
            // Every instance is taken this moment; the daemon makes the
            // next one as soon as it accepts.
            Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32) && busy < 100 => {
                busy += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(_) => return Ok(None),
        }
    };
    let mut pid = 0u32;
    // SAFETY: the handle is the client's, live while `client` is.
    let known = unsafe { GetNamedPipeServerProcessId(client.as_raw_handle() as HANDLE, &mut pid) };
    if known == 0 || !same_user(pid) {
        return Err(DaemonError::Unsafe(format!(
            "the daemon pipe {name} is served by process {pid}, not of this user"
        )));
    }
    Ok(Some(Box::new(client)))
}

/// A daemon being started: the read end of its ready pipe.
pub struct Starting(std::fs::File);

impl Starting {
    /// Whether the daemon said it listens before `deadline`: `Ok(false)`
    /// when it exited without a word, `Err` when the deadline passed.
    pub async fn wait(self, deadline: tokio::time::Instant) -> Result<bool, ()> {
        let mut file = self.0;
        let read = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            let mut byte = [0u8; 1];
            matches!(file.read(&mut byte), Ok(1))
        });
        match tokio::time::timeout_at(deadline, read).await {
            Ok(said) => Ok(said.unwrap_or(false)),
            Err(_) => Err(()),
        }
    }
}

/// Starts `sightline daemon` detached (no console, its own process group)
/// with the write end of a ready pipe as an inherited handle, the only one
/// it inherits besides its stdio.
pub fn start() -> Result<Starting, DaemonError> {
    use std::os::windows::process::CommandExt;
    let io = |what: &str| DaemonError::Io(format!("{what}: {}", std::io::Error::last_os_error()));
    let exe = std::env::current_exe().map_err(|e| DaemonError::Io(format!("current exe: {e}")))?;
    let inherit = SECURITY_ATTRIBUTES {
        nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: std::ptr::null_mut(),
        bInheritHandle: 1,
    };
    let (mut read, mut write): (HANDLE, HANDLE) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: both handles are written by the call; the read end is made
    // not inheritable, so only the write end reaches the daemon.
    unsafe {
        if CreatePipe(&mut read, &mut write, &inherit, 0) == 0 {
            return Err(io("ready pipe"));
        }
        SetHandleInformation(read, HANDLE_FLAG_INHERIT, 0);
    }
    // SAFETY: the read end is ours alone from here.
    let reader = unsafe { std::fs::File::from_raw_handle(read.cast()) };
    let log = paths::open_log();
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("daemon")
        .arg(format!("--ready-fd={}", write as usize))
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log.map_or_else(Stdio::null, Stdio::from))
        .creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
    // The daemon serves every client: it gets only what the allow-list
    // names of this one's environment, and so does anything it starts.
    crate::sandbox::child_env::restrict(&mut cmd);
    let spawned = cmd.spawn();
    // SAFETY: the daemon has its copy; ours closes so that its exit ends
    // the pipe.
    unsafe { CloseHandle(write) };
    spawned.map_err(|e| DaemonError::Io(format!("starting the daemon: {e}")))?;
    Ok(Starting(reader))
}

/// The write end of the pipe on which the client that started this daemon
/// waits for it to listen.
pub struct Ready(Option<std::fs::File>);

impl Ready {
    /// Takes the inherited handle (`daemon --ready-fd`), no longer
    /// inheritable, so that no server holds it open.
    pub fn take(handle: Option<i64>) -> Ready {
        Ready(handle.filter(|h| *h > 0).map(|h| {
            let h = h as usize as HANDLE;
            // SAFETY: the handle is the one the starting client gave this
            // process alone.
            unsafe {
                SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
                std::fs::File::from_raw_handle(h.cast())
            }
        }))
    }

    /// Tells the client that the pipe listens, and closes it.
    pub fn listening(&mut self) {
        if let Some(mut f) = self.0.take() {
            use std::io::Write;
            let _ = f.write_all(b"!");
        }
    }
}

/// The daemon's hold on its name: the lock, released when dropped. Its
/// waiting pipe instance goes with the listener (the accept loop ends
/// within its next tick after the daemon leaves); a client that reaches it
/// in between is told the daemon drains, and starts its own.
pub struct Claim {
    _lock: std::fs::File,
}

/// The security attributes that admit only the pipe's owner (this user):
/// the DACL `D:P(A;;GA;;;OW)`, made once for the daemon's life.
fn owner_only() -> Result<SECURITY_ATTRIBUTES, DaemonError> {
    let sddl: Vec<u16> = "D:P(A;;GA;;;OW)\0".encode_utf16().collect();
    let mut sd = std::ptr::null_mut();
    // SAFETY: the string is NUL-terminated; the descriptor is written by
    // the call and kept (never freed) for the daemon's life.
    let ok = unsafe {
        ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl.as_ptr(),
            SDDL_REVISION_1,
            &mut sd,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(DaemonError::Io(format!(
            "pipe security: {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(SECURITY_ATTRIBUTES {
        nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: sd,
        bInheritHandle: 0,
    })
}

/// The daemon's pipe: the instance waiting for the next client.
pub struct Listener {
    pending: NamedPipeServer,
    security: SECURITY_ATTRIBUTES,
}

// SAFETY: the attributes point at a security descriptor that is never
// freed and only read.
unsafe impl Send for Listener {}

/// One waiting pipe instance.
fn instance(security: &SECURITY_ATTRIBUTES) -> std::io::Result<NamedPipeServer> {
    let mut attrs = SECURITY_ATTRIBUTES { ..*security };
    // SAFETY: the attributes live across the call.
    unsafe {
        ServerOptions::new()
            .reject_remote_clients(true)
            .create_with_security_attributes_raw(address(), (&raw mut attrs).cast())
    }
}

impl Listener {
    /// Takes the lock (`None` when another daemon holds it) and creates
    /// the first waiting instance.
    pub fn bind() -> Result<Option<(Listener, Claim)>, DaemonError> {
        let io = |what: &str, e: std::io::Error| DaemonError::Io(format!("{what}: {e}"));
        std::fs::create_dir_all(paths::runtime_dir()).map_err(|e| io("runtime dir", e))?;
        let Some(lock) = super::take_lock()? else {
            return Ok(None);
        };
        let security = owner_only()?;
        let pending = instance(&security).map_err(|e| io("pipe", e))?;
        Ok(Some((
            Listener { pending, security },
            Claim { _lock: lock },
        )))
    }

    /// The next client of this user; `None` for a failed connection or a
    /// client of another user, refused.
    pub async fn accept(&mut self) -> Option<Stream> {
        let result = self.pending.connect().await;
        // The next instance waits before this one is handed on; one that
        // failed to connect (its client already gone) is replaced too, or
        // every later accept would fail on it at once.
        let next = match instance(&self.security) {
            Ok(next) => next,
            Err(e) => {
                tracing::warn!("daemon: cannot make the next pipe instance: {e}");
                return None;
            }
        };
        let connected = std::mem::replace(&mut self.pending, next);
        result.ok()?;
        let mut pid = 0u32;
        // SAFETY: the handle is the connected instance's, live here.
        let known =
            unsafe { GetNamedPipeClientProcessId(connected.as_raw_handle() as HANDLE, &mut pid) };
        if known == 0 || !same_user(pid) {
            tracing::warn!("daemon: refused a client (process {pid}) of another user");
            return None;
        }
        Some(Box::new(connected))
    }
}
