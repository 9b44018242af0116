//! Child-process lifetime on Unix: every child runs in its own process
//! group and dies with us even when we are killed with SIGKILL.
//!
//! Two mechanisms make that hold on Linux. `PR_SET_PDEATHSIG` kills the direct child when
//! the thread that forked it dies; since that is the forking *thread*, children
//! are forked from one dedicated thread that lives as long as the process (tokio's
//! blocking threads exit when idle and would take servers with them). Helpers a
//! server forks itself (tsserver under typescript-language-server, workers under
//! pyright) are not covered by that signal, so a tiny reaper process holds the
//! read end of a pipe: when we die for any reason the kernel closes our end, the
//! reaper reads EOF and kills every process group still registered. macOS has
//! no parent-death signal: there the reaper, a watchdog on our pipe, is what
//! kills the groups.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

use tokio::process::{Child, Command};

type Job = Box<dyn FnOnce() + Send>;

fn spawner() -> Option<&'static Mutex<mpsc::Sender<Job>>> {
    static SPAWNER: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("sightline-spawner".into())
                .spawn(move || {
                    while let Ok(job) = rx.recv() {
                        job();
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

/// Spawns `cmd` in a new process group with a parent-death signal, registering
/// the group with the reaper. Must be called inside a tokio runtime.
pub async fn spawn_group(mut cmd: Command) -> std::io::Result<Child> {
    cmd.process_group(0).kill_on_drop(true);
    // SAFETY: the closure runs between fork and exec and only makes the
    // async-signal-safe `prctl` and `getppid` calls.
    #[cfg(target_os = "linux")]
    unsafe {
        let parent = libc::getpid();
        cmd.pre_exec(move || {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            // The parent may have died before prctl took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _guard = handle.enter();
        let _ = tx.send(cmd.spawn());
    });
    match spawner() {
        Some(s) => {
            let sent = s.lock().map(|s| s.send(job).is_ok()).unwrap_or(false);
            if !sent {
                return Err(std::io::Error::other("spawner thread is gone"));
            }
        }
        // Without a spawner thread, fork here; PDEATHSIG then follows this thread.
        None => job(),
    }
    let child = rx
        .await
        .map_err(|_| std::io::Error::other("spawner dropped the job"))??;
    if let Some(pid) = child.id() {
        reaper_send(&format!("+{pid}\n"));
    }
    Ok(child)
}

/// Kills a whole process group and tells the reaper to forget it.
pub fn kill_group(pgid: u32) {
    // SAFETY: kill(2) with a negative pid signals the group; no memory is shared.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), libc::SIGKILL);
    }
    reaper_send(&format!("-{pgid}\n"));
}

/// Kills one process (not its group).
pub fn kill_pid(pid: u32) {
    // SAFETY: kill(2) signals one process; no memory is shared.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// How many bytes wait unread in the pipe `fd` (0 when it cannot say).
pub fn unread_bytes(fd: i32) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which lives for
    // the call; the caller keeps `fd` open across it.
    let ok = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) } == 0;
    if ok {
        usize::try_from(n).unwrap_or(0)
    } else {
        0
    }
}

/// Whether any process of the group is still alive.
pub fn group_alive(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    unsafe { libc::kill(-(pgid as libc::pid_t), 0) == 0 }
}

/// The reaper is POSIX sh so it needs nothing of ours on disk, which keeps it
/// usable from the library as well as from the binary. It keeps a list of
/// process groups (`+PGID` adds, `-PGID` removes) and kills them all at EOF.
const REAPER_SCRIPT: &str = r#"l=
while read -r x; do
  case "$x" in
    +*) l="$l ${x#+}" ;;
    -*) n=; for g in $l; do [ "$g" = "${x#-}" ] || n="$n $g"; done; l=$n ;;
  esac
done
for g in $l; do kill -s KILL -- "-$g" 2>/dev/null; done"#;

fn reaper() -> Option<&'static Mutex<std::process::ChildStdin>> {
    static REAPER: OnceLock<Option<Mutex<std::process::ChildStdin>>> = OnceLock::new();
    REAPER
        .get_or_init(|| {
            use std::os::unix::process::CommandExt;
            let mut cmd = std::process::Command::new("/bin/sh");
            cmd.arg("-c")
                .arg(REAPER_SCRIPT)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own group, so that a terminal's Ctrl-C to our group does not
                // kill it before it can clean up after us.
                .process_group(0);
            match cmd.spawn() {
                Ok(mut child) => {
                    let stdin = child.stdin.take();
                    // The reaper outlives this handle on purpose; it is reaped by
                    // init after it has done its job.
                    std::mem::forget(child);
                    stdin.map(Mutex::new)
                }
                Err(e) => {
                    tracing::warn!("could not start the process reaper: {e}");
                    None
                }
            }
        })
        .as_ref()
}

fn reaper_send(line: &str) {
    if let Some(r) = reaper()
        && let Ok(mut stdin) = r.lock()
    {
        let _ = stdin.write_all(line.as_bytes());
        let _ = stdin.flush();
    }
}
