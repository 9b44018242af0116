//! The built-in formatters, as data: 26 of them, each with the key the
//! configuration's `formatter` object names it by, its extensions, the
//! condition that enables it for a file, its command (`$FILE` stands for
//! the file), and what it reaches besides the file's workspace.

use crate::sandbox::Cache;

/// When a formatter is on for a file. Conditions that look for files search
/// from the file's directory up to the project top (the nearest `.git`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enable {
    /// Its program is found (project-local first, then PATH).
    Binary,
    /// A `package.json` on the way up lists this package as a dependency.
    NpmDependency(&'static str),
    /// One of these files is on the way up.
    ConfigFile(&'static [&'static str]),
    /// ruff: `ruff.toml`/`.ruff.toml`, a `[tool.ruff]` section, or `ruff`
    /// named in the project's `pyproject.toml`, `requirements.txt` or `Pipfile`.
    Ruff,
    /// uv: ruff is not on for the file and `uv format --help` works.
    Uv,
    /// air: `air --help` says it is the R formatter.
    Air,
    /// A `composer.json` on the way up requires this package.
    ComposerDependency(&'static str),
    /// Only when the configuration turns it on.
    Configured,
}

/// One built-in formatter.
#[derive(Debug)]
pub struct FormatterSpec {
    /// The configuration key.
    pub name: &'static str,
    /// The extensions it formats.
    pub extensions: &'static [&'static str],
    /// Its program and arguments; `$FILE` stands for the file.
    pub command: &'static [&'static str],
    /// When it is on for a file.
    pub enable: Enable,
    /// Directories (relative to each ancestor) searched for the program
    /// before PATH: the project's own copy wins.
    pub local: &'static [&'static str],
    /// The cache directories it writes besides the workspace (no
    /// formatter opens internet sockets).
    pub caches: &'static [Cache],
}

const PRETTIER_EXTS: &[&str] = &[
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".html", ".htm", ".css", ".scss",
    ".sass", ".less", ".vue", ".svelte", ".json", ".jsonc", ".yaml", ".yml", ".toml", ".xml",
    ".md", ".mdx", ".graphql", ".gql",
];
const NODE: &[&str] = &["node_modules/.bin"];
const RUBY: &[&str] = &[".rb", ".rake", ".gemspec", ".ru"];

const fn bin(
    name: &'static str,
    extensions: &'static [&'static str],
    command: &'static [&'static str],
) -> FormatterSpec {
    FormatterSpec {
        name,
        extensions,
        command,
        enable: Enable::Binary,
        local: &[],
        caches: &[],
    }
}

/// Every built-in formatter, in the order they run when several match.
pub static FORMATTERS: &[FormatterSpec] = &[
    bin("gofmt", &[".go"], &["gofmt", "-w", "$FILE"]),
    bin(
        "mix",
        &[".ex", ".exs", ".eex", ".heex", ".leex", ".neex", ".sface"],
        &["mix", "format", "$FILE"],
    ),
    FormatterSpec {
        name: "prettier",
        extensions: PRETTIER_EXTS,
        command: &["prettier", "--write", "$FILE"],
        enable: Enable::NpmDependency("prettier"),
        local: NODE,
        caches: &[],
    },
    FormatterSpec {
        name: "oxfmt",
        extensions: &[".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"],
        command: &["oxfmt", "$FILE"],
        enable: Enable::Configured,
        local: NODE,
        caches: &[],
    },
    FormatterSpec {
        name: "biome",
        extensions: PRETTIER_EXTS,
        command: &["biome", "format", "--write", "$FILE"],
        enable: Enable::ConfigFile(&["biome.json", "biome.jsonc"]),
        local: NODE,
        caches: &[],
    },
    bin("zig", &[".zig", ".zon"], &["zig", "fmt", "$FILE"]),
    FormatterSpec {
        name: "clang-format",
        extensions: &[
            ".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ino",
        ],
        command: &["clang-format", "-i", "$FILE"],
        enable: Enable::ConfigFile(&[".clang-format", "_clang-format"]),
        local: &[],
        caches: &[],
    },
    bin("ktlint", &[".kt", ".kts"], &["ktlint", "-F", "$FILE"]),
    FormatterSpec {
        name: "ruff",
        extensions: &[".py", ".pyi"],
        command: &["ruff", "format", "$FILE"],
        enable: Enable::Ruff,
        local: &[".venv/bin", "venv/bin"],
        caches: &[Cache::User("ruff")],
    },
    FormatterSpec {
        name: "air",
        extensions: &[".r"],
        command: &["air", "format", "$FILE"],
        enable: Enable::Air,
        local: &[],
        caches: &[],
    },
    FormatterSpec {
        name: "uv",
        extensions: &[".py", ".pyi"],
        // `--offline`: uv formats with a ruff it downloaded before, into its
        // cache (its version list comes from GitHub); offline it says so at
        // once ("Network connectivity is disabled, but the requested data
        // wasn't found in the cache"), where a download without the network
        // is retried for 9 s on every edit. `--no-config`: a cloned
        // project's `[tool.uv]` (or `uv.toml`) does not choose what uv does;
        // ruff still reads the project's ruff settings.
        command: &["uv", "format", "--offline", "--no-config", "--", "$FILE"],
        enable: Enable::Uv,
        local: &[],
        // uv takes a lock in its cache on every run, and fails without it:
        // "Failed to initialize cache at `~/.cache/uv`" (uv 0.13).
        caches: &[Cache::VarOr {
            var: "UV_CACHE_DIR",
            name: "uv",
        }],
    },
    bin("rubocop", RUBY, &["rubocop", "--autocorrect", "$FILE"]),
    bin("standardrb", RUBY, &["standardrb", "--fix", "$FILE"]),
    bin("htmlbeautifier", &[".erb"], &["htmlbeautifier", "$FILE"]),
    bin("dart", &[".dart"], &["dart", "format", "$FILE"]),
    FormatterSpec {
        name: "ocamlformat",
        extensions: &[".ml", ".mli"],
        command: &["ocamlformat", "-i", "$FILE"],
        enable: Enable::ConfigFile(&[".ocamlformat"]),
        local: &[],
        caches: &[],
    },
    bin(
        "terraform",
        &[".tf", ".tfvars"],
        &["terraform", "fmt", "$FILE"],
    ),
    bin(
        "latexindent",
        &[".tex"],
        &["latexindent", "-w", "-s", "$FILE"],
    ),
    bin("gleam", &[".gleam"], &["gleam", "format", "$FILE"]),
    bin("shfmt", &[".sh", ".bash"], &["shfmt", "-w", "$FILE"]),
    bin("nixfmt", &[".nix"], &["nixfmt", "$FILE"]),
    bin(
        "rustfmt",
        &[".rs"],
        &["rustfmt", "--edition", "2024", "$FILE"],
    ),
    FormatterSpec {
        name: "pint",
        extensions: &[".php"],
        command: &["pint", "$FILE"],
        enable: Enable::ComposerDependency("laravel/pint"),
        local: &["vendor/bin"],
        caches: &[],
    },
    bin("ormolu", &[".hs"], &["ormolu", "-i", "$FILE"]),
    bin(
        "cljfmt",
        &[".clj", ".cljs", ".cljc", ".edn"],
        &["cljfmt", "fix", "--quiet", "$FILE"],
    ),
    bin("dfmt", &[".d"], &["dfmt", "-i", "$FILE"]),
];

/// A built-in formatter by configuration key.
pub fn builtin(name: &str) -> Option<&'static FormatterSpec> {
    FORMATTERS.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_six_with_unique_keys() {
        assert_eq!(FORMATTERS.len(), 26);
        let mut names: Vec<&str> = FORMATTERS.iter().map(|f| f.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 26);
        // Overrides are looked up by these keys, exactly as a configuration
        // writes them.
        for key in ["clang-format", "air", "uv", "ruff", "prettier", "biome"] {
            assert!(builtin(key).is_some(), "{key}");
        }
        for f in FORMATTERS {
            assert!(f.command.contains(&"$FILE"), "{}", f.name);
        }
    }
}
