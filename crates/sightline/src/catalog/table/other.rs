//! The servers of the remaining languages: Ruby, Elixir, YAML, Lua, PHP,
//! Prisma, shell, Terraform, LaTeX, Dockerfiles, Clojure, Nix, Typst,
//! Julia, TOML and Markdown.

use super::LOCKFILES;
use crate::catalog::quirks::{Quirks, Readiness};
use crate::catalog::spec::{BASE, Install, NpmPackage, RootRule, ServerSpec};

/// Ruby: `rubocop --lsp`.
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

/// Elixir: `elixir-ls`.
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

/// YAML: `yaml-language-server --stdio`.
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

/// Lua: `lua-language-server`.
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

/// PHP: `intelephense --stdio`.
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
    quirks: Quirks {
        // Intelephense answers definitions and references empty, and
        // publishes a file's diagnostics empty, until it has indexed the
        // workspace, which it reports as work-done progress ("Intelephense
        // 1.18.5 indexing") begun once it has its configuration.
        readiness: Readiness::AfterProgress("Intelephense"),
        // No `index` besides: no file is opened and no question asked
        // before that indexing progress ends, so nothing is answered from
        // a partial index.
        ..Quirks::NONE
    },
    ..BASE
};

/// Prisma: `prisma-language-server --stdio`, from `@prisma/language-server`
/// on npm (the server the `prisma language-server` command runs, without
/// the CLI and its engines).
pub static PRISMA: ServerSpec = ServerSpec {
    id: "prisma",
    language: "Prisma",
    extensions: &[".prisma"],
    command: "prisma-language-server",
    args: &["--stdio"],
    // No exclusion for a `package.json`: nearly every Prisma project has
    // one.
    root: RootRule::Nearest {
        markers: &["schema.prisma", "prisma/schema.prisma", "prisma"],
        exclude: &[],
    },
    install: Install::Npm(&[NpmPackage {
        name: "@prisma/language-server",
        version: "31.12.10",
    }]),
    ..BASE
};

/// Shell: `bash-language-server start`.
pub static BASH: ServerSpec = ServerSpec {
    id: "bash",
    language: "Shell",
    extensions: &[".sh", ".bash", ".zsh", ".ksh"],
    command: "bash-language-server",
    args: &["start"],
    // It reads each file alone: one server serves every package.
    root: RootRule::Repository,
    install: Install::Npm(&[NpmPackage {
        name: "bash-language-server",
        version: "5.8.1",
    }]),
    ..BASE
};

/// Terraform: `terraform-ls serve`.
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

/// LaTeX: `texlab`.
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

/// Dockerfile: `docker-langserver --stdio`.
pub static DOCKERFILE: ServerSpec = ServerSpec {
    id: "dockerfile",
    language: "Dockerfile",
    extensions: &[".dockerfile"],
    file_names: &["Dockerfile", "Containerfile"],
    command: "docker-langserver",
    args: &["--stdio"],
    // It reads each file alone: one server serves every package.
    root: RootRule::Repository,
    install: Install::Npm(&[NpmPackage {
        name: "dockerfile-language-server-nodejs",
        version: "0.15.0",
    }]),
    ..BASE
};

/// Clojure: `clojure-lsp listen`.
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

/// Nix: `nixd`.
pub static NIXD: ServerSpec = ServerSpec {
    id: "nixd",
    language: "Nix",
    extensions: &[".nix"],
    command: "nixd",
    root: RootRule::Nix,
    install: Install::Toolchain(&["nix", "profile", "install", "nixpkgs#nixd"]),
    ..BASE
};

/// Typst: `tinymist`.
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

/// Julia: `julia --startup-file=no --history-file=no -e using LanguageServer; runserver()`.
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

/// TOML: `tombi lsp --offline`, from PyPI. `--offline` keeps it to the
/// schemas it carries and has cached: it would otherwise fetch schema
/// catalogues at start, and children get no network unless an entry asks.
pub static TOML: ServerSpec = ServerSpec {
    id: "tombi",
    language: "TOML",
    extensions: &[".toml"],
    command: "tombi",
    args: &["lsp", "--offline"],
    // A member's `Cargo.toml` refers to its workspace's, above it: the root
    // is the project's, not the nearest manifest's.
    root: RootRule::Default,
    install: Install::Pypi {
        package: "tombi",
        version: "1.9.6",
    },
    ..BASE
};

/// Markdown: `rumdl server`, a linter, from PyPI.
pub static MARKDOWN: ServerSpec = ServerSpec {
    id: "rumdl",
    language: "Markdown",
    extensions: &[".md", ".markdown"],
    command: "rumdl",
    args: &["server"],
    root: RootRule::Default,
    install: Install::Pypi {
        package: "rumdl",
        version: "0.3.0",
    },
    ..BASE
};
