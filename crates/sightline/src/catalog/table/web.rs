//! The servers of the web's other formats: Svelte, Astro, JSON, CSS and
//! HTML.

use std::path::Path;

use serde_json::{Value, json};

use super::javascript::find_tsserver;
use super::{JS_PROJECT, TS_CACHE, VSCODE_EXTRACTED};
use crate::catalog::quirks::{DiagnosticsQuirks, LaunchQuirks, Publishes, Quirks};
use crate::catalog::spec::{BASE, Install, NpmPackage, RootRule, ServerSpec};
/// Svelte: `svelteserver --stdio`.
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
    quirks: Quirks {
        launch: LaunchQuirks {
            caches: TS_CACHE,
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Astro: `astro-ls --stdio`.
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
    quirks: Quirks {
        launch: LaunchQuirks {
            caches: TS_CACHE,
            // The Astro server needs a TypeScript SDK directory.
            init_options: Some(typescript_sdk),
            ..LaunchQuirks::NONE
        },
        diagnostics: DiagnosticsQuirks {
            // Servers built on Volar publish each version twice: what they
            // have at once (syntax, often empty), then with the TypeScript
            // findings, seconds later on a cold start.
            publishes: Publishes::TwicePerVersion,
            ..DiagnosticsQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// JSON: `vscode-json-language-server --stdio`.
pub static JSON: ServerSpec = ServerSpec {
    id: "json",
    language: "JSON",
    extensions: &[".json", ".jsonc"],
    command: "vscode-json-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    // It reads each file alone: one server serves every package.
    root: RootRule::Repository,
    ..BASE
};

/// CSS: `vscode-css-language-server --stdio`.
pub static CSS: ServerSpec = ServerSpec {
    id: "css",
    language: "CSS",
    extensions: &[".css", ".scss", ".less"],
    command: "vscode-css-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    // It reads each file alone: one server serves every package.
    root: RootRule::Repository,
    ..BASE
};

/// HTML: `vscode-html-language-server --stdio`.
pub static HTML: ServerSpec = ServerSpec {
    id: "html",
    language: "HTML",
    extensions: &[".html", ".htm"],
    command: "vscode-html-language-server",
    args: &["--stdio"],
    install: Install::Npm(VSCODE_EXTRACTED),
    init: r#"{"provideFormatter":true}"#,
    // It reads each file alone: one server serves every package.
    root: RootRule::Repository,
    ..BASE
};

/// The Astro server's options: the TypeScript SDK directory (the one holding
/// `tsserver.js`), or none.
fn typescript_sdk(root: &Path, program: &Path) -> Result<Value, String> {
    Ok(match find_tsserver(root, program) {
        Some(ts) => json!({ "typescript": { "tsdk": ts.parent() } }),
        None => json!({}),
    })
}
