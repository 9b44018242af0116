//! Which directories may be the user's other folders (`workspace.folders`,
//! `sightline mcp --folder`): a rename or move that reaches one writes
//! there, so none may be the file system's root, the home directory, or a
//! folder holding the workspace.

use std::path::Path;

/// Why `folder` cannot be another folder of a workspace rooted at
/// `workspace` (when known), or none.
pub fn folder_refused(folder: &Path, workspace: Option<&Path>) -> Option<String> {
    let folder = sightline_lsp::normalize(folder);
    let shown = folder.display();
    if folder.parent().is_none() {
        return Some(format!(
            "`{shown}` cannot be another folder: it is the file system's root, and a rename could write anywhere"
        ));
    }
    let home = std::env::var_os("HOME").map(|h| sightline_lsp::normalize(Path::new(&h)));
    if home.as_deref() == Some(folder.as_path()) {
        return Some(format!(
            "`{shown}` cannot be another folder: it is your home directory; name the project folders in it"
        ));
    }
    if let Some(ws) = workspace.map(sightline_lsp::normalize)
        && ws.starts_with(&folder)
    {
        return Some(format!(
            "`{shown}` cannot be another folder: it holds the workspace `{}`",
            ws.display()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_the_home_and_a_folder_holding_the_workspace_are_refused() {
        let ws = Path::new("/src/app");
        assert!(folder_refused(Path::new("/"), Some(ws)).is_some());
        assert!(folder_refused(Path::new("/src"), Some(ws)).is_some());
        assert!(folder_refused(Path::new("/src/app"), Some(ws)).is_some());
        // A path that reaches a folder holding the workspace indirectly is
        // that folder.
        let dir = tempfile::tempdir().expect("a temporary directory");
        let app = dir.path().join("app");
        std::fs::create_dir(&app).expect("app");
        assert!(folder_refused(&app.join(".."), Some(&app)).is_some());
        if let Some(home) = std::env::var_os("HOME").filter(|h| h.len() > 1) {
            assert!(folder_refused(Path::new(&home), None).is_some());
        }
        assert_eq!(folder_refused(Path::new("/src/lib"), Some(ws)), None);
        assert_eq!(folder_refused(Path::new("/src/app/vendor"), Some(ws)), None);
    }
}
