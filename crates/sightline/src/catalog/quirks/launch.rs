//! What a server needs to start: its runtime, caches, environment, startup
//! options and arguments, and how its build tool reaches dependencies
//! without the network.

use std::path::Path;

use serde_json::Value;

use crate::sandbox::Cache;

/// What a server needs to start.
#[derive(Debug, Clone, Copy)]
pub struct LaunchQuirks {
    /// A runtime the server needs at a minimum version, checked before it
    /// starts.
    pub runtime: Option<Runtime>,
    /// Cache directories the server writes, which the sandbox lets it write.
    pub caches: &'static [Cache],
    /// Variables pointed at a directory inside the server's private
    /// temporary directory, as (variable, directory).
    pub private_env: &'static [(&'static str, &'static str)],
    /// Makes the server's `initializationOptions` for a root and the program
    /// found, in place of the spec's `init` text; an `Err` is why the server
    /// cannot start there (the text of the `unavailable:` answer).
    pub init_options: Option<InitOptions>,
    /// Arguments found at launch, after the spec's, from the client's
    /// environment (`pool::env`); an `Err` is why the server cannot start.
    pub extra_args: Option<ExtraArgs>,
    /// The settings answered when the server asks for its whole
    /// configuration (`workspace/configuration` with the section "" or
    /// none), given the server's root, for a server that fails on `{}`.
    pub whole_settings: Option<fn(&Path) -> Value>,
    /// A rustup component whose proxy rustup puts on PATH: the proxy fails
    /// until the component is added, so a proxy without it is not taken for
    /// the server.
    pub rustup_component: Option<&'static str>,
    /// Extensions the server handles only with a plugin, and how to find
    /// the plugin for a root and the program; without it they are left to
    /// the other servers.
    pub plugin_extensions: Option<PluginExtensions>,
    /// How its build tool resolves dependencies without the network, and
    /// the one command that fetches them when its cache does not hold them.
    pub offline: Option<Offline>,
}

/// A server whose build tool reads a package registry to load a project
/// (rust-analyzer's `cargo metadata`, gopls's `go list`), run without the
/// network (see `ServerSpec::network`): the variables that make the tool
/// resolve from its local cache at once, and what it says when the cache
/// does not hold what it needs, answered at once with the one command that
/// fills it, instead of a wait that never ends.
#[derive(Debug, Clone, Copy)]
pub struct Offline {
    /// Set in the server's environment when it has no network.
    pub env: &'static [(&'static str, &'static str)],
    /// Text of the server's load failure that means the cache lacks a
    /// dependency.
    pub missing: &'static [&'static str],
    /// Text of a failure (a paragraph of the status) that is not the
    /// project's own and that the server gets over by itself.
    pub not_the_project: &'static [&'static str],
    /// The command that fills the cache, run in the project.
    pub fetch: &'static str,
}

/// `LaunchQuirks::extra_args`: the client's environment (each variable that
/// `pool::env` carries, with its value or none) to the arguments.
pub type ExtraArgs = fn(&[(String, Option<String>)]) -> Result<Vec<String>, String>;

/// `LaunchQuirks::init_options`: the project root and the program found
/// for it.
pub type InitOptions = fn(&Path, &Path) -> Result<Value, String>;

/// See `LaunchQuirks::plugin_extensions`.
#[derive(Debug, Clone, Copy)]
pub struct PluginExtensions {
    /// The extensions, with their dot.
    pub extensions: &'static [&'static str],
    /// Whether the plugin is there, for the root and the program found.
    pub found: fn(&Path, &Path) -> bool,
}

/// A runtime a server needs (see `LaunchQuirks::runtime`).
#[derive(Debug, Clone, Copy)]
pub struct Runtime {
    /// Its name in messages (`Java`).
    pub name: &'static str,
    /// The program (`java`).
    pub program: &'static str,
    /// The arguments that make it print its version (`-version`).
    pub version_args: &'static [&'static str],
    /// The oldest major version the server runs on.
    pub min_major: u32,
}

impl LaunchQuirks {
    /// Nothing beyond the spec.
    pub const NONE: LaunchQuirks = LaunchQuirks {
        runtime: None,
        caches: &[],
        private_env: &[],
        init_options: None,
        extra_args: None,
        whole_settings: None,
        rustup_component: None,
        plugin_extensions: None,
        offline: None,
    };
}
