//! What the table says about each language server: which files it serves,
//! how to start it, how to get it, and how it joins the other servers of a
//! file.

use std::path::Path;

use crate::catalog::quirks::Quirks;
use crate::files::extension_of;

/// An npm package pinned to the version sightline installs.
#[derive(Debug, Clone, Copy)]
pub struct NpmPackage {
    /// The package.
    pub name: &'static str,
    /// Its pinned version.
    pub version: &'static str,
}

/// How a server's workspace root is found for a file. Markers may be globs
/// (`*.csproj`), matched against the names in each directory.
#[derive(Debug, Clone, Copy)]
pub enum RootRule {
    /// The nearest directory holding a marker; with none, the default root.
    /// An `exclude` marker found first on the way up means the server does
    /// not attach.
    Nearest {
        /// The markers, nearest first on the way up.
        markers: &'static [&'static str],
        /// Markers that keep the server away when found first.
        exclude: &'static [&'static str],
    },
    /// The root of the workspace (`crate::workspaces`) whose packages hold
    /// the file, for a server that answers across the projects it holds;
    /// outside a workspace, as `Nearest`.
    Workspace {
        /// The package managers whose workspaces count.
        ecosystem: crate::workspaces::Ecosystem,
        /// The markers, nearest first on the way up.
        markers: &'static [&'static str],
        /// Markers that keep the server away when found first.
        exclude: &'static [&'static str],
    },
    /// The nearest directory holding a marker; with none, do not attach.
    Strict {
        /// The markers.
        markers: &'static [&'static str],
    },
    /// rust-analyzer: the nearest `Cargo.toml`, then the topmost ancestor
    /// whose `Cargo.toml` declares `[workspace]`.
    CargoWorkspace,
    /// gopls: the nearest `go.work`, else the nearest `go.mod`.
    Go,
    /// jdtls: the Gradle root (settings or wrapper, then build file), else
    /// the top of the Maven module chain, else Eclipse's `.project`; strict.
    Java,
    /// kotlin-ls: Gradle settings, wrapper, build file, then `pom.xml`.
    Gradle,
    /// nixd: the nearest `flake.nix`, else the git root.
    Nix,
    /// Always the default root (the workspace, or the project around the file).
    Default,
    /// One root for the whole repository: the workspace, else the git
    /// root, else the default root. For a server that reads each file on
    /// its own, with nothing of a project's to load, so that a root per
    /// package would only start more of the same process (`check` of a
    /// 60-package monorepo started 60 JSON servers, 4 GiB).
    Repository,
}

/// How sightline gets a server that is not found.
#[derive(Debug, Clone, Copy)]
pub enum Install {
    /// Only used when found (project `node_modules/.bin`, PATH).
    Path,
    /// npm packages installed together at pinned versions.
    Npm(&'static [NpmPackage]),
    /// A PyPI package at a pinned version, in a virtualenv of its own.
    Pypi {
        /// The package.
        package: &'static str,
        /// Its pinned version.
        version: &'static str,
    },
    /// A toolchain command (rustup, go, gem, dotnet) that provides the server.
    Toolchain(&'static [&'static str]),
    /// A release download, which sightline does not automate; the text says
    /// where to get it.
    Download(&'static str),
}

/// How a server joins the servers of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The language's server: asked every question, installed on demand.
    Primary,
    /// Another server for a language that has one already (ty, basedpyright,
    /// TypeScript 7): off unless the configuration turns it on.
    Alternative,
    /// A linter that speaks LSP (eslint, biome, oxlint): adds diagnostics
    /// when it is found, and is never installed on its own.
    Linter,
}

/// One language server, as data.
#[derive(Debug)]
pub struct ServerSpec {
    /// The id: the configuration key and the name in messages.
    pub id: &'static str,
    /// The language family named in messages ("Python").
    pub language: &'static str,
    /// The extensions it serves, with their dot.
    pub extensions: &'static [&'static str],
    /// Whole file names, for files without an extension (`Dockerfile`).
    pub file_names: &'static [&'static str],
    /// The executable looked up in the project, on PATH and in the install
    /// directory.
    pub command: &'static str,
    /// Its arguments.
    pub args: &'static [&'static str],
    /// How its root is found for a file.
    pub root: RootRule,
    /// How sightline gets it when it is missing.
    pub install: Install,
    /// `initializationOptions`, as JSON text.
    pub init: &'static str,
    /// How it joins the other servers of a file.
    pub role: Role,
    /// How it differs from the protocol's defaults.
    pub quirks: Quirks,
    /// The server may open internet sockets. Off for every built-in: a
    /// server reads the project and some run its code (rust-analyzer its
    /// build scripts and proc macros, ESLint its config), and a cloned
    /// project must not make them talk to the network. A user whose cargo or
    /// go must download dependencies sets the entry's `network`.
    pub network: bool,
    /// Documents kept open at once; the least recently used beyond this are
    /// closed. An open document costs the server work after every change
    /// (typescript-language-server asks tsserver for the diagnostics of
    /// every open file; pyright re-checks them), and reopening one costs a
    /// `didOpen`. The replay benchmark (docs/benchmarks.md, "Replay") found no server
    /// faster with 32 than with 8, so every entry keeps `BASE`'s 8; the
    /// library's `Options::server_budgets` may override it.
    pub open_documents: usize,
}

/// A server with nothing set; the table in `builtin` fills in what differs.
pub const BASE: ServerSpec = ServerSpec {
    id: "",
    language: "",
    extensions: &[],
    file_names: &[],
    command: "",
    args: &[],
    root: RootRule::Default,
    install: Install::Path,
    init: "{}",
    role: Role::Primary,
    quirks: Quirks::NONE,
    network: false,
    open_documents: 8,
};

impl ServerSpec {
    /// The command a person would run to install this server by hand.
    pub fn install_command(&self) -> String {
        match self.install {
            Install::Npm(pkgs) => {
                let pkgs: Vec<String> = pkgs
                    .iter()
                    .map(|p| format!("{}@{}", p.name, p.version))
                    .collect();
                format!("npm install -g {}", pkgs.join(" "))
            }
            Install::Pypi { package, version } => format!("pip install {package}=={version}"),
            Install::Toolchain(argv) => argv
                .iter()
                .map(|a| {
                    // Quoted the way a shell needs it.
                    if a.chars()
                        .all(|c| c.is_alphanumeric() || "-_./@=:#".contains(c))
                    {
                        a.to_string()
                    } else {
                        format!("'{}'", a.replace('\'', r"'\''"))
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            Install::Download(from) => format!("download it from {from}"),
            Install::Path => format!("put `{}` on PATH", self.command),
        }
    }

    /// Whether sightline can install it by itself.
    pub fn installable(&self) -> bool {
        matches!(
            self.install,
            Install::Npm(_) | Install::Pypi { .. } | Install::Toolchain(_)
        )
    }

    /// Whether it serves `path`, by extension or by file name.
    pub fn handles(&self, path: &Path) -> bool {
        if let Some(e) = extension_of(path)
            && self.extensions.contains(&e.as_str())
        {
            return true;
        }
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| self.file_names.contains(&n))
    }
}
