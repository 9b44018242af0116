//! What happens to the servers, as MCP log messages
//! (`notifications/message`): a server started, restarted, or exited
//! without being asked, so that a client can show it. Each session
//! forwards its engine's pool's events from its first request on.
//!
//! The protocol's logging is deprecated from 2026-07-28 (SEP-2577), but the
//! clients and SDKs in use read `notifications/message`, and nothing else
//! carries a server event to them yet.
#![allow(deprecated)]

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use tokio::sync::broadcast::error::RecvError;

use crate::engine::Engine;
use crate::pool::events::EventLevel;

/// The logger the messages name.
const LOGGER: &str = "sightline";

/// A task telling `peer` each event of `engine`'s servers until the peer
/// is gone; its handle, to stop it with the session.
pub(super) fn forward(engine: &Engine, peer: Peer<RoleServer>) -> tokio::task::AbortHandle {
    let mut events = engine.servers().events();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(e) => e,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            let level = match event.level {
                EventLevel::Info => LoggingLevel::Info,
                EventLevel::Warning => LoggingLevel::Warning,
            };
            let mut message =
                LoggingMessageNotificationParam::new(level, serde_json::Value::from(event.text));
            message.logger = Some(LOGGER.to_owned());
            if peer.notify_logging_message(message).await.is_err() {
                break;
            }
        }
    })
    .abort_handle()
}
