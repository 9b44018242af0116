//! Child-process lifetime: every child gets explicit stdio (its caller's
//! `Command`), runs in a group of its own that is killed as a whole, and dies
//! with us even when we are killed outright. One interface, a mechanism per
//! platform: process groups with a parent-death signal and a reaper on Unix
//! (`unix`), a Job Object that kills on close on Windows (`windows`).

// The Job Object's flags are Windows's alone; they compile everywhere so
// that a change to them is seen on every platform's build.
#[cfg_attr(not(windows), allow(dead_code))]
mod job;
pub(crate) mod shim;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::{group_alive, kill_group, kill_pid, spawn_group, unread_bytes};
#[cfg(windows)]
pub use windows::{group_alive, kill_group, kill_pid, spawn_group, unread_bytes};
