//! The project a file belongs to: the nearest ancestor holding a project
//! marker. Each server refines this with its own rule (`catalog::roots`);
//! the sandbox and the formatters use it as it is. Glob markers (`*.csproj`)
//! really match. Also whether the user trusts a project (`sightline trust`):
//! the trust list is read by the configuration's gate and by everything
//! that would run a program the project ships.

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

/// Whether one of the `project` files (`tsconfig.json`, ...) in `file`'s
/// directory or one above it, up to `root`, governs the file.
pub fn in_project(file: &Path, root: &Path, project: &[&str]) -> bool {
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root))
        .any(|dir| project.iter().any(|p| dir.join(p).is_file()))
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

/// Whether `dir` or a directory above it has been trusted: only then may a
/// program the project itself ships (`node_modules/.bin`, `.venv/bin`,
/// `vendor/bin`, its `tsserver.js`) run, since a cloned repository can
/// commit any file there.
pub fn trusted_at(dir: &Path) -> bool {
    let in_process = IN_PROCESS
        .lock()
        .map(|t| t.iter().any(|d| dir.starts_with(d)))
        .unwrap_or(false);
    in_process || dir.ancestors().any(is_trusted)
}

/// Directories trusted for this process only, by a library caller that
/// decides trust itself (and by tests), without the user's trust file.
static IN_PROCESS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Trusts `dir` (and everything under it) for the rest of this process.
pub fn trust_in_process(dir: &Path) {
    if let Ok(mut t) = IN_PROCESS.lock() {
        t.push(sightline_lsp::normalize(dir));
    }
}

/// The file listing trusted project directories.
fn trust_file() -> PathBuf {
    crate::files::data_dir().join("trusted-projects")
}

/// Whether `dir` has been trusted with `sightline trust`.
pub fn is_trusted(dir: &Path) -> bool {
    let dir = sightline_lsp::normalize(dir);
    std::fs::read_to_string(trust_file()).is_ok_and(|t| t.lines().any(|l| Path::new(l) == dir))
}

/// Trusts (or, with `trust = false`, stops trusting) the project in `dir`.
pub fn set_trusted(dir: &Path, trust: bool) -> std::io::Result<PathBuf> {
    let dir = sightline_lsp::normalize(dir);
    let path = trust_file();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| Path::new(l) != dir)
        .map(str::to_owned)
        .collect();
    if trust {
        lines.push(dir.display().to_string());
    }
    // The edit tools' atomic write: a unique temporary file, so that two
    // `sightline trust` at once cannot interleave.
    crate::files::atomic_write(&path, (lines.join("\n") + "\n").as_bytes())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(dir)
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
