//! The faces sightline shows callers: the command line (`cli`), the MCP
//! server (`mcp`), and the shared daemon that serves MCP on a socket and the
//! bridge to it (`daemon`). Both take a call, ask the [`crate::Engine`], and render
//! the answer with [`crate::render`].

pub mod cli;
pub mod daemon;
pub mod mcp;
