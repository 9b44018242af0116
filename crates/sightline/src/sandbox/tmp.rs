//! Private temporary directories, one per child, under the data directory;
//! and the environment that points a child's scratch space into its own.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Removes private temporary directories left by sightline processes that
/// no longer run (killed before they could clean up). Names end in
/// `-PID-N`.
fn sweep_stale_tmps() {
    static SWEPT: OnceLock<()> = OnceLock::new();
    SWEPT.get_or_init(|| {
        let Ok(entries) = std::fs::read_dir(crate::files::data_dir().join("tmp")) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
}

/// A private temporary directory for one child, made now.
pub fn private_tmp(name: &str) -> PathBuf {
    sweep_stale_tmps();
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = crate::files::data_dir().join("tmp").join(format!(
        "{}-{}-{n}",
        name.replace([' ', '/'], "-"),
        std::process::id()
    ));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The environment that points a child's scratch space into its private
/// temporary directory `tmp`: `TMPDIR`, and each of `inside` (a variable and
/// a directory under `tmp`), which the server table sets for a server that
/// keeps state elsewhere (Biome's daemon and its socket).
pub fn private_env(tmp: &Path, inside: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = vec![("TMPDIR".to_owned(), tmp.display().to_string())];
    for (var, dir) in inside {
        env.push(((*var).to_owned(), tmp.join(dir).display().to_string()));
    }
    env
}
