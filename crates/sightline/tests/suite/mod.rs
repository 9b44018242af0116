//! Integration suites. `support` holds the fixtures and harnesses.

mod cli;
mod lifecycle;
mod python;
mod support;
mod typescript;
