//! Small file helpers every layer uses: sightline's data directory, a file's
//! extension as the tables spell it, and atomic writes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ToolError;

/// The directory sightline keeps installed servers (and private temporary
/// directories, and the trust list) in: `$SIGHTLINE_DATA_DIR`, else
/// `$XDG_DATA_HOME/sightline` (`~/.local/share/sightline`).
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

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so that readers (and a crash) see the old or the new file,
/// never half of one. An existing file's permissions are kept.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    write_file(path, bytes)
        .map_err(|e| ToolError::BadInput(format!("cannot write {}: {e}", path.display())))
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
        use std::os::unix::fs::PermissionsExt;
        // tempfile creates 0600; a new file gets the usual 0644.
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
