//! The daemon's log lines, kept under the log's bound as they are written.
//!
//! A line that would take `daemon.log` (`paths::log`) past
//! `paths::LOG_BYTES` first turns the file into `daemon.log.old`, the one
//! old file (replacing the one before), and starts a new one. The client
//! that starts the daemon opens the log and hands it over as the daemon's
//! stderr (`transport::start`); the daemon then writes its log lines
//! through [`Log`] rather than through that stderr, so that the file can be
//! replaced under it. On Unix the new file also becomes the daemon's stderr,
//! so that whatever else writes there (the runtime's last words on an abort)
//! lands in the current log; what such writers add past the bound is
//! rotated by `paths::bound_log` every 2 s, and a line written after that
//! goes to the new file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// An append-only log file that is rotated before a write would take it past
/// its bound. A line longer than the bound is cut to it.
pub struct Log {
    path: PathBuf,
    bound: u64,
    /// Whether a new file also replaces this process's stderr (on Unix;
    /// elsewhere the stderr the client handed over stays).
    #[cfg_attr(not(unix), allow(dead_code))]
    as_stderr: bool,
    file: Mutex<Option<File>>,
}

impl Log {
    /// A log at `path` that holds at most `bound` bytes, and one old file
    /// beside it ([`old_path`]).
    pub fn new(path: PathBuf, bound: u64) -> Log {
        Log {
            path,
            bound,
            as_stderr: false,
            file: Mutex::new(None),
        }
    }

    /// The log of a daemon started by a client (`daemon --ready-fd`), which
    /// handed it the log as stderr: the current file is then always also its
    /// stderr. Every other command line logs to its stderr as it is.
    pub fn of_started_daemon() -> Log {
        Log {
            as_stderr: true,
            ..Log::new(super::paths::log(), super::paths::LOG_BYTES)
        }
    }

    /// Appends `line` (one log event), rotating first if it would not fit.
    /// A log that cannot be written loses the line: logging never fails the
    /// daemon.
    fn append(&self, line: &[u8]) {
        let Ok(mut file) = self.file.lock() else {
            return;
        };
        let bound = usize::try_from(self.bound).unwrap_or(usize::MAX);
        let line = &line[..line.len().min(bound)];
        if !file.as_ref().is_some_and(|f| is_at(f, &self.path)) {
            // The first line, or the file was rotated by someone else
            // (`paths::bound_log`, another daemon): write to the one there.
            *file = open(&self.path);
        }
        // The length of the file itself, not a count of this process's own
        // writes: the client that started the daemon, and a daemon that
        // lost the race for the lock, append to the same file.
        let len = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map_or(0, |m| m.len());
        if len > 0 && len + line.len() as u64 > self.bound {
            *file = None;
            rotate(&self.path);
            *file = open(&self.path);
            #[cfg(unix)]
            if self.as_stderr
                && let Some(f) = file.as_ref()
            {
                use std::os::fd::AsRawFd;
                // SAFETY: dup2 onto descriptor 2 only makes it another
                // handle of the new file; the old one it replaces is this
                // process's stderr, which nothing owns as a Rust value.
                unsafe { libc::dup2(f.as_raw_fd(), 2) };
            }
        }
        if let Some(f) = file.as_mut() {
            let _ = f.write_all(line);
        }
    }
}

/// Where the one old file of the log at `path` is kept.
pub fn old_path(path: &Path) -> PathBuf {
    path.with_extension("log.old")
}

/// Makes the log at `path` its old file, replacing the one before.
fn rotate(path: &Path) {
    let _ = std::fs::rename(path, old_path(path));
}

/// Whether `file` is the file at `path` still.
#[cfg(unix)]
fn is_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Elsewhere only this writer rotates the log (`paths::bound_log` is Unix
/// only), so the file it opened is the one at `path`.
#[cfg(not(unix))]
fn is_at(_file: &File, _path: &Path) -> bool {
    true
}

fn open(path: &Path) -> Option<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .ok()
}

/// One log event's writer: the formatter hands it the whole line at once.
pub struct LineWriter<'a>(&'a Log);

impl Write for LineWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.append(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Log {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> LineWriter<'a> {
        LineWriter(self)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn size(path: &Path) -> u64 {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }

    #[test]
    fn the_log_stays_under_its_bound_with_one_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.log");
        // What an earlier daemon left: the new one appends to it.
        std::fs::write(&path, "an earlier line\n").unwrap();
        let log = Log::new(path.clone(), 100);
        let mut w = LineWriter(&log);
        for i in 0..40 {
            // One event is one write, as the formatter makes it.
            w.write_all(format!("line {i:02} of the daemon's log\n").as_bytes())
                .unwrap();
            assert!(size(&path) <= 100, "{} bytes after line {i}", size(&path));
            assert!(size(&old_path(&path)) <= 100);
        }
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Nothing of the newest lines is lost: the old file ends where the
        // current one starts.
        let old = std::fs::read_to_string(old_path(&path)).unwrap();
        let now = std::fs::read_to_string(&path).unwrap();
        let last = |text: &str| text.lines().last().unwrap().to_owned();
        let first_now: u32 = now.lines().next().unwrap()[5..7].parse().unwrap();
        let last_old: u32 = last(&old)[5..7].parse().unwrap();
        assert_eq!(first_now, last_old + 1, "{old}\n--\n{now}");
        assert_eq!(last(&now), "line 39 of the daemon's log");
    }

    #[cfg(unix)]
    #[test]
    fn a_log_rotated_by_someone_else_is_followed_not_rotated_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.log");
        let log = Log::new(path.clone(), 100);
        let mut w = LineWriter(&log);
        w.write_all(b"first\n").unwrap();
        // What `paths::bound_log` does: the file moves away, a new one starts.
        rotate(&path);
        std::fs::write(&path, "").unwrap();
        w.write_all(b"second\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second\n");
        assert_eq!(std::fs::read_to_string(old_path(&path)).unwrap(), "first\n");
    }

    #[test]
    fn a_line_longer_than_the_bound_is_cut_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.log");
        let log = Log::new(path.clone(), 10);
        let mut w = LineWriter(&log);
        w.write_all(b"0123456789abcdef\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "0123456789");
        w.write_all(b"next\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "next\n");
        assert_eq!(
            std::fs::read_to_string(old_path(&path)).unwrap(),
            "0123456789"
        );
    }
}
