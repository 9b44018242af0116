//! The built-in language servers of the contract: which extensions each one
//! serves, how to start it, how to get it, and the quirks that decide when its
//! answers can be trusted.

use std::path::Path;
use std::time::Duration;

/// Per-server behaviour that the engine needs to know to give complete answers.
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// pyright lists `from m import f as g` among the references of `f` but not
    /// the later uses of `g`, so references of the alias are asked for too.
    pub follow_import_alias: bool,
    /// typescript-language-server (tsserver) answers only for open files, and
    /// answers `definition` on an import alias with the alias itself until the
    /// project is loaded; its first `publishDiagnostics` for a file marks that.
    pub ready_on_first_publish: bool,
    /// pyright answers `references` before it has enumerated the workspace and
    /// returns partial lists until it logs this text.
    pub ready_log: Option<&'static str>,
    /// tsserver publishes syntax-only diagnostics first after opening a file.
    pub first_publish_is_partial: bool,
}

impl Quirks {
    /// A server that needs no special handling.
    pub const NONE: Quirks = Quirks {
        follow_import_alias: false,
        ready_on_first_publish: false,
        ready_log: None,
        first_publish_is_partial: false,
    };
}

/// Wait budgets and lifetime limits. Every number is configurable per server.
#[derive(Debug, Clone, Copy)]
pub struct Budgets {
    /// How long a diagnostics call waits for results fresh for the file on disk.
    pub document: Duration,
    /// How long one pull request may take.
    pub pull: Duration,
    /// The quiet period after an unversioned push before it is taken as final.
    pub push_quiet: Duration,
    /// How long a cross-file question waits for the server to finish indexing.
    pub ready: Duration,
    /// Timeout of `initialize`.
    pub initialize: Duration,
    /// Timeout of an ordinary request.
    pub request: Duration,
    /// How long a whole-workspace check (`workspace/diagnostic`) may take.
    pub full: Duration,
    /// Documents not asked about for this long are closed.
    pub idle_document: Duration,
    /// A server not asked anything for this long is shut down; the next
    /// question starts it again.
    pub idle_server: Duration,
    /// The wait before the second restart in a row of a crashing server; each
    /// later restart waits twice as long.
    pub backoff: Duration,
    /// After this many failures within [`Budgets::cooldown`], a server is
    /// reported as broken instead of restarted...
    pub max_failures: u32,
    /// ...until this much time has passed since its last failure.
    pub cooldown: Duration,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            document: Duration::from_secs(5),
            pull: Duration::from_secs(3),
            push_quiet: Duration::from_millis(150),
            ready: Duration::from_secs(10),
            initialize: Duration::from_secs(45),
            request: Duration::from_secs(30),
            full: Duration::from_secs(10),
            idle_document: Duration::from_secs(300),
            idle_server: Duration::from_secs(30 * 60),
            backoff: Duration::from_millis(500),
            max_failures: 3,
            cooldown: Duration::from_secs(60),
        }
    }
}

/// An npm package pinned to the version sightline installs.
#[derive(Debug, Clone, Copy)]
pub struct NpmPackage {
    pub name: &'static str,
    pub version: &'static str,
}

#[derive(Debug)]
pub struct ServerSpec {
    pub id: &'static str,
    /// The language family named in messages ("Python").
    pub language: &'static str,
    pub extensions: &'static [&'static str],
    /// The executable name looked up on PATH and in the install directory.
    pub command: &'static str,
    pub args: &'static [&'static str],
    /// Packages installed together into sightline's data directory.
    pub npm: &'static [NpmPackage],
    pub quirks: Quirks,
}

impl ServerSpec {
    /// The command a person would run to install this server by hand.
    pub fn install_command(&self) -> String {
        let pkgs: Vec<String> = self
            .npm
            .iter()
            .map(|p| format!("{}@{}", p.name, p.version))
            .collect();
        format!("npm install -g {}", pkgs.join(" "))
    }

    pub fn handles(&self, path: &Path) -> bool {
        extension_of(path).is_some_and(|e| self.extensions.contains(&e.as_str()))
    }
}

pub const PYRIGHT: ServerSpec = ServerSpec {
    id: "pyright",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "pyright-langserver",
    args: &["--stdio"],
    npm: &[NpmPackage {
        name: "pyright",
        version: "1.1.414",
    }],
    quirks: Quirks {
        follow_import_alias: true,
        ready_on_first_publish: false,
        ready_log: Some("source file"),
        first_publish_is_partial: false,
    },
};

pub const TYPESCRIPT: ServerSpec = ServerSpec {
    id: "typescript",
    language: "TypeScript/JavaScript",
    extensions: &[".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"],
    command: "typescript-language-server",
    args: &["--stdio"],
    // typescript@7 is the native port without tsserver.js, which this server
    // needs; 5.x is pinned.
    npm: &[
        NpmPackage {
            name: "typescript-language-server",
            version: "5.3.0",
        },
        NpmPackage {
            name: "typescript",
            version: "5.9.3",
        },
    ],
    quirks: Quirks {
        follow_import_alias: false,
        ready_on_first_publish: true,
        ready_log: None,
        first_publish_is_partial: true,
    },
};

pub const BUILTIN: &[&ServerSpec] = &[&PYRIGHT, &TYPESCRIPT];

/// The scripted fake server shipped for tests (`sightline-fake-lsp serve`,
/// for `.fake` files). It is not built in: callers opt in through
/// [`crate::Options::servers`].
pub static FAKE: ServerSpec = ServerSpec {
    id: "fake",
    language: "fake",
    extensions: &[".fake"],
    command: "sightline-fake-lsp",
    args: &["serve"],
    npm: &[],
    quirks: Quirks::NONE,
};

/// The lower-cased extension with its dot, such as `.py`.
pub fn extension_of(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()))
}

/// The servers that handle a file, in priority order: `extra` ones first,
/// then the built-ins.
pub fn servers_for(path: &Path, extra: &[&'static ServerSpec]) -> Vec<&'static ServerSpec> {
    extra
        .iter()
        .chain(BUILTIN)
        .copied()
        .filter(|s| s.handles(path))
        .collect()
}

/// The LSP language id sent in `didOpen`.
pub fn language_id(path: &Path) -> &'static str {
    match extension_of(path).as_deref() {
        Some(".py" | ".pyi") => "python",
        Some(".ts" | ".mts" | ".cts") => "typescript",
        Some(".tsx") => "typescriptreact",
        Some(".jsx") => "javascriptreact",
        Some(".js" | ".mjs" | ".cjs") => "javascript",
        _ => "plaintext",
    }
}

/// The list of supported extensions, for the unsupported-file answer.
pub fn supported_summary() -> String {
    BUILTIN
        .iter()
        .map(|s| format!("{} ({})", s.extensions.join(" "), s.language))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_extension() {
        assert_eq!(servers_for(Path::new("/a/b.PY"), &[])[0].id, "pyright");
        assert_eq!(servers_for(Path::new("/a/b.pyi"), &[])[0].id, "pyright");
        for ext in ["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"] {
            assert_eq!(
                servers_for(Path::new(&format!("/a/b.{ext}")), &[])[0].id,
                "typescript"
            );
        }
        assert!(servers_for(Path::new("/a/b.xyz"), &[]).is_empty());
        assert_eq!(servers_for(Path::new("/a/b.fake"), &[&FAKE])[0].id, "fake");
        assert!(servers_for(Path::new("/a/b.fake"), &[]).is_empty());
        assert!(servers_for(Path::new("/a/Makefile"), &[]).is_empty());
        assert_eq!(language_id(Path::new("x.pyi")), "python");
        assert_eq!(language_id(Path::new("x.tsx")), "typescriptreact");
    }
}
