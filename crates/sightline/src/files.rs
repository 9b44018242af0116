//! Small file helpers every layer uses: absolute paths checked once
//! (`AbsPath`), sightline's data directory, a file's extension as the
//! tables spell it, atomic writes, and the bounded read of a project's own
//! files (`read_project_file`).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ToolError;

/// An absolute path. A caller's path is checked once where it comes in
/// (`AbsPath::new`); code past that point takes an `AbsPath` and never asks
/// again whether it is absolute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AbsPath(PathBuf);

impl AbsPath {
    /// `path` as written, when it is absolute; otherwise the one-line
    /// `error:` every tool gives for a relative path.
    pub fn new(path: &Path) -> Result<AbsPath, ToolError> {
        if !path.is_absolute() {
            return Err(ToolError::bad_input(format!(
                "file must be an absolute path, got `{}`",
                path.display()
            )));
        }
        Ok(AbsPath(path.to_owned()))
    }

    /// The same path with symbolic links and `..` resolved where it exists
    /// (so that a linked root and its target compare equal), else as it is.
    pub fn canonical(&self) -> AbsPath {
        AbsPath(sightline_lsp::normalize(&self.0))
    }

    /// The path.
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The path, owned.
    pub fn into_path_buf(self) -> PathBuf {
        self.0
    }
}

impl std::ops::Deref for AbsPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for AbsPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl PartialEq<PathBuf> for AbsPath {
    fn eq(&self, other: &PathBuf) -> bool {
        self.0 == *other
    }
}

impl PartialEq<AbsPath> for PathBuf {
    fn eq(&self, other: &AbsPath) -> bool {
        *self == other.0
    }
}

/// The directory sightline keeps installed servers (and private temporary
/// directories, and the trust list) in: `$SIGHTLINE_DATA_DIR`, else the
/// platform's data directory: `$XDG_DATA_HOME/sightline`
/// (`~/.local/share/sightline`) on Linux, `~/Library/Application
/// Support/sightline` on macOS, `%APPDATA%\sightline` on Windows.
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SIGHTLINE_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    dirs::data_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("sightline")
}

/// The lower-cased extension with its dot, such as `.py`.
pub fn extension_of(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()))
}

/// The most of a project's own file (a workspace declaration, a manifest,
/// a configuration) that sightline reads: a cloned repository decides what
/// these paths are, and a link to `/dev/zero` must not be read without end.
pub const PROJECT_FILE_CAP: u64 = 4 * 1024 * 1024;

/// Why a project's own file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ProjectFileError {
    /// It is absent or unreadable.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// It is a device, a pipe, a socket or a directory, whose read could
    /// wait forever or never end.
    #[error("{path} is not a regular file")]
    NotRegular {
        /// The file.
        path: String,
    },
    /// It is larger than [`PROJECT_FILE_CAP`].
    #[error("{path} is over {cap} bytes; sightline reads no larger project file")]
    TooLarge {
        /// The file.
        path: String,
        /// The cap.
        cap: u64,
    },
}

impl ProjectFileError {
    /// Whether the file is simply not there (most projects lack most of the
    /// files looked for).
    pub fn is_absent(&self) -> bool {
        matches!(self, ProjectFileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Reads a project's own file as text (lossy UTF-8), bounded: a regular
/// file only (a FIFO is opened without blocking and refused, as are
/// devices and sockets), at most [`PROJECT_FILE_CAP`] bytes, whatever its
/// size says, since a file may grow while it is read.
pub fn read_project_file(path: &Path) -> Result<String, ProjectFileError> {
    read_capped(path, PROJECT_FILE_CAP)
}

/// [`read_project_file`] with the cap `cap`.
pub fn read_capped(path: &Path, cap: u64) -> Result<String, ProjectFileError> {
    use std::io::Read;
    let shown = || path.display().to_string();
    let io = |source| ProjectFileError::Io {
        path: shown(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // A FIFO's open waits for a writer; without blocking it returns at
    // once, and the check below refuses it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ProjectFileError::NotRegular { path: shown() });
    }
    if meta.len() > cap {
        return Err(ProjectFileError::TooLarge { path: shown(), cap });
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(ProjectFileError::TooLarge { path: shown(), cap });
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so that readers (and a crash) see the old or the new file,
/// never half of one. An existing file's permissions are kept.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    write_file(path, bytes)
        .map_err(|e| ToolError::bad_input(format!("cannot write {}: {e}", path.display())))
}

/// [`atomic_write`], with the bare I/O error.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "it has no directory")
    })?;
    std::fs::create_dir_all(dir)?;
    let perms = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ))
        .suffix(".sightline-tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(p) = perms {
        std::fs::set_permissions(tmp.path(), p)?;
    } else {
        // tempfile creates 0600; a new file gets the usual 0644 (Windows
        // has no mode bits: the new file inherits its directory's ACL).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
        }
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_project_file_read_is_bounded_and_only_of_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("pnpm-workspace.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            super::read_project_file(&link),
            Err(super::ProjectFileError::NotRegular { .. })
        ));
        let fifo = dir.path().join("package.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            super::read_project_file(&fifo),
            Err(super::ProjectFileError::NotRegular { .. })
        ));
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; 11]).unwrap();
        assert!(matches!(
            super::read_capped(&big, 10),
            Err(super::ProjectFileError::TooLarge { cap: 10, .. })
        ));
        assert_eq!(super::read_capped(&big, 11).unwrap().len(), 11);
        assert!(
            super::read_project_file(&dir.path().join("none"))
                .unwrap_err()
                .is_absent()
        );
    }

    #[test]
    fn a_path_is_checked_absolute_once() {
        assert_eq!(
            AbsPath::new(Path::new("src/app.py"))
                .unwrap_err()
                .to_string(),
            "error: file must be an absolute path, got `src/app.py`"
        );
        let p = AbsPath::new(Path::new("/no/such/dir/../app.py")).unwrap();
        assert_eq!(p.as_path(), Path::new("/no/such/dir/../app.py"));
        // Nothing there to resolve: the path stays as written.
        assert_eq!(p.canonical(), p);
    }
}
