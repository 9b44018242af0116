//! References of a file outside every project its server indexes whole: a
//! JavaScript or TypeScript file that no `tsconfig.json` or `jsconfig.json`
//! governs, a C file with no `compile_commands.json`.
//!
//! tsserver (behind typescript-language-server) puts such a "loose" file in an
//! inferred project made of the files open in the editor and what they import.
//! Asked for the references of a function that `lib.js` exports, it finds no
//! use in `app.js` unless `app.js` is open too. So sightline opens the files
//! of the workspace that mention the name, a few at a time (within the open
//! document limit), asks again with each group open, and merges the answers.
//! clangd likewise indexes in the background only the files a compilation
//! database lists; without one it knows the open files.

use crate::answer::Pos;
use crate::error::ToolError;
use crate::server::LspServer;
use crate::sync::Snapshot;

/// At most this many files that mention the name are opened.
const CANDIDATE_LIMIT: usize = 120;
/// Files larger than this are not read for the name (bundles, minified code).
const MAX_FILE_BYTES: u64 = 1 << 20;

pub use crate::project::in_project;

/// The other workspace files of `server` that mention `name`, in groups
/// small enough to be open together with `file` (open document limit),
/// read as `files` sees them.
pub fn groups(
    server: &LspServer,
    files: &crate::sync::FileView,
    file: &Snapshot,
    name: &str,
) -> Vec<Vec<Snapshot>> {
    let candidates: Vec<Snapshot> = crate::sync::walk::files_under(&server.root)
        .into_iter()
        .filter(|p| *p != file.path && server.spec.handles(p))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .filter_map(|p| {
            let read = files.read(&p).ok()?;
            read.text().contains(name).then_some(read)
        })
        .take(CANDIDATE_LIMIT)
        .collect();
    // Room for the asked file, which must stay open, and one spare.
    candidates
        .chunks(server.open_limit().saturating_sub(2).max(1))
        .map(<[_]>::to_vec)
        .collect()
}

/// Opens a group, then `file` again so that it is the most recently used
/// document and stays open while the next group is opened. For a server
/// that takes a file in only once built (clangd), waits for that. The
/// files are read as `files` sees them.
pub async fn open(
    server: &LspServer,
    files: &crate::sync::FileView,
    file: &Snapshot,
    group: &[Snapshot],
) -> Result<(), ToolError> {
    let mut opened = Vec::new();
    for other in group {
        opened.push((&other.path, server.sync(&other.path, &other.index, files)?));
    }
    server.sync(&file.path, &file.index, files)?;
    if server
        .spec
        .quirks
        .references
        .outside_project
        .is_some_and(|l| l.wait_publish)
    {
        for (path, doc) in opened {
            server.wait_built(path, &doc).await?;
        }
    }
    Ok(())
}

/// The name at a position, when the server needs the files that mention it
/// open for cross-file questions about `file` (a loose file).
pub fn name_to_open(server: &LspServer, file: &Snapshot, pos: Pos) -> Option<String> {
    let loose = server.spec.quirks.references.outside_project?;
    if in_project(&file.path, &server.root, loose.project) {
        return None;
    }
    let index = file.index.clone();
    let (line, _) = pos.zero_based()?;
    let text = index.line(line)?;
    crate::engine::validate::symbol_at(
        text,
        pos.column,
        crate::engine::validate::dashed_names(&file.path),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::in_project;

    #[test]
    fn a_config_between_the_file_and_the_root_makes_a_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("web/src")).unwrap();
        let file = root.join("web/src/a.js");
        let ts = &["tsconfig.json", "jsconfig.json"];
        assert!(!in_project(&file, root, ts));
        std::fs::write(root.join("web/jsconfig.json"), "{}").unwrap();
        assert!(in_project(&file, root, ts));
        // A config above the root is not the workspace's.
        let inner = root.join("web/src");
        assert!(!in_project(&inner.join("b.js"), &inner, ts));
    }
}
