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
        Some(DaemonAction::Status) => serve::Control::Status.tool(),
        Some(DaemonAction::Stop) => return stop(json).await,
    };
    let hello = Hello::control();
    let answer = call::call_tool(
        &hello,
        false,
        tool,
        json!({}),
        false,
        &crate::progress::Silent,
    )
    .await;
    match answer {
        Ok(None) => print_out(if json { "null\n" } else { NO_DAEMON }, EXIT_OK),
        Ok(Some(a)) if json => print_out(&format!("{}\n", a.text), EXIT_OK),
        Ok(Some(a)) => print_out(&status_text(&a.text), EXIT_OK),
        Err(e) => print_out(&format!("error: {e}\n"), EXIT_FAILED),
    }
}

const NO_DAEMON: &str = "no daemon is running\n";

/// How long `daemon stop` waits for the daemon to stop its servers and
/// exit before it kills it. The daemon stops its engines one after another,
/// each within a few seconds: this is more than a dozen slow ones take.
const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long the status asked before a stop may take: a daemon that does not
/// answer it is stopped all the same.
const STATUS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long the daemon has to take the stop request: it answers at once
/// (before it stops its servers) unless it is stopped or wedged.
const STOP_ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What `daemon stop` did.
#[derive(Debug, serde::Serialize)]
struct Stopped {
    /// Whether no daemon runs now.
    stopped: bool,
    pid: Option<u32>,
    /// The servers it ran, by id.
    servers: Vec<String>,
    /// It did not exit when asked (or did not answer) and was killed; its
    /// servers die with it (the reaper holds their groups).
    killed: bool,
    /// Why it was killed, or why it could not be stopped.
    reason: Option<String>,
}

impl Stopped {
    fn text(&self) -> String {
        let pid = self.pid.map_or_else(String::new, |p| format!(" (pid {p})"));
        let servers = match self.servers.len() {
            0 => "it ran no server".to_owned(),
            1 => format!("1 server stopped ({})", self.servers[0]),
            n => format!("{n} servers stopped ({})", self.servers.join(", ")),
        };
        match (self.stopped, self.killed, &self.reason) {
            (true, false, _) => format!("stopped the daemon{pid}; {servers}\n"),
            (true, true, reason) => format!(
                "killed the daemon{pid}: {}; its servers die with it\n",
                reason.as_deref().unwrap_or("it did not exit")
            ),
            (false, _, reason) => format!(
                "error: the daemon{pid} could not be stopped: {}\n",
                reason.as_deref().unwrap_or("unknown")
            ),
        }
    }
}

/// `sightline daemon stop`: asks the daemon to stop its servers and exit,
/// waits for it, and kills it if it does not go; says which happened.
async fn stop(json: bool) -> i32 {
    use crate::frontends::cli::terminal::print_out;
    use crate::frontends::daemon::{Hello, call, serve};
    let pid =
        std::fs::read_to_string(crate::frontends::daemon::paths::runtime_dir().join("daemon.pid"))
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok());
    let servers = tokio::time::timeout(STATUS_WAIT, daemon_status())
        .await
        .ok()
        .flatten()
        .and_then(|v| v["servers"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect();
    // A daemon that takes the connection and never answers (stopped, or
    // wedged) must not hold `daemon stop` up: it is killed instead.
    let answer = tokio::time::timeout(
        STOP_ANSWER_WAIT,
        call::call_tool(
            &Hello::control(),
            false,
            serve::Control::Stop.tool(),
            json!({}),
            false,
            &crate::progress::Silent,
        ),
    )
    .await;
    let mut stopped = Stopped {
        stopped: true,
        pid,
        servers,
        killed: false,
        reason: None,
    };
    let kill_why = match (answer, pid) {
        (Ok(Ok(None)), _) => {
            return print_out(if json { "null\n" } else { NO_DAEMON }, EXIT_OK);
        }
        // It refused the request: it is not stopping, and waiting for it
        // to would only spend the minute.
        (Ok(Ok(Some(refused))), Some(_)) if refused.is_error => {
            Some(format!("it refused the request ({})", refused.text.trim()))
        }
        (Ok(Ok(Some(refused))), None) if refused.is_error => {
            stopped.stopped = false;
            stopped.reason = Some(format!("it refused the request ({})", refused.text.trim()));
            None
        }
        (Ok(Ok(Some(_))), None) => None,
        (Ok(Ok(Some(_))), Some(pid)) => {
            (!super::exit::wait_exit(pid, STOP_WAIT).await).then(|| {
                format!(
                    "it did not exit within {} s of being asked",
                    STOP_WAIT.as_secs()
                )
            })
        }
        (Err(_), Some(_)) => Some(format!(
            "it took the request but did not answer within {} s",
            STOP_ANSWER_WAIT.as_secs()
        )),
        // A daemon on its way out may drop the request: it is given the
        // time a stop takes before it is taken for wedged.
        (Ok(Err(e)), Some(pid)) => (!super::exit::wait_exit(pid, STOP_WAIT).await)
            .then(|| format!("it did not answer ({e}) and did not exit")),
        (Ok(Err(e)), None) => {
            stopped.stopped = false;
            stopped.reason = Some(e.to_string());
            None
        }
        (Err(_), None) => {
            stopped.stopped = false;
            stopped.reason = Some(format!(
                "it did not answer within {} s, and its pid file is gone",
                STOP_ANSWER_WAIT.as_secs()
            ));
            None
        }
    };
    if let (Some(why), Some(pid)) = (kill_why, pid) {
        if is_our_daemon(pid) {
            kill_daemon(pid, &mut stopped, why).await;
        } else {
            stopped.stopped = false;
            stopped.reason = Some(format!(
                "{why}, and process {pid} is not a sightline daemon, so it was not killed"
            ));
        }
    }
    let status = if stopped.stopped {
        EXIT_OK
    } else {
        EXIT_FAILED
    };
    if json {
        print_out(&format!("{}\n", json!(stopped)), status)
    } else {
        print_out(&stopped.text(), status)
    }
}

/// Kills the daemon `pid` and waits for it to go.
async fn kill_daemon(pid: u32, stopped: &mut Stopped, why: String) {
    sightline_lsp::kill_pid(pid);
    stopped.killed = true;
    stopped.stopped = super::exit::wait_exit(pid, STATUS_WAIT).await && !is_our_daemon(pid);
    stopped.reason = Some(if stopped.stopped {
        why
    } else {
        format!("{why}; killed, it lives on")
    });
}

/// Whether process `pid` is a sightline daemon (the pid file may be stale,
/// and its number taken by another process, which must not be killed).
/// Where that cannot be read, it is not taken for one.
fn is_our_daemon(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let program = args
            .first()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .unwrap_or_default();
        let program = std::path::Path::new(&program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `sightline daemon` (with its own flags), not a client of it such
        // as `sightline daemon stop`.
        let daemon_at = args.iter().position(|a| *a == b"daemon");
        let action = daemon_at.and_then(|i| args.get(i + 1)).copied();
        program.starts_with("sightline")
            && daemon_at.is_some()
            && !matches!(action, Some(b"stop" | b"status"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
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
        serve::Control::Status.tool(),
        json!({}),
        false,
        &crate::progress::Silent,
    )
    .await
    .ok()??;
    serde_json::from_str(&answer.text).ok()
}
