//! A server's `WorkspaceEdit` read into typed values, once, where it
//! arrives: both of its forms (`changes`, and `documentChanges` with text
//! edits and create, rename and delete operations), read leniently where
//! servers differ (a `null` for an absent field, a missing `newText` or
//! `options`, an edit without annotations) and strictly where a wrong
//! reading would change files (a range, a file, an operation's kind).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use sightline_lsp::{Range, normalize, uri_to_path};

/// A `WorkspaceEdit`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceEdit {
    /// Text edits by file URI (sorted by URI, as JSON's object was read).
    #[serde(default, deserialize_with = "or_default")]
    pub changes: BTreeMap<String, Vec<TextEdit>>,
    /// Text edits and file operations, in the order they apply.
    #[serde(default, deserialize_with = "or_default")]
    pub document_changes: Vec<DocumentChange>,
    /// The annotations the edits and operations may name, by id.
    #[serde(default, deserialize_with = "or_default")]
    pub change_annotations: BTreeMap<String, ChangeAnnotation>,
}

/// One text edit (plain, annotated or a snippet edit whose text is taken
/// as written).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    pub range: Range,
    /// The new text; a server that leaves it out deletes the range.
    #[serde(default, deserialize_with = "or_default")]
    pub new_text: String,
    #[serde(default)]
    pub annotation_id: Option<String>,
}

/// One entry of `documentChanges`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum DocumentChange {
    Operation(Operation),
    Text(TextDocumentEdit),
    /// An entry with a `kind` this version does not know: refused where
    /// it is applied, never skipped.
    Unknown {
        kind: String,
    },
}

/// A file's text edits, for the version of it the server holds.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextDocumentEdit {
    pub text_document: VersionedDocument,
    #[serde(default, deserialize_with = "or_default")]
    pub edits: Vec<TextEdit>,
    #[serde(default)]
    pub annotation_id: Option<String>,
}

/// A file, with the version the edit was computed for (`null` or absent:
/// the file as it is on disk).
#[derive(Debug, Deserialize)]
pub struct VersionedDocument {
    pub uri: String,
    #[serde(default)]
    pub version: Option<i64>,
}

/// A file operation.
#[derive(Debug, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum Operation {
    Create {
        uri: String,
        #[serde(default, deserialize_with = "or_default")]
        options: Options,
        #[serde(default)]
        annotation_id: Option<String>,
    },
    Rename {
        old_uri: String,
        new_uri: String,
        #[serde(default, deserialize_with = "or_default")]
        options: Options,
        #[serde(default)]
        annotation_id: Option<String>,
    },
    Delete {
        uri: String,
        #[serde(default, deserialize_with = "or_default")]
        options: Options,
        #[serde(default)]
        annotation_id: Option<String>,
    },
}

impl Operation {
    /// The annotation the operation names, if any.
    pub fn annotation_id(&self) -> Option<&str> {
        match self {
            Operation::Create { annotation_id, .. }
            | Operation::Rename { annotation_id, .. }
            | Operation::Delete { annotation_id, .. } => annotation_id.as_deref(),
        }
    }
}

/// The options of a file operation, each off unless the server sets it.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    #[serde(deserialize_with = "or_default")]
    pub overwrite: bool,
    #[serde(deserialize_with = "or_default")]
    pub ignore_if_exists: bool,
    #[serde(deserialize_with = "or_default")]
    pub ignore_if_not_exists: bool,
}

/// An annotation a change may name.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeAnnotation {
    /// Its label; a server that leaves it out is named by the id.
    #[serde(default, deserialize_with = "or_default")]
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub needs_confirmation: bool,
}

/// A field whose `null` means its default, as an absent one does (servers
/// send either).
fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

impl WorkspaceEdit {
    /// Reads a server's edit (`null`: an edit that changes nothing).
    pub fn read(edit: &Value) -> Result<WorkspaceEdit, String> {
        if edit.is_null() {
            return Ok(WorkspaceEdit::default());
        }
        WorkspaceEdit::deserialize(edit).map_err(|e| e.to_string())
    }

    /// Every text edit (in `changes`, then in `documentChanges`), with its
    /// file (normalised), in order; edits of a URI that names no file are
    /// left out (applying them is refused where the plan stages them).
    pub fn text_edits(&self) -> Vec<(PathBuf, &TextEdit)> {
        let by_file = self.changes.iter();
        let documents = self.document_changes.iter().filter_map(|c| match c {
            DocumentChange::Text(t) => Some((&t.text_document.uri, &t.edits)),
            _ => None,
        });
        by_file
            .chain(documents)
            .filter_map(|(uri, edits)| Some((normalize(&uri_to_path(uri).ok()?), edits)))
            .flat_map(|(path, edits)| edits.iter().map(move |e| (path.clone(), e)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn both_forms_with_the_leniencies_servers_need() {
        let edit = WorkspaceEdit::read(&json!({
            "changes": {"file:///a.ts": [{"range": {"start": {"line": 0, "character": 1}, "end": {"line": 0, "character": 2}}, "newText": "x"}]},
            "documentChanges": [
                {"textDocument": {"uri": "file:///b.ts", "version": null}, "edits": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "annotationId": "n"}]},
                {"kind": "rename", "oldUri": "file:///c.ts", "newUri": "file:///d.ts", "options": null},
                {"kind": "create", "uri": "file:///e.ts", "options": {"ignoreIfExists": true}},
                {"kind": "copy", "uri": "file:///f.ts"}
            ],
            "changeAnnotations": {"n": {"label": "outside", "needsConfirmation": null}}
        }))
        .unwrap();
        let edits = edit.text_edits();
        assert_eq!(edits.len(), 2);
        assert_eq!(
            (edits[0].1.new_text.as_str(), edits[1].1.new_text.as_str()),
            ("x", "")
        );
        assert!(
            matches!(&edit.document_changes[1], DocumentChange::Operation(Operation::Rename { new_uri, .. }) if new_uri == "file:///d.ts")
        );
        assert!(
            matches!(&edit.document_changes[2], DocumentChange::Operation(Operation::Create { options, .. }) if options.ignore_if_exists && !options.overwrite)
        );
        assert!(
            matches!(&edit.document_changes[3], DocumentChange::Unknown { kind } if kind == "copy")
        );
        assert!(!edit.change_annotations["n"].needs_confirmation);
        assert!(
            WorkspaceEdit::read(&Value::Null)
                .unwrap()
                .text_edits()
                .is_empty()
        );
    }

    #[test]
    fn an_edit_without_its_range_is_not_read() {
        let e = WorkspaceEdit::read(&json!({"changes": {"file:///a.ts": [{"newText": "x"}]}}));
        assert!(e.unwrap_err().contains("range"));
    }
}
