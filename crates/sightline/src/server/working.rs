//! Whether a server visibly works on, so that a diagnostics answer waits
//! for it past the document budget (up to its cap): its process group used
//! the processor since the last look, read from `/proc` (Linux; elsewhere,
//! a work-done progress of its runs). Neither a message nor an open
//! progress is a sign of work: a fake server's publish for an old version,
//! or its progress left open, kept answers waiting for nothing.
//! pyright sends no message at all while it checks a heavy module, and a
//! diagnostics answer that took its silence for idleness gave up "still
//! analysing" while it worked on.

use std::time::{Duration, Instant};

use crate::server::LspServer;

impl LspServer {
    /// A second more to wait, within `cap`, when the server visibly works:
    /// its processes used the processor since the last look (`cpu`), or,
    /// where that cannot be read, a work-done progress of its runs (not one
    /// of its background ones). `None` when it is silent and
    /// idle, or the cap has passed.
    pub(super) fn working_until(
        &self,
        cap: tokio::time::Instant,
        cpu: &mut CpuWatch,
    ) -> Option<tokio::time::Instant> {
        let now = tokio::time::Instant::now();
        // The processor time tells, where it can be read: a progress
        // left open by a server that went idle (a fake server's, in the
        // fault tests) kept answers waiting to the cap for nothing.
        let working = cpu.busy().unwrap_or_else(|| {
            let background = self.spec.quirks.background_progress;
            self.state.with(|s| {
                s.progress
                    .running
                    .values()
                    .any(|title| !background.contains(&title.as_str()))
            })
        });
        (working && now < cap).then(|| cap.min(now + Duration::from_secs(1)))
    }

    /// The note of an answer that waited `waited` and was still not
    /// complete: the budget's, or how long the server worked past it.
    pub(super) fn waited_note(&self, waited: Duration) -> String {
        if waited <= self.budgets.document + Duration::from_secs(1) {
            return self.budget_note();
        }
        format!(
            "{} was still analysing after {:.1} s of work; results may be incomplete",
            self.spec.id,
            waited.as_secs_f64()
        )
    }
}

/// A server group working at least this share of one core counts as busy.
const BUSY_SHARE: f64 = 0.2;

/// The last look at a server group's processor time.
pub(super) struct CpuWatch {
    group: Option<u32>,
    last: Option<(Duration, Instant)>,
}

impl CpuWatch {
    /// Starts watching the process group `group` (the server's pid: each
    /// server leads a group of its own).
    pub(super) fn start(group: Option<u32>) -> CpuWatch {
        let last = group.and_then(group_cpu).map(|c| (c, Instant::now()));
        CpuWatch { group, last }
    }

    /// Whether the group used at least [`BUSY_SHARE`] of a core since the
    /// last look; `None` where `/proc` cannot say (not Linux).
    pub(super) fn busy(&mut self) -> Option<bool> {
        let now = self.group.and_then(group_cpu)?;
        let at = Instant::now();
        let busy = self.last.is_some_and(|(before, then)| {
            let wall = at.duration_since(then).as_secs_f64();
            wall > 0.0 && now.saturating_sub(before).as_secs_f64() >= BUSY_SHARE * wall
        });
        self.last = Some((now, at));
        Some(busy)
    }
}

/// The user and system time of every process in group `group`.
#[cfg(target_os = "linux")]
fn group_cpu(group: u32) -> Option<Duration> {
    // `/proc/PID/stat` counts in clock ticks of USER_HZ, 100 on every
    // Linux architecture sightline builds for.
    const TICKS_PER_SECOND: u64 = 100;
    let mut ticks = 0u64;
    let mut found = false;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name may hold spaces and parentheses: the fields
        // start after its last `)`.
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        // state ppid pgrp ... utime (11) stime (12), counted from the state.
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) != Some(group) {
            continue;
        }
        let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok());
        ticks += field(11).unwrap_or(0) + field(12).unwrap_or(0);
        found = true;
    }
    found.then(|| Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

#[cfg(not(target_os = "linux"))]
fn group_cpu(_group: u32) -> Option<Duration> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_spinning_group_is_busy_and_a_sleeping_one_is_not() {
        use std::os::unix::process::CommandExt;
        let mut busy = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let mut watch = CpuWatch::start(Some(busy.id()));
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(watch.busy(), Some(true), "a spinning shell is busy");
        let _ = busy.kill();
        let _ = busy.wait();
        let mut idle = std::process::Command::new("sleep")
            .arg("3")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut watch = CpuWatch::start(Some(idle.id()));
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(watch.busy(), Some(false), "a sleeping process is idle");
        let _ = idle.kill();
        let _ = idle.wait();
    }
}
