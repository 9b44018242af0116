//! Argument types more than one tool takes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What an answer's places carry besides their line (`context`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Context {
    /// The name path of the symbol each place sits in.
    Symbol,
}
