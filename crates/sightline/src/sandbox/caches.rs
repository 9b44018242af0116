//! The cache directories a child is known to write besides its workspace,
//! named by where they live. The server and formatter tables list them;
//! the sandbox makes them writable (and the launcher makes them exist before
//! the rules are built, since Landlock skips paths that do not).

use std::path::PathBuf;

/// A cache directory, named by where it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// A directory in the user's cache directory: `~/.cache/NAME`.
    User(&'static str),
    /// A directory in the home directory: `~/NAME`.
    Home(&'static str),
    /// Cargo's home: `$CARGO_HOME`, else `~/.cargo`.
    CargoHome,
}

impl Cache {
    /// Where the directory is for this user; none without a home directory.
    pub fn path(self) -> Option<PathBuf> {
        let home = dirs::home_dir()?;
        Some(match self {
            Cache::User(name) => dirs::cache_dir()
                .unwrap_or_else(|| home.join(".cache"))
                .join(name),
            Cache::Home(name) => home.join(name),
            Cache::CargoHome => {
                std::env::var_os("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from)
            }
        })
    }
}

/// The paths of `caches`, in order.
pub fn cache_paths(caches: &[Cache]) -> Vec<PathBuf> {
    caches.iter().filter_map(|c| c.path()).collect()
}
