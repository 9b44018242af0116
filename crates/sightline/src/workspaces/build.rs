//! The workspaces build tools declare, for the servers rooted at them
//! (`catalog::roots`): Cargo's `[workspace]`, Go's `go.work`, Gradle's
//! settings or Maven's module chain, a Nix flake. The package managers'
//! workspaces (npm, pnpm, uv, ...) are the parent module's.

use std::path::{Path, PathBuf};

use crate::project::find_root;

/// The nearest ancestor of `file`'s crate whose manifest declares a
/// workspace (a `[workspace]` table, in any of TOML's forms), else the
/// crate; `None` outside a crate.
pub(crate) fn cargo_workspace(file: &Path) -> Option<PathBuf> {
    let krate = find_root(file, &["Cargo.toml"])?;
    let declares = |d: &Path| {
        crate::files::read_project_file(&d.join("Cargo.toml")).is_ok_and(|t| {
            // A manifest mid-edit (not valid TOML for a moment) keeps its
            // workspace by its header line, so that no second
            // rust-analyzer starts for the crate.
            match crate::syntax::toml_table(&t) {
                Ok(m) => m.contains_key("workspace"),
                Err(_) => t.lines().any(|l| l.trim() == "[workspace]"),
            }
        })
    };
    Some(
        krate
            .ancestors()
            .find(|d| declares(d))
            .map(Path::to_owned)
            .unwrap_or(krate),
    )
}

/// Go: the nearest `go.work`, else the module (`go.mod`).
pub(crate) fn go_workspace(file: &Path) -> Option<PathBuf> {
    find_root(file, &["go.work"]).or_else(|| find_root(file, &["go.mod"]))
}

/// Nix: the nearest flake, else the repository.
pub(crate) fn nix_flake(file: &Path) -> Option<PathBuf> {
    find_root(file, &["flake.nix"]).or_else(|| find_root(file, &[".git"]))
}

/// Gradle: settings, then the wrapper, then a build file; else the top of
/// the Maven module chain.
pub(crate) fn gradle_or_maven(file: &Path) -> Option<PathBuf> {
    find_root(file, &["settings.gradle", "settings.gradle.kts"])
        .or_else(|| find_root(file, &["gradlew", "gradlew.bat"]))
        .or_else(|| find_root(file, &["build.gradle", "build.gradle.kts"]))
        .or_else(|| maven_top(file))
}

/// The nearest `pom.xml`, climbed while the parent's `pom.xml` lists this
/// directory among its `<module>`s.
fn maven_top(file: &Path) -> Option<PathBuf> {
    let mut dir = find_root(file, &["pom.xml"])?;
    while let Some(parent) = dir.parent() {
        let Ok(pom) = crate::files::read_project_file(&parent.join("pom.xml")) else {
            break;
        };
        let Ok(rel) = dir.strip_prefix(parent) else {
            break;
        };
        let rel = rel.to_string_lossy();
        if !maven_modules(&pom).iter().any(|m| *m == rel) {
            break;
        }
        dir = parent.to_owned();
    }
    Some(dir)
}

/// The `<module>` entries of a POM, comments stripped, `./` and trailing `/`
/// removed.
fn maven_modules(pom: &str) -> Vec<String> {
    let mut text = pom.to_owned();
    while let Some(start) = text.find("<!--") {
        let end = text[start..]
            .find("-->")
            .map_or(text.len(), |e| start + e + 3);
        text.replace_range(start..end, "");
    }
    text.split("<module>")
        .skip(1)
        .filter_map(|part| part.split("</module>").next())
        .map(|m| {
            m.trim()
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_owned()
        })
        .collect()
}
