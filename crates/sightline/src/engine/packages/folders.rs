//! The user's other folders (`workspace.folders`, `sightline mcp
//! --folder`) as packages a question reaches, and the note for a server
//! that cannot search them.

use std::path::PathBuf;

use crate::catalog::spec::RootRule;
use crate::engine::packages::first_file;
use crate::server::LspServer;
use crate::sync::FileView;
use crate::workspaces::workspace_of;

/// The packages of the user's other `folders` that a server rooted at
/// `server.root` does not hold already: each folder's declared workspace's
/// packages, or the folder itself when it has a manifest of the server's
/// ecosystem.
pub(super) fn folder_packages(server: &LspServer, folders: &[PathBuf]) -> Vec<PathBuf> {
    let RootRule::Workspace { ecosystem, .. } = server.spec.root else {
        return Vec::new();
    };
    let manifests = ecosystem.manifests();
    let mut out = Vec::new();
    for folder in folders {
        let folder = sightline_lsp::normalize(folder);
        if folder.starts_with(&server.root) || server.root.starts_with(&folder) {
            continue;
        }
        let declared = workspace_of(&folder.join(manifests[0]), ecosystem)
            .filter(|ws| ws.root.starts_with(&folder));
        match declared {
            Some(ws) => out.extend(ws.packages),
            None if manifests.iter().any(|m| folder.join(m).is_file()) => out.push(folder),
            None => {}
        }
    }
    out
}

/// The note when the user's other folders hold a package that `wanted`
/// takes but `server` searches only its own root (it is not given other
/// packages' files to open): they were not searched.
pub(super) fn unsearched_folders_note(
    server: &LspServer,
    files: &FileView,
    folders: &[PathBuf],
    what: &str,
    wanted: &impl Fn(&str) -> bool,
) -> Option<String> {
    let unseen: Vec<String> = folders
        .iter()
        .filter(|p| first_file(server, files, p, wanted).is_some())
        .map(|p| p.display().to_string())
        .collect();
    if unseen.is_empty() {
        return None;
    }
    let one = unseen.len() == 1;
    Some(format!(
        "{} {} of the other folders {} {} not searched ({} searches only its own root): {}",
        unseen.len(),
        if one { "package" } else { "packages" },
        what.replace("{mention}", if one { "mentions" } else { "mention" }),
        if one { "was" } else { "were" },
        server.spec.id,
        unseen.join(", ")
    ))
}
