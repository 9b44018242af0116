//! `move`: a file or folder moved with the imports that name it. The
//! server computes the edits (`workspace/willRenameFiles`:
//! typescript-language-server, rust-analyzer); they and the move are one
//! change, staged (`edit::workspace`), previewed or written all or nothing,
//! and the errors it brought are listed. A server that cannot update
//! imports (pyright) gets no move that would break them: it is refused,
//! naming the files that import the module.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sightline_lsp::path_to_uri_string;

use crate::edit::refactor::Refactored;
use crate::edit::workspace::Plan;
use crate::engine::packages::{load_users, mentions};
use crate::error::ToolError;
use crate::server::LspServer;

/// At most this many files are moved with a folder.
const MOST_FILES: usize = 2000;
/// At most this many importers are named in a refusal.
const NAMED_IMPORTERS: usize = 10;

/// The words that begin a line importing a module, in the languages whose
/// servers cannot update imports (Python's `import`/`from`, and the like
/// of other languages for a server without `willRenameFiles`).
const IMPORT_WORDS: &[&str] = &[
    "import", "from", "use", "mod", "require", "#include", "include", "export",
];

/// The regular files under `dir` (links not followed), at most
/// [`MOST_FILES`].
fn files_in(dir: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let mut files = Vec::new();
    let mut queue = vec![dir.to_path_buf()];
    while let Some(d) = queue.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| ToolError::bad_input(format!("{}: {e}", d.display())))?;
        for entry in entries.flatten() {
            let kind = entry
                .file_type()
                .map_err(|e| ToolError::bad_input(format!("{}: {e}", entry.path().display())))?;
            if kind.is_dir() {
                queue.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            } else {
                return Err(ToolError::refused(format!(
                    "{} is not a regular file or folder; nothing was moved",
                    entry.path().display()
                )));
            }
            if files.len() > MOST_FILES {
                return Err(ToolError::refused(format!(
                    "{} holds more than {MOST_FILES} files; nothing was moved",
                    dir.display()
                )));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Where `from` goes: `to`, or `to/NAME` when `to` is an existing folder
/// (as `mv` does).
fn target(from: &Path, to: &Path) -> Result<PathBuf, ToolError> {
    let to = if to.is_dir() {
        to.join(from.file_name().unwrap_or_default())
    } else {
        to.to_path_buf()
    };
    if to.symlink_metadata().is_ok() {
        return Err(ToolError::refused(format!(
            "{} exists; nothing was moved",
            to.display()
        )));
    }
    if to.starts_with(from) {
        return Err(ToolError::bad_input(format!(
            "{} is inside {}, which cannot be moved into itself",
            to.display(),
            from.display()
        )));
    }
    Ok(to)
}

/// The files the server handles under `root` (other than `moved`) with a
/// line that imports `name`: a line that starts with one of
/// [`IMPORT_WORDS`] and holds `name` as a whole word.
fn importers(server: &LspServer, root: &Path, moved: &[PathBuf], name: &str) -> Vec<PathBuf> {
    crate::sync::walk::files_under(root)
        .into_iter()
        .filter(|p| server.spec.handles(p) && !moved.contains(p))
        .filter(|p| {
            crate::files::read_project_file(p).is_ok_and(|text| {
                text.lines().any(|line| {
                    let line = line.trim_start();
                    IMPORT_WORDS.iter().any(|w| line.starts_with(w)) && mentions(line, name)
                })
            })
        })
        .collect()
}

fn uri(path: &Path) -> Result<String, ToolError> {
    path_to_uri_string(path).map_err(|e| ToolError::bad_input(format!("{}: {e}", path.display())))
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

impl Editor<'_> {
    /// Moves the file or folder `from` to `to` (into `to` when it is a
    /// folder), with the edits its server makes to the imports and module
    /// declarations that name it; with `dry_run`, only the preview.
    pub async fn move_path(
        &self,
        from: &Path,
        to: &Path,
        dry_run: bool,
    ) -> Result<Refactored, ToolError> {
        let from = sightline_lsp::normalize(from);
        let meta = from
            .symlink_metadata()
            .map_err(|e| ToolError::bad_input(format!("{}: {e}", from.display())))?;
        let is_dir = meta.is_dir();
        if !is_dir && !meta.is_file() {
            return Err(ToolError::bad_input(format!(
                "{} is not a regular file or folder",
                from.display()
            )));
        }
        let to = target(&from, &sightline_lsp::normalize(to))?;
        let moved = if is_dir {
            files_in(&from)?
        } else {
            vec![from.clone()]
        };
        // The server of the first file a server handles: it computes the
        // edits for the whole move.
        let source = moved
            .iter()
            .find(|p| self.engine.handles(p))
            .ok_or_else(|| {
                ToolError::unsupported(format!(
                    "no language server handles {}; move it with the shell (no imports to update)",
                    from.display()
                ))
            })?;
        let checked = self.engine.snapshot(source)?;
        let server = self.engine.server_for(&checked).await?;
        server.sync(&checked.path, &checked.index, self.engine.files())?;
        server.wait_ready(false).await?;
        let root = self
            .engine
            .workspace_root()
            .map(Path::to_owned)
            .unwrap_or_else(|| server.root.clone());
        let edit = self
            .move_edit(&server, &checked.path, (&from, &to, is_dir), &moved, &root)
            .await?;
        let mut plan = if edit.is_null() {
            Plan::default()
        } else {
            Plan::stage(&server, &edit)?
        };
        let updates = plan.edits;
        let edited = plan.staged().len();
        for file in &moved {
            let dest = to.join(file.strip_prefix(&from).unwrap_or(file));
            let dest = if is_dir { dest } else { to.clone() };
            plan.add(
                &server,
                &json!({ "documentChanges": [
                    { "kind": "rename", "oldUri": uri(file)?, "newUri": uri(&dest)? }
                ] }),
            )?;
        }
        let what = format!(
            "{} → {}: {} {}",
            relative(&from, &root),
            relative(&to, &root),
            plural(updates, "import edit"),
            if updates == 0 {
                String::new()
            } else {
                format!("in {}", plural(edited, "file"))
            }
        );
        let what = what.trim_end().to_owned();
        let done = self
            .finish_plan(
                &server,
                plan,
                &format!("move {what}"),
                &format!("moved {what}"),
                dry_run,
                false,
            )
            .await?;
        if !dry_run {
            server.did_rename_files(&from, &to);
            if is_dir {
                remove_empty_dirs(&from);
            }
        }
        Ok(done)
    }

    /// The server's edit for the move of `from` to `to`: the imports it
    /// updates (`willRenameFiles`), with the other packages that mention
    /// the module loaded first; `null` when nothing imports it. A server
    /// that cannot update imports gets a refusal naming the files that
    /// import it.
    async fn move_edit(
        &self,
        server: &LspServer,
        source: &Path,
        (from, to, is_dir): (&Path, &Path, bool),
        moved: &[PathBuf],
        root: &Path,
    ) -> Result<Value, ToolError> {
        let name = if is_dir {
            from.file_name()
        } else {
            from.file_stem()
        }
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
        let edit = if server.renames_files(from, is_dir) {
            // In a monorepo the server updates only the packages it
            // holds: those that mention the module's name are loaded first.
            let packages = load_users(
                server,
                self.engine.files(),
                source,
                &name,
                self.engine.config().reach(),
            )?;
            if let Some(note) = packages.note {
                return Err(ToolError::refused(format!(
                    "move not done: {note}; nothing was written"
                )));
            }
            let edit = server.will_rename_files(from, to).await?;
            drop(packages);
            edit
        } else {
            let found = importers(server, &server.root, moved, &name);
            if !found.is_empty() {
                let named: Vec<String> = found
                    .iter()
                    .take(NAMED_IMPORTERS)
                    .map(|p| relative(p, root))
                    .collect();
                let more = found.len().saturating_sub(NAMED_IMPORTERS);
                return Err(ToolError::refused(format!(
                    "move not done: {} cannot update the imports of a moved module, and {} {} import `{name}`: {}{}; nothing was written",
                    server.spec.id,
                    found.len(),
                    if found.len() == 1 {
                        "file may"
                    } else {
                        "files may"
                    },
                    named.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    },
                )));
            }
            Value::Null
        };
        Ok(edit)
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Removes `dir` and the folders under it that the move left empty.
fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|k| k.is_dir()) {
                remove_empty_dirs(&entry.path());
            }
        }
    }
    // Fails, as it should, when something is left in it.
    let _ = std::fs::remove_dir(dir);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_move_into_a_folder_keeps_the_name_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::write(root.join("a.ts"), "").unwrap();
        std::fs::write(root.join("b.ts"), "").unwrap();
        assert_eq!(
            target(&root.join("a.ts"), &root.join("lib")).unwrap(),
            root.join("lib/a.ts")
        );
        assert_eq!(
            target(&root.join("a.ts"), &root.join("c.ts")).unwrap(),
            root.join("c.ts")
        );
        let taken = target(&root.join("a.ts"), &root.join("b.ts")).unwrap_err();
        assert!(
            taken.message.ends_with("b.ts exists; nothing was moved"),
            "{taken}"
        );
        let inside = target(&root.join("lib"), &root.join("lib/deeper")).unwrap_err();
        assert!(
            inside.message.contains("cannot be moved into itself"),
            "{inside}"
        );
    }

    #[test]
    fn a_folder_s_files_are_all_its_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["x/a.py", "x/sub/b.py", "x/.hidden", "x/node_modules/c.js"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let files = files_in(&root.join("x")).unwrap();
        assert_eq!(files.len(), 4, "{files:?}");
    }
}
