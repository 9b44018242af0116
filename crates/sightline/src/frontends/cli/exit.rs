//! Waiting for a process that is not our child (the daemon `daemon stop`
//! asked to leave) to exit, by each platform's own exit signal: a pidfd on
//! Linux, kqueue's `NOTE_EXIT` on macOS, the process handle on Windows.

use std::time::Duration;

/// Waits (`limit` at most) until process `pid` has exited: whether it did
/// in time. Returns `true` at once when it is already gone or cannot be
/// watched.
pub async fn wait_exit(pid: u32, limit: Duration) -> bool {
    tokio::time::timeout(limit, exited(pid)).await.is_ok()
}

/// A pidfd becomes readable when the process exits (reaped or not).
#[cfg(target_os = "linux")]
async fn exited(pid: u32) {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        // Already gone (ESRCH), or a kernel without pidfds: nothing to wait on.
        return;
    }
    // SAFETY: `fd` was just returned by pidfd_open and is owned by no one else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    // SAFETY: the AsyncFd owns the fd, so it stays open while registered.
    let Ok(fd) = (unsafe { tokio::io::unix::AsyncFd::register(fd) }) else {
        return;
    };
    let _ = fd.readable().await;
}

/// A kqueue with `EVFILT_PROC`/`NOTE_EXIT` for the process becomes readable
/// when it exits.
#[cfg(any(target_os = "macos", target_os = "freebsd"))]
async fn exited(pid: u32) {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: kqueue takes no arguments and returns a new fd or -1.
    let kq = unsafe { libc::kqueue() };
    if kq < 0 {
        return;
    }
    // SAFETY: `kq` was just returned by kqueue and is owned by no one else.
    let kq = unsafe { OwnedFd::from_raw_fd(kq) };
    // SAFETY: a zeroed kevent is valid; the fields the filter needs are set.
    let mut change: libc::kevent = unsafe { std::mem::zeroed() };
    change.ident = pid as libc::uintptr_t;
    change.filter = libc::EVFILT_PROC;
    change.flags = libc::EV_ADD | libc::EV_ONESHOT;
    change.fflags = libc::NOTE_EXIT;
    use std::os::fd::AsRawFd;
    // SAFETY: one change in, no events out, no timeout pointer.
    let added = unsafe {
        libc::kevent(
            kq.as_raw_fd(),
            &raw const change,
            1,
            std::ptr::null_mut(),
            0,
            std::ptr::null(),
        )
    };
    if added < 0 {
        // Already gone (ESRCH): nothing to wait on.
        return;
    }
    // SAFETY: the AsyncFd owns the fd, so it stays open while registered.
    let Ok(kq) = (unsafe { tokio::io::unix::AsyncFd::register(kq) }) else {
        return;
    };
    let _ = kq.readable().await;
}

/// The process handle is signalled when the process exits.
#[cfg(windows)]
async fn exited(pid: u32) {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Threading::{
        OpenProcess, PROCESS_SYNCHRONIZE, WaitForSingleObject,
    };
    let _ = tokio::task::spawn_blocking(move || {
        // SAFETY: OpenProcess returns a new handle or null, checked.
        let handle = unsafe { OpenProcess(PROCESS_SYNCHRONIZE, 0, pid) };
        if handle.is_null() {
            return;
        }
        // SAFETY: the handle is live until closed below.
        unsafe {
            WaitForSingleObject(handle, 30_000);
            CloseHandle(handle);
        }
    })
    .await;
}
