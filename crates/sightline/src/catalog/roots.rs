//! Workspace roots: for each server, the directory it serves a file from.
//! The default is the project around the file (`crate::project`); each
//! server refines it (see [`RootRule`]).

use std::path::{Path, PathBuf};

use crate::catalog::spec::{RootRule, ServerSpec};
use crate::project::{find_root, root_for};

/// The root `spec` serves `file` from, or `None` when it does not attach.
pub fn root_for_server(
    spec: &ServerSpec,
    file: &Path,
    workspace: Option<&Path>,
) -> Option<PathBuf> {
    let default = || root_for(file, workspace);
    let found = match spec.root {
        RootRule::Default => return default(),
        RootRule::Repository => match workspace.filter(|ws| file.starts_with(ws)) {
            Some(ws) => return Some(ws.to_owned()),
            None => find_root(file, &[".git"]),
        },
        RootRule::Workspace {
            ecosystem,
            markers,
            exclude,
        } => {
            // A workspace that lists the file's package is taken even above
            // the configured workspace (an agent started in one package):
            // unlike a stray marker such as `.git`, it says that the
            // packages above belong together, and a root below it would
            // answer for one package as if it were the whole.
            // A Deno project inside the workspace keeps the server away
            // all the same.
            let excluded = !exclude.is_empty()
                && find_root(file, exclude).is_some_and(|d| within(&d, file, workspace));
            if let Some(ws) = crate::workspaces::workspace_of(file, ecosystem)
                && !excluded
            {
                return Some(ws.root);
            }
            return nearest(file, workspace, markers, exclude);
        }
        RootRule::Nearest { markers, exclude } => {
            return nearest(file, workspace, markers, exclude);
        }
        RootRule::Strict { markers } => {
            return find_root(file, markers).map(|r| clamp(r, file, workspace));
        }
        RootRule::CargoWorkspace => find_root(file, &["Cargo.toml"]).map(|krate| {
            // The nearest ancestor whose manifest declares a workspace (a
            // `[workspace]` table, in any of TOML's forms).
            krate
                .ancestors()
                .find(|d| {
                    crate::files::read_project_file(&d.join("Cargo.toml")).is_ok_and(|t| {
                        // A manifest mid-edit (not valid TOML for a moment)
                        // keeps its workspace by its header line, so that
                        // no second rust-analyzer starts for the crate.
                        match crate::syntax::toml_table(&t) {
                            Ok(m) => m.contains_key("workspace"),
                            Err(_) => t.lines().any(|l| l.trim() == "[workspace]"),
                        }
                    })
                })
                .map(Path::to_owned)
                .unwrap_or(krate)
        }),
        RootRule::Go => find_root(file, &["go.work"]).or_else(|| find_root(file, &["go.mod"])),
        RootRule::Java => {
            return gradle_or_maven(file)
                .or_else(|| find_root(file, &[".project", ".classpath"]))
                .map(|r| clamp(r, file, workspace));
        }
        RootRule::Gradle => gradle_or_maven(file),
        RootRule::Nix => find_root(file, &["flake.nix"]).or_else(|| find_root(file, &[".git"])),
    };
    match found {
        Some(r) => Some(clamp(r, file, workspace)),
        None => default(),
    }
}

/// The nearest directory holding one of `markers`, clamped to the
/// workspace; none when an `exclude` marker is found first; the default
/// root when no marker is found.
fn nearest(
    file: &Path,
    workspace: Option<&Path>,
    markers: &[&str],
    exclude: &[&str],
) -> Option<PathBuf> {
    if !exclude.is_empty() && find_root(file, exclude).is_some_and(|d| within(&d, file, workspace))
    {
        return None;
    }
    match find_root(file, markers) {
        Some(r) => Some(clamp(r, file, workspace)),
        None => root_for(file, workspace),
    }
}

/// Whether `dir` lies between the file and the workspace boundary (the
/// workspace when the file is inside it, else the filesystem root).
fn within(dir: &Path, file: &Path, workspace: Option<&Path>) -> bool {
    match workspace {
        Some(ws) if file.starts_with(ws) => dir.starts_with(ws),
        _ => true,
    }
}

/// A marker above the configured workspace (a `.git` at the top of a
/// monorepo, say) must not widen the workspace the user asked for.
fn clamp(root: PathBuf, file: &Path, workspace: Option<&Path>) -> PathBuf {
    match workspace {
        Some(ws) if file.starts_with(ws) && !root.starts_with(ws) => ws.to_owned(),
        _ => root,
    }
}

/// Gradle: settings, then the wrapper, then a build file; else the top of
/// the Maven module chain.
fn gradle_or_maven(file: &Path) -> Option<PathBuf> {
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
