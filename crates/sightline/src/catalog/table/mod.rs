//! The built-in servers, as data: the 38 whose ids the configuration's
//! `lsp` keys name (`CONFIG_IDS`; glob markers match, gopls uses `go.mod`,
//! kotlin uses Gradle and Maven markers, prisma works beside a
//! `package.json`, a bare `Dockerfile` attaches, `.objcpp` has its dot) plus
//! basedpyright, TypeScript 7's native server and the VS Code JSON, CSS and
//! HTML servers. Versions are pinned. Every server-specific behaviour is a
//! field of a spec here (its `quirks` above all); no other module names a
//! server.

mod javascript;
pub mod languages;
mod native;
mod other;
mod python;
mod razor;
#[cfg(test)]
mod root_tests;
#[cfg(test)]
mod tests;
mod web;

pub use javascript::*;
pub use native::*;
pub use other::*;
pub use python::*;
pub use web::*;

use crate::catalog::quirks::{
    ImportAliases, LifecycleQuirks, OnInstall, OutsideProject, Quirks, Readiness, ReferencesQuirks,
};
use crate::catalog::spec::{BASE, NpmPackage, ServerSpec};

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

/// tsserver's type cache (`~/.cache/typescript`), written by every server
/// that runs it.
const TS_CACHE: &[crate::sandbox::Cache] = &[crate::sandbox::Cache::User("typescript")];

/// The files that make tsserver (and `tsc --lsp`) load a whole project.
/// Outside them tsserver makes an inferred project of the open files, and
/// takes in an opened file before it answers the next request; a configured
/// project is the files its tsconfig names, read from disk, whichever are
/// open.
const TS_LOOSE: OutsideProject = OutsideProject {
    project: &["tsconfig.json", "jsconfig.json"],
    wait_publish: false,
    project_ignores_opens: true,
};

const PYRIGHT_QUIRKS: Quirks = Quirks {
    // pyright answers `references` before it has enumerated the workspace,
    // and returns partial lists until it logs "Found N source files".
    readiness: Readiness::AfterLog("source file"),
    // pyright reports its checking of open files as progress titled ""
    // ("7 files to analyze"); when diagnostics are pulled it may not end
    // that progress for as long as files stay open, and references never
    // depend on it, so it is not indexing.
    background_progress: &[""],
    references: ReferencesQuirks {
        // pyright lists `from m import f as g` among `f`'s references but
        // not the later uses of `g`; asked at `g`, it lists them.
        import_aliases: ImportAliases::AskAlias,
        // pyright reads every file that is not open from disk, so opening
        // or closing one with the disk's text changes no definition.
        open_changes_answers: false,
        ..ReferencesQuirks::NONE
    },
    lifecycle: LifecycleQuirks {
        // pyright asks for `python.pythonPath` again on
        // `workspace/didChangeConfiguration` and builds its import resolution
        // anew; it takes no note of changes under an excluded `.venv`, even
        // when told of them.
        on_install: OnInstall::Reconfigure(&[".venv", "venv"]),
        // pyright 1.1.414 keeps the cancellation source of its last
        // references request; one cancelled before it began (a document
        // changed under it, or the client cancelled it) leaves a source whose
        // `cancel` throws, and every later references request fails with this
        // until a restart.
        broken_by: &["this._token.cancel is not a function"],
        ..LifecycleQuirks::NONE
    },
    ..Quirks::NONE
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
    &TOML,
    &MARKDOWN,
];

/// The 38 server ids that configuration keys have always named; each must
/// stay a built-in, or a configuration that names it breaks.
#[cfg(test)]
pub const CONFIG_IDS: &[&str] = &[
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
