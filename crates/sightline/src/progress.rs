//! Progress of long work (installing, starting, indexing), reported to whoever
//! drives the engine: a spinner on the CLI, progress notifications over MCP.

/// Receives progress of long work. `key` ties the events of one job together.
pub trait Progress: Send + Sync {
    /// Work `key` began: `title` says what it is.
    fn begin(&self, key: &str, title: &str);
    /// Work `key` goes on: `message` says how far.
    fn update(&self, key: &str, message: &str);
    /// Work `key` ended: `message` says how.
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

tokio::task_local! {
    /// The progress sink of the call being served, such as one MCP request's
    /// progress token.
    static CALL: std::sync::Arc<dyn Progress>;
}

/// Runs `f` with `sink` receiving the progress of the work it does (besides
/// the workspace-wide sink).
pub async fn scoped<F: std::future::Future>(sink: std::sync::Arc<dyn Progress>, f: F) -> F::Output {
    CALL.scope(sink, f).await
}

/// Reports to the workspace-wide sink and to the current call's, if any.
pub struct Tee {
    global: std::sync::Arc<dyn Progress>,
    call: Option<std::sync::Arc<dyn Progress>>,
}

impl Tee {
    /// The sinks for work done now, in the current task.
    pub fn current(global: &std::sync::Arc<dyn Progress>) -> Tee {
        Tee {
            global: global.clone(),
            call: CALL.try_with(|c| c.clone()).ok(),
        }
    }
}

impl Progress for Tee {
    fn begin(&self, key: &str, title: &str) {
        self.global.begin(key, title);
        if let Some(c) = &self.call {
            c.begin(key, title);
        }
    }
    fn update(&self, key: &str, message: &str) {
        self.global.update(key, message);
        if let Some(c) = &self.call {
            c.update(key, message);
        }
    }
    fn end(&self, key: &str, message: &str) {
        self.global.end(key, message);
        if let Some(c) = &self.call {
            c.end(key, message);
        }
    }
}

/// The current call's sink, if it has one.
pub fn call() -> Option<std::sync::Arc<dyn Progress>> {
    CALL.try_with(|c| c.clone()).ok()
}
