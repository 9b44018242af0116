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

/// Where in its file the symbol a call is about is: a line and column, or
/// its name. Flattened into each tool that takes a position
/// (`lsp_definition`, `lsp_references`, `lsp`, `rename`), so their schema
/// and text are one; unknown fields are refused by the registry's parse,
/// since serde cannot refuse them through a flattened struct.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub(crate) struct SymbolPosition {
    /// 1-based line.
    #[schemars(range(min = 1))]
    pub(crate) line: Option<usize>,
    /// 1-based column on the symbol.
    #[schemars(range(min = 1))]
    pub(crate) column: Option<usize>,
    /// Its name, in place of `column`; without `line`, its name path
    /// (`Class/method`).
    pub(crate) symbol: Option<String>,
    /// With `symbol`: its kind (function, class...).
    pub(crate) kind: Option<String>,
}
