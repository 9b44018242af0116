//! `sightline mcp`: the agent's stdio bridged to the shared daemon, or,
//! with `--no-daemon` or when the running daemon has other settings, the MCP
//! server in this process.

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::{Engine, Options};
use crate::frontends::cli::{Cli, EXIT_FAILED, load_config};
use crate::frontends::signals::interrupted;

/// What `sightline mcp` was asked for, besides the common options.
pub(super) struct SessionArgs<'a> {
    /// `--edit-tools`.
    pub edit_tools: bool,
    /// `--tools`.
    pub profile: Option<&'a str>,
    /// `--folder`s.
    pub folders: &'a [PathBuf],
    /// `--http` and its options: served over HTTP instead of stdio.
    pub http: Option<crate::frontends::mcp_http::HttpOptions>,
}

/// The arguments [`refused`] judges.
struct Judged<'a> {
    edit_tools: bool,
    profile: Option<&'a str>,
    folders: &'a [PathBuf],
    http: Option<&'a crate::frontends::mcp_http::HttpOptions>,
}

/// What the session would refuse, said in one line before it starts,
/// through the daemon or not: a folder that is the root, the home directory
/// or one holding the workspace (a rename that reaches a folder writes
/// there), an address or token file `--http` cannot serve with, or a
/// configured tool list that names no tool. The user's configuration is
/// read here for it; the daemon reads it again.
fn refused(args: &Judged<'_>, workdir: Option<&std::path::Path>) -> Option<String> {
    let workspace = workdir
        .map(std::path::Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    let project = workdir.and_then(crate::config::project_dir);
    let configured = crate::config::Config::load_for_session(project.as_deref()).ok();
    args.folders
        .iter()
        .chain(configured.iter().flat_map(|c| c.folders.iter()))
        .find_map(|f| crate::config::folder_refused(f, workspace.as_deref()))
        .or_else(|| {
            crate::frontends::mcp_http::check(args.http?)
                .err()
                .map(|e| e.to_string())
        })
        .or_else(|| {
            let c = configured.as_ref()?;
            crate::frontends::tools::Toolset::chosen(
                args.profile,
                args.edit_tools || c.edit_tools,
                c.mcp_tools.as_deref(),
            )
            .err()
        })
}

/// Serves the MCP session until stdin closes (over HTTP, until stopped);
/// the exit status.
pub(super) async fn run(cli: &Cli, args: SessionArgs<'_>, workdir: Option<PathBuf>) -> i32 {
    let SessionArgs {
        edit_tools,
        profile,
        folders,
        http,
    } = args;
    // Absolute, since the daemon's working directory is not ours.
    let folders: Vec<PathBuf> = folders
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .map(|f| sightline_lsp::normalize(&f))
        .collect();
    let judged = Judged {
        edit_tools,
        profile,
        folders: &folders,
        http: http.as_ref(),
    };
    if let Some(why) = refused(&judged, workdir.as_deref()) {
        // stdout is the protocol's: the one line goes to stderr, where an
        // MCP host shows a server that would not start.
        let line = format!("error: {why}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        return EXIT_FAILED;
    }
    // What the first answer says first, when this session is not the
    // daemon's.
    let mut note = None;
    if cli.uses_daemon() {
        let mut hello = crate::frontends::daemon::Hello::of_client(
            "mcp",
            workdir.clone(),
            cli.sandbox.clone(),
            edit_tools,
        );
        hello.folders = folders.clone();
        hello.tools = profile.map(str::to_owned);
        // A daemon with other settings (data directory, configuration,
        // downloads) would answer with its own: serve in process instead.
        match crate::frontends::daemon::handshake::accepts(&hello).await {
            Err(crate::frontends::daemon::DaemonError::OtherSettings(differ)) => {
                tracing::info!("the daemon has other settings; serving in process");
                note = Some(crate::frontends::daemon::other_settings_note(&differ));
            }
            _ => {
                return match http {
                    Some(options) => {
                        let hello = Arc::new(hello);
                        serve_http(&options, move || {
                            crate::frontends::mcp_http::DaemonRelay::new(hello.clone())
                        })
                        .await
                    }
                    None => crate::frontends::daemon::bridge::run(hello).await,
                };
            }
        }
    }
    let mut config = match load_config(&cli.command, workdir.as_deref()) {
        Ok(c) => c,
        Err(status) => return status,
    };
    config.folders.extend(folders);
    let tools = match crate::frontends::tools::Toolset::chosen(
        profile,
        edit_tools || config.edit_tools,
        config.mcp_tools.as_deref(),
    ) {
        Ok(t) => t,
        Err(why) => {
            let line = format!("error: {why}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            return EXIT_FAILED;
        }
    };
    // stdout carries the protocol: progress goes to the client, logs to stderr.
    let engine = Arc::new(Engine::new(Options {
        root: workdir,
        config,
        sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
        project_configs: true,
        ..Options::default()
    }));
    if let Some(options) = http {
        let served = engine.clone();
        let status = serve_http(&options, move || {
            crate::frontends::mcp::McpServer::new(served.clone(), tools.clone())
                .with_note(note.clone())
        })
        .await;
        engine.shutdown().await;
        return status;
    }
    tokio::select! {
        status = crate::frontends::mcp::serve(engine.clone(), tools, note) => status,
        _ = interrupted() => {
            engine.shutdown().await;
            EXIT_FAILED
        }
    }
}

/// Serves MCP over HTTP with sessions from `factory` until interrupted; the
/// exit status (a listening failure is one line on stderr).
async fn serve_http<S>(
    options: &crate::frontends::mcp_http::HttpOptions,
    factory: impl Fn() -> S + Send + Sync + 'static,
) -> i32
where
    S: crate::frontends::mcp_http::Sessions,
{
    // Where it listens, and a token it made, on stderr: the one place a
    // person who started it reads.
    let announce = |said: &str| {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), said.as_bytes());
    };
    match crate::frontends::mcp_http::serve_until_interrupted(options, factory, announce).await {
        Ok(()) => 0,
        Err(e) => {
            let line = format!("error: {e}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            EXIT_FAILED
        }
    }
}
