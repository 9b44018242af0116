//! What the edit tools last saw of each file: its content hash as last read
//! or written through them. A file that changed on disk since then is not
//! edited, since the edit was made against text that is no longer there.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::ToolError;

fn hash(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// What the tools remember between calls: the content hash of each file as
/// it was last read or written through them.
#[derive(Debug, Default)]
pub struct LastRead(Mutex<HashMap<PathBuf, u64>>);

impl LastRead {
    /// Remembers `bytes` as what the tools last saw of `path`.
    pub fn record(&self, path: &Path, bytes: &[u8]) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(path.to_owned(), hash(bytes));
        }
    }

    /// Forgets `path` (deleted through the tools).
    pub fn forget(&self, path: &Path) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(path);
        }
    }

    /// Refuses when the file changed on disk since the tools last saw it.
    pub fn check(&self, path: &Path, now: Option<&[u8]>) -> Result<(), ToolError> {
        let known = self.0.lock().ok().and_then(|m| m.get(path).copied());
        match (known, now) {
            (Some(h), Some(bytes)) if h != hash(bytes) => Err(ToolError::bad_input(format!(
                "{} changed on disk since it was last read; read it again before editing",
                path.display()
            ))),
            (Some(_), None) => Err(ToolError::bad_input(format!(
                "{} was deleted on disk since it was last read",
                path.display()
            ))),
            _ => Ok(()),
        }
    }
}
