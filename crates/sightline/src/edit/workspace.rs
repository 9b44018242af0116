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
use sightline_lsp::Position;
use sightline_lsp::{normalize, uri_to_path};

use crate::edit::Text;
use crate::edit::commit::read_bytes;
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

fn path_of(server: &LspServer, uri: Option<&Value>) -> Result<PathBuf, ToolError> {
    let uri = uri
        .and_then(Value::as_str)
        .ok_or_else(|| bad(server, "names no file".into()))?;
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

    /// Stages `edit` over what is staged already (a code action's edit,
    /// then the edits of its command).
    pub fn add(&mut self, server: &LspServer, edit: &Value) -> Result<(), ToolError> {
        let plan = self;
        // Defined here, counted where an edit or operation names one
        // (rust-analyzer defines "Edit outside of the workspace" in every
        // edit, and uses it only for such edits).
        if let Some(Value::Object(notes)) = edit.get("changeAnnotations") {
            for (id, a) in notes {
                let label = a.get("label").and_then(Value::as_str).unwrap_or(id);
                let text = match a.get("description").and_then(Value::as_str) {
                    Some(d) => format!("{label}: {d}"),
                    None => label.to_owned(),
                };
                let confirm = a.get("needsConfirmation").and_then(Value::as_bool) == Some(true);
                plan.defined.insert(id.clone(), (text, confirm));
            }
        }
        if let Some(changes) = edit.get("documentChanges").and_then(Value::as_array) {
            for change in changes {
                plan.note_annotation(change);
                if let Some(edits) = change.get("edits").and_then(Value::as_array) {
                    for e in edits {
                        plan.note_annotation(e);
                    }
                }
                match change.get("kind").and_then(Value::as_str) {
                    None => {
                        let doc = change.get("textDocument");
                        let path = path_of(server, doc.and_then(|d| d.get("uri")))?;
                        let version = doc.and_then(|d| d.get("version")).and_then(Value::as_i64);
                        plan.check_version(server, &path, version)?;
                        let edits = change.get("edits").and_then(Value::as_array);
                        plan.text_edits(server, &path, edits.map_or(&[][..], Vec::as_slice))?;
                    }
                    Some("create") => plan.create(server, change)?,
                    Some("rename") => plan.rename(server, change)?,
                    Some("delete") => plan.delete(server, change)?,
                    Some(other) => {
                        return Err(bad(server, format!("has an unknown operation `{other}`")));
                    }
                }
            }
        } else if let Some(Value::Object(changes)) = edit.get("changes") {
            for (uri, edits) in changes {
                let path = path_of(server, Some(&Value::String(uri.clone())))?;
                plan.check_version(server, &path, None)?;
                let edits = edits.as_array().map_or(&[][..], Vec::as_slice);
                plan.text_edits(server, &path, edits)?;
            }
        }
        Ok(())
    }

    /// Counts the annotation `item` names (`annotationId`), if any.
    fn note_annotation(&mut self, item: &Value) {
        let Some(id) = item.get("annotationId").and_then(Value::as_str) else {
            return;
        };
        let Some((text, confirm)) = self.defined.get(id).cloned() else {
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
        edits: &[Value],
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
            let pos = |p: &str| -> Result<Position, ToolError> {
                e.pointer(p)
                    .cloned()
                    .and_then(|v| serde_json::from_value(v).ok())
                    .ok_or_else(|| bad(server, format!("has an edit without {p}")))
            };
            let start = server.byte_offset(&index, pos("/range/start")?);
            let end = server.byte_offset(&index, pos("/range/end")?);
            let new = e
                .get("newText")
                .and_then(Value::as_str)
                .unwrap_or_default()
                // The body keeps `\n` endings; the file's own come back on write.
                .replace("\r\n", "\n");
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

    fn create(&mut self, server: &LspServer, op: &Value) -> Result<(), ToolError> {
        let path = path_of(server, op.get("uri"))?;
        let opt = |k: &str| {
            op.pointer(&format!("/options/{k}"))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let staged = self.file(&path)?;
        if staged.after.is_some() {
            if opt("ignoreIfExists") && !opt("overwrite") {
                return Ok(());
            }
            if !opt("overwrite") {
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

    fn rename(&mut self, server: &LspServer, op: &Value) -> Result<(), ToolError> {
        let from = path_of(server, op.get("oldUri"))?;
        let to = path_of(server, op.get("newUri"))?;
        let opt = |k: &str| {
            op.pointer(&format!("/options/{k}"))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let content = self.file(&from)?.after.clone().ok_or_else(|| {
            ToolError::refused(format!(
                "{}'s edit renames {}, which does not exist; nothing was changed",
                server.spec.id,
                from.display()
            ))
        })?;
        if self.file(&to)?.after.is_some() {
            if opt("ignoreIfExists") && !opt("overwrite") {
                return Ok(());
            }
            if !opt("overwrite") {
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

    fn delete(&mut self, server: &LspServer, op: &Value) -> Result<(), ToolError> {
        let path = path_of(server, op.get("uri"))?;
        if path.is_dir() {
            return Err(ToolError::refused(format!(
                "{}'s edit deletes the directory {}, which sightline does not do; nothing was changed",
                server.spec.id,
                path.display()
            )));
        }
        let ignore = op
            .pointer("/options/ignoreIfNotExists")
            .and_then(Value::as_bool)
            == Some(true);
        let staged = self.file(&path)?;
        if staged.after.is_none() {
            if ignore {
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
/// Every text edit of a `WorkspaceEdit` (in `changes` and in
/// `documentChanges`), with its file (normalised), in order.
pub(super) fn text_edits(edit: &Value) -> Vec<(PathBuf, &Value)> {
    fn add<'a>(out: &mut Vec<(PathBuf, &'a Value)>, uri: &str, edits: Option<&'a Value>) {
        let Ok(path) = uri_to_path(uri) else {
            return;
        };
        let path = normalize(&path);
        for e in edits.and_then(Value::as_array).into_iter().flatten() {
            out.push((path.clone(), e));
        }
    }
    let mut out = Vec::new();
    if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            add(&mut out, uri, Some(edits));
        }
    }
    for change in edit
        .get("documentChanges")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(uri) = change.pointer("/textDocument/uri").and_then(Value::as_str) {
            add(&mut out, uri, change.get("edits"));
        }
    }
    out
}
