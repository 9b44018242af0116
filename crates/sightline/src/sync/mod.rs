//! sightline's view of the disk: snapshots of the files a question reads
//! (`Snapshot`), the watch that reports what anything else changed
//! (`watch`), the bounded walk of a workspace (`walk`), and what the edit
//! tools last saw of each file (`LastRead`); and a dry run's staged text,
//! which its own reads see in place of the disk's (`preview`).

pub mod dry_run_texts;
pub mod last_read;
pub mod snapshot;
pub mod walk;
pub mod watch;

pub use last_read::LastRead;
pub use snapshot::Snapshot;

/// Files' texts by path, as answers read them to show their lines.
pub(crate) type TextsByPath =
    std::collections::HashMap<std::path::PathBuf, std::sync::Arc<sightline_lsp::LineIndex>>;
