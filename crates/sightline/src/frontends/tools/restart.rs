//! `lsp_restart`: restart the running language servers and answer once
//! each is ready again; the CLI's `restart`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::tools::cli::{CliCommand, CliEntry, cli};
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Restart;

/// `lsp_restart` arguments.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RestartArgs {
    /// The server id (pyright, typescript, ...); default: all.
    pub(crate) server: Option<String>,
    /// Only servers under this absolute directory.
    pub(crate) root: Option<String>,
}

impl Tool for Restart {
    const NAME: &'static str = "lsp_restart";
    const TITLE: &'static str = "Restart language servers";
    const DESCRIPTION: &'static str = "Restart the language servers (all, or one by id). Use it when answers look stale after a change the server missed (a package installed), or a server seems stuck.";
    const EFFECT: Effect = Effect::Restarts;
    const SERVED: Served = Served::Always;
    const CLI: &'static [CliEntry] = &[cli::<RestartCommand>()];
    type Args = RestartArgs;

    async fn run(session: &Session, a: RestartArgs, json: bool) -> Result<Answered, ToolError> {
        let engine = session.engine();
        let root = a
            .root
            .map(PathBuf::from)
            .or_else(|| engine.workspace_root().map(ToOwned::to_owned));
        let text = engine
            .servers()
            .restart(a.server.as_deref(), root.as_deref())
            .await?;
        Ok(Answered::text(text, json))
    }
}

/// Restart the running language servers (all, or SERVER; under --root
/// when given) and wait until each is ready again: after a change the
/// server did not pick up, or to free its memory. Useful with the
/// shared daemon, where servers outlive a command.
#[derive(Debug, clap::Args)]
pub(crate) struct RestartCommand {
    /// The server id, as `sightline servers` lists it (default: every
    /// running server).
    server: Option<String>,
}

impl CliCommand for RestartCommand {
    const NAME: &'static str = "restart";
    type Tool = Restart;

    fn args(self) -> Result<RestartArgs, ToolError> {
        Ok(RestartArgs {
            server: self.server,
            root: None,
        })
    }
}
