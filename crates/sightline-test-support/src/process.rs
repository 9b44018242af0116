//! Processes: the descendants of a process, whether one is alive, and this
//! process's resident memory.

/// Every process whose parent chain leads to `pid`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces.
        let Some(after) = stat.rsplit_once(')').map(|(_, a)| a.to_owned()) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if let Some(ppid) = fields.get(1).and_then(|f| f.parse::<u32>().ok()) {
            parents.push((p, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for &(p, pp) in &parents {
            if pp == parent && !out.contains(&p) {
                out.push(p);
                frontier.push(p);
            }
        }
    }
    out
}

pub fn alive(pid: u32) -> bool {
    // A zombie has exited; it only waits to be reaped.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, a)| a.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Resident memory of this process, in KiB.
pub fn rss_kib() -> u64 {
    rss_kib_of(std::process::id()).unwrap()
}

/// The resident memory of process `pid` in KiB, or `None` once it is gone.
pub fn rss_kib_of(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Processes that spin on the cores until dropped, as a laptop's other
/// work loads them (one per core asked for). Each runs in a session of its
/// own: with Linux's autogroup scheduling a session shares the CPU as one,
/// so loops in the bench's or test's own session would starve only what
/// that session runs (a direct client's server) and spare a daemon, which
/// runs in a session of its own.
pub struct BusyLoops(Vec<std::process::Child>);

impl BusyLoops {
    /// Starts `n` busy loops.
    pub fn start(n: usize) -> BusyLoops {
        BusyLoops(
            (0..n)
                .map(|_| {
                    let mut loop_ = std::process::Command::new("sh");
                    loop_
                        .args(["-c", "while :; do :; done"])
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null());
                    #[cfg(unix)]
                    {
                        use std::os::unix::process::CommandExt;
                        // SAFETY: setsid is async-signal-safe and touches no
                        // memory of the parent's.
                        unsafe {
                            loop_.pre_exec(|| {
                                libc::setsid();
                                Ok(())
                            });
                        }
                    }
                    loop_.spawn().expect("sh starts")
                })
                .collect(),
        )
    }
}

impl Drop for BusyLoops {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs `cmd` to its end, which must be a success (its stderr says why
/// not): its output.
pub fn succeeded(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd.get_program(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
