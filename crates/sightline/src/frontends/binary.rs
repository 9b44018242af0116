//! The `sightline` binary's body: the sandbox launcher's early exit,
//! logging (to stderr, or a started daemon's to its log file), the runtime,
//! and the CLI.

use clap::Parser;

use crate::frontends::cli::{Cli, EXIT_FAILED};

/// Runs the `sightline` binary with this process's arguments, and exits
/// with the CLI's status.
pub fn main() -> ! {
    // The sandbox launcher: restrict this process, then become the child. It
    // runs before anything else (no runtime, no threads).
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("__sandbox") {
        crate::sandbox::launch(&args[1..]);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A hook must never fail the agent's tool call (Claude Code and
        // Gemini CLI block the call on status 2): a `hook` command line that
        // does not parse says why on stderr and exits 0.
        Err(e) if args.first().map(String::as_str) == Some("hook") => {
            let _ = e.print();
            std::process::exit(0);
        }
        Err(e) => e.exit(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // A daemon a client started writes its log file itself, which it keeps
    // under its bound; everything else logs to stderr.
    if cli.is_started_daemon() {
        tracing_subscriber::fmt()
            .with_writer(crate::frontends::daemon::log::Log::of_started_daemon())
            .with_env_filter(filter)
            .init();
    } else {
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_env_filter(filter)
            .init();
    }
    // A panic is caught where its call is answered; log it as one line
    // instead of the default hook's text on stderr.
    std::panic::set_hook(Box::new(|info| tracing::error!("panic: {info}")));
    // A client of the daemon only moves lines between pipes and a socket: one
    // thread, so that no message waits for another thread to wake.
    let built = if cli.daemon_client() {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        // 8 MiB a thread, not tokio's 2: a question's future is deep
        // (the daemon's dispatch, the engine, the server), and a regular
        // expression compiled at its bottom (a workspace's package globs)
        // overflowed a worker's stack in a debug build, which ends the
        // daemon and every session on it. The memory is reserved, not used.
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_stack_size(8 << 20)
            .enable_all()
            .build()
    };
    let runtime = match built {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            std::process::exit(EXIT_FAILED);
        }
    };
    let status = runtime.block_on(crate::frontends::cli::run(cli));
    // Dropping the runtime could wait on blocking tasks (the stdin reader of
    // `batch`); the servers are already shut down, so leave now.
    std::process::exit(status);
}
