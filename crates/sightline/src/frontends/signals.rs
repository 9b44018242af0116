//! The signals that end a command or a daemon in order: Ctrl-C and SIGTERM
//! on Unix, Ctrl-C and Ctrl-Break on Windows. Both the CLI and the daemon
//! wait on them, so they sit beside both.

/// Resolves on Ctrl-C or SIGTERM, so that either shuts the servers down in
/// order before exiting. The handlers are installed when this is called, not
/// when the future is first polled, so a signal that arrives in between is
/// not lost to the default action (which would skip the orderly shutdown).
/// Call it inside the runtime.
#[cfg(unix)]
pub fn interrupted() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let int = signal(SignalKind::interrupt()).ok();
    let term = signal(SignalKind::terminate()).ok();
    async move {
        let wait = |s: Option<tokio::signal::unix::Signal>| async move {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = wait(int) => {}
            _ = wait(term) => {}
        }
    }
}

/// Resolves on Ctrl-C or Ctrl-Break (Windows's console signals), installed
/// when this is called.
#[cfg(windows)]
pub fn interrupted() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::windows::{ctrl_break, ctrl_c};
    let c = ctrl_c().ok();
    let brk = ctrl_break().ok();
    async move {
        tokio::select! {
            _ = async { match c { Some(mut s) => { s.recv().await; } None => std::future::pending::<()>().await } } => {}
            _ = async { match brk { Some(mut s) => { s.recv().await; } None => std::future::pending::<()>().await } } => {}
        }
    }
}
