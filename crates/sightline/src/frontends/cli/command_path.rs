//! The file or directory each command is about, whose project
//! configuration answers it (`Engine::for_path`).

use std::path::PathBuf;

use crate::frontends::cli::commands::Command;

impl Command {
    /// The file or directory the command is about, absolute, when its
    /// arguments name one: its answers use that place's project
    /// configuration (`Engine::for_path`). `servers` and `config` are
    /// about the working directory `here`.
    pub(super) fn path(&self, here: &std::path::Path) -> Option<PathBuf> {
        let of_position = |spec: &str| {
            // FILE:LINE:COL, or FILE:LINE[-END] for the code actions.
            crate::frontends::cli::parse_position(spec)
                .map(|(f, _, _)| f)
                .ok()
                .or_else(|| spec.rsplit_once(':').map(|(f, _)| PathBuf::from(f)))
                // FILE alone, with a name path.
                .or_else(|| Some(PathBuf::from(spec)))
        };
        let path = match self {
            Command::Diagnostics { file, .. }
            | Command::Symbols { file }
            | Command::Formatters { file }
            | Command::Read { file, .. }
            | Command::Write { file, .. }
            | Command::Edit { file, .. }
            | Command::ReplaceSymbolBody { file, .. }
            | Command::InsertBeforeSymbol { file, .. }
            | Command::InsertAfterSymbol { file, .. }
            | Command::SafeDelete { file, .. }
            | Command::OrganizeImports { file, .. } => Some(file.clone()),
            Command::WorkspaceSymbols { file, .. } => file.clone(),
            Command::Definition { position, .. }
            | Command::References { position, .. }
            | Command::Hover { position, .. }
            | Command::Implementation { position, .. }
            | Command::Calls { position, .. }
            | Command::Types { position, .. }
            | Command::Rename { position, .. } => of_position(position),
            Command::CodeActions { lines, .. } | Command::ApplyCodeAction { lines, .. } => {
                of_position(lines)
            }
            Command::Format { files } => files.first().cloned(),
            Command::Check { dir } => dir.clone().or_else(|| Some(here.to_owned())),
            Command::Servers | Command::Config | Command::Doctor => Some(here.to_owned()),
            _ => None,
        }?;
        Some(if path.is_absolute() {
            path
        } else {
            here.join(path)
        })
    }
}
