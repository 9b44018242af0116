//! Temporary projects: a directory of files that goes when the test ends.

use std::path::{Path, PathBuf};

/// A project in a temporary directory.
pub struct Project {
    /// Held so that the directory lives as long as the project.
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    /// A new project holding `files` (relative path, text).
    pub fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let p = Project { _dir: dir, root };
        for (rel, text) in files {
            p.write(rel, text);
        }
        p
    }

    /// The project's directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `rel` in the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes `text` to `rel`, making its directories.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}
