//! What the engine must know about a server to give complete answers, and
//! every other way a server differs from the protocol's defaults: caches it
//! writes, environment it needs, how its startup options are found, when a
//! linter applies. The values live in the table (`catalog::table`); code
//! elsewhere reads these fields and never names a server.

use std::path::Path;

mod launch;

pub use launch::{LaunchQuirks, Offline, PluginExtensions, Runtime};

/// How a server differs from the protocol's defaults, grouped by what the
/// difference affects. Each field says what the behaviour is; why a given
/// server needs it is written beside that server's value in the table.
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// When the server's answers are complete after it starts.
    pub readiness: Readiness,
    /// Work-done progress (by exact title) that is background work no
    /// question waits for: it is not taken for indexing.
    pub background_progress: &'static [&'static str],
    /// A project index it builds in the background after it starts, during
    /// which its cross-file answers may be partial.
    pub index: Option<BackgroundIndex>,
    /// How its diagnostics arrive, and when a publish is final.
    pub diagnostics: DiagnosticsQuirks,
    /// What its references and definitions leave out, and what changes them.
    pub references: ReferencesQuirks,
    /// What it needs to start: runtime, caches, environment, options.
    pub launch: LaunchQuirks,
    /// When it must be restarted, reconfigured or retried.
    pub lifecycle: LifecycleQuirks,
    /// For a linter: when it joins a project.
    pub linter: LinterQuirks,
    /// Requests the server sends as notifications for another server of the
    /// same root to answer.
    pub relay: Option<Relay>,
    /// Its rename keeps a re-exported name as an alias unless told not to.
    pub rename_aliases: Option<crate::catalog::RenameAliases>,
}

/// When a server's answers are complete after it starts. The kinds never
/// combine: each is one server's way of saying it has loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Complete once it has initialized and no work-done progress runs.
    AtOnce,
    /// References are partial until the server logs (`window/logMessage`)
    /// a line containing this text.
    AfterLog(&'static str),
    /// Every answer is empty until the server's first
    /// `experimental/serverStatus` with `quiescent: true`. While only the
    /// work-done progress listed here (by title prefix) runs, a definition
    /// is already complete; while any other runs, none is taken.
    AfterQuiescent {
        /// Progress title prefixes during which a definition is complete.
        answers_while: &'static [&'static str],
    },
    /// Pulls are empty until the server's first
    /// `workspace/diagnostic/refresh`, waited for at start within the ready
    /// budget.
    AfterFirstRefresh,
    /// Answers are empty until the work-done progress whose title starts
    /// with this text ends; no file is opened before that.
    AfterProgress(&'static str),
}

impl Readiness {
    /// The log text that marks references complete, for `AfterLog`.
    pub(crate) fn log_text(self) -> Option<&'static str> {
        match self {
            Readiness::AfterLog(text) => Some(text),
            _ => None,
        }
    }

    /// Whether answers wait for a quiescent server status.
    pub(crate) fn waits_for_status(self) -> bool {
        matches!(self, Readiness::AfterQuiescent { .. })
    }

    /// The progress during which a definition is complete, for `AfterQuiescent`.
    pub(crate) fn answers_while(self) -> &'static [&'static str] {
        match self {
            Readiness::AfterQuiescent { answers_while } => answers_while,
            _ => &[],
        }
    }

    /// The title prefix of the progress that marks the server loaded, for
    /// `AfterProgress`.
    pub(crate) fn progress_title(self) -> Option<&'static str> {
        match self {
            Readiness::AfterProgress(title) => Some(title),
            _ => None,
        }
    }
}

/// A project index a server builds in the background (see `Quirks::index`).
/// Until its progress has ended once, a references answer waits for it
/// within the ready budget and says it may be incomplete when it runs out.
#[derive(Debug, Clone, Copy)]
pub struct BackgroundIndex {
    /// The title of the work-done progress it reports while it indexes.
    pub title: &'static str,
    /// Files at the root (relative paths) whose presence makes it index the
    /// project; empty: it always does.
    pub when: &'static [&'static str],
    /// Until the index is done a definition may answer a declaration (a
    /// prototype in a header) where the index would give the body: such an
    /// answer waits for the index, within the ready budget, and is asked
    /// again.
    pub definition_may_be_declaration: bool,
}

/// How a server's diagnostics arrive.
#[derive(Debug, Clone, Copy)]
pub struct DiagnosticsQuirks {
    /// Which of its `publishDiagnostics` for a version is final.
    pub publishes: Publishes,
    /// The server's pushes never say an answer is complete, and its
    /// `typescript.tsserverRequest` command asks tsserver itself for the
    /// diagnostics of the content it holds now (`server::typescript_ext`); the
    /// pushes are waited for only when that fails.
    pub ask_tsserver: bool,
    /// A check the server runs only when told a file was saved: sightline
    /// sends `didSave`, and a diagnostics answer waits for the check's
    /// work-done progress that began after the change.
    pub save_check: Option<SaveCheck>,
}

/// Which `publishDiagnostics` of a document version is final.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publishes {
    /// Each publish for the current version is final.
    OncePerVersion,
    /// The first publish after opening a file is partial (syntax only), so
    /// it is not taken as final.
    PartialFirstAfterOpen,
    /// Each version is published twice: what the server has at once, then
    /// the full findings; only the second publish is taken.
    TwicePerVersion,
    /// A file's diagnostics are published only when they differ from the
    /// last publish for it. Once the server has sent nothing for the push
    /// quiet period and runs no work-done progress, it is asked a hover at
    /// the file's start; when it stays quiet after that answer too, the
    /// file's last publish (none: clean) stands for its current version.
    OnlyChanges,
}

/// A check a server runs when a file is saved (see
/// `DiagnosticsQuirks::save_check`).
#[derive(Debug, Clone, Copy)]
pub struct SaveCheck {
    /// The start of the check's work-done progress title.
    pub title: &'static str,
    /// How long after a check's end another may still begin in its place,
    /// so that the end does not yet mean the files were checked.
    pub restart_ms: u64,
}

/// What a server's location answers leave out, and what changes them.
#[derive(Debug, Clone, Copy)]
pub struct ReferencesQuirks {
    /// What a server leaves out of a symbol's references when it is
    /// imported under another name.
    pub import_aliases: ImportAliases,
    /// The server answers `declaration` at a definition with another
    /// declaration (a prototype, a trait's method), so the declarations of a
    /// references answer are asked from each definition too. For the other
    /// servers that answer `declaration`, those are the definitions
    /// themselves, and the extra round trip is skipped.
    pub declaration_of_definition: bool,
    /// Whether opening or closing a document (with the disk's text) can
    /// change a definition. When it cannot, a definition kept
    /// (`server::answer_cache`) stays true while documents come and go. See
    /// also `OutsideProject::project_ignores_opens`.
    pub open_changes_answers: bool,
    /// For a server that indexes a whole project only when a file names it:
    /// how it treats a file outside every such project. For such a file,
    /// references and incoming calls are asked with the files that mention
    /// the name open (see `engine::outside_project`).
    pub outside_project: Option<OutsideProject>,
    /// The server finds a macro's uses in a header only while that header
    /// is open: references at a macro open the file of its `#define`, and
    /// wait until the server has built it, before they are asked.
    pub macro_uses_need_open: bool,
    /// Rooted at a workspace (`RootRule::Workspace`), the server holds a
    /// package's project only once one of the package's files is open: a
    /// question about a symbol first opens a file of each other package
    /// that mentions the name (see `engine::packages`).
    pub packages_need_open: bool,
}

/// When a server must be restarted, reconfigured or asked again.
#[derive(Debug, Clone, Copy)]
pub struct LifecycleQuirks {
    /// Files (by name) the server reads its project's configuration from
    /// once, at start, and does not re-read when told they changed: a
    /// change to one restarts the server, and the next answer says so.
    pub restart_on: &'static [&'static str],
    /// Error messages after which the server fails every later request of
    /// that kind until it restarts: a request failing with one restarts
    /// the server, and the question is asked once more of the new one.
    pub broken_by: &'static [&'static str],
    /// What the server needs when packages are installed or removed, or a
    /// virtualenv is made or removed, under its root (`sync::watch::INSTALL_DIRS`).
    pub on_install: OnInstall,
}

/// When a linter joins a project.
#[derive(Debug, Clone, Copy)]
pub struct LinterQuirks {
    /// The server runs code the project ships: such a linter joins a
    /// project on its own only once the project is trusted.
    pub runs_project_code: bool,
    /// What shows that a project uses the linter. A linter without this is
    /// taken as used everywhere it is found.
    pub used_by_project: Option<LinterUse>,
}

/// `LifecycleQuirks::on_install`: what a server needs after an install, named by
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

impl Quirks {
    /// A server that needs no special handling.
    pub const NONE: Quirks = Quirks {
        readiness: Readiness::AtOnce,
        background_progress: &[],
        index: None,
        diagnostics: DiagnosticsQuirks::NONE,
        references: ReferencesQuirks::NONE,
        launch: LaunchQuirks::NONE,
        lifecycle: LifecycleQuirks::NONE,
        linter: LinterQuirks::NONE,
        relay: None,
        rename_aliases: None,
    };
}

impl DiagnosticsQuirks {
    /// Final publishes, no tsserver, no check on save, and 30 s for a server
    /// that works on (pyright took 21 s for a 3k-line module, cold, on a
    /// loaded two-core machine).
    pub const NONE: DiagnosticsQuirks = DiagnosticsQuirks {
        publishes: Publishes::OncePerVersion,
        ask_tsserver: false,
        save_check: None,
    };
}

impl ReferencesQuirks {
    /// Complete references, whatever is open.
    pub const NONE: ReferencesQuirks = ReferencesQuirks {
        import_aliases: ImportAliases::Listed,
        declaration_of_definition: false,
        open_changes_answers: true,
        outside_project: None,
        macro_uses_need_open: false,
        packages_need_open: false,
    };
}

impl LifecycleQuirks {
    /// Never restarted on its own.
    pub const NONE: LifecycleQuirks = LifecycleQuirks {
        restart_on: &[],
        broken_by: &[],
        on_install: OnInstall::Nothing,
    };
}

impl LinterQuirks {
    /// Runs no project code, used wherever it is found.
    pub const NONE: LinterQuirks = LinterQuirks {
        runs_project_code: false,
        used_by_project: None,
    };
}

/// How a server that indexes whole projects treats a file outside them.
#[derive(Debug, Clone, Copy)]
pub struct OutsideProject {
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
