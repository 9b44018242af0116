//! `sightline daemon [status|stop]`: runs the shared daemon, or asks the
//! running one for its status or to stop, and shows the status for a person.

use serde_json::json;

use crate::frontends::cli::{EXIT_FAILED, EXIT_OK};

/// `sightline daemon [status|stop]`: runs the daemon, or asks the running
/// one; the exit status.
pub(super) async fn run(
    action: Option<&crate::frontends::cli::DaemonAction>,
    ready_fd: Option<i64>,
    json: bool,
) -> i32 {
    use crate::frontends::cli::DaemonAction;
    use crate::frontends::cli::terminal::print_out;
    use crate::frontends::daemon::{Hello, call, serve};
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
    let answer = call::call_tool(
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
pub(super) fn status_text(raw: &str) -> String {
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
pub(super) async fn daemon_status() -> Option<serde_json::Value> {
    use crate::frontends::daemon::{Hello, call, serve};
    let hello = Hello::control();
    let answer = call::call_tool(
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
