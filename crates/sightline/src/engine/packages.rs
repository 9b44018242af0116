//! The other packages of a monorepo, loaded before a question about a
//! symbol: a server rooted at a workspace (`RootRule::Workspace`) that holds
//! a package's project only once one of its files is open
//! (`ReferencesQuirks::packages_need_open`, tsserver) is given one file of
//! each other package that mentions the name, kept open until the answer
//! is in. Packages past the `workspace.max_packages` budget are not loaded,
//! and the answer names them.

use std::path::{Path, PathBuf};

use crate::catalog::spec::RootRule;
use crate::error::ToolError;
use crate::server::{Asking, LspServer};
use crate::sync::Snapshot;
use crate::workspaces::{Workspace, workspace_of};

/// Files larger than this are not read for the name (bundles).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The packages opened for one question, open until this is dropped, and
/// the note naming those that were not.
pub(crate) struct LoadedPackages<'a> {
    _open: Vec<Asking<'a>>,
    /// One `note:` line when packages that mention the name were not loaded.
    pub note: Option<String>,
}

impl LoadedPackages<'_> {
    /// Nothing loaded.
    pub(crate) fn none() -> Self {
        LoadedPackages {
            _open: Vec::new(),
            note: None,
        }
    }
}

/// The workspace `server` serves `file` in, when the server is rooted at
/// it.
pub(crate) fn served_workspace(server: &LspServer, file: &Path) -> Option<Workspace> {
    let RootRule::Workspace { ecosystem, .. } = server.spec.root else {
        return None;
    };
    workspace_of(file, ecosystem).filter(|ws| ws.root == server.root)
}

/// Opens, in `server`, a file of each other package of `file`'s workspace
/// that mentions `name`, at most `budget` of them, so that the server holds
/// their projects while the question is asked.
pub(crate) fn load_users<'a>(
    server: &'a LspServer,
    file: &Path,
    name: &str,
    budget: usize,
) -> Result<LoadedPackages<'a>, ToolError> {
    if name.is_empty() {
        return Ok(LoadedPackages::none());
    }
    let what = format!("that {{mention}} `{name}`");
    load(server, file, budget, &what, |text| mentions(text, name))
}

/// Opens a file of every other package of `file`'s workspace, at most
/// `budget` of them: a workspace symbol query names no one symbol.
pub(crate) fn load_all<'a>(
    server: &'a LspServer,
    file: &Path,
    budget: usize,
) -> Result<LoadedPackages<'a>, ToolError> {
    load(server, file, budget, "of the workspace", |_| true)
}

/// Opens the first file of each other package that `wanted` takes, at most
/// `budget`; the note names the packages past it, `what` saying which
/// packages were looked for (`{mention}` is the verb, agreeing in number).
fn load<'a>(
    server: &'a LspServer,
    file: &Path,
    budget: usize,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) -> Result<LoadedPackages<'a>, ToolError> {
    if !server.spec.quirks.references.packages_need_open {
        return Ok(LoadedPackages::none());
    }
    let Some(ws) = served_workspace(server, file) else {
        return Ok(LoadedPackages::none());
    };
    let own = ws.package_of(file).map(Path::to_owned);
    let users: Vec<(PathBuf, Snapshot)> = ws
        .packages
        .iter()
        .filter(|p| Some(*p) != own.as_ref())
        .filter_map(|p| first_file(server, p, &wanted).map(|s| (p.clone(), s)))
        .collect();
    let mut open = Vec::new();
    let mut left_out = Vec::new();
    for (package, snapshot) in users {
        if open.len() >= budget {
            left_out.push(ws.name_of(&package));
            continue;
        }
        // Marked first, so that opening the next one cannot close it.
        open.push(server.asking(&snapshot.path));
        server.sync(&snapshot.path, &snapshot.index)?;
    }
    let one = left_out.len() == 1;
    let note = (!left_out.is_empty()).then(|| {
        format!(
            "{} {} {} {} not searched, over the {budget} a question loads (sightline.json's \"workspace\": {{\"max_packages\": N}} raises it): {}",
            left_out.len(),
            if one { "package" } else { "packages" },
            what.replace("{mention}", if one { "mentions" } else { "mention" }),
            if one { "was" } else { "were" },
            left_out.join(", ")
        )
    });
    Ok(LoadedPackages { _open: open, note })
}

/// The first file of `package` the server handles whose text `wanted`
/// takes.
fn first_file(
    server: &LspServer,
    package: &Path,
    wanted: &impl Fn(&str) -> bool,
) -> Option<Snapshot> {
    crate::sync::walk::files_under(package)
        .into_iter()
        .filter(|p| server.spec.handles(p))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .find_map(|p| {
            let read = Snapshot::read(&p).ok()?;
            wanted(read.text()).then_some(read)
        })
}

/// Whether `text` holds `name` with no identifier character either side.
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::mentions;

    #[test]
    fn a_mention_is_the_whole_word() {
        assert!(mentions(
            "import { shouldThrowError } from 'x'",
            "shouldThrowError"
        ));
        assert!(!mentions("shouldThrowErrors(x)", "shouldThrowError"));
        assert!(!mentions("$shouldThrowError", "shouldThrowError"));
        assert!(mentions("a.b(", "b"));
    }
}
