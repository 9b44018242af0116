//! The aliases a rename kept: the server's text edits that write both the
//! new name and the old one (tsserver's `g as f` in a re-export, or `f: g`
//! for a shorthand property), each shown as its place and changed line, so
//! that the answer says which public names did not change.

use std::path::{Path, PathBuf};

use crate::edit::Text;
use crate::edit::wire::WorkspaceEdit;

/// Each edit of `edit` (a `WorkspaceEdit`) whose new text names both
/// `old_name` and `new_name`, as `PATH:LINE LINE_TEXT` with the line as
/// `staged` has it after the rename; paths relative to `root`.
pub(super) fn kept_aliases(
    edit: &WorkspaceEdit,
    (old_name, new_name): (&str, &str),
    staged: &[(PathBuf, Option<Text>)],
    root: &Path,
) -> Vec<String> {
    let mut places: Vec<(PathBuf, usize)> = Vec::new();
    for (path, e) in edit.text_edits() {
        if names(&e.new_text, new_name) && names(&e.new_text, old_name) {
            places.push((path, e.range.start.line as usize));
        }
    }
    places.sort();
    places.dedup();
    places
        .into_iter()
        .map(|(path, line)| {
            let text = staged
                .iter()
                .find(|(p, _)| *p == path)
                .and_then(|(_, t)| t.as_ref())
                .and_then(|t| t.body.lines().nth(line))
                .unwrap_or_default()
                .trim()
                .to_owned();
            format!("{}:{} {text}", crate::render::shown(root, &path), line + 1)
        })
        .collect()
}

/// Whether `text` holds `name` as a whole word.
fn names(text: &str, name: &str) -> bool {
    !name.is_empty()
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|w| w == name)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_edit_that_writes_more_than_the_name_is_an_alias() {
        let root = Path::new("/p");
        let index = PathBuf::from("/p/index.ts");
        let edit = serde_json::json!({ "changes": {
            "file:///p/index.ts": [{ "range": { "start": { "line": 1, "character": 9 }, "end": { "line": 1, "character": 10 } }, "newText": "g as f" }],
            "file:///p/util.ts": [{ "range": { "start": { "line": 0, "character": 16 }, "end": { "line": 0, "character": 17 } }, "newText": "g" }],
            "file:///p/new.ts": [{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "newText": "g here, fg\n" }],
        }});
        let staged = vec![(
            index,
            Some(Text {
                bom: false,
                crlf: false,
                body: "// re-exports\nexport { g as f } from \"./util.js\";\n".into(),
            }),
        )];
        assert_eq!(
            kept_aliases(
                &WorkspaceEdit::read(&edit).unwrap(),
                ("f", "g"),
                &staged,
                root
            ),
            ["index.ts:2 export { g as f } from \"./util.js\";"]
        );
    }
}
