//! Progress of long work (installing, starting, indexing), reported to whoever
//! drives the engine: a spinner on the CLI, progress notifications over MCP.

/// Receives progress of long work. `key` ties the events of one job together.
pub trait Progress: Send + Sync {
    fn begin(&self, key: &str, title: &str);
    fn update(&self, key: &str, message: &str);
    fn end(&self, key: &str, message: &str);
}

/// Reports nothing; logs still go to `tracing`.
#[derive(Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, key: &str, title: &str) {
        tracing::info!("{key}: {title}");
    }
    fn update(&self, key: &str, message: &str) {
        tracing::debug!("{key}: {message}");
    }
    fn end(&self, key: &str, message: &str) {
        tracing::info!("{key}: {message}");
    }
}
