//! The built-in servers, as data: the 38 whose ids the configuration's
//! `lsp` keys name (`CONFIG_IDS`; glob markers match, gopls uses `go.mod`,
//! kotlin uses Gradle and Maven markers, prisma works beside a
//! `package.json`, a bare `Dockerfile` attaches, `.objcpp` has its dot) plus
//! basedpyright, TypeScript 7's native server and the VS Code JSON, CSS and
//! HTML servers. Versions are pinned. Every server-specific behaviour is a
//! field of a spec here (its `quirks` above all); no other module names a
//! server.

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

pub use native::*;
pub use other::*;
pub use python::*;
pub use web::*;

use crate::catalog::quirks::{ImportAliases, LooseFiles, Quirks};
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

/// The files that make tsserver (and `tsc --lsp`) load a whole project.
const TS_LOOSE: LooseFiles = LooseFiles {
    project: &["tsconfig.json", "jsconfig.json"],
    wait_publish: false,
    project_ignores_opens: true,
};

const PYRIGHT_QUIRKS: Quirks = Quirks {
    import_aliases: ImportAliases::AskAlias,
    open_changes_answers: false,
    ready_log: Some("source file"),
    background_progress: &[""],
    on_install: crate::catalog::quirks::OnInstall::Reconfigure(&[".venv", "venv"]),
    // pyright 1.1.414 keeps the cancellation source of its last references
    // request; one cancelled before it began (a document changed under it,
    // or the client cancelled it) leaves a source whose `cancel` throws, and
    // every later references request fails with this until a restart.
    broken_by: &["this._token.cancel is not a function"],
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
