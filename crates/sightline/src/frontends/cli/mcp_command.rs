//! `sightline mcp`: the agent's stdio bridged to the shared daemon, or,
//! with `--no-daemon` or when the running daemon has other settings, the MCP
//! server in this process.

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::{Engine, Options};
use crate::frontends::cli::{Cli, EXIT_FAILED, load_config};
use crate::frontends::signals::interrupted;

/// Serves the MCP session until stdin closes; the exit status.
pub(super) async fn run(
    cli: &Cli,
    edit_tools: bool,
    profile: Option<&str>,
    folders: &[PathBuf],
    workdir: Option<PathBuf>,
) -> i32 {
    // Absolute, since the daemon's working directory is not ours.
    let folders: Vec<PathBuf> = folders
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .map(|f| sightline_lsp::normalize(&f))
        .collect();
    // What the session would refuse is one line before it starts, through
    // the daemon or not: a folder that is the root, the home directory or
    // one holding the workspace (a rename that reaches a folder writes
    // there), or a configured tool list that names no tool. The user's
    // configuration is read here for it; the daemon reads it again.
    let workspace = workdir.clone().or_else(|| std::env::current_dir().ok());
    let project = workdir.as_deref().and_then(crate::config::project_dir);
    let configured = crate::config::Config::load_for_session(project.as_deref()).ok();
    let refused = folders
        .iter()
        .chain(configured.iter().flat_map(|c| c.folders.iter()))
        .find_map(|f| crate::config::folder_refused(f, workspace.as_deref()))
        .or_else(|| {
            let c = configured.as_ref()?;
            crate::frontends::tools::Toolset::chosen(
                profile,
                edit_tools || c.edit_tools,
                c.mcp_tools.as_deref(),
            )
            .err()
        });
    if let Some(why) = refused {
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
            _ => return crate::frontends::daemon::bridge::run(hello).await,
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
    tokio::select! {
        status = crate::frontends::mcp::serve(engine.clone(), tools, note) => status,
        _ = interrupted() => {
            engine.shutdown().await;
            EXIT_FAILED
        }
    }
}
