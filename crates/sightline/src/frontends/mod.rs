//! The front ends sightline shows callers: the command line (`cli`), the
//! MCP server (`mcp`), and the shared daemon that serves MCP on a socket and
//! the bridge to it (`daemon`), MCP over HTTP (`mcp_http`); `binary` is the `sightline` program's body.
//! Each face takes a call and runs it through `tools`, where every tool is
//! defined once, which asks the [`crate::Engine`] and renders the answer
//! with `crate::render`.

pub mod binary;
pub mod cli;
pub mod daemon;
pub mod hooks;
pub mod mcp;
pub mod mcp_http;
pub mod setup;
pub mod signals;
pub mod tools;
