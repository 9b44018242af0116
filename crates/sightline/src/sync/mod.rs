//! sightline's view of the disk: snapshots of the files a question reads
//! (`Snapshot`), the watch that reports what anything else changed
//! (`watch`), the bounded walk of a workspace (`walk`), and what the edit
//! tools last saw of each file (`LastRead`); and the files as one call
//! reads them, a dry run's staged texts over the disk's (`FileView`).

pub mod file_view;
pub mod last_read;
pub mod snapshot;
pub mod walk;
pub mod watch;

pub use file_view::{DryRunFiles, FileView};
pub use last_read::LastRead;
pub use snapshot::Snapshot;

/// Files' texts by path, as answers read them to show their lines.
pub(crate) type TextsByPath =
    std::collections::HashMap<std::path::PathBuf, std::sync::Arc<sightline_lsp::LineIndex>>;
