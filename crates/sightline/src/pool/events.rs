//! What happens to the pool's servers, told to whoever listens (each MCP
//! session, as log messages): a server started, exited, or restarted.

use tokio::sync::broadcast;

/// How much an event matters to a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventLevel {
    /// A server started or was restarted on purpose.
    Info,
    /// A server exited without being asked.
    Warning,
}

/// One thing that happened to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEvent {
    /// How much it matters.
    pub level: EventLevel,
    /// What happened, one line (`pyright for /p started`).
    pub text: String,
}

/// The channel the pool's events go out on. Events nobody listens to are
/// dropped; a listener that falls this far behind misses the oldest.
pub(super) struct Events(broadcast::Sender<ServerEvent>);

impl Default for Events {
    fn default() -> Self {
        Events(broadcast::channel(64).0)
    }
}

impl Events {
    /// Tells every listener.
    pub(super) fn send(&self, level: EventLevel, text: String) {
        let _ = self.0.send(ServerEvent { level, text });
    }

    /// A new listener, hearing events from now on.
    pub(super) fn listen(&self) -> broadcast::Receiver<ServerEvent> {
        self.0.subscribe()
    }
}
