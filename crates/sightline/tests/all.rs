//! One integration-test binary (the codex layout): every suite module runs
//! against real language servers installed by `tools/install`.

mod suite;

/// Before any test thread starts: this process's XDG and data directories
/// are its own (`sightline_test_support::isolation`).
#[ctor::ctor(unsafe)]
fn isolate() {
    sightline_test_support::isolation::isolate();
}
