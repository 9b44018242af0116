//! Snapshots of files as a question reads them from disk.

use std::path::Path;

use crate::error::ToolError;
use crate::files::AbsPath;

/// A file as it was on disk when a question read it: its normalized path
/// and its text, checked to be an absolute path to UTF-8 text.
#[derive(Debug)]
pub struct Snapshot {
    /// The file's path, absolute and canonical.
    pub path: AbsPath,
    /// Its whole text.
    pub text: String,
}

impl Snapshot {
    /// Reads `file`, or says in one `error:` line why it cannot be a
    /// question's subject: a relative path, missing, a directory, binary, or
    /// not UTF-8.
    pub fn read(file: &Path) -> Result<Snapshot, ToolError> {
        let given = AbsPath::new(file)?;
        let shown = file.display();
        let meta = std::fs::metadata(file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::BadInput(format!("file not found: {shown}")),
            _ => ToolError::BadInput(format!("cannot read {shown}: {e}")),
        })?;
        if meta.is_dir() {
            return Err(ToolError::BadInput(format!(
                "{shown} is a directory, not a file"
            )));
        }
        let bytes = std::fs::read(file)
            .map_err(|e| ToolError::BadInput(format!("cannot read {shown}: {e}")))?;
        let head = &bytes[..bytes.len().min(8192)];
        if head.contains(&0) {
            return Err(ToolError::BadInput(format!(
                "{shown} is a binary file, not source text"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| ToolError::BadInput(format!("{shown} is not valid UTF-8 text")))?;
        Ok(Snapshot {
            path: given.canonical(),
            text,
        })
    }
}
