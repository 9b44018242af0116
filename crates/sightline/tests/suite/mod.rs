//! Integration suites. The fixtures and harnesses they share with the
//! benchmarks are in the `sightline-test-support` crate.

mod agents;
mod answer_cache;
mod changes;
mod check;
mod check_on_save;
mod cli;
mod cold_edit;
mod config;
mod confine;
mod daemon;
mod declarations;
mod edit;
mod fake;
mod faults;
mod format;
mod freshness;
mod impact;
mod internal;
mod isolation;
mod layout;
mod lifecycle;
mod mcp;
mod open_before_asking;
mod organize_imports;
mod package;
mod project_config;
mod python;
mod readiness;
mod refactor;
mod references;
mod sandbox;
mod server_lifetime;
mod servers;
mod typescript;
mod vue_from_path;
