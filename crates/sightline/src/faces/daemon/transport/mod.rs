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
pub use unix::{Claim, Listener, Ready, Starting, Stream, address, connect, split, start};
#[cfg(windows)]
pub use windows::{Claim, Listener, Ready, Starting, Stream, address, connect, split, start};
