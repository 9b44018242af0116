//! The faces sightline shows callers: the command line (`cli`) and the MCP
//! server (`mcp`). Both take a call, ask the [`crate::Engine`], and render
//! the answer with [`crate::render`].

pub mod cli;
pub mod mcp;
