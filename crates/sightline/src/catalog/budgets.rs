//! Wait budgets and lifetime limits, every one configurable per server.

use std::time::Duration;

/// Wait budgets and lifetime limits. Every number is configurable per server.
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    /// How long a diagnostics call waits for results fresh for the file on disk.
    pub document: Duration,
    /// How long one pull request may take.
    pub pull: Duration,
    /// The quiet period after an unversioned push before it is taken as final.
    pub push_quiet: Duration,
    /// How long a cross-file question waits for the server to finish indexing.
    pub ready: Duration,
    /// How long in all a wait may go on past its budget while the server
    /// visibly works (`server::working`: its messages, its processor time,
    /// running or waiting to run). A server that shows no work ends the
    /// wait at the budget.
    pub ceiling: Duration,
    /// Timeout of `initialize`.
    pub initialize: Duration,
    /// Timeout of an ordinary request.
    pub request: Duration,
    /// How long a whole-workspace check (`workspace/diagnostic`) may take.
    pub full: Duration,
    /// Documents not asked about for this long are closed.
    pub idle_document: Duration,
    /// A server not asked anything for this long is shut down; the next
    /// question starts it again.
    pub idle_server: Duration,
    /// The wait before the second restart in a row of a crashing server; each
    /// later restart waits twice as long.
    pub backoff: Duration,
    /// After this many failures within [`Budgets::cooldown`], a server is
    /// reported as broken instead of restarted...
    pub max_failures: u32,
    /// ...until this much time has passed since its last failure.
    pub cooldown: Duration,
    /// Documents kept open at once, when not the server table's number.
    pub open_documents: Option<usize>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            document: Duration::from_secs(5),
            pull: Duration::from_secs(3),
            push_quiet: Duration::from_millis(150),
            ready: Duration::from_secs(10),
            // A cold rust-analyzer loads a Cargo workspace in 12-19 s on a
            // loaded two-core machine, and a cold pyright check of a real
            // library took 20-28 s there: far above the budgets, well
            // within this.
            ceiling: Duration::from_secs(120),
            initialize: Duration::from_secs(45),
            request: Duration::from_secs(30),
            full: Duration::from_secs(10),
            idle_document: Duration::from_secs(300),
            idle_server: Duration::from_secs(30 * 60),
            backoff: Duration::from_millis(500),
            max_failures: 3,
            cooldown: Duration::from_secs(60),
            open_documents: None,
        }
    }
}
