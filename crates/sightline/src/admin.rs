//! The CLI commands about sightline itself rather than about code:
//! `servers`, `install` and `config`.

use std::path::Path;

use serde_json::json;

use crate::cli::{Command, EXIT_FAILED, EXIT_OK};
use crate::render;
use crate::status;
use crate::workspace::Workspace;

/// Runs one of these commands; returns stdout text and the exit status.
pub async fn run(ws: &Workspace, command: &Command, here: &Path, json: bool) -> (String, i32) {
    match command {
        Command::Servers => {
            let states = ws.server_states(here);
            if json {
                (format!("{}\n", json!(states)), EXIT_OK)
            } else {
                (status::render(&states), EXIT_OK)
            }
        }
        Command::Install { id } => {
            let Some(spec) = status::find(ws, id) else {
                let ids: Vec<&str> = ws.all_servers().iter().map(|s| s.id).collect();
                return (
                    format!(
                        "error: no server `{id}`; the servers are {}\n",
                        ids.join(", ")
                    ),
                    EXIT_FAILED,
                );
            };
            if let Some(path) = ws.locate_server(spec, here) {
                return (
                    format!("{id} is already installed at {}\n", path.display()),
                    EXIT_OK,
                );
            }
            match ws.install(spec).await {
                Ok(path) => (format!("installed {id} at {}\n", path.display()), EXIT_OK),
                Err(e) => (render::error_text(&e), EXIT_FAILED),
            }
        }
        Command::Config => {
            let c = ws.config();
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
