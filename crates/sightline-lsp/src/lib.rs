//! The language-server protocol client behind sightline: framing, the JSON-RPC
//! transport, child-process lifetime, positions and URIs. It knows nothing about
//! tools or rendering.

pub mod client;
pub mod error;
pub mod framing;
pub mod message;
pub mod position;
pub mod process;
pub mod protocol;
pub mod stderr;
pub mod uri;
mod writer;

pub use client::{Client, Handler, SpawnConfig};
pub use error::ClientError;
pub use message::{ErrorCode, Message, RequestId, ResponseError};
pub use position::{Encoding, LineIndex};
