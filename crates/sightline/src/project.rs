//! The project a file belongs to: the nearest ancestor holding a project
//! marker. Each server refines this with its own rule (`servers::roots`);
//! the sandbox and the formatters use it as it is. Glob markers (`*.csproj`)
//! really match.

use std::path::{Path, PathBuf};

/// The default project markers, in no particular order: the nearest
/// directory holding any of them wins.
pub const DEFAULT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "package.json",
    "tsconfig.json",
    ".git",
];

/// Whether `dir` holds `marker`: a name (which may hold a `/`), or a glob
/// matched against the names of its entries.
pub fn has_marker(dir: &Path, marker: &str) -> bool {
    if !marker.contains(['*', '?', '[', '{']) {
        return dir.join(marker).exists();
    }
    let Ok(glob) = globset::Glob::new(marker) else {
        return false;
    };
    let matcher = glob.compile_matcher();
    std::fs::read_dir(dir)
        .is_ok_and(|entries| entries.flatten().any(|e| matcher.is_match(e.file_name())))
}

/// The nearest ancestor of `file` (starting at its directory) holding a marker.
pub fn find_root(file: &Path, markers: &[&str]) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .find(|d| markers.iter().any(|m| has_marker(d, m)))
        .map(Path::to_owned)
}

/// The root for `file`: the nearest marker directory, else the configured
/// workspace directory when the file lies inside it.
pub fn root_for(file: &Path, workspace: Option<&Path>) -> Option<PathBuf> {
    if let Some(found) = find_root(file, DEFAULT_MARKERS) {
        // A marker above the configured workspace (a `.git` at the top of a
        // monorepo, say) must not widen the workspace the user asked for.
        if let Some(ws) = workspace
            && file.starts_with(ws)
            && !found.starts_with(ws)
        {
            return Some(ws.to_owned());
        }
        return Some(found);
    }
    workspace
        .filter(|ws| file.starts_with(ws))
        .map(Path::to_owned)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nearest_marker_wins() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(top.join("pkgs/api/src")).unwrap();
        std::fs::write(top.join("pkgs/api/pyproject.toml"), "").unwrap();
        std::fs::create_dir_all(top.join("pkgs/web/src")).unwrap();
        std::fs::write(top.join("pkgs/web/package.json"), "{}").unwrap();
        let api = top.join("pkgs/api/src/a.py");
        let web = top.join("pkgs/web/src/b.ts");
        let loose = top.join("scripts/c.py");
        assert_eq!(
            find_root(&api, DEFAULT_MARKERS).unwrap(),
            top.join("pkgs/api")
        );
        assert_eq!(
            find_root(&web, DEFAULT_MARKERS).unwrap(),
            top.join("pkgs/web")
        );
        assert_eq!(find_root(&loose, DEFAULT_MARKERS).unwrap(), top);
        // A configured workspace below the `.git` is not widened.
        let ws = top.join("scripts");
        assert_eq!(root_for(&loose, Some(&ws)).unwrap(), ws);
    }

    #[test]
    fn no_marker_means_no_root_unless_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x/y.py");
        assert_eq!(find_root(&f, &["no-such-marker-here"]), None);
        assert_eq!(root_for(&f, Some(dir.path())).unwrap(), dir.path());
    }
}
