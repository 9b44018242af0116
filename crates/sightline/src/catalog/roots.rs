//! Workspace roots: for each server, the directory it serves a file from.
//! The default is the project around the file (`crate::project`); each
//! server refines it (see [`RootRule`]), with the workspaces its build tool
//! or package manager declares, which `crate::workspaces` reads (the
//! JavaScript and Python ones there, the build tools' in
//! `workspaces::build`): this module only applies the rule and keeps the
//! root within the configured workspace.

use std::path::{Path, PathBuf};

use crate::catalog::spec::{RootRule, ServerSpec};
use crate::project::{find_root, root_for};
use crate::workspaces::build;

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
        RootRule::CargoWorkspace => build::cargo_workspace(file),
        RootRule::Go => build::go_workspace(file),
        RootRule::Java => {
            return build::gradle_or_maven(file)
                .or_else(|| find_root(file, &[".project", ".classpath"]))
                .map(|r| clamp(r, file, workspace));
        }
        RootRule::Gradle => build::gradle_or_maven(file),
        RootRule::Nix => build::nix_flake(file),
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
