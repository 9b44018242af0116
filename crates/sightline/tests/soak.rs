//! The real-project soak, a test binary of its own: cargo runs test binaries
//! one after another, so its long sessions do not share the machine with the
//! timing-sensitive tests in `all`, and its three sessions take turns.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]

#[path = "suite/soak.rs"]
mod soak;

/// Before any test thread starts: this process's XDG and data directories
/// are its own (`sightline_test_support::isolation`).
#[ctor::ctor(unsafe)]
fn isolate() {
    sightline_test_support::isolation::isolate();
}
