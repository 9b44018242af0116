//! `sightline servers`, `install` and `config`: what runs and is installed,
//! and the configuration in effect.

use std::path::Path;

use serde_json::json;

use crate::engine::Engine;
use crate::frontends::cli::daemon_command::{daemon_status, status_text};
use crate::frontends::cli::{EXIT_FAILED, EXIT_OK, OtherCommand};
use crate::render;

/// Runs one of these commands; returns stdout text and the exit status.
pub(super) async fn run(
    engine: &Engine,
    command: &OtherCommand,
    here: &Path,
    json: bool,
) -> (String, i32) {
    match command {
        OtherCommand::Servers => {
            let states = engine.servers().states(here);
            if json {
                // The daemon's own are in `sightline daemon status --json`;
                // this shape stays one list.
                (format!("{}\n", json!(states)), EXIT_OK)
            } else {
                // The shared daemon's running servers, when one runs.
                let daemon = daemon_status().await;
                let mut text = format!(
                    "{}\n{}",
                    engine.sandbox().status(),
                    render::servers_text(&states)
                );
                if let Some(d) = daemon {
                    text.push_str(&format!(
                        "\nthe shared daemon: {}",
                        status_text(&d.to_string())
                    ));
                }
                (text, EXIT_OK)
            }
        }
        OtherCommand::Capabilities { all } => {
            let lines = engine.servers().capabilities(here, *all).await;
            if json {
                (format!("{}\n", json!(lines)), EXIT_OK)
            } else {
                let text = crate::engine::capabilities::capabilities_text(&lines, here);
                (text, EXIT_OK)
            }
        }
        OtherCommand::Doctor => (doctor(engine, here, json).await, EXIT_OK),
        OtherCommand::Install { id } => {
            let Some(spec) = find(engine, id) else {
                let ids: Vec<&str> = engine.all_servers().iter().map(|s| s.id).collect();
                return (
                    format!(
                        "error: no server `{id}`; the servers are {}\n",
                        ids.join(", ")
                    ),
                    EXIT_FAILED,
                );
            };
            if let Some(path) = engine.servers().locate(spec, here) {
                return (
                    format!("{id} is already installed at {}\n", path.display()),
                    EXIT_OK,
                );
            }
            match engine.servers().install(spec).await {
                Ok(path) => (format!("installed {id} at {}\n", path.display()), EXIT_OK),
                Err(e) => (render::error_text(&e), EXIT_FAILED),
            }
        }
        OtherCommand::Config => {
            let c = engine.config();
            if json {
                let values: serde_json::Map<String, serde_json::Value> = c
                    .values
                    .iter()
                    .map(|(k, (v, o))| (k.clone(), json!({ "value": v, "origin": o.to_string() })))
                    .collect();
                (
                    format!(
                        "{}\n",
                        json!({ "files": c.files, "trusted": c.trusted, "values": values })
                    ),
                    EXIT_OK,
                )
            } else {
                (c.describe(), EXIT_OK)
            }
        }
        _ => (String::new(), EXIT_FAILED),
    }
}

/// Servers by id, for `sightline install`.
fn find(engine: &Engine, id: &str) -> Option<&'static crate::catalog::ServerSpec> {
    engine
        .all_servers()
        .into_iter()
        .find(|s| s.id == id)
        .or_else(|| crate::catalog::builtin(id))
}

/// `sightline doctor`: the agents' set-up, the daemon this shell reaches,
/// and the servers.
pub(super) async fn doctor(engine: &Engine, here: &Path, json: bool) -> String {
    use crate::frontends::setup::doctor;
    let home = dirs::home_dir().unwrap_or_default();
    let codex_home = std::env::var_os("CODEX_HOME").map(std::path::PathBuf::from);
    let mut agents = doctor::agents(here, &home, codex_home);
    doctor::check_http(&mut agents).await;
    let runtime = crate::frontends::daemon::paths::runtime_dir();
    let daemon = daemon_status().await;
    let states = engine.servers().states(here);
    if json {
        return format!(
            "{}\n",
            json!({
                "daemon": { "runtime_dir": runtime, "status": daemon },
                "agents": agents,
                "servers": states,
            })
        );
    }
    let daemon = match daemon {
        Some(d) => format!(
            "daemon (this shell reaches {}): {}",
            runtime.display(),
            status_text(&d.to_string())
        ),
        None => format!(
            "daemon (this shell reaches {}): not running; the first question starts it\n",
            runtime.display()
        ),
    };
    format!(
        "{daemon}\n{}\nservers (installed, or installed on first use):\n{}",
        doctor::text(&agents),
        render::servers_text(&states)
    )
}
