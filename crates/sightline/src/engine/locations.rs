//! The questions whose answer is a list of places: definitions and
//! references and implementations, with what makes a
//! position's answer complete: the file synced, the server ready, and for
//! references the uses servers leave out (`aliases`, `outside_project`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::answer::{Loc, LocKind, Locations, Pos};
use crate::catalog::ImportAliases;
use crate::engine::{Engine, aliases, outside_project, packages, validate};
use crate::error::{ErrorKind, ToolError};
use crate::server::{LspServer, without_declarations};
use crate::sync::Snapshot;

/// How ready a server must be before a position question is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The project loaded: answers about open files are complete.
    Loaded,
    /// The whole workspace indexed, for questions across files.
    Indexed,
    /// As `Indexed`, but a server whose background index (`Quirks::index`)
    /// is all that still runs when the budget ends is asked anyway, and the
    /// answer says it may be incomplete.
    IndexedOrPartial,
    /// Nothing: the caller asks through [`LspServer::while_loading`], which
    /// takes the first non-empty answer.
    WhileLoading,
}

impl Engine {
    /// Where the symbol at `line`:`column` (1-based, characters) is defined.
    pub async fn definition(
        &self,
        file: &Path,
        line: usize,
        column: usize,
    ) -> Result<Locations, ToolError> {
        let (server, checked, pos) = self
            .prepare(file, Pos::new(line, column), Wait::WhileLoading)
            .await?;
        let found = server
            .while_loading(|| server.definition(&checked.path, pos))
            .await?;
        // clangd answers the header's prototype until its index has the
        // file with the body.
        let (found, note) = server
            .past_declarations(found, || server.definition(&checked.path, pos))
            .await?;
        let mut texts = HashMap::new();
        let mut answer = self.finish(
            &server,
            LocKind::Definitions,
            server.to_locs(&found, &mut texts),
        );
        answer.notes.extend(note);
        Ok(answer)
    }

    /// Every use of the symbol at `line`:`column`, across the workspace.
    pub async fn references(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        include_declaration: bool,
    ) -> Result<Locations, ToolError> {
        match self
            .references_once(file, line, column, include_declaration)
            .await
        {
            // The server is broken for this request until it restarts
            // (`LifecycleQuirks::broken_by`): the next `pool.get` starts a new one.
            Err(ToolError {
                kind: ErrorKind::Server,
                message: why,
            }) if self.broken_server(file, &why) => {
                self.references_once(file, line, column, include_declaration)
                    .await
            }
            answered => answered,
        }
    }

    /// Whether `why`, a server error for `file`, is one after which its
    /// server answers no such request again; that server is then restarted
    /// at the next question.
    fn broken_server(&self, file: &Path, why: &str) -> bool {
        let Ok(checked) = self.snapshot(file) else {
            return false;
        };
        let Ok((spec, root)) = self.route(&checked) else {
            return false;
        };
        if !spec
            .quirks
            .lifecycle
            .broken_by
            .iter()
            .any(|m| why.contains(m))
        {
            return false;
        }
        for server in self.running_servers() {
            if server.spec.id == spec.id && server.root == root {
                server.want_restart(format!(
                    "{} was restarted: it had stopped answering references ({why})",
                    spec.id
                ));
            }
        }
        true
    }

    async fn references_once(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        include_declaration: bool,
    ) -> Result<Locations, ToolError> {
        let (server, checked, pos) = self
            .prepare(file, Pos::new(line, column), Wait::IndexedOrPartial)
            .await?;
        let loose_name = outside_project::name_to_open(&server, &checked, Pos::new(line, column));
        // The other packages of a monorepo that mention the name, open
        // until the answer is in.
        let packages = packages::load_users(
            &server,
            self.files(),
            &checked.path,
            &name_at(&checked, Pos::new(line, column)),
            self.config().reach(),
        )?;
        // Every server is asked with the declaration included; the
        // declarations to take out (when they are not wanted) are asked at
        // the same time, ahead of the references in the server's queue.
        // For a file outside every project they are asked last, once the
        // files that mention the name are open: clangd fails a declaration
        // asked in a file it has not been given.
        if loose_name.is_none() {
            open_macro_definition(&server, self.files(), &checked.path, pos).await?;
        }
        let early = !include_declaration && loose_name.is_none();
        let declarations = async {
            if early {
                server.declarations(&checked.path, pos).await.map(Some)
            } else {
                Ok(None)
            }
        };
        let (declarations, found) =
            futures_util::future::join(declarations, server.references(&checked.path, pos)).await;
        let mut found = found?;
        let mut declarations = declarations?;
        // A server may announce indexing only after we asked (its progress
        // begins just after `initialized`); then the answer may be partial:
        // wait for the index and ask again, the declarations too.
        if server.indexing() {
            server.sync(&checked.path, &checked.index, self.files())?;
            server.wait_ready_or_partial().await?;
            found = server.references(&checked.path, pos).await?;
            declarations = None;
        }
        if let Some(name) = loose_name {
            for group in outside_project::groups(&server, self.files(), &checked, &name) {
                outside_project::open(&server, self.files(), &checked, &group).await?;
                found.extend(server.references(&checked.path, pos).await?);
            }
        }
        let mut texts = HashMap::new();
        if server.spec.quirks.references.import_aliases != ImportAliases::Listed {
            found.extend(
                aliases::alias_references(&server, &found, include_declaration, &mut texts).await?,
            );
        }
        // Only the declaration is taken out, so the use that was asked about
        // always stays.
        if !include_declaration {
            let mut declarations = match declarations {
                Some(d) => d,
                None => server.declarations(&checked.path, pos).await?,
            };
            let other = server
                .other_declarations(&checked.path, pos, &found, &declarations)
                .await?;
            declarations.extend(other);
            let siblings = overload_siblings(&found, &declarations);
            declarations.extend(siblings);
            found = without_declarations(found, &declarations);
        }
        let mut answer = self.finish(
            &server,
            LocKind::References,
            server.to_locs(&found, &mut texts),
        );
        answer.notes.extend(server.index_note("these references"));
        answer.notes.extend(packages.note.clone());
        drop(packages);
        Ok(answer)
    }

    /// Gets a position question ready: the file read and the position
    /// checked, its server started, the file synced and the server as ready
    /// as `wait` asks; then the position in the server's terms.
    pub(crate) async fn prepare(
        &self,
        file: &Path,
        at: Pos,
        wait: Wait,
    ) -> Result<(Arc<LspServer>, Snapshot, sightline_lsp::Position), ToolError> {
        let checked = self.snapshot(file)?;
        let index = checked.index.clone();
        validate::validate_position(&index, file, at)?;
        let server = self.server_for(&checked).await?;
        let doc = server.sync(&checked.path, &checked.index, self.files())?;
        match wait {
            Wait::Loaded => server.wait_ready(false).await?,
            Wait::Indexed => server.wait_ready(true).await?,
            Wait::IndexedOrPartial => server.wait_ready_or_partial().await?,
            Wait::WhileLoading => {}
        }
        let pos = server.position(&doc, at).ok_or_else(|| {
            ToolError::bad_input(format!(
                "line {} is past the end of {}",
                at.line,
                file.display()
            ))
        })?;
        Ok((server, checked, pos))
    }

    pub(crate) fn finish(
        &self,
        server: &LspServer,
        kind: LocKind,
        mut locations: Vec<Loc>,
    ) -> Locations {
        locations.sort_by(|a, b| a.cmp_in(b, &server.root));
        locations.dedup();
        Locations {
            kind,
            root: server.root.clone(),
            locations,
            notes: Vec::new(),
            enclosing: Vec::new(),
        }
    }

    /// Where the symbol at a position is implemented (an interface's or an
    /// abstract method's concrete versions).
    pub(crate) async fn implementation(
        &self,
        file: &Path,
        line: usize,
        column: usize,
    ) -> Result<Locations, ToolError> {
        let (server, checked, pos) = self
            .prepare(file, Pos::new(line, column), Wait::Indexed)
            .await?;
        // In a monorepo, the implementations in the other packages that
        // mention the name.
        let packages = packages::load_users(
            &server,
            self.files(),
            &checked.path,
            &name_at(&checked, Pos::new(line, column)),
            self.config().reach(),
        )?;
        let found = server.implementation(&checked.path, pos).await?;
        let mut texts = HashMap::new();
        let mut answer = self.finish(
            &server,
            LocKind::Implementations,
            server.to_locs(&found, &mut texts),
        );
        answer.notes.extend(packages.note.clone());
        Ok(answer)
    }
}

/// For a server that finds a macro's uses in a header only while it is
/// open (`ReferencesQuirks::macro_uses_need_open`): when the definition at
/// `pos` is a `#define` in a file the server does not hold, that file is
/// opened with its text as `files` sees it, and built, before references are asked.
async fn open_macro_definition(
    server: &LspServer,
    files: &crate::sync::FileView,
    path: &Path,
    pos: sightline_lsp::Position,
) -> Result<(), ToolError> {
    if !server.spec.quirks.references.macro_uses_need_open {
        return Ok(());
    }
    let uri = sightline_lsp::path_to_uri_string(path).unwrap_or_default();
    let definitions = server
        .remembered("definition", &uri, pos, server.definition(path, pos))
        .await?;
    let mut texts = HashMap::new();
    for loc in server.to_locs(&definitions, &mut texts) {
        if !loc.text.starts_with('#') || server.holds(&loc.path) {
            continue;
        }
        let Ok(header) = files.read(&loc.path) else {
            continue;
        };
        let doc = server.sync(&header.path, &header.index, files)?;
        server.wait_built(&header.path, &doc).await?;
    }
    Ok(())
}

/// The name at a position (an identifier, or a dashed name where the
/// file's language has them), or empty.
pub(crate) fn name_at(file: &Snapshot, pos: Pos) -> String {
    let Some((line, _)) = pos.zero_based() else {
        return String::new();
    };
    file.index
        .line(line)
        .and_then(|text| validate::symbol_at(text, pos.column, validate::dashed_names(&file.path)))
        .unwrap_or_default()
}

/// The other signatures of an overloaded declaration among `found`: in a
/// file where a declaration of `declarations` is a `def NAME(` (Python's
/// `@overload`s) or `function NAME(` (TypeScript's overload signatures),
/// each place of `found` on a line that declares the same name the same
/// way. pyright answers the definition asked from one signature with that
/// signature alone, so without this the other signatures stayed as uses
/// while the asked one went: the declarations are treated alike.
fn overload_siblings(
    found: &[sightline_lsp::Location],
    declarations: &[sightline_lsp::Location],
) -> Vec<sightline_lsp::Location> {
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let mut line_of = |uri: &str, line: u32| -> Option<String> {
        let text = texts.entry(uri.to_owned()).or_insert_with(|| {
            let path = sightline_lsp::uri_to_path(uri).ok()?;
            crate::files::read_project_file(&path).ok()
        });
        text.as_deref()?
            .lines()
            .nth(line as usize)
            .map(str::to_owned)
    };
    let mut out = Vec::new();
    for d in declarations {
        let Some(line) = line_of(d.uri.as_str(), d.range.start.line) else {
            continue;
        };
        let Some(name) = declared_function(&line) else {
            continue;
        };
        for r in found
            .iter()
            .filter(|r| r.uri == d.uri && r.range.start.line != d.range.start.line)
        {
            if line_of(r.uri.as_str(), r.range.start.line)
                .is_some_and(|l| declared_function(&l).as_deref() == Some(name.as_str()))
            {
                out.push(r.clone());
            }
        }
    }
    out
}

/// The name a line declares as a function (`def NAME(`, `async def NAME(`,
/// `function NAME(` with `export`/`declare` before it), if it does.
fn declared_function(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    for prefix in ["export ", "declare ", "async "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest
        .strip_prefix("def ")
        .or_else(|| rest.strip_prefix("function "))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    let after = rest[name.len()..].trim_start();
    (!name.is_empty() && (after.starts_with('(') || after.starts_with('<'))).then_some(name)
}
