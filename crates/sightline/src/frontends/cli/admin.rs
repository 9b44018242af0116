//! The CLI commands beyond the three questions: `servers`, `install`,
//! `config`, the formatters, and the edit tools.

use std::path::Path;

use serde_json::json;

use crate::engine::Engine;
use crate::frontends::cli::{Command, EXIT_FAILED, EXIT_OK};
use crate::render;

/// Runs one of these commands; returns stdout text and the exit status.
pub async fn run(engine: &Engine, command: &Command, here: &Path, json: bool) -> (String, i32) {
    match command {
        Command::Servers => {
            let states = engine.server_states(here);
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
        Command::Install { id } => {
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
            if let Some(path) = engine.locate_server(spec, here) {
                return (
                    format!("{id} is already installed at {}\n", path.display()),
                    EXIT_OK,
                );
            }
            match engine.install(spec).await {
                Ok(path) => (format!("installed {id} at {}\n", path.display()), EXIT_OK),
                Err(e) => (render::error_text(&e), EXIT_FAILED),
            }
        }
        Command::Config => {
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
        Command::Format { files } => {
            let mut out = String::new();
            let mut status = EXIT_OK;
            for f in files {
                let f = abs(here, f);
                let reports = engine.formatters().format(&f).await;
                if reports.is_empty() {
                    out.push_str(&format!("{}: no formatter is on for it\n", f.display()));
                }
                for r in reports {
                    if matches!(
                        r.outcome,
                        crate::format::Outcome::Failed { .. }
                            | crate::format::Outcome::TimedOut { .. }
                    ) {
                        status = EXIT_FAILED;
                    }
                    out.push_str(&format!("{}: {}\n", f.display(), r.line()));
                }
            }
            (out, status)
        }
        Command::Formatters { file } => {
            let detections = engine.formatters().detect(&abs(here, file));
            if json {
                return (format!("{}\n", json!(detections)), EXIT_OK);
            }
            if detections.is_empty() {
                return ("no formatter handles this kind of file\n".into(), EXIT_OK);
            }
            let out = detections
                .iter()
                .map(|d| {
                    format!(
                        "{} {}: {}\n",
                        d.name,
                        if d.enabled { "on" } else { "off" },
                        d.why
                    )
                })
                .collect();
            (out, EXIT_OK)
        }
        Command::Read {
            file,
            offset,
            limit,
        } => match engine.read(&abs(here, file), *offset, *limit) {
            Ok(t) => (t, EXIT_OK),
            Err(e) => (render::error_text(&e), EXIT_FAILED),
        },
        Command::Write { file } => {
            let mut content = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut content) {
                return (format!("error: cannot read stdin: {e}\n"), EXIT_FAILED);
            }
            edited(engine.write(&abs(here, file), &content).await)
        }
        Command::Edit {
            file,
            old,
            new,
            replace_all,
            format_range,
        } => {
            let range = *format_range || engine.config().format_range;
            edited(
                engine
                    .edit_with(&abs(here, file), old, new, *replace_all, range)
                    .await,
            )
        }
        Command::ApplyPatch => {
            let mut patch = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut patch) {
                return (format!("error: cannot read stdin: {e}\n"), EXIT_FAILED);
            }
            edited(engine.apply_patch(&patch).await)
        }
        Command::Rename {
            position,
            new_name,
            symbol,
            dry_run,
            confirm,
        } => {
            let r = async {
                let a = crate::frontends::cli::answer::position_args(position, symbol.as_ref())?;
                let file = std::path::PathBuf::from(a["file"].as_str().unwrap_or_default());
                let line = a["line"].as_u64().unwrap_or(0) as usize;
                let column = match a.get("column").and_then(serde_json::Value::as_u64) {
                    Some(c) => c as usize,
                    None => {
                        engine.symbol_column(&file, line, symbol.as_deref().unwrap_or_default())?
                    }
                };
                engine
                    .rename(&file, line, column, new_name, *dry_run, *confirm)
                    .await
            };
            refactored(r.await)
        }
        Command::CodeActions { lines, kind } => match parse_lines(here, lines) {
            Ok((file, line, end)) => {
                refactored(engine.code_actions(&file, line, end, kind.as_deref()).await)
            }
            Err(e) => (render::error_text(&e), EXIT_FAILED),
        },
        Command::ApplyCodeAction {
            lines,
            index,
            title,
            dry_run,
            confirm,
        } => match parse_lines(here, lines) {
            Ok((file, line, end)) => {
                let pick = match (index, title) {
                    (Some(i), _) => crate::edit::refactor::Pick::Index(*i),
                    (None, Some(t)) => crate::edit::refactor::Pick::Title(t.clone()),
                    (None, None) => crate::edit::refactor::Pick::Index(0),
                };
                refactored(
                    engine
                        .apply_code_action(&file, line, end, pick, *dry_run, *confirm)
                        .await,
                )
            }
            Err(e) => (render::error_text(&e), EXIT_FAILED),
        },
        Command::OrganizeImports { file, dry_run } => {
            refactored(engine.organize_imports(&abs(here, file), *dry_run).await)
        }
        _ => (String::new(), EXIT_FAILED),
    }
}

/// `FILE:LINE` or `FILE:LINE-END`.
fn parse_lines(
    here: &Path,
    spec: &str,
) -> Result<(std::path::PathBuf, usize, Option<usize>), crate::error::ToolError> {
    let bad = || {
        crate::error::ToolError::bad_input(format!(
            "expected FILE:LINE or FILE:LINE-END, got `{spec}`"
        ))
    };
    let (file, lines) = spec.rsplit_once(':').ok_or_else(bad)?;
    if file.is_empty() {
        return Err(bad());
    }
    let (first, last) = match lines.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (lines, None),
    };
    let first: usize = first.trim().parse().map_err(|_| bad())?;
    let last = last
        .map(|l| l.trim().parse::<usize>().map_err(|_| bad()))
        .transpose()?;
    Ok((abs(here, Path::new(file)), first, last))
}

/// A refactoring's text and status: 1 when the change brought errors.
fn refactored(
    r: Result<crate::edit::refactor::Refactored, crate::error::ToolError>,
) -> (String, i32) {
    match r {
        Ok(a) => (
            a.text,
            if a.errors {
                crate::frontends::cli::EXIT_FINDINGS
            } else {
                EXIT_OK
            },
        ),
        Err(e) => (render::error_text(&e), EXIT_FAILED),
    }
}

fn abs(here: &Path, p: &Path) -> std::path::PathBuf {
    if p.is_absolute() {
        p.to_owned()
    } else {
        here.join(p)
    }
}

/// An edit's text and status: 1 when the change brought errors.
fn edited(r: Result<crate::edit::EditAnswer, crate::error::ToolError>) -> (String, i32) {
    match r {
        Ok(a) => {
            let status = if a.brought_errors() {
                crate::frontends::cli::EXIT_FINDINGS
            } else {
                EXIT_OK
            };
            (a.text(), status)
        }
        Err(e) => (render::error_text(&e), EXIT_FAILED),
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

/// `sightline daemon [status|stop]`: runs the daemon, or asks the running
/// one; the exit status.
pub async fn daemon(
    action: Option<&crate::frontends::cli::DaemonAction>,
    ready_fd: Option<i64>,
    json: bool,
) -> i32 {
    use crate::frontends::cli::DaemonAction;
    use crate::frontends::cli::terminal::print_out;
    use crate::frontends::daemon::{Hello, bridge, serve};
    let tool = match action {
        None => {
            return serve::run(crate::frontends::daemon::transport::Ready::take(ready_fd)).await;
        }
        Some(DaemonAction::Status) => serve::STATUS_TOOL,
        Some(DaemonAction::Stop) => serve::STOP_TOOL,
    };
    let hello = Hello::control();
    let pid =
        std::fs::read_to_string(crate::frontends::daemon::paths::runtime_dir().join("daemon.pid"))
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok());
    let answer = bridge::call_tool(
        &hello,
        false,
        tool,
        json!({}),
        false,
        &crate::progress::Silent,
    )
    .await;
    // `stop` returns once the daemon has stopped its servers and exited.
    if tool == serve::STOP_TOOL
        && matches!(answer, Ok(Some(_)))
        && let Some(pid) = pid
    {
        super::exit::wait_exit(pid, std::time::Duration::from_secs(30)).await;
    }
    match answer {
        Ok(None) => {
            let text = if json {
                "null\n"
            } else {
                "no daemon is running\n"
            };
            print_out(text, EXIT_OK)
        }
        Ok(Some(a)) if tool == serve::STOP_TOOL => print_out(
            &if json {
                format!("{}\n", json!({ "stopped": true }))
            } else {
                format!("{}\n", a.text)
            },
            EXIT_OK,
        ),
        Ok(Some(a)) if json => print_out(&format!("{}\n", a.text), EXIT_OK),
        Ok(Some(a)) => print_out(&status_text(&a.text), EXIT_OK),
        Err(e) => print_out(&format!("error: {e}\n"), EXIT_FAILED),
    }
}

/// The status JSON as lines for a person.
fn status_text(raw: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(raw).unwrap_or_default();
    let mut out = format!(
        "daemon pid {}, up {} s, {} client(s), {} session(s) served\n",
        v["pid"], v["uptime_secs"], v["clients"], v["sessions"]
    );
    out.push_str(&format!(
        "servers hold {} MiB of the {} MiB memory budget\n",
        v["memory_kib"].as_u64().unwrap_or(0) / 1024,
        v["memory_limit_kib"].as_u64().unwrap_or(0) / 1024
    ));
    let servers = v["servers"].as_array().cloned().unwrap_or_default();
    if servers.is_empty() {
        out.push_str("no servers running\n");
    }
    for s in servers {
        out.push_str(&format!(
            "{} {} pid {} rss {} MiB idle {} s, {} requests\n",
            s["id"].as_str().unwrap_or("?"),
            s["root"].as_str().unwrap_or("?"),
            s["pid"],
            s["rss_kib"].as_u64().unwrap_or(0) / 1024,
            s["idle_secs"],
            s["requests"]
        ));
        if let Some(n) = s["polled_dirs"].as_u64().filter(|n| *n > 0) {
            out.push_str(&format!(
                "  the file watch limit is reached: {n} directories are polled at each question instead (raise fs.inotify.max_user_watches)\n"
            ));
        }
    }
    out
}

/// The running daemon's status, or `None` when none runs.
async fn daemon_status() -> Option<serde_json::Value> {
    use crate::frontends::daemon::{Hello, bridge, serve};
    let hello = Hello::control();
    let answer = bridge::call_tool(
        &hello,
        false,
        serve::STATUS_TOOL,
        json!({}),
        false,
        &crate::progress::Silent,
    )
    .await
    .ok()??;
    serde_json::from_str(&answer.text).ok()
}
