//! Reaching the daemon: connecting, or starting one when none answers (a
//! lost race for its lock is waited out), and after one went away, waiting
//! until it has exited before connecting again.

use std::time::{Duration, Instant};

use crate::frontends::daemon::DaemonError;
use crate::frontends::daemon::transport::{self, Stream};

/// How long a client waits for a daemon it started to answer.
const START_WAIT: Duration = Duration::from_secs(10);

/// Connects to the daemon, starting one when none answers.
pub async fn connect_or_start() -> Result<Stream, DaemonError> {
    if let Some(s) = transport::connect().await? {
        return Ok(s);
    }
    let deadline = tokio::time::Instant::now() + START_WAIT;
    let unreachable = || DaemonError::Unreachable(transport::address(), START_WAIT.as_secs());
    let mut lost = 0u32;
    loop {
        // One byte once it listens; the end of the pipe without one when it
        // exits first, which it does at once when another daemon holds the
        // lock.
        let said = transport::start()?
            .wait(deadline)
            .await
            .map_err(|()| unreachable())?;
        if let Some(s) = transport::connect().await? {
            return Ok(s);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(unreachable());
        }
        if !said {
            // The lock's holder is a daemon another client started a moment
            // ago and that is binding the socket now, or one on its way out
            // (a draining daemon leaves the socket, then the lock). Neither
            // sends this client a signal, so the next start waits a little
            // longer each time.
            lost += 1;
            tokio::time::sleep(Duration::from_millis(5 << lost.min(6))).await;
        }
    }
}

/// Waits (a second at most) until the daemon that went away has exited.
/// Its connection ends before its listening socket is closed, and a client
/// that connects in between lands in the dying socket's backlog: its next
/// request then fails too ("went away" twice, seen in CI). A killed
/// process's descriptors are all closed once it is a zombie or gone.
pub(crate) async fn gone_for_good() {
    let Some(pid) = std::fs::read_to_string(super::paths::runtime_dir().join("daemon.pid"))
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
    else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(1);
    while running(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether process `pid` runs (a zombie has exited).
fn running(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        // A killed process's threads exit one by one: its first thread can
        // be a zombie while another still holds the descriptors, its
        // listening socket among them. It has gone when every thread has.
        let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return false;
        };
        threads.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
                stat.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            })
        })
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        // SAFETY: signal 0 only asks whether the process exists.
        i32::try_from(pid).is_ok_and(|p| unsafe { libc::kill(p, 0) } == 0)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}
