//! One integration-test binary (the codex layout): every suite module runs
//! against real language servers installed by `tools/install`.

mod suite;
