//! Child-process lifetime: every child gets explicit stdio (its caller's
//! `Command`), runs in a group of its own that is killed as a whole, and dies
//! with us even when we are killed outright. One interface, a mechanism per
//! platform: process groups with a parent-death signal and a reaper on Unix
//! (`unix`), a Job Object that kills on close on Windows (`windows`).

pub mod job;
pub mod shim;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::{group_alive, kill_group, kill_pid, spawn_group};
#[cfg(windows)]
pub use windows::{group_alive, kill_group, kill_pid, spawn_group};
