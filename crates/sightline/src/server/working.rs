//! Whether a server visibly works on, so that a wait for it (a diagnostics
//! answer, its project's load, its index) goes on past its budget while it
//! makes progress, up to the server's ceiling, instead of ending on a clock.
//!
//! Work is any of: a message from the server since the last look (a
//! progress report, a status, a publish) or one still waiting to be read,
//! or its process group on the processor or *waiting to run* (Linux `/proc`: a server starved by a busy
//! machine is runnable, not idle, and reading only the time it ran took a
//! starved pyright for an idle one), or, where `/proc` cannot be read, a
//! work-done progress of its runs in flight. A progress merely left open is
//! no sign of work where the processor time can be read: a fake server's,
//! left open while it idled, kept answers waiting for nothing.
//! pyright sends no message at all while it checks a heavy module, and a
//! diagnostics answer that took its silence for idleness gave up "still
//! analysing" while it worked on.

use std::time::{Duration, Instant};

use crate::server::LspServer;

/// How far one look at visible work moves a wait's deadline.
const STEP: Duration = Duration::from_secs(1);

/// A wait bounded by the server's progress: it ends at its budget when the
/// server shows no work, else each look that saw work moves it on by
/// [`STEP`], never past the ceiling (`Budgets::ceiling` from the start).
pub(crate) struct Patience {
    started: tokio::time::Instant,
    budget: Duration,
    /// How many looks moved the deadline.
    moved: u32,
    deadline: tokio::time::Instant,
    ceiling: tokio::time::Instant,
    watch: WorkWatch,
}

impl Patience {
    /// When the wait ends unless the server shows work by then.
    pub(crate) fn deadline(&self) -> tokio::time::Instant {
        self.deadline
    }

    /// The latest the wait may end.
    pub(crate) fn ceiling(&self) -> tokio::time::Instant {
        self.ceiling
    }

    /// How long it has waited.
    pub(crate) fn waited(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether the wait ended about at its budget: the server showed no
    /// work then, or for at most one look more.
    pub(crate) fn within_budget(&self) -> bool {
        self.moved <= 1
    }

    /// The wait's budget.
    pub(crate) fn budget(&self) -> Duration {
        self.budget
    }

    /// Whether the wait reached its ceiling (not merely its budget).
    pub(crate) fn at_ceiling(&self) -> bool {
        tokio::time::Instant::now() >= self.ceiling
    }
}

impl LspServer {
    /// A wait of `budget` on this server, bounded by its progress.
    pub(crate) fn patience(&self, budget: Duration) -> Patience {
        let started = tokio::time::Instant::now();
        let ceiling = started + budget.max(self.budgets.ceiling);
        Patience {
            started,
            budget,
            moved: 0,
            deadline: (started + budget).min(ceiling),
            ceiling,
            watch: self.watch_work(),
        }
    }

    /// At or past `p`'s deadline: moves it on when the server worked since
    /// the last look, within the ceiling. Whether the wait goes on.
    pub(crate) fn keeps_working(&self, p: &mut Patience) -> bool {
        let now = tokio::time::Instant::now();
        if now < p.deadline {
            return true;
        }
        if now >= p.ceiling {
            return false;
        }
        if !self.worked(&mut p.watch) {
            tracing::debug!(
                "{}: no work seen after {:.1} s of waiting",
                self.spec.id,
                p.waited().as_secs_f64()
            );
            return false;
        }
        p.deadline = p.ceiling.min(now + STEP);
        p.moved += 1;
        true
    }

    /// Waits for `request` (asked with [`Self::request_ceiling`] as its own
    /// timeout) as long as the server works on: past `budget`, the wait
    /// ends at the first look (one a second) that saw no work since the
    /// one before; the request's own timeout is the ceiling. Ending it
    /// drops `request`, which cancels it on the server; the answer is then
    /// a timeout that says how long it waited. A starved server (one whose
    /// reply waits to be computed, written or read on a busy machine) is
    /// working, so its answer arrives, however late, instead of a "did not
    /// answer within 30 s". Nothing is looked at within the budget, where
    /// almost every answer arrives: a look reads `/proc`.
    pub(crate) async fn patiently<T>(
        &self,
        method: &str,
        budget: Duration,
        request: impl std::future::Future<Output = Result<T, sightline_lsp::ClientError>>,
    ) -> Result<T, sightline_lsp::ClientError> {
        let started = tokio::time::Instant::now();
        tokio::pin!(request);
        if let Ok(answer) = tokio::time::timeout(budget, &mut request).await {
            return answer;
        }
        // The first look compares with one a step after the budget.
        let mut patience = self.patience(STEP);
        loop {
            tokio::select! {
                answer = &mut request => return answer,
                () = tokio::time::sleep_until(patience.deadline()) => {
                    if !self.keeps_working(&mut patience) {
                        // A server that showed no work past the budget did
                        // not answer within the budget; one that worked on
                        // until it stopped, within all the time it had.
                        let after = if patience.within_budget() {
                            budget
                        } else {
                            started.elapsed()
                        };
                        return Err(sightline_lsp::ClientError::Timeout {
                            server: self.spec.id.to_owned(),
                            method: method.to_owned(),
                            after,
                        });
                    }
                }
            }
        }
    }

    /// The timeout a request waited for by [`Self::patiently`] is sent
    /// with: the ceiling, which only a server that works without end
    /// reaches.
    pub(crate) fn request_ceiling(&self, budget: Duration) -> Duration {
        budget.max(self.budgets.ceiling)
    }

    fn watch_work(&self) -> WorkWatch {
        WorkWatch {
            cpu: CpuWatch::start(self.pid()),
            last_message: self.state.with(|s| s.last_message_at),
        }
    }

    /// Whether the server worked since the last look at `w`.
    fn worked(&self, w: &mut WorkWatch) -> bool {
        let message = self.state.with(|s| s.last_message_at);
        let heard = message != w.last_message;
        w.last_message = message;
        // Read every time, so that the next look measures from now.
        let cpu = w.cpu.busy();
        let unhandled = self.client.has_unhandled_output();
        // A request of this server that another answers is this server's
        // work (vue-language-server's TypeScript questions, which tsserver
        // works on while vue's own process idles).
        let relaying = self.state.with(|s| s.relaying) > 0;
        tracing::debug!(
            "{}: a look at its work: heard {heard}, unhandled output {unhandled}, relaying {relaying}, processor {cpu:?}",
            self.spec.id
        );
        // A server that wrote its last message and went idle is not done
        // while that message waits for a reader starved of the processor:
        // the daemon shares the server's scheduling group, so a busy
        // machine starves both, and the server may finish first.
        heard
            || unhandled
            || relaying
            || cpu.unwrap_or_else(|| {
                let background = self.spec.quirks.background_progress;
                self.state.with(|s| {
                    s.progress
                        .running
                        .values()
                        .any(|title| !background.contains(&title.as_str()))
                })
            })
    }

    /// The note of a diagnostics answer that waited `p` and was still not
    /// complete: the budget's, or how long the server worked past it.
    pub(super) fn waited_note(&self, p: &Patience) -> String {
        let waited = p.waited();
        if p.within_budget() {
            return self.budget_note();
        }
        let ceiling = if p.at_ceiling() {
            format!(
                " (the ceiling, `lsp.{}.diagnostics.ceiling_ms`)",
                self.spec.id
            )
        } else {
            String::new()
        };
        format!(
            "{} was still analysing after {:.1} s of work{ceiling}; results may be incomplete",
            self.spec.id,
            waited.as_secs_f64()
        )
    }
}

/// What the last look at a server's work saw.
struct WorkWatch {
    cpu: CpuWatch,
    last_message: Option<Instant>,
}

/// A server group on the processor, or waiting for it, at least this share
/// of one core counts as busy.
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
        let last = group.and_then(group_cpu).map(|c| (c.spent, Instant::now()));
        CpuWatch { group, last }
    }

    /// Whether the group ran or waited to run at least [`BUSY_SHARE`] of a
    /// core since the last look, or a thread of it is runnable now; `None`
    /// where `/proc` cannot say (not Linux).
    pub(super) fn busy(&mut self) -> Option<bool> {
        let now = self.group.and_then(group_cpu)?;
        let at = Instant::now();
        let busy = self.last.is_some_and(|(before, then)| {
            let wall = at.duration_since(then).as_secs_f64();
            wall > 0.0 && now.spent.saturating_sub(before).as_secs_f64() >= BUSY_SHARE * wall
        });
        self.last = Some((now.spent, at));
        Some(busy || now.runnable)
    }
}

/// A look at a process group's use of the processor.
struct GroupCpu {
    /// The time its processes spent on the processor (user and system) and
    /// waiting on a run queue for it.
    spent: Duration,
    /// Whether a thread of it is running or runnable now. The kernel adds a
    /// thread's wait to its count only once the thread runs again, and a
    /// thread starved hard enough (a scheduling group niced to 19 against a
    /// spinning one) ran less than once a second: its count stood still
    /// while it waited.
    runnable: bool,
}

/// How the processes of group `group` use the processor.
#[cfg(target_os = "linux")]
fn group_cpu(group: u32) -> Option<GroupCpu> {
    // `/proc/PID/stat` counts in clock ticks of USER_HZ, 100 on every
    // Linux architecture sightline builds for.
    const TICKS_PER_SECOND: u64 = 100;
    let mut ticks = 0u64;
    let mut waited = Duration::ZERO;
    let mut runnable = false;
    let mut found = false;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let fields = stat_fields(&stat);
        // state ppid pgrp ... utime (11) stime (12), counted from the state.
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) != Some(group) {
            continue;
        }
        let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok());
        ticks += field(11).unwrap_or(0) + field(12).unwrap_or(0);
        let threads = threads_of(&entry.path());
        waited += threads.waited;
        runnable |= threads.runnable;
        found = true;
    }
    found.then(|| GroupCpu {
        spent: Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND) + waited,
        runnable,
    })
}

/// The fields of a `/proc` `stat` line from the state on: the command name
/// may hold spaces and parentheses, so they start after its last `)`.
#[cfg(target_os = "linux")]
fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rsplit_once(')')
        .map(|(_, fields)| fields.split_whitespace().collect())
        .unwrap_or_default()
}

/// What the threads of one process say of the run queue.
#[cfg(target_os = "linux")]
struct Threads {
    /// The time they spent runnable but not running: the second field of
    /// each `/proc/PID/task/TID/schedstat`, in nanoseconds (0 where the
    /// kernel keeps no such count).
    waited: Duration,
    /// Whether one of them is running or runnable (state `R`).
    runnable: bool,
}

#[cfg(target_os = "linux")]
fn threads_of(proc_dir: &std::path::Path) -> Threads {
    let mut threads = Threads {
        waited: Duration::ZERO,
        runnable: false,
    };
    let Ok(tasks) = std::fs::read_dir(proc_dir.join("task")) else {
        return threads;
    };
    for task in tasks.flatten() {
        if let Some(nanos) = std::fs::read_to_string(task.path().join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        {
            threads.waited += Duration::from_nanos(nanos);
        }
        if let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) {
            threads.runnable |= stat_fields(&stat).first() == Some(&"R");
        }
    }
    threads
}

#[cfg(not(target_os = "linux"))]
fn group_cpu(_group: u32) -> Option<GroupCpu> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn spin_in_own_group(prefix: &[&str]) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let mut argv: Vec<&str> = prefix.to_vec();
        argv.extend(["sh", "-c", "while :; do :; done"]);
        std::process::Command::new(argv[0])
            .args(&argv[1..])
            .process_group(0)
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_spinning_group_is_busy_and_a_sleeping_one_is_not() {
        use std::os::unix::process::CommandExt;
        let mut busy = spin_in_own_group(&[]);
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

    /// A group starved of the processor (niced to 19 and pinned to the one
    /// core a spinning hog holds) runs about 1.5 % of the time: by its
    /// processor time alone it looked idle, while it is runnable all along.
    #[test]
    fn a_starved_group_waiting_to_run_is_busy() {
        let mut hog = spin_in_own_group(&["taskset", "-c", "0"]);
        let mut starved = spin_in_own_group(&["taskset", "-c", "0", "nice", "-n", "19"]);
        // Both spinning on core 0: let the scheduler settle first.
        std::thread::sleep(Duration::from_millis(300));
        let mut watch = CpuWatch::start(Some(starved.id()));
        let ran_before = ran(starved.id());
        std::thread::sleep(Duration::from_millis(1500));
        let busy = watch.busy();
        let ran = ran(starved.id()).saturating_sub(ran_before);
        for c in [&mut hog, &mut starved] {
            let _ = c.kill();
            let _ = c.wait();
        }
        assert!(
            ran < Duration::from_millis(300),
            "the niced spinner ran {ran:?} of 1.5 s: it was not starved, so this test shows nothing"
        );
        assert_eq!(busy, Some(true), "a starved spinner is working");
    }

    /// The processor time of process `pid` alone (what the old look read).
    fn ran(pid: u32) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }
}
