//! Running a formatter: in the sandbox, with a timeout, its own stdio and
//! process group; a failure or timeout is reported, never hidden. Also the
//! short probes that tell whether a program is the formatter its name says.

use std::path::Path;
use std::time::Duration;

use crate::format::{Formatters, Outcome, Run};

/// Whether `program args` exits 0 within 5 s and its first output line holds
/// every word of `needles`.
pub(super) fn help_says(
    sandbox: &crate::sandbox::Sandbox,
    program: &Path,
    args: &[&str],
    needles: &[&str],
) -> bool {
    let tmp = crate::sandbox::private_tmp("probe");
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    // A probe writes nothing: only its TMPDIR.
    let Ok((program, args)) = sandbox.command(program, &args, &[], &tmp, false) else {
        return false;
    };
    let mut command = std::process::Command::new(program);
    sandbox.apply_child_env(&mut command, false);
    let child = command
        .args(args)
        .env("TMPDIR", &tmp)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(child) = child else {
        let _ = std::fs::remove_dir_all(&tmp);
        return false;
    };
    let answer = wait_for_help(child, needles);
    let _ = std::fs::remove_dir_all(&tmp);
    answer
}

fn wait_for_help(child: std::process::Child, needles: &[&str]) -> bool {
    // Wait for the child's exit (and its output) on a thread, so that the
    // 5 s limit is a timeout on that signal rather than polling.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(Ok(out)) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let first = text.lines().next().unwrap_or("");
            out.status.success() && needles.iter().all(|n| first.contains(n))
        }
        _ => {
            sightline_lsp::kill_pid(pid);
            false
        }
    }
}

impl Formatters {
    /// Runs one formatter in the sandbox: it may write the writable roots
    /// of the file (the ones the edit tools' write of it was judged by), its
    /// caches, and a private TMPDIR; it opens no internet socket.
    pub(super) async fn run_one(&self, run: &Run, file: &Path) -> Outcome {
        let tmp = crate::sandbox::private_tmp("formatter");
        let mut writable = self.sandbox.writable_for_file(file);
        // The entry's own environment first (a user's `UV_CACHE_DIR` for
        // uv), then this process's.
        let env: Vec<(String, Option<String>)> = run
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect();
        writable.extend(crate::sandbox::cache_paths(run.caches, &env));
        let (program, args) = match self.sandbox.command(
            Path::new(&run.argv[0]),
            &run.argv[1..],
            &writable,
            &tmp,
            false,
        ) {
            Ok(x) => x,
            Err(e) => {
                return Outcome::Failed {
                    message: e.to_string(),
                };
            }
        };
        let mut argv = vec![program.display().to_string()];
        argv.extend(args);
        let mut env = run.env.clone();
        env.push(("TMPDIR".into(), tmp.display().to_string()));
        let outcome = run_argv(
            &Run {
                argv,
                env,
                ..run.clone()
            },
            &self.sandbox,
        )
        .await;
        let _ = std::fs::remove_dir_all(&tmp);
        outcome
    }
}

async fn run_argv(run: &Run, sandbox: &crate::sandbox::Sandbox) -> Outcome {
    let mut cmd = tokio::process::Command::new(&run.argv[0]);
    sandbox.apply_child_env(cmd.as_std_mut(), false);
    cmd.args(&run.argv[1..])
        .current_dir(&run.cwd)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // In a group of its own (a job on Windows), killed with it on timeout.
    let child = match sightline_lsp::spawn_group(cmd).await {
        Ok(c) => c,
        Err(e) => {
            return Outcome::Failed {
                message: format!("could not start `{}`: {e}", run.argv[0]),
            };
        }
    };
    let pid = child.id();
    let waited = tokio::time::timeout(run.timeout, child.wait_with_output()).await;
    // Its helpers live in its group: stop any left, exited or timed out, and
    // let the reaper (or the job table) forget the group.
    if let Some(pid) = pid {
        sightline_lsp::kill_group(pid);
    }
    match waited {
        Ok(Ok(out)) if out.status.success() => Outcome::Formatted,
        Ok(Ok(out)) => {
            let text = String::from_utf8_lossy(&out.stderr).to_string()
                + &String::from_utf8_lossy(&out.stdout);
            let tail: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .rev()
                .take(3)
                .collect();
            let hint = crate::sandbox::explain_denial(&text)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            Outcome::Failed {
                message: format!(
                    "exited with status {}{}{hint}",
                    out.status.code().map_or("?".into(), |c| c.to_string()),
                    if tail.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ": {}",
                            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                        )
                    }
                ),
            }
        }
        Ok(Err(e)) => Outcome::Failed {
            message: e.to_string(),
        },
        Err(_) => Outcome::TimedOut {
            after_ms: run.timeout.as_millis() as u64,
        },
    }
}
