//! What the engine must know about a server to give complete answers, and
//! every other way a server differs from the protocol's defaults: caches it
//! writes, environment it needs, how its startup options are found, when a
//! linter applies. The values live in the table (`catalog::table`); code
//! elsewhere reads these fields and never names a server.

use std::path::Path;

use serde_json::Value;

use crate::catalog::spec::ServerSpec;
use crate::sandbox::Cache;

/// Per-server behaviour that the engine needs to know to give complete answers.
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// What a server leaves out of a symbol's references when it is
    /// imported under another name.
    pub import_aliases: ImportAliases,
    /// clangd answers `declaration` at a definition with the header's
    /// prototype (and at the prototype with the definition), so the
    /// declarations of a references answer are asked from each definition
    /// too. For the other servers that answer `declaration`, those are the
    /// definitions themselves, and the extra round trip is skipped.
    pub declaration_of_definition: bool,
    /// Whether opening or closing a document (with the disk's text) can
    /// change a definition: tsserver's project for a loose file depends on
    /// the files open, clangd knows a file's flags only once it is open.
    /// pyright and rust-analyzer read every other file from disk, so a
    /// definition kept (`server::answer_cache`) stays true while documents come and
    /// go, and a references question after a definition does not ask it
    /// again. See also `LooseFiles::project_ignores_opens`.
    pub open_changes_answers: bool,
    /// pyright answers `references` before it has enumerated the workspace and
    /// returns partial lists until it logs this text.
    pub ready_log: Option<&'static str>,
    /// tsserver publishes syntax-only diagnostics first after opening a file,
    /// so that publish is not taken as final.
    pub first_publish_is_partial: bool,
    /// typescript-language-server publishes without versions, skips a
    /// publish when a kind of diagnostics stays empty, and publishes syntax
    /// before semantics, so no push says an answer is complete. Its
    /// `typescript.tsserverRequest` command asks tsserver itself for the
    /// diagnostics of the content it holds now (`server::tsserver`); the
    /// pushes are waited for only when that fails.
    pub diagnostics_from_tsserver: bool,
    /// rust-analyzer answers every question (definition, references, pulled
    /// diagnostics) with empty results until it has loaded the Cargo
    /// workspace, and says when it has: its first `experimental/serverStatus`
    /// with `quiescent: true`. (jdtls's `ServiceReady` in `language/status`
    /// is recorded the same way, but jdtls cannot be run here to confirm
    /// that it needs the wait, so it does not have this quirk.)
    pub ready_on_status: bool,
    /// Work-done progress (by title prefix) during which a server with
    /// `ready_on_status` already answers a definition completely, before it
    /// says it has loaded: rust-analyzer's "Indexing" only fills caches
    /// once the crate graph, build scripts and proc macros are in, and
    /// "cargo " is its check. While any other progress runs (fetching the
    /// workspace, building build scripts), an answer may miss what they
    /// bring, so none is taken.
    pub answers_while: &'static [&'static str],
    /// rust-analyzer runs `cargo check` only when told a file was saved,
    /// and its own analysis misses what only rustc reports (overflowing
    /// literals, borrow errors). A file sightline reads is saved on disk, so
    /// it sends `didSave`, and a diagnostics answer waits for the check: the
    /// work-done progress whose title starts with this (`cargo check`, or
    /// `cargo clippy` when so configured) that began after the change.
    pub check_on_save: Option<&'static str>,
    /// How long after a check's end another may still begin in its place,
    /// so that the end does not yet mean the files were checked.
    /// rust-analyzer cancels a running `cargo check` when it restarts one
    /// (after a workspace reload, or on becoming quiescent), ends its
    /// progress at once, and begins the new one after gathering restart
    /// requests for 50 ms; the cancelled run published nothing, and its
    /// reload had cleared the old findings.
    pub check_restart_ms: u64,
    /// gopls (the 2022 build) publishes a file's diagnostics only when
    /// they differ from what it last published for that file: a clean file
    /// opened gets no publish, nor does a change that leaves them as they
    /// were. So once the server has sent nothing for the push quiet period
    /// and runs no work-done progress, it is asked a hover at the file's
    /// start (which it answers only after type-checking the package); when
    /// it stays quiet after that answer too, the file's last publish (none:
    /// clean) stands for its current version.
    pub publishes_only_changes: bool,
    /// oxlint answers pulls empty until it has its configuration, then asks
    /// for them again with `workspace/diagnostic/refresh`: it is ready once
    /// that first refresh has come (waited for at start, within the ready
    /// budget).
    pub ready_after_refresh: bool,
    /// Servers built on Volar (astro, vue) publish each version twice:
    /// what they have at once (syntax, often empty), then with the
    /// TypeScript findings, seconds later on a cold start. Only the second
    /// publish for the current version is taken.
    pub publishes_twice: bool,
    /// A runtime the server needs at a minimum version, checked before it
    /// starts (jdtls: Java 21).
    pub runtime: Option<Runtime>,
    /// Requests the server sends as notifications for another server of the
    /// same root to answer (vue-language-server asks its TypeScript work of
    /// tsserver, where `@vue/typescript-plugin` runs).
    pub relay: Option<Relay>,
    /// Extensions the server handles only with a plugin, and how to find
    /// the plugin for a root and the program (tsserver handles `.vue` files
    /// only with `@vue/typescript-plugin`; without it they are left to the
    /// other servers).
    pub plugin_extensions: Option<PluginExtensions>,
    /// Servers that index a whole project only when a file names it
    /// (tsserver: `tsconfig.json`/`jsconfig.json`; clangd:
    /// `compile_commands.json`) see a file outside every such project with
    /// only the open files around it. For such a file, references and
    /// incoming calls are asked with the files that mention the name open
    /// (see `engine::outside_project`).
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
    /// Cache directories the server writes, which the sandbox lets it write
    /// (tsserver's type cache, gopls's and Go's build caches, Cargo's home).
    pub caches: &'static [Cache],
    /// Variables pointed at a directory inside the server's private
    /// temporary directory, as (variable, directory). `biome lsp-proxy`
    /// starts (or joins) a daemon that binds its socket and writes its logs
    /// in `$XDG_CACHE_HOME/biome`; a private one means the daemon is this
    /// server's own, sandboxed like it and gone with it, never one shared
    /// with an editor or another sightline (a daemon still stopping after
    /// its last client went answered a new proxy with nothing).
    pub private_env: &'static [(&'static str, &'static str)],
    /// Makes the server's `initializationOptions` for a root and the program
    /// found, in place of the spec's `init` text; an `Err` is why the server
    /// cannot start there (the text of the `unavailable:` answer).
    pub init_options: Option<InitOptions>,
    /// Arguments found at launch, after the spec's, from the client's
    /// environment (`pool::env`); an `Err` is why the server cannot start
    /// (Razor: the VS Code C# extension's Razor files).
    pub extra_args: Option<ExtraArgs>,
    /// The settings answered when the server asks for its whole
    /// configuration (`workspace/configuration` with the section "" or
    /// none), given the server's root, for a server that fails on `{}`.
    pub whole_settings: Option<fn(&Path) -> Value>,
    /// For a linter: what shows that a project uses it. A linter without
    /// this is taken as used everywhere it is found.
    pub used_by_project: Option<LinterUse>,
    /// A rustup component whose proxy rustup puts on PATH: the proxy fails
    /// until the component is added, so a proxy without it is not taken for
    /// the server.
    pub rustup_component: Option<&'static str>,
    /// Files (by name) the server reads its project's configuration from
    /// once, at start, and does not re-read when told they changed: a
    /// change to one restarts the server, and the next answer says so.
    /// clangd registers no file watchers and keeps the compile flags it
    /// loaded from `compile_commands.json`.
    pub restart_on: &'static [&'static str],
    /// Error messages after which the server fails every later request of
    /// that kind until it restarts: a request failing with one restarts
    /// the server, and the question is asked once more of the new one.
    pub broken_by: &'static [&'static str],
    /// What the server needs when packages are installed or removed, or a
    /// virtualenv is made or removed, under its root (`sync::watch::INSTALL_DIRS`).
    pub on_install: OnInstall,
}

/// `Quirks::on_install`: what a server needs after an install, named by
/// the install directories (their first component: `.venv`, `node_modules`)
/// whose changes call for it.
#[derive(Debug, Clone, Copy)]
pub enum OnInstall {
    /// It sees installs itself, or reads no packages.
    Nothing,
    /// `workspace/didChangeConfiguration`: pyright then asks for
    /// `python.pythonPath` again and builds its import resolution anew. It
    /// takes no note of changes under an excluded directory such as `.venv`,
    /// even when told of them.
    Reconfigure(&'static [&'static str]),
    /// A new server: tsserver does not see a `node_modules` made after it
    /// started, and an import of a package installed there stays
    /// unresolved.
    Restart(&'static [&'static str]),
}

/// `Quirks::extra_args`: the client's environment (each variable that
/// `pool::env` carries, with its value or none) to the arguments.
pub type ExtraArgs = fn(&[(String, Option<String>)]) -> Result<Vec<String>, String>;

/// `Quirks::init_options`: the spec, the project root and the program
/// found for it.
pub type InitOptions = fn(&ServerSpec, &Path, &Path) -> Result<Value, String>;

/// What shows that a project uses a linter: its npm package in a
/// `node_modules` on the way up, or one of its config files there.
#[derive(Debug, Clone, Copy)]
pub struct LinterUse {
    /// The npm package (the project's own copy is what the linter runs).
    pub package: &'static str,
    /// Config files that mean the project uses it even without the package.
    pub config_files: &'static [&'static str],
}

impl LinterUse {
    /// Whether the project at `root`, or a directory above it, uses the linter.
    pub fn in_project(&self, root: &Path) -> bool {
        root.ancestors().any(|d| {
            d.join("node_modules").join(self.package).is_dir()
                || self.config_files.iter().any(|c| d.join(c).is_file())
        })
    }
}

/// How a server's references treat an import alias
/// (`from m import f as g`, `use m::f as g;`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportAliases {
    /// The uses of `g` are among `f`'s references.
    Listed,
    /// pyright and ty list the import line among `f`'s references but not
    /// the later uses of `g`; asked at `g`, they list them, so `g`'s
    /// references are asked for too.
    AskAlias,
    /// rust-analyzer finds references by the item's own name, so it misses
    /// the uses of `g` even asked at `g`: the words `g` in the alias's file
    /// (an alias is visible only there) are checked with `definition`.
    AskAliasAndWords,
}

/// Requests one server makes of another (see `Quirks::relay`): the server
/// sends `notification` with `[id, command, args]`; sightline runs
/// `command` with `[command, args]` on the server `to` of the same root
/// (`workspace/executeCommand`) and sends the result's `body` back as
/// `reply` with `[id, body]`: a null body when that fails, so the asking
/// server never waits forever.
#[derive(Debug, Clone, Copy)]
pub struct Relay {
    /// The notification that carries a request (`tsserver/request`).
    pub notification: &'static str,
    /// The server id that answers it (`typescript`).
    pub to: &'static str,
    /// The command run there (`typescript.tsserverRequest`).
    pub command: &'static str,
    /// The notification that carries the answer (`tsserver/response`).
    pub reply: &'static str,
}

/// See `Quirks::plugin_extensions`.
#[derive(Debug, Clone, Copy)]
pub struct PluginExtensions {
    /// The extensions, with their dot.
    pub extensions: &'static [&'static str],
    /// Whether the plugin is there, for the root and the program found.
    pub found: fn(&Path, &Path) -> bool,
}

/// A runtime a server needs (see `Quirks::runtime`).
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

impl Quirks {
    /// A server that needs no special handling.
    pub const NONE: Quirks = Quirks {
        import_aliases: ImportAliases::Listed,
        declaration_of_definition: false,
        open_changes_answers: true,
        ready_log: None,
        first_publish_is_partial: false,
        diagnostics_from_tsserver: false,
        ready_on_status: false,
        answers_while: &[],
        check_on_save: None,
        check_restart_ms: 0,
        publishes_only_changes: false,
        ready_after_refresh: false,
        publishes_twice: false,
        runtime: None,
        relay: None,
        plugin_extensions: None,
        loose_files: None,
        ready_after_progress: None,
        background_progress: &[],
        runs_project_code: false,
        caches: &[],
        private_env: &[],
        init_options: None,
        extra_args: None,
        whole_settings: None,
        used_by_project: None,
        rustup_component: None,
        restart_on: &[],
        broken_by: &[],
        on_install: OnInstall::Nothing,
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
    /// Opening or closing a file that a project file governs changes no
    /// answer: tsserver's configured project is the files its tsconfig
    /// names, read from disk, whichever are open; only loose files share
    /// an inferred project made of the open ones. Not clangd, whose index
    /// of a project may still lack a file it has not opened.
    pub project_ignores_opens: bool,
}
