//! The file or directory each command that mirrors no tool is about, whose
//! project configuration answers it (`Engine::for_path`); a tool's call
//! finds its own from its arguments (`Session::call`).

use std::path::PathBuf;

use crate::frontends::cli::commands::OtherCommand;

impl OtherCommand {
    /// The file or directory the command is about, absolute, when its
    /// arguments name one. `servers`, `config` and `doctor` are about the
    /// working directory `here`.
    pub(super) fn path(&self, here: &std::path::Path) -> Option<PathBuf> {
        let path = match self {
            OtherCommand::Formatters { file } => Some(file.clone()),
            OtherCommand::Format { files } => files.first().cloned(),
            OtherCommand::Servers
            | OtherCommand::Capabilities { .. }
            | OtherCommand::Config
            | OtherCommand::Doctor => Some(here.to_owned()),
            _ => None,
        }?;
        Some(if path.is_absolute() {
            path
        } else {
            here.join(path)
        })
    }
}
