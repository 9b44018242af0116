//! One integration-test binary (the codex layout): every suite module runs
//! against real language servers installed by `tools/install`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]

mod suite;

/// Before any test thread starts: this process's XDG and data directories
/// are its own (`sightline_test_support::isolation`).
#[ctor::ctor(unsafe)]
fn isolate() {
    sightline_test_support::isolation::isolate();
}
