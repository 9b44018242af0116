//! The built-in language servers of the contract: which extensions each one
//! serves, how to start it, how to get it, and the quirks that decide when its
//! answers can be trusted.

use std::path::Path;
use std::time::Duration;

/// Per-server behaviour that the engine needs to know to give complete answers.
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// pyright and ty list `from m import f as g` (rust-analyzer `use m::f as
    /// g;`) among the references of `f` but not the later uses of `g`, so
    /// references of the alias are asked for too.
    pub follow_import_alias: bool,
    /// typescript-language-server (tsserver) answers only for open files, and
    /// answers `definition` on an import alias with the alias itself until the
    /// project is loaded; its first `publishDiagnostics` for a file marks that.
    pub ready_on_first_publish: bool,
    /// pyright answers `references` before it has enumerated the workspace and
    /// returns partial lists until it logs this text.
    pub ready_log: Option<&'static str>,
    /// tsserver publishes syntax-only diagnostics first after opening a file.
    pub first_publish_is_partial: bool,
    /// rust-analyzer answers every question (definition, references, pulled
    /// diagnostics) with empty results until it has loaded the Cargo
    /// workspace, and says when it has: its first `experimental/serverStatus`
    /// with `quiescent: true`. (jdtls's `ServiceReady` in `language/status`
    /// is recorded the same way, but jdtls cannot be run here to confirm
    /// that it needs the wait, so it does not have this quirk.)
    pub ready_on_status: bool,
    /// rust-analyzer runs `cargo check` only when told a file was saved,
    /// and its own analysis misses what only rustc reports (overflowing
    /// literals, borrow errors). A file sightline reads is saved on disk, so
    /// it sends `didSave`, and a diagnostics answer waits for the check: the
    /// work-done progress whose title starts with this (`cargo check`, or
    /// `cargo clippy` when so configured) that began after the change.
    pub check_on_save: Option<&'static str>,
    /// Servers that index a whole project only when a file names it
    /// (tsserver: `tsconfig.json`/`jsconfig.json`; clangd:
    /// `compile_commands.json`) see a file outside every such project with
    /// only the open files around it. For such a file, references and
    /// incoming calls are asked with the files that mention the name open
    /// (see `loose`).
    pub loose_files: Option<LooseFiles>,
    /// Biome answers a file opened before it has scanned its project with
    /// an empty publish, then the real one once its scan ends (work-done
    /// progress with this title). No file is opened before that.
    pub ready_after_progress: Option<&'static str>,
    /// Work-done progress (by exact title) that is background work no
    /// question waits for. pyright reports its checking of open files as
    /// progress titled "" ("7 files to analyze"); when diagnostics are pulled
    /// it may not end that progress for as long as files stay open, and
    /// references never depend on it, so it is not indexing.
    pub background_progress: &'static [&'static str],
    /// The server runs code the project ships: ESLint loads the project's
    /// own `eslint` and its `eslint.config.js`. Such a linter joins a
    /// project on its own only once the project is trusted.
    pub runs_project_code: bool,
}

impl Quirks {
    /// A server that needs no special handling.
    pub const NONE: Quirks = Quirks {
        follow_import_alias: false,
        ready_on_first_publish: false,
        ready_log: None,
        first_publish_is_partial: false,
        ready_on_status: false,
        check_on_save: None,
        loose_files: None,
        ready_after_progress: None,
        background_progress: &[],
        runs_project_code: false,
    };
}

/// How a server that indexes whole projects treats a file outside them.
#[derive(Debug, Clone, Copy)]
pub struct LooseFiles {
    /// The files that make a project, looked for from the file's directory
    /// up to the root.
    pub project: &'static [&'static str],
    /// The server takes in an opened file only once it has built it, which
    /// its first `publishDiagnostics` for the file marks (clangd); tsserver
    /// takes it in before it answers the next request.
    pub wait_publish: bool,
}

/// Wait budgets and lifetime limits. Every number is configurable per server.
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    /// How long a diagnostics call waits for results fresh for the file on disk.
    pub document: Duration,
    /// How long one pull request may take.
    pub pull: Duration,
    /// The quiet period after an unversioned push before it is taken as final.
    pub push_quiet: Duration,
    /// How long a cross-file question waits for the server to finish indexing.
    pub ready: Duration,
    /// Timeout of `initialize`.
    pub initialize: Duration,
    /// Timeout of an ordinary request.
    pub request: Duration,
    /// How long a whole-workspace check (`workspace/diagnostic`) may take.
    pub full: Duration,
    /// Documents not asked about for this long are closed.
    pub idle_document: Duration,
    /// A server not asked anything for this long is shut down; the next
    /// question starts it again.
    pub idle_server: Duration,
    /// The wait before the second restart in a row of a crashing server; each
    /// later restart waits twice as long.
    pub backoff: Duration,
    /// After this many failures within [`Budgets::cooldown`], a server is
    /// reported as broken instead of restarted...
    pub max_failures: u32,
    /// ...until this much time has passed since its last failure.
    pub cooldown: Duration,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            document: Duration::from_secs(5),
            pull: Duration::from_secs(3),
            push_quiet: Duration::from_millis(150),
            ready: Duration::from_secs(10),
            initialize: Duration::from_secs(45),
            request: Duration::from_secs(30),
            full: Duration::from_secs(10),
            idle_document: Duration::from_secs(300),
            idle_server: Duration::from_secs(30 * 60),
            backoff: Duration::from_millis(500),
            max_failures: 3,
            cooldown: Duration::from_secs(60),
        }
    }
}

/// An npm package pinned to the version sightline installs.
#[derive(Debug, Clone, Copy)]
pub struct NpmPackage {
    pub name: &'static str,
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
        markers: &'static [&'static str],
        exclude: &'static [&'static str],
    },
    /// The nearest directory holding a marker; with none, do not attach.
    Strict { markers: &'static [&'static str] },
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
        package: &'static str,
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

#[derive(Debug)]
pub struct ServerSpec {
    pub id: &'static str,
    /// The language family named in messages ("Python").
    pub language: &'static str,
    pub extensions: &'static [&'static str],
    /// Whole file names, for files without an extension (`Dockerfile`).
    pub file_names: &'static [&'static str],
    /// The executable looked up in the project, on PATH and in the install
    /// directory.
    pub command: &'static str,
    pub args: &'static [&'static str],
    pub root: RootRule,
    pub install: Install,
    /// `initializationOptions`, as JSON text.
    pub init: &'static str,
    pub role: Role,
    pub quirks: Quirks,
    /// The server may open internet sockets. Off for every built-in: a
    /// server reads the project and some run its code (rust-analyzer its
    /// build scripts and proc macros, ESLint its config), and a cloned
    /// project must not make them talk to the network. A user whose cargo or
    /// go must download dependencies sets the entry's `network`.
    pub network: bool,
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

pub use crate::builtin::{BUILTIN, FAKE, PYRIGHT, TYPESCRIPT};

/// The lower-cased extension with its dot, such as `.py`.
pub fn extension_of(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()))
}

/// A built-in server by id.
pub fn builtin(id: &str) -> Option<&'static ServerSpec> {
    BUILTIN.iter().copied().find(|s| s.id == id)
}

/// The servers that handle a file, in priority order: `extra` ones first,
/// then the built-ins.
pub fn servers_for(path: &Path, extra: &[&'static ServerSpec]) -> Vec<&'static ServerSpec> {
    extra
        .iter()
        .chain(BUILTIN)
        .copied()
        .filter(|s| s.handles(path))
        .collect()
}

/// The LSP language id sent in `didOpen`, never `plaintext` for a file a
/// built-in server handles.
pub fn language_id(path: &Path) -> &'static str {
    if path
        .file_name()
        .is_some_and(|n| n == "Dockerfile" || n.to_string_lossy().starts_with("Dockerfile."))
    {
        return "dockerfile";
    }
    let ext = extension_of(path).unwrap_or_default();
    LANGUAGE_IDS
        .iter()
        .find(|(exts, _)| exts.contains(&ext.as_str()))
        .map_or("plaintext", |(_, id)| id)
}

/// Extensions → LSP language ids (the identifiers VS Code uses).
const LANGUAGE_IDS: &[(&[&str], &str)] = &[
    (&[".py", ".pyi"], "python"),
    (&[".ts", ".mts", ".cts"], "typescript"),
    (&[".tsx"], "typescriptreact"),
    (&[".js", ".mjs", ".cjs"], "javascript"),
    (&[".jsx"], "javascriptreact"),
    (&[".vue"], "vue"),
    (&[".svelte"], "svelte"),
    (&[".astro"], "astro"),
    (&[".json"], "json"),
    (&[".jsonc"], "jsonc"),
    (&[".css"], "css"),
    (&[".scss"], "scss"),
    (&[".less"], "less"),
    (&[".html", ".htm"], "html"),
    (&[".graphql", ".gql"], "graphql"),
    (&[".go"], "go"),
    (&[".rb", ".rake", ".gemspec", ".ru"], "ruby"),
    (&[".ex", ".exs"], "elixir"),
    (&[".zig", ".zon"], "zig"),
    (&[".cs", ".csx"], "csharp"),
    (&[".razor", ".cshtml"], "razor"),
    (&[".fs", ".fsi", ".fsx", ".fsscript"], "fsharp"),
    (&[".swift"], "swift"),
    (&[".m"], "objective-c"),
    (&[".mm"], "objective-cpp"),
    (&[".objc"], "objective-c"),
    (&[".objcpp"], "objective-cpp"),
    (&[".rs"], "rust"),
    (&[".c", ".h"], "c"),
    (
        &[".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"],
        "cpp",
    ),
    (&[".java"], "java"),
    (&[".kt", ".kts"], "kotlin"),
    (&[".yaml", ".yml"], "yaml"),
    (&[".lua"], "lua"),
    (&[".php"], "php"),
    (&[".prisma"], "prisma"),
    (&[".dart"], "dart"),
    (&[".ml"], "ocaml"),
    (&[".mli"], "ocaml.interface"),
    (&[".sh", ".bash", ".zsh", ".ksh"], "shellscript"),
    (&[".tf", ".tfvars"], "terraform"),
    (&[".tex"], "latex"),
    (&[".bib"], "bibtex"),
    (&[".dockerfile"], "dockerfile"),
    (&[".gleam"], "gleam"),
    (&[".clj", ".cljs", ".cljc", ".edn"], "clojure"),
    (&[".nix"], "nix"),
    (&[".typ", ".typc"], "typst"),
    (&[".hs", ".lhs"], "haskell"),
    (&[".jl"], "julia"),
    (&[".toml"], "toml"),
    (&[".md", ".mdx"], "markdown"),
];

/// The list of supported extensions, for the unsupported-file answer.
pub fn supported_summary() -> String {
    let mut langs: Vec<(&str, Vec<&str>)> = Vec::new();
    for s in BUILTIN.iter().filter(|s| s.role != Role::Linter) {
        match langs.iter_mut().find(|(l, _)| *l == s.language) {
            Some((_, exts)) => {
                for e in s.extensions {
                    if !exts.contains(e) {
                        exts.push(e);
                    }
                }
            }
            None => langs.push((s.language, s.extensions.to_vec())),
        }
    }
    langs
        .iter()
        .map(|(l, exts)| format!("{} ({l})", exts.join(" ")))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_extension_and_file_name() {
        assert_eq!(servers_for(Path::new("/a/b.PY"), &[])[0].id, "pyright");
        assert_eq!(servers_for(Path::new("/a/b.pyi"), &[])[0].id, "pyright");
        for ext in ["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"] {
            let ids: Vec<&str> = servers_for(Path::new(&format!("/a/b.{ext}")), &[])
                .iter()
                .map(|s| s.id)
                .collect();
            assert!(ids.contains(&"typescript"), "{ext}: {ids:?}");
        }
        assert!(servers_for(Path::new("/a/b.xyz"), &[]).is_empty());
        assert_eq!(servers_for(Path::new("/a/b.fake"), &[&FAKE])[0].id, "fake");
        assert!(servers_for(Path::new("/a/b.fake"), &[]).is_empty());
        assert!(servers_for(Path::new("/a/Makefile"), &[]).is_empty());
        // The reference agent's bugs: a bare `Dockerfile` and `.objcpp`.
        assert_eq!(
            servers_for(Path::new("/a/Dockerfile"), &[])[0].id,
            "dockerfile"
        );
        assert_eq!(
            servers_for(Path::new("/a/x.objcpp"), &[])[0].id,
            "sourcekit-lsp"
        );
    }

    #[test]
    fn every_handled_extension_has_a_language_id() {
        for s in BUILTIN {
            for ext in s.extensions {
                let id = language_id(Path::new(&format!("/a/x{ext}")));
                assert_ne!(id, "plaintext", "{} {ext}", s.id);
            }
        }
        assert_eq!(language_id(Path::new("x.pyi")), "python");
        assert_eq!(language_id(Path::new("x.h")), "c");
        assert_eq!(language_id(Path::new("x.hpp")), "cpp");
        assert_eq!(language_id(Path::new("/p/Dockerfile")), "dockerfile");
    }

    #[test]
    fn ids_are_unique_and_the_reference_set_is_complete() {
        let mut ids: Vec<&str> = BUILTIN.iter().map(|s| s.id).collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
        for id in crate::builtin::REFERENCE_IDS {
            assert!(builtin(id).is_some(), "{id} is missing");
        }
    }
}
