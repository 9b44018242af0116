//! The LSP language id of each extension, sent in `didOpen`.

use std::path::Path;

use crate::files::extension_of;

/// The LSP language id sent in `didOpen`, never `plaintext` for a file a
/// built-in server handles.
pub fn language_id(path: &Path) -> &'static str {
    if path
        .file_name()
        .is_some_and(|n| n == "Dockerfile" || n.to_string_lossy().starts_with("Dockerfile."))
    {
        return "dockerfile";
    }
    let ext = extension_of(path).unwrap_or_default();
    LANGUAGE_IDS
        .iter()
        .find(|(exts, _)| exts.contains(&ext.as_str()))
        .map_or("plaintext", |(_, id)| id)
}

/// Extensions → LSP language ids (the identifiers VS Code uses).
const LANGUAGE_IDS: &[(&[&str], &str)] = &[
    (&[".py", ".pyi"], "python"),
    (&[".ts", ".mts", ".cts"], "typescript"),
    (&[".tsx"], "typescriptreact"),
    (&[".js", ".mjs", ".cjs"], "javascript"),
    (&[".jsx"], "javascriptreact"),
    (&[".vue"], "vue"),
    (&[".svelte"], "svelte"),
    (&[".astro"], "astro"),
    (&[".json"], "json"),
    (&[".jsonc"], "jsonc"),
    (&[".css"], "css"),
    (&[".scss"], "scss"),
    (&[".less"], "less"),
    (&[".html", ".htm"], "html"),
    (&[".graphql", ".gql"], "graphql"),
    (&[".go"], "go"),
    (&[".rb", ".rake", ".gemspec", ".ru"], "ruby"),
    (&[".ex", ".exs"], "elixir"),
    (&[".zig", ".zon"], "zig"),
    (&[".cs", ".csx"], "csharp"),
    (&[".razor", ".cshtml"], "razor"),
    (&[".fs", ".fsi", ".fsx", ".fsscript"], "fsharp"),
    (&[".swift"], "swift"),
    (&[".m"], "objective-c"),
    (&[".mm"], "objective-cpp"),
    (&[".objc"], "objective-c"),
    (&[".objcpp"], "objective-cpp"),
    (&[".rs"], "rust"),
    (&[".c", ".h"], "c"),
    (
        &[".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"],
        "cpp",
    ),
    (&[".java"], "java"),
    (&[".kt", ".kts"], "kotlin"),
    (&[".yaml", ".yml"], "yaml"),
    (&[".lua"], "lua"),
    (&[".php"], "php"),
    (&[".prisma"], "prisma"),
    (&[".dart"], "dart"),
    (&[".ml"], "ocaml"),
    (&[".mli"], "ocaml.interface"),
    (&[".sh", ".bash", ".zsh", ".ksh"], "shellscript"),
    (&[".tf", ".tfvars"], "terraform"),
    (&[".tex"], "latex"),
    (&[".bib"], "bibtex"),
    (&[".dockerfile"], "dockerfile"),
    (&[".gleam"], "gleam"),
    (&[".clj", ".cljs", ".cljc", ".edn"], "clojure"),
    (&[".nix"], "nix"),
    (&[".typ", ".typc"], "typst"),
    (&[".hs", ".lhs"], "haskell"),
    (&[".jl"], "julia"),
    (&[".toml"], "toml"),
    (&[".md", ".mdx", ".markdown"], "markdown"),
];
