//! Integration suites. `support` holds the fixtures and harnesses.

mod cli;
mod config;
mod confine;
mod edit;
mod fake;
mod faults;
mod format;
mod freshness;
mod internal;
mod lifecycle;
mod mcp;
mod mcp_driver;
mod python;
mod references;
mod sandbox;
mod servers;
mod support;
mod typescript;
