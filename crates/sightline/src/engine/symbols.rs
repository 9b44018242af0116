//! The questions about symbols: hover, the outline of a file, workspace
//! symbols and the call hierarchy, and naming a symbol instead of counting
//! its column. The requests themselves are in `server::symbols`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::answer::{Hover, Items, ItemsKind, Pos};

use crate::catalog;
use crate::engine::locations::Wait;
use crate::engine::{Engine, outside_project, validate};
use crate::error::ToolError;

/// At most this many files are outlined by a directory's `documentSymbol`.
pub const DIRECTORY_OUTLINES: usize = 40;

impl Engine {
    /// The server's hover text (its markdown) for the symbol at a position.
    pub async fn hover(&self, file: &Path, line: usize, column: usize) -> Result<Hover, ToolError> {
        let (server, checked, pos) = self
            .prepare(file, Pos::new(line, column), Wait::Loaded)
            .await?;
        let text = server.hover(&checked.path, pos).await?;
        Ok(Hover {
            root: server.root.clone(),
            text,
        })
    }

    /// The outline of `file`: its symbols, nested, with line ranges. The
    /// document is opened (and synced) first.
    pub async fn document_symbols(&self, file: &Path) -> Result<Items, ToolError> {
        let checked = self.snapshot(file)?;
        let server = self.server_for(&checked).await?;
        server.sync(&checked.path, &checked.index, self.files())?;
        server.wait_ready(false).await?;
        let mut items = server.document_symbols(&checked.path).await?;
        sort_outline(&mut items);
        Ok(Items {
            kind: ItemsKind::Outline,
            root: server.root.clone(),
            file: Some(checked.path.into_path_buf()),
            items,
            notes: Vec::new(),
        })
    }

    /// The outline of each file under `dir` that a server handles (what
    /// `.gitignore` leaves), one after another, at most
    /// [`DIRECTORY_OUTLINES`] files; a file whose outline cannot be had
    /// says why on its line.
    pub(crate) async fn directory_symbols(&self, dir: &Path) -> Result<String, ToolError> {
        let (files, more) = self.served_files(dir, DIRECTORY_OUTLINES);
        if files.is_empty() {
            return Err(ToolError::bad_input(format!(
                "no file under {} is one a language server handles",
                dir.display()
            )));
        }
        let mut out = String::new();
        for file in &files {
            match self.document_symbols(file).await {
                Ok(items) => out.push_str(&crate::render::items_text(&items)),
                Err(e) => out.push_str(&format!("{}: {e}\n", file.display())),
            }
        }
        if more {
            out.push_str(&format!(
                "note: only the first {DIRECTORY_OUTLINES} files are outlined; ask of a subdirectory for the rest\n"
            ));
        }
        Ok(out)
    }

    /// Symbols matching `query` across a workspace. With `file`, its servers
    /// answer; without, every server for the kinds of files in the workspace
    /// directory is started (not just the running ones) and asked.
    pub(crate) async fn workspace_symbols(
        &self,
        query: &str,
        file: Option<&Path>,
    ) -> Result<Items, ToolError> {
        // A name path (`Session/request`): the servers are asked for its
        // last name, and the symbols kept are those whose place in their
        // file's outline the whole path names.
        let segments = crate::engine::name_path::segments(query);
        let query = segments.last().copied().unwrap_or(query);
        let mut found = self.workspace_symbols_named(query, file).await?;
        if segments.len() > 1 {
            let mut kept = Vec::new();
            for item in std::mem::take(&mut found.items) {
                let outline = self.document_symbols(&item.loc.path).await;
                if outline.is_ok_and(|o| {
                    crate::engine::name_path::names_at(&o.items, &item.loc, &segments)
                }) {
                    kept.push(item);
                }
            }
            found.items = kept;
        }
        Ok(found)
    }

    async fn workspace_symbols_named(
        &self,
        query: &str,
        file: Option<&Path>,
    ) -> Result<Items, ToolError> {
        let anchors = match file {
            Some(f) => vec![f.to_owned()],
            None => self.sample_files()?,
        };
        let mut items = Vec::new();
        let mut root = None;
        let mut asked = Vec::new();
        let mut first_error = None;
        let mut notes = Vec::new();
        for anchor in anchors {
            let checked = self.snapshot(&anchor)?;
            let (spec, r) = match self.route(&checked) {
                Ok(x) => x,
                Err(e) => {
                    first_error.get_or_insert(e);
                    continue;
                }
            };
            if asked.contains(&(spec.id, r.clone())) {
                continue;
            }
            asked.push((spec.id, r.clone()));
            let answer = async {
                let server = self.pool_get(spec, &r).await?;
                // tsserver answers only for projects with an open file: in a
                // monorepo, a file of each package is opened too.
                server.sync(&checked.path, &checked.index, self.files())?;
                let packages = crate::engine::packages::load_all(
                    &server,
                    self.files(),
                    &checked.path,
                    self.config().reach(),
                )?;
                server.wait_ready(true).await?;
                // tsserver's `navto` searches the projects of one file: in
                // a monorepo, each package's is asked.
                let found = if packages.opened.is_empty() {
                    server.workspace_symbols(query).await?
                } else {
                    // typescript-language-server tells tsserver of the
                    // documents opened only before its next request of its
                    // own (a `tsserverRequest` flushes nothing): one cheap
                    // request first, else tsserver answers "No Project".
                    let _ = server
                        .ask_of::<sightline_lsp::request::FoldingRange>(
                            serde_json::json!({ "textDocument": { "uri": sightline_lsp::path_to_uri_string(&checked.path).unwrap_or_default() } }),
                        )
                        .await;
                    let mut found = Vec::new();
                    for f in std::iter::once(checked.path.to_path_buf()).chain(packages.opened.clone()) {
                        found.extend(server.navto(&f, query).await?);
                    }
                    found
                };
                Ok::<_, ToolError>((found, packages.note.clone()))
            }
            .await;
            match answer {
                Ok((mut found, note)) => {
                    root.get_or_insert(r);
                    items.append(&mut found);
                    notes.extend(note);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        let Some(root) = root else {
            return Err(first_error.unwrap_or_else(|| {
                ToolError::bad_input("no file in the workspace has a language server")
            }));
        };
        items.sort_by(|a, b| a.loc.cmp_in(&b.loc, &root).then(a.name.cmp(&b.name)));
        items.dedup();
        Ok(Items {
            kind: ItemsKind::Symbols,
            root,
            file: None,
            items,
            notes,
        })
    }

    /// One file per (server, root) found in the workspace directory, within
    /// a bounded walk.
    fn sample_files(&self) -> Result<Vec<PathBuf>, ToolError> {
        let top = match self.workspace_root() {
            Some(r) => r.to_path_buf(),
            None => std::env::current_dir()
                .map_err(|e| ToolError::bad_input(format!("no workspace directory: {e}")))?,
        };
        let mut found: Vec<(&'static str, PathBuf)> = Vec::new();
        for path in crate::sync::walk::files_under(&top) {
            for spec in self.servers_for(&path) {
                if !found.iter().any(|(id, _)| *id == spec.id) {
                    found.push((spec.id, path.clone()));
                }
            }
        }
        if found.is_empty() {
            return Err(ToolError::unsupported(format!(
                "no file under {} is handled by a language server; supported: {}",
                top.display(),
                catalog::supported_summary()
            )));
        }
        Ok(found.into_iter().map(|(_, p)| p).collect())
    }

    /// The call hierarchy at a position: the items there, or the calls into
    /// or out of every one of them.
    pub async fn call_hierarchy(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        kind: ItemsKind,
    ) -> Result<Items, ToolError> {
        let wait = if kind == ItemsKind::CallItems {
            Wait::Loaded
        } else {
            Wait::Indexed
        };
        let (server, checked, pos) = self.prepare(file, Pos::new(line, column), wait).await?;
        let prepared = server.prepare_call_hierarchy(&checked.path, pos).await?;
        // In a monorepo, the callers in the other packages that mention
        // the name.
        let packages = if kind == ItemsKind::IncomingCalls {
            crate::engine::packages::load_users(
                &server,
                self.files(),
                &checked.path,
                &crate::engine::locations::name_at(&checked, Pos::new(line, column)),
                self.config().reach(),
            )?
        } else {
            crate::engine::packages::LoadedPackages::none()
        };
        let mut texts = HashMap::new();
        let mut items = Vec::new();
        // Callers in other files of a loose file are found only while open.
        if kind == ItemsKind::IncomingCalls
            && let Some(name) =
                outside_project::name_to_open(&server, &checked, Pos::new(line, column))
        {
            for group in outside_project::groups(&server, self.files(), &checked, &name) {
                outside_project::open(&server, self.files(), &checked, &group).await?;
                for item in &prepared {
                    items.extend(server.incoming_calls(item, &mut texts).await?);
                }
            }
        }
        for item in &prepared {
            match kind {
                ItemsKind::IncomingCalls => {
                    items.extend(server.incoming_calls(item, &mut texts).await?)
                }
                ItemsKind::OutgoingCalls => {
                    items.extend(server.outgoing_calls(item, &mut texts).await?)
                }
                _ => items.extend(server.call_item(item, &mut texts)),
            }
        }
        // tsserver's call hierarchy stays within the project of the
        // asked file's package: the calls from the other packages are
        // their references that call, each in the symbol around it.
        if kind == ItemsKind::IncomingCalls && !packages.opened.is_empty() {
            let own = crate::engine::packages::served_workspace(&server, &checked.path)
                .and_then(|ws| ws.package_of(&checked.path).map(Path::to_owned));
            // Boxed: held beside the call hierarchy's own future, it
            // overflowed a daemon worker's stack.
            let calls = Box::pin(self.calls_from_other_packages(file, line, column, own));
            items.extend(calls.await?);
        }
        Ok(Items::across_files(
            kind,
            server.root.clone(),
            items,
            packages.note.clone().into_iter().collect(),
        ))
    }

    /// The calls of the symbol at a position from outside the package
    /// `own`: each reference there that calls it (the name followed by
    /// `(`, `<` or a template), as the symbol around the call (or the file,
    /// for a call at its top level).
    async fn calls_from_other_packages(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        own: Option<PathBuf>,
    ) -> Result<Vec<crate::answer::Item>, ToolError> {
        // Boxed: the call hierarchy's future holding the references' beside
        // its own overflowed a daemon worker's stack.
        let uses = Box::pin(self.references(file, line, column, false)).await?;
        let name = self
            .snapshot(file)
            .map(|s| crate::engine::locations::name_at(&s, Pos::new(line, column)))
            .unwrap_or_default();
        let calls: Vec<&crate::answer::Loc> = uses
            .locations
            .iter()
            .filter(|l| own.as_ref().is_none_or(|o| !l.path.starts_with(o)))
            .filter(|l| calls_at(l, &name))
            .collect();
        let places: Vec<(PathBuf, usize)> =
            calls.iter().map(|l| (l.path.clone(), l.line)).collect();
        let around = self.enclosing_items(&places).await;
        Ok(calls
            .into_iter()
            .zip(around)
            .map(|(l, around)| {
                let (name, kind) = around.unwrap_or_else(|| {
                    let file = l.path.file_name().unwrap_or_default().to_string_lossy();
                    (file.into_owned(), "file".to_owned())
                });
                crate::answer::Item {
                    name,
                    kind,
                    loc: l.clone(),
                    start_line: l.line,
                    end_line: l.line,
                    children: Vec::new(),
                }
            })
            .collect())
    }

    /// The 1-based column of `symbol` on `line` of `file`, for callers that
    /// name the symbol instead of counting columns. A name that is not on the
    /// line, or is there more than once, is an error listing what is there.
    pub(crate) fn symbol_column(
        &self,
        file: &Path,
        line: usize,
        symbol: &str,
    ) -> Result<usize, ToolError> {
        let checked = self.snapshot(file)?;
        let index = checked.index.clone();
        validate::column_of(&index, file, line, symbol)
    }
}

/// Sorts an outline by position, at every depth.
fn sort_outline(items: &mut [crate::answer::Item]) {
    items.sort_by(|a, b| a.loc.cmp(&b.loc));
    for item in items {
        sort_outline(&mut item.children);
    }
}

/// Whether the use of `name` at `loc` calls it: the name is followed by
/// `(`, type arguments or a template literal.
fn calls_at(loc: &crate::answer::Loc, name: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(&loc.path) else {
        return false;
    };
    let Some(line) = text.lines().nth(loc.line.saturating_sub(1)) else {
        return false;
    };
    let rest: String = line.chars().skip(loc.column.saturating_sub(1)).collect();
    rest.strip_prefix(name)
        .is_some_and(|after| after.trim_start().starts_with(['(', '<', '`']))
}
