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
    /// The directory the variable `var` names, when it is set and not
    /// empty; else `$XDG_CACHE_HOME/NAME`, else `~/.cache/NAME`, on macOS
    /// too (uv's, which does not use `~/Library/Caches`).
    VarOr {
        var: &'static str,
        name: &'static str,
    },
    /// A directory in the home directory: `~/NAME`.
    Home(&'static str),
    /// Cargo's home: `$CARGO_HOME`, else `~/.cargo`.
    CargoHome,
}

impl Cache {
    /// Where the directory is for this user, read from `env` (a client's
    /// variables, as `pool::env` carries them: `None` for one it does not
    /// have) where it names the variable, else from this process's
    /// environment; none without a home directory.
    pub fn path(self, env: &[(String, Option<String>)]) -> Option<PathBuf> {
        let var = |name: &str| match env.iter().find(|(k, _)| k == name) {
            Some((_, v)) => v.clone().map(std::ffi::OsString::from),
            None => std::env::var_os(name),
        };
        let home = dirs::home_dir()?;
        Some(match self {
            Cache::User(name) => dirs::cache_dir()
                .unwrap_or_else(|| home.join(".cache"))
                .join(name),
            Cache::VarOr { var: v, name } => {
                let set = |k: &str| var(k).filter(|x| !x.is_empty()).map(PathBuf::from);
                set(v).unwrap_or_else(|| {
                    set("XDG_CACHE_HOME")
                        .unwrap_or_else(|| home.join(".cache"))
                        .join(name)
                })
            }
            Cache::Home(name) => home.join(name),
            Cache::CargoHome => {
                var("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from)
            }
        })
    }
}

/// The paths of `caches` for a child given `env` (see [`Cache::path`]), in
/// order.
pub fn cache_paths(caches: &[Cache], env: &[(String, Option<String>)]) -> Vec<PathBuf> {
    caches.iter().filter_map(|c| c.path(env)).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn cargo_home_follows_the_client_s_environment_not_this_process_s() {
        let home = dirs::home_dir().unwrap();
        let theirs = vec![("CARGO_HOME".to_owned(), Some("/opt/cargo".to_owned()))];
        assert_eq!(
            Cache::CargoHome.path(&theirs),
            Some(PathBuf::from("/opt/cargo"))
        );
        // A client without the variable gets cargo's default, whatever this
        // process has.
        let unset = vec![("CARGO_HOME".to_owned(), None)];
        assert_eq!(Cache::CargoHome.path(&unset), Some(home.join(".cargo")));
    }

    #[test]
    fn uv_s_cache_is_its_variable_s_else_the_xdg_cache_s_else_home_s() {
        let uv = Cache::VarOr {
            var: "UV_CACHE_DIR",
            name: "uv",
        };
        let env = |uv: Option<&str>, xdg: Option<&str>| {
            vec![
                ("UV_CACHE_DIR".to_owned(), uv.map(str::to_owned)),
                ("XDG_CACHE_HOME".to_owned(), xdg.map(str::to_owned)),
            ]
        };
        let at = |p: &str| Some(PathBuf::from(p));
        assert_eq!(uv.path(&env(Some("/opt/uv"), Some("/x"))), at("/opt/uv"));
        // Empty is unset, as uv takes it.
        assert_eq!(uv.path(&env(Some(""), Some("/x"))), at("/x/uv"));
        assert_eq!(uv.path(&env(None, Some("/x"))), at("/x/uv"));
        let home = dirs::home_dir().unwrap();
        assert_eq!(uv.path(&env(None, None)), Some(home.join(".cache/uv")));
    }
}
