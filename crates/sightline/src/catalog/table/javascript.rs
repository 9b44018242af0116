//! The JavaScript and TypeScript servers (Deno, typescript-language-server,
//! TypeScript 7's native server), Vue (whose types come from tsserver with
//! the Vue plugin), and the linters that join them (ESLint, oxlint, Biome),
//! with how tsserver and the Vue plugin are found.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{DENO, JS_EXTS, JS_PROJECT, LOCKFILES, TS_CACHE, TS_LOOSE, VSCODE_EXTRACTED};
use crate::catalog::RenameAliases;
use crate::catalog::quirks::{
    DiagnosticsQuirks, LaunchQuirks, LifecycleQuirks, LinterQuirks, LinterUse, OnInstall,
    PluginExtensions, Publishes, Quirks, Readiness, ReferencesQuirks, Relay,
};
use crate::catalog::spec::{BASE, Install, NpmPackage, Role, RootRule, ServerSpec};
use crate::workspaces::Ecosystem;
/// TypeScript/JavaScript: `deno lsp`. npm ships Deno as the `deno` package,
/// with the binary in a platform package beside it.
pub static DENO_LSP: ServerSpec = ServerSpec {
    id: "deno",
    language: "TypeScript/JavaScript",
    extensions: &[".ts", ".tsx", ".js", ".jsx", ".mjs"],
    command: "deno",
    args: &["lsp"],
    root: RootRule::Strict { markers: DENO },
    install: Install::Npm(&[NpmPackage {
        name: "deno",
        version: "2.9.6",
    }]),
    ..BASE
};

/// TypeScript/JavaScript: `typescript-language-server --stdio`.
pub static TYPESCRIPT: ServerSpec = ServerSpec {
    id: "typescript",
    language: "TypeScript/JavaScript",
    extensions: &[
        ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue",
    ],
    command: "typescript-language-server",
    args: &["--stdio"],
    // One tsserver for a whole npm, pnpm or yarn workspace: it holds each
    // package's project, so a question about a symbol reaches the packages
    // that import it (rooted at the package, it never loads them).
    root: RootRule::Workspace {
        ecosystem: Ecosystem::JavaScript,
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
        NpmPackage {
            name: "@vue/typescript-plugin",
            version: "3.3.11",
        },
    ]),
    quirks: Quirks {
        diagnostics: DiagnosticsQuirks {
            // tsserver publishes syntax-only diagnostics first after opening
            // a file.
            publishes: Publishes::PartialFirstAfterOpen,
            // typescript-language-server publishes without versions, skips a
            // publish when a kind of diagnostics stays empty, and publishes
            // syntax before semantics, so no push says an answer is complete.
            ask_tsserver: true,
            ..DiagnosticsQuirks::NONE
        },
        references: ReferencesQuirks {
            // tsserver's project for a loose file depends on the files open.
            outside_project: Some(TS_LOOSE),
            // tsserver builds the project of a workspace's package (its
            // `tsconfig.json`) only when one of its files is opened, and
            // searches only the projects it has built: the references of a
            // core package's export stop at that package otherwise.
            packages_need_open: true,
            ..ReferencesQuirks::NONE
        },
        launch: LaunchQuirks {
            caches: TS_CACHE,
            init_options: Some(tsserver_path),
            // tsserver handles `.vue` files only with
            // `@vue/typescript-plugin`; without it they are left to the
            // other servers.
            plugin_extensions: Some(PluginExtensions {
                extensions: &[".vue"],
                found: |root, program| find_vue_plugin(root, program).is_some(),
            }),
            ..LaunchQuirks::NONE
        },
        lifecycle: LifecycleQuirks {
            // tsserver does not see a `node_modules` made after it started,
            // and an import of a package installed there stays unresolved.
            on_install: OnInstall::Restart(&["node_modules"]),
            ..LifecycleQuirks::NONE
        },
        // tsserver's rename keeps a re-exported name as an alias by default
        // (`export { g as f } from "./util.js"`), so that importers of `f`
        // through the re-export are left as they are, and the name does not
        // change for them. typescript-language-server turns the preference
        // on for every file, and passes a `configure` through unchanged.
        rename_aliases: Some(RenameAliases {
            command: "typescript.tsserverRequest",
            preference: "providePrefixAndSuffixTextForRename",
            keeps_by_default: true,
        }),
        ..Quirks::NONE
    },
    ..BASE
};

/// TypeScript/JavaScript: `tsc --lsp --stdio`, an alternative server.
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
        references: ReferencesQuirks {
            outside_project: Some(TS_LOOSE),
            ..ReferencesQuirks::NONE
        },
        launch: LaunchQuirks {
            caches: TS_CACHE,
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Vue: `vue-language-server --stdio`.
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
    install: Install::Npm(&[
        NpmPackage {
            name: "@vue/language-server",
            version: "3.3.11",
        },
        // vue-language-server loads `typescript` from beside itself and
        // reads `ts.server.protocol`, which TypeScript 7 (the native port)
        // no longer has. npm installs a missing peer at its newest version,
        // 7.x, and the server then crashed at its first file ("Cannot read
        // properties of undefined (reading 'protocol')"): the last
        // TypeScript with the JavaScript API is pinned beside it.
        NpmPackage {
            name: "typescript",
            version: "5.9.3",
        },
    ]),
    // Hybrid mode: the types of a `.vue` file come from tsserver with
    // `@vue/typescript-plugin` loaded (see `tsserver_path`), which answers
    // its script's questions and publishes its errors; this server adds
    // the template's and asks its own TypeScript questions of that
    // tsserver.
    quirks: Quirks {
        launch: LaunchQuirks {
            caches: TS_CACHE,
            ..LaunchQuirks::NONE
        },
        // vue-language-server asks its TypeScript work of tsserver, where
        // `@vue/typescript-plugin` runs.
        relay: Some(Relay {
            notification: "tsserver/request",
            to: "typescript",
            command: "typescript.tsserverRequest",
            reply: "tsserver/response",
        }),
        ..Quirks::NONE
    },
    ..BASE
};

/// TypeScript/JavaScript: `vscode-eslint-language-server --stdio`, a linter.
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
    role: Role::Linter,
    quirks: Quirks {
        launch: LaunchQuirks {
            // It fails on an empty settings object.
            whole_settings: Some(eslint_settings),
            ..LaunchQuirks::NONE
        },
        linter: LinterQuirks {
            // ESLint loads the project's own `eslint` and its
            // `eslint.config.js`.
            runs_project_code: true,
            used_by_project: Some(LinterUse {
                package: "eslint",
                config_files: &[],
            }),
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// TypeScript/JavaScript: `oxlint --lsp`, a linter.
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
    quirks: Quirks {
        linter: LinterQuirks {
            used_by_project: Some(LinterUse {
                package: "oxlint",
                config_files: &[".oxlintrc.json"],
            }),
            ..LinterQuirks::NONE
        },
        // oxlint answers pulls empty until it has its configuration, then
        // asks for them again with `workspace/diagnostic/refresh`.
        readiness: Readiness::AfterFirstRefresh,
        ..Quirks::NONE
    },
    ..BASE
};

/// TypeScript/JavaScript: `biome lsp-proxy`, a linter.
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
    // The package is `@biomejs/biome`, not `biome`.
    install: Install::Npm(&[NpmPackage {
        name: "@biomejs/biome",
        version: "2.6.8",
    }]),
    role: Role::Linter,
    quirks: Quirks {
        // Biome answers a file opened before it has scanned its project with
        // an empty publish, then the real one once its scan ends.
        readiness: Readiness::AfterProgress("Biome is scanning"),
        launch: LaunchQuirks {
            // `biome lsp-proxy` starts (or joins) a daemon that binds its
            // socket and writes its logs in `$XDG_CACHE_HOME/biome`; a private
            // one means the daemon is this server's own, sandboxed like it and
            // gone with it, never one shared with an editor or another
            // sightline (a daemon still stopping after its last client went
            // answered a new proxy with nothing).
            private_env: &[("XDG_CACHE_HOME", "cache")],
            ..LaunchQuirks::NONE
        },
        linter: LinterQuirks {
            used_by_project: Some(LinterUse {
                package: "@biomejs/biome",
                config_files: &["biome.json", "biome.jsonc"],
            }),
            ..LinterQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// typescript-language-server's options: the `tsserver.js` it runs (it needs
/// a TypeScript that ships one; TypeScript 7 is the native port without it),
/// and one tsserver, not two. By default (`useSyntaxServer: "auto"`) it runs
/// a second, syntax-only tsserver and routes `definition`, `documentSymbol`
/// and others there while the project loads, which answers `definition` on
/// an import alias with the alias itself. With `"never"` every question goes
/// to the one tsserver that loads the project, and waits for it: right at
/// once, with no wait of sightline's own, and one process fewer.
fn tsserver_path(root: &Path, program: &Path) -> Result<Value, String> {
    match find_tsserver(root, program) {
        Some(tsserver) => Ok(json!({
            "tsserver": { "path": tsserver, "useSyntaxServer": "never" },
            "plugins": find_vue_plugin(root, program).map(|location| json!([{
                "name": "@vue/typescript-plugin",
                "location": location,
                "languages": ["vue"],
            }])).unwrap_or_else(|| json!([])),
        })),
        None => Err(format!(
            "typescript-language-server needs TypeScript 5 or 6 (with tsserver.js); install it with `npm install typescript@5.9.3` in the project, or `{}`",
            TYPESCRIPT.install_command()
        )),
    }
}

/// Finds a TypeScript with `tsserver.js` for typescript-language-server: the
/// workspace's own `node_modules` first, then the one installed beside the
/// server. TypeScript 7 (the native port) has no `tsserver.js` and is skipped.
pub(super) fn find_tsserver(root: &Path, server_bin: &Path) -> Option<PathBuf> {
    let candidate = |nm: &Path| {
        let p = nm.join("typescript").join("lib").join("tsserver.js");
        p.is_file().then_some(p)
    };
    for dir in root.ancestors().filter(|d| crate::project::trusted_at(d)) {
        if let Some(p) = candidate(&dir.join("node_modules")) {
            return Some(p);
        }
    }
    // `node_modules/.bin/x` links into `node_modules/<pkg>/...`: walk up from
    // the real file to the `node_modules` directory that holds it.
    let real = std::fs::canonicalize(server_bin).ok()?;
    real.ancestors()
        .filter(|d| d.file_name().is_some_and(|n| n == "node_modules"))
        .find_map(candidate)
}

/// The directory whose `node_modules` holds `@vue/typescript-plugin`, for
/// tsserver to load
/// (hybrid mode, without which `.vue` files get no types): the project's
/// `node_modules` first, then the one beside typescript-language-server
/// (sightline installs the plugin with it), then the one beside a
/// vue-language-server on PATH or installed by sightline (the plugin is
/// its dependency).
fn find_vue_plugin(root: &Path, server_bin: &Path) -> Option<PathBuf> {
    let holds = |nm: &Path| {
        nm.join("@vue")
            .join("typescript-plugin")
            .join("package.json")
            .is_file()
    };
    let beside = |bin: &Path| {
        let real = std::fs::canonicalize(bin).ok()?;
        real.ancestors()
            .filter(|d| d.file_name().is_some_and(|n| n == "node_modules"))
            .find(|nm| holds(nm))
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    };
    // tsserver looks for a plugin in `<location>/node_modules`.
    root.ancestors()
        .filter(|d| crate::project::trusted_at(d) && holds(&d.join("node_modules")))
        .map(Path::to_path_buf)
        .next()
        .or_else(|| beside(server_bin))
        .or_else(|| beside(&which::which("vue-language-server").ok()?))
        // The Vue server sightline installed (`sightline install vue`)
        // brings the plugin as its dependency, whichever
        // typescript-language-server is in use.
        .or_else(|| beside(&crate::catalog::install::installed_bin(&VUE)))
}

/// vscode-eslint-language-server asks for its whole settings object and
/// fails on `{}` ("The \"path\" argument must be of type string"): these are
/// the VS Code extension's defaults, with the workspace folder it resolves
/// paths against.
fn eslint_settings(root: &Path) -> Value {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({
        "validate": "on",
        "packageManager": "npm",
        "useESLintClass": false,
        "experimental": { "useFlatConfig": false },
        "codeAction": {
            "disableRuleComment": { "enable": true, "location": "separateLine" },
            "showDocumentation": { "enable": true }
        },
        "codeActionOnSave": { "enable": false, "mode": "all" },
        "format": false,
        "quiet": false,
        "onIgnoredFiles": "off",
        "options": {},
        "rulesCustomizations": [],
        "run": "onType",
        "problems": { "shortenToSingleLine": false },
        "nodePath": null,
        "workingDirectory": { "mode": "location" },
        "workspaceFolder": {
            "uri": sightline_lsp::path_to_uri_string(root).unwrap_or_default(),
            "name": name
        }
    })
}
