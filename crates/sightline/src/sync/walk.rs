//! A bounded walk of a workspace's files, for the questions that need files
//! no server has named yet (workspace symbols, references of a loose file).

use std::path::{Path, PathBuf};

use crate::sync::watch::SKIPPED;

/// At most this many entries of the workspace are looked at.
const WALK_LIMIT: usize = 5000;

/// The files under `top`, breadth first and sorted within each directory,
/// skipping hidden directories and the ones file watching skips
/// (`node_modules`, `target`, ...), within a bounded walk. Workspace symbols
/// use it too, to find a file for each server.
pub fn files_under(top: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut queue = std::collections::VecDeque::from([top.to_path_buf()]);
    let mut seen = 0usize;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            seen += 1;
            if seen > WALK_LIMIT {
                return files;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                    queue.push_back(entry.path());
                }
            } else if entry.path().is_file() {
                // A link to a file counts; a link to a directory is not walked.
                files.push(entry.path());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::files_under;

    #[test]
    fn the_walk_skips_dependencies_and_hidden_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["b.js", "a/c.js", "node_modules/x/d.js", ".cache/e.js"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let names: Vec<_> = files_under(root)
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["b.js", "a/c.js"]);
    }
}
