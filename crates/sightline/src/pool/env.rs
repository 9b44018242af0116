//! The variables of a client's environment that change what a server sees
//! (where Python, Go, Rust or Node find packages and toolchains), passed to
//! every server it starts. In process a server inherits them anyway; the
//! daemon serves clients whose environments differ, so each client's own
//! values go with its session, and a variable the client does not have is
//! removed rather than left at the daemon's.

/// The variables carried. `VIRTUAL_ENV` travels on its own (it also points
/// pyright at an interpreter), and `PATH` is the search path.
pub const SERVER_ENV: &[&str] = &[
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
    "GOPATH",
    "GOROOT",
    "GOFLAGS",
    "GOWORK",
    "GO111MODULE",
    "CARGO_HOME",
    "CARGO_TARGET_DIR",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUSTFLAGS",
    "NODE_PATH",
    "NODE_OPTIONS",
    "JAVA_HOME",
    "GEM_HOME",
    "GEM_PATH",
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "PKG_CONFIG_PATH",
    "VSCODE_EXTENSIONS",
];

/// Each of [`SERVER_ENV`] with its value, `None` when unset.
pub type ServerEnv = Vec<(String, Option<String>)>;

/// This process's [`SERVER_ENV`].
pub fn of_this_process() -> ServerEnv {
    SERVER_ENV
        .iter()
        .map(|k| {
            (
                (*k).to_owned(),
                std::env::var_os(k).map(|v| v.to_string_lossy().into_owned()),
            )
        })
        .collect()
}

/// `env` split into what to set and what to remove.
pub fn split(env: &ServerEnv) -> (Vec<(String, String)>, Vec<String>) {
    let set = env
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
        .collect();
    let unset = env
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.clone())
        .collect();
    (set, unset)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn set_and_unset_variables_are_split_apart() {
        let env = vec![
            ("PYTHONPATH".to_owned(), Some("/x".to_owned())),
            ("GOPATH".to_owned(), None),
        ];
        let (set, unset) = split(&env);
        assert_eq!(set, vec![("PYTHONPATH".to_owned(), "/x".to_owned())]);
        assert_eq!(unset, vec!["GOPATH".to_owned()]);
    }
}
