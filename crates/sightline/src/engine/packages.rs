//! The other packages of a monorepo, loaded before a question about a
//! symbol: a server rooted at a workspace (`RootRule::Workspace`) that holds
//! a package's project only once one of its files is open
//! (`ReferencesQuirks::packages_need_open`, tsserver) is given one file of
//! each other package that mentions the name, kept open until the answer
//! is in. Packages past the `workspace.max_packages` budget are not loaded,
//! and the answer names them. The user's other folders
//! (`workspace.folders`, `sightline mcp --folder`) count as packages of the
//! workspace too: a library's consumer checked out beside it.

use std::path::{Path, PathBuf};

use crate::catalog::spec::RootRule;
use crate::config::Reach;
use crate::error::ToolError;
use crate::server::{Asking, LspServer};
use crate::sync::{FileView, Snapshot};
use crate::workspaces::{Workspace, workspace_of};

mod folders;

use folders::{folder_packages, unsearched_folders_note};

/// Files larger than this are not read for the name (bundles).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The packages opened for one question, open until this is dropped, and
/// the note naming those that were not.
pub(crate) struct LoadedPackages<'a> {
    _open: Vec<Asking<'a>>,
    /// The file opened in each package loaded.
    pub opened: Vec<PathBuf>,
    /// One `note:` line when packages that mention the name were not loaded.
    pub note: Option<String>,
}

impl LoadedPackages<'_> {
    /// Nothing loaded.
    pub(crate) fn none() -> Self {
        LoadedPackages {
            _open: Vec::new(),
            opened: Vec::new(),
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
    files: &FileView,
    file: &Path,
    name: &str,
    reach: Reach,
) -> Result<LoadedPackages<'a>, ToolError> {
    if name.is_empty() {
        return Ok(LoadedPackages::none());
    }
    let what = format!("that {{mention}} `{name}`");
    load(server, files, file, reach, &what, users_of, |text| {
        mentions(text, name)
    })
}

/// Opens a file of every other package of `file`'s workspace, at most
/// `budget` of them: a workspace symbol query names no one symbol.
pub(crate) fn load_all<'a>(
    server: &'a LspServer,
    files: &FileView,
    file: &Path,
    reach: Reach,
) -> Result<LoadedPackages<'a>, ToolError> {
    load(
        server,
        files,
        file,
        reach,
        "of the workspace",
        |_, _| None,
        |_| true,
    )
}

/// Opens the first file of each other package that `wanted` takes, at most
/// `budget`; the note names the packages past it, `what` saying which
/// packages were looked for (`{mention}` is the verb, agreeing in number).
fn load<'a>(
    server: &'a LspServer,
    files: &FileView,
    file: &Path,
    reach: Reach,
    what: &str,
    users: impl FnOnce(&Workspace, &Path) -> Option<Vec<PathBuf>>,
    wanted: impl Fn(&str) -> bool,
) -> Result<LoadedPackages<'a>, ToolError> {
    let budget = reach.budget;
    let folders = folder_packages(server, reach.folders);
    if !server.spec.quirks.references.packages_need_open {
        // A server rooted otherwise than at a workspace has no packages
        // of the folders worked out: the folders themselves are looked
        // through for the note.
        let unsearched: Vec<PathBuf> = if folders.is_empty() {
            reach
                .folders
                .iter()
                .map(|f| sightline_lsp::normalize(f))
                .filter(|f| !server.root.starts_with(f) && !f.starts_with(&server.root))
                .collect()
        } else {
            folders
        };
        return Ok(LoadedPackages {
            note: unsearched_folders_note(server, files, &unsearched, what, &wanted),
            ..LoadedPackages::none()
        });
    }
    // No workspace this server answers for: other packages of the
    // repository that the answer cannot have seen are named, never left
    // out in silence, the user's other folders or not.
    let declared = served_workspace(server, file);
    let undeclared = declared
        .is_none()
        .then(|| undeclared_note(server, files, file, what, &wanted))
        .flatten();
    // The user's other folders join the workspace's packages; a package
    // alone (no workspace declared) is a workspace of one with them.
    let served = declared.or_else(|| {
        (!folders.is_empty()).then(|| Workspace {
            root: server.root.clone(),
            declared_by: "workspace.folders",
            packages: vec![server.root.clone()],
        })
    });
    let Some(mut ws) = served else {
        return Ok(LoadedPackages {
            note: undeclared,
            ..LoadedPackages::none()
        });
    };
    for p in folders {
        if !ws.packages.contains(&p) {
            ws.packages.push(p);
        }
    }
    let own = ws.package_of(file).map(Path::to_owned);
    // The packages that may use the file's, worked out once per question
    // (each manifest read once), `None` when any may.
    let may_use = own.as_ref().and_then(|o| users(&ws, o));
    let users: Vec<(PathBuf, Snapshot)> = ws
        .packages
        .iter()
        .filter(|p| Some(*p) != own.as_ref())
        .filter(|p| may_use.as_ref().is_none_or(|u| u.contains(p)))
        .filter_map(|p| first_file(server, files, p, &wanted).map(|s| (p.clone(), s)))
        .collect();
    let mut open = Vec::new();
    let mut opened = Vec::new();
    let mut left_out = Vec::new();
    for (package, snapshot) in users {
        if open.len() >= budget {
            left_out.push(ws.name_of(&package));
            continue;
        }
        // Marked first, so that opening the next one cannot close it.
        open.push(server.asking(&snapshot.path));
        server.sync(&snapshot.path, &snapshot.index, files)?;
        opened.push(snapshot.path.to_path_buf());
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
    let note = match (note, undeclared) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Ok(LoadedPackages {
        _open: open,
        opened,
        note,
    })
}

/// At most this many packages of a repository without a workspace are
/// looked through for the note of [`undeclared_note`].
const MOST_UNDECLARED: usize = 200;

/// The note when `file`'s server answers for no workspace but other
/// packages of its repository (directories with a manifest, under the
/// nearest `.git` above it) hold a file `wanted` takes: the answer cannot
/// have seen them. It names why: a workspace declaration that cannot be
/// read (a `package.json` that is not valid JSON), or none at all.
fn undeclared_note(
    server: &LspServer,
    files: &FileView,
    file: &Path,
    what: &str,
    wanted: &impl Fn(&str) -> bool,
) -> Option<String> {
    let RootRule::Workspace { ecosystem, .. } = server.spec.root else {
        return None;
    };
    let repo = file.ancestors().skip(1).find(|d| d.join(".git").exists())?;
    let manifests = ecosystem.manifests();
    let own = file
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(repo))
        .find(|d| manifests.iter().any(|m| d.join(m).is_file()))?;
    let all = crate::workspaces::Patterns {
        include: vec!["**".to_owned()],
        exclude: Vec::new(),
    };
    let unseen: Vec<String> = crate::workspaces::expand(repo, &all, manifests)
        .into_iter()
        .filter(|p| !own.starts_with(p) && !p.starts_with(own))
        .take(MOST_UNDECLARED)
        .filter(|p| first_file(server, files, p, wanted).is_some())
        .map(|p| p.strip_prefix(repo).unwrap_or(&p).display().to_string())
        .collect();
    if unseen.is_empty() {
        return None;
    }
    let why = crate::workspaces::unreadable_declaration(file, ecosystem).map_or_else(
        || "no workspace declares them".to_owned(),
        |(path, why)| format!("{} {why}, so no workspace is read", path.display()),
    );
    let one = unseen.len() == 1;
    Some(format!(
        "{} other {} of the repository {} {} not searched ({why}): {}",
        unseen.len(),
        if one { "package" } else { "packages" },
        what.replace("{mention}", if one { "mentions" } else { "mention" }),
        if one { "was" } else { "were" },
        unseen.join(", ")
    ))
}

/// The packages that may use what `own` declares: those that depend on
/// `own` (their `package.json` names it among their dependencies of any
/// kind), or on a package of the workspace that does, at any depth, and
/// those whose manifest says nothing either way (no `package.json`); `None`
/// when any may (`own` has no name). Each manifest is read once.
fn users_of(ws: &Workspace, own: &Path) -> Option<Vec<PathBuf>> {
    let manifest = |dir: &Path| -> Option<serde_json::Value> {
        serde_json::from_str(&crate::files::read_project_file(&dir.join("package.json")).ok()?).ok()
    };
    let name = |m: &serde_json::Value| m.get("name").and_then(|n| n.as_str()).map(str::to_owned);
    let deps = |m: &serde_json::Value| -> Vec<String> {
        [
            "dependencies",
            "devDependencies",
            "peerDependencies",
            "optionalDependencies",
        ]
        .iter()
        .filter_map(|k| m.get(*k).and_then(|d| d.as_object()))
        .flat_map(|d| d.keys().cloned())
        .collect()
    };
    let own_name = manifest(own).as_ref().and_then(name)?;
    let mut silent: Vec<PathBuf> = Vec::new();
    let mut packages: Vec<(PathBuf, Option<String>, Vec<String>)> = Vec::new();
    for p in &ws.packages {
        match manifest(p) {
            Some(m) => packages.push((p.clone(), name(&m), deps(&m))),
            None => silent.push(p.clone()),
        }
    }
    // The names that reach `own`, grown until nothing more is added.
    let mut reach = vec![own_name];
    let mut users: Vec<PathBuf> = Vec::new();
    loop {
        let before = users.len();
        for (p, n, d) in &packages {
            if !users.contains(p) && d.iter().any(|d| reach.contains(d)) {
                users.push(p.clone());
                reach.extend(n.clone());
            }
        }
        if users.len() == before {
            break;
        }
    }
    users.extend(silent);
    Some(users)
}

/// Whether a path is a test's (`__tests__/`, `test/`, `*.test.ts`): such
/// files are often left out of the package's own project.
fn is_test(path: &Path) -> bool {
    path.components().any(|c| {
        matches!(
            c.as_os_str().to_str(),
            Some("__tests__" | "__mocks__" | "test" | "tests" | "spec" | "e2e")
        )
    }) || path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.contains(".test.") || n.contains(".spec."))
}

/// The first file of `package` the server handles whose text (as `files`
/// sees it) `wanted` takes, a test's last.
fn first_file(
    server: &LspServer,
    files: &FileView,
    package: &Path,
    wanted: &impl Fn(&str) -> bool,
) -> Option<Snapshot> {
    let mut paths: Vec<PathBuf> = crate::sync::walk::files_under(package)
        .into_iter()
        .filter(|p| server.spec.handles(p))
        .collect();
    paths.sort_by_key(|p| is_test(p));
    paths
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .find_map(|p| {
            let read = files.read(&p).ok()?;
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
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_users_of_a_package_are_those_that_depend_on_it_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let package = |name: &str, deps: &str| {
            let p = root.join("packages").join(name);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(
                p.join("package.json"),
                format!(r#"{{"name": "@x/{name}", "dependencies": {{{deps}}}}}"#),
            )
            .unwrap();
            p
        };
        let core = package("core", "");
        let persist = package("persist", r#""@x/core": "1""#);
        let react = package("react-persist", r#""@x/persist": "1", "react": "18""#);
        let docs = package("docs", r#""react": "18""#);
        let bare = root.join("packages/bare");
        std::fs::create_dir_all(&bare).unwrap();
        let ws = Workspace {
            root: root.to_owned(),
            declared_by: "package.json",
            packages: vec![
                core.clone(),
                persist.clone(),
                react.clone(),
                docs.clone(),
                bare.clone(),
            ],
        };
        let of_core = users_of(&ws, &core).unwrap();
        assert!(of_core.contains(&persist));
        assert!(of_core.contains(&react));
        assert!(!of_core.contains(&docs));
        assert!(!users_of(&ws, &persist).unwrap().contains(&core));
        // No manifest to say: it may.
        assert!(of_core.contains(&bare));
        assert!(is_test(Path::new("/p/src/__tests__/a.ts")));
        assert!(is_test(Path::new("/p/src/a.test.ts")));
        assert!(!is_test(Path::new("/p/src/testing.ts")));
    }

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
