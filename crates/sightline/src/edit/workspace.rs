//! A server's `WorkspaceEdit`, staged in memory: both forms (`changes`,
//! and `documentChanges` with versioned text edits and create, rename and
//! delete operations with their options), checked against what the server
//! was told (an edit for another version, or for a file that changed on
//! disk since, is refused), then previewed or handed to the all-or-nothing
//! commit. Nothing here writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline_lsp::LineIndex;
use sightline_lsp::{normalize, uri_to_path};

use crate::edit::Text;
use crate::edit::commit::read_bytes;
use crate::edit::wire::{DocumentChange, Operation, Options, TextEdit, WorkspaceEdit};
use crate::error::ToolError;
use crate::server::LspServer;

/// One file's state while the edit is staged.
#[derive(Debug, Clone)]
pub(super) struct StagedFile {
    /// Its bytes on disk before the edit (`None`: no such file).
    pub(super) before: Option<Vec<u8>>,
    /// Its content after the edit so far (`None`: deleted or not there).
    after: Option<Text>,
}

/// A staged edit.
#[derive(Debug, Default)]
pub struct Plan {
    pub(super) files: BTreeMap<PathBuf, StagedFile>,
    /// The order files were first touched, for the answer.
    order: Vec<PathBuf>,
    /// Text edits applied.
    pub edits: usize,
    /// Lines for the answer: `renamed a.ts to b.ts`, `created c.ts`.
    pub operations: Vec<String>,
    /// Labels of changes the server marked as needing confirmation.
    pub confirm: Vec<String>,
    /// Labels (with descriptions) of the change annotations the edits use.
    pub annotations: Vec<String>,
    /// Every annotation the edit defines: id → (text, needs confirmation).
    defined: BTreeMap<String, (String, bool)>,
}

fn bad(server: &LspServer, what: String) -> ToolError {
    ToolError::server(format!("{}'s edit {what}", server.spec.id))
}

/// `server`'s edit read into typed values; one that cannot be is refused
/// whole.
pub fn read_edit(server: &LspServer, edit: &Value) -> Result<WorkspaceEdit, ToolError> {
    WorkspaceEdit::read(edit).map_err(|e| bad(server, format!("is not a workspace edit: {e}")))
}

fn path_of(server: &LspServer, uri: &str) -> Result<PathBuf, ToolError> {
    uri_to_path(uri)
        .map(|p| normalize(&p))
        .map_err(|e| bad(server, format!("names {uri}, which is not a file: {e}")))
}

impl Plan {
    /// Stages `edit` as `server` sent it.
    pub fn stage(server: &LspServer, edit: &Value) -> Result<Plan, ToolError> {
        let mut plan = Plan::default();
        plan.add(server, edit)?;
        Ok(plan)
    }

    /// [`Plan::stage`] of an edit already read.
    pub fn stage_read(server: &LspServer, edit: &WorkspaceEdit) -> Result<Plan, ToolError> {
        let mut plan = Plan::default();
        plan.add_typed(server, edit)?;
        Ok(plan)
    }

    /// Stages `edit` over what is staged already (a code action's edit,
    /// then the edits of its command).
    pub fn add(&mut self, server: &LspServer, edit: &Value) -> Result<(), ToolError> {
        self.add_typed(server, &read_edit(server, edit)?)
    }

    /// [`Plan::add`] of an edit already read.
    pub fn add_typed(&mut self, server: &LspServer, edit: &WorkspaceEdit) -> Result<(), ToolError> {
        let plan = self;
        // Defined here, counted where an edit or operation names one
        // (rust-analyzer defines "Edit outside of the workspace" in every
        // edit, and uses it only for such edits).
        for (id, a) in &edit.change_annotations {
            let label = if a.label.is_empty() { id } else { &a.label };
            let text = match &a.description {
                Some(d) => format!("{label}: {d}"),
                None => label.clone(),
            };
            plan.defined
                .insert(id.clone(), (text, a.needs_confirmation));
        }
        if !edit.document_changes.is_empty() {
            for change in &edit.document_changes {
                match change {
                    DocumentChange::Text(t) => {
                        plan.note_annotation(t.annotation_id.as_deref());
                        for e in &t.edits {
                            plan.note_annotation(e.annotation_id.as_deref());
                        }
                        let path = path_of(server, &t.text_document.uri)?;
                        plan.check_version(server, &path, t.text_document.version)?;
                        plan.text_edits(server, &path, &t.edits)?;
                    }
                    DocumentChange::Operation(op) => {
                        plan.note_annotation(op.annotation_id());
                        match op {
                            Operation::Create { uri, options, .. } => {
                                plan.create(server, uri, *options)?;
                            }
                            Operation::Rename {
                                old_uri,
                                new_uri,
                                options,
                                ..
                            } => plan.rename(server, (old_uri, new_uri), *options)?,
                            Operation::Delete { uri, options, .. } => {
                                plan.delete(server, uri, *options)?;
                            }
                        }
                    }
                    DocumentChange::Unknown { kind } => {
                        return Err(bad(
                            server,
                            format!("has an operation `{kind}` that sightline cannot apply"),
                        ));
                    }
                }
            }
        } else {
            for (uri, edits) in &edit.changes {
                let path = path_of(server, uri)?;
                plan.check_version(server, &path, None)?;
                plan.text_edits(server, &path, edits)?;
            }
        }
        Ok(())
    }

    /// Counts the annotation an edit or operation names (`annotationId`),
    /// if any.
    fn note_annotation(&mut self, id: Option<&str>) {
        let Some((text, confirm)) = id.and_then(|id| self.defined.get(id)).cloned() else {
            return;
        };
        if !self.annotations.contains(&text) {
            if confirm {
                self.confirm.push(text.clone());
            }
            self.annotations.push(text);
        }
    }

    /// The state of `path`, read from disk the first time.
    fn file(&mut self, path: &Path) -> Result<&mut StagedFile, ToolError> {
        if !self.files.contains_key(path) {
            let before = read_bytes(path)?;
            let after = match &before {
                Some(b) => Some(Text::decode(b, path)?),
                None => None,
            };
            self.files
                .insert(path.to_owned(), StagedFile { before, after });
            self.order.push(path.to_owned());
        }
        Ok(self.files.get_mut(path).expect("inserted above"))
    }

    /// Refuses an edit computed for another version than the one the server
    /// holds, or for content that is no longer on disk.
    fn check_version(
        &mut self,
        server: &LspServer,
        path: &Path,
        version: Option<i64>,
    ) -> Result<(), ToolError> {
        let held = server.held(path);
        if let (Some(v), Some((held_version, _))) = (version, &held)
            && v != i64::from(*held_version)
        {
            return Err(ToolError::refused(format!(
                "{}'s edit is for version {v} of {}, but it holds version {held_version}; nothing was changed, ask again",
                server.spec.id,
                path.display()
            )));
        }
        if let Some((_, text)) = held
            && !self.files.contains_key(path)
        {
            let on_disk = read_bytes(path)?
                .map(|b| Text::decode(&b, path).map(|t| t.body))
                .transpose()?;
            if on_disk.as_deref() != Some(normalized(&text).as_str()) {
                return Err(ToolError::refused(format!(
                    "{} changed on disk after {} computed the edit; nothing was changed, ask again",
                    path.display(),
                    server.spec.id
                )));
            }
        }
        Ok(())
    }

    fn text_edits(
        &mut self,
        server: &LspServer,
        path: &Path,
        edits: &[TextEdit],
    ) -> Result<(), ToolError> {
        let staged = self.file(path)?;
        let Some(text) = staged.after.as_mut() else {
            return Err(bad(
                server,
                format!("changes {}, which does not exist", path.display()),
            ));
        };
        let index = LineIndex::new(text.body.clone());
        let mut spans: Vec<(usize, usize, usize, String)> = Vec::new();
        for (i, e) in edits.iter().enumerate() {
            let start = server.byte_offset(&index, e.range.start);
            let end = server.byte_offset(&index, e.range.end);
            // The body keeps `\n` endings; the file's own come back on write.
            let new = e.new_text.replace("\r\n", "\n");
            if end < start {
                return Err(bad(
                    server,
                    format!(
                        "has a range that ends before it starts in {}",
                        path.display()
                    ),
                ));
            }
            spans.push((start, end, i, new));
        }
        // Back to front, so that earlier offsets stay true; edits at the
        // same place keep the order the server gave.
        spans.sort_by_key(|s| std::cmp::Reverse((s.0, s.2)));
        let mut last_start = usize::MAX;
        for (start, end, _, new) in &spans {
            if *end > last_start {
                return Err(bad(
                    server,
                    format!("has overlapping edits in {}", path.display()),
                ));
            }
            text.body.replace_range(*start..*end, new);
            last_start = *start;
        }
        self.edits += spans.len();
        Ok(())
    }

    fn create(&mut self, server: &LspServer, uri: &str, opt: Options) -> Result<(), ToolError> {
        let path = path_of(server, uri)?;
        let staged = self.file(&path)?;
        if staged.after.is_some() {
            if opt.ignore_if_exists && !opt.overwrite {
                return Ok(());
            }
            if !opt.overwrite {
                return Err(ToolError::refused(format!(
                    "{}'s edit creates {}, which exists; nothing was changed",
                    server.spec.id,
                    path.display()
                )));
            }
        }
        staged.after = Some(Text {
            bom: false,
            crlf: false,
            body: String::new(),
        });
        self.operations.push(format!("created {}", path.display()));
        Ok(())
    }

    fn rename(
        &mut self,
        server: &LspServer,
        (from, to): (&str, &str),
        opt: Options,
    ) -> Result<(), ToolError> {
        let from = path_of(server, from)?;
        let to = path_of(server, to)?;
        let content = self.file(&from)?.after.clone().ok_or_else(|| {
            ToolError::refused(format!(
                "{}'s edit renames {}, which does not exist; nothing was changed",
                server.spec.id,
                from.display()
            ))
        })?;
        if self.file(&to)?.after.is_some() {
            if opt.ignore_if_exists && !opt.overwrite {
                return Ok(());
            }
            if !opt.overwrite {
                return Err(ToolError::refused(format!(
                    "{}'s edit renames {} to {}, which exists; nothing was changed",
                    server.spec.id,
                    from.display(),
                    to.display()
                )));
            }
        }
        self.file(&to)?.after = Some(content);
        self.file(&from)?.after = None;
        self.operations
            .push(format!("renamed {} to {}", from.display(), to.display()));
        Ok(())
    }

    fn delete(&mut self, server: &LspServer, uri: &str, opt: Options) -> Result<(), ToolError> {
        let path = path_of(server, uri)?;
        if path.is_dir() {
            return Err(ToolError::refused(format!(
                "{}'s edit deletes the directory {}, which sightline does not do; nothing was changed",
                server.spec.id,
                path.display()
            )));
        }
        let staged = self.file(&path)?;
        if staged.after.is_none() {
            if opt.ignore_if_not_exists {
                return Ok(());
            }
            return Err(ToolError::refused(format!(
                "{}'s edit deletes {}, which does not exist; nothing was changed",
                server.spec.id,
                path.display()
            )));
        }
        staged.after = None;
        self.operations.push(format!("deleted {}", path.display()));
        Ok(())
    }

    /// The files whose content or existence changes, in the order touched,
    /// each with its new content (`None`: deleted).
    pub fn staged(&self) -> Vec<(PathBuf, Option<Text>)> {
        self.order
            .iter()
            .filter_map(|p| {
                let s = &self.files[p];
                let changed = match (&s.before, &s.after) {
                    (None, None) => false,
                    (Some(b), Some(a)) => a.encode() != *b,
                    _ => true,
                };
                changed.then(|| (p.clone(), s.after.clone()))
            })
            .collect()
    }

    /// The files changed, with their bytes before (for the stale check of
    /// an apply after a preview).
    pub fn before(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        self.staged()
            .into_iter()
            .map(|(p, _)| {
                let b = self.files[&p].before.clone();
                (p, b)
            })
            .collect()
    }
}

/// `text` as a staged body holds it (`\n` line endings).
pub(super) fn normalized(text: &str) -> String {
    text.replace("\r\n", "\n")
}
