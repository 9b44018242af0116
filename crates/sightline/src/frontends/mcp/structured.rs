//! Structured answers: each tool's `outputSchema`, and beside each answer's
//! text (unchanged, byte for byte) its `structuredContent`: the same text,
//! whether the answer is whole (`complete`, false exactly where the text
//! has a `note:` line or a list cut short, `... and N more`) with those
//! notes, the places, diagnostics or edits as values where the tool has
//! them (`answer`, the CLI's `--json`), and where the answer came from
//! (`servers`, `files`: `provenance`).
//!
//! A client that gives its model the structured content in place of the
//! text gets neither, so its model reads the same text as before.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Value, json};

/// Clients whose model is given `JSON.stringify(structuredContent)` in
/// place of the text when a result has structured content: for them a
/// session declares no output schema and sends none.
const TEXT_ONLY_CLIENTS: &[&str] = &[
    // anthropics/claude-code#55677 and #79944: the model receives only the
    // structured content, the text never.
    "claude-code",
    // microsoft/vscode#290063: the same in VS Code's agent mode.
    "Visual Studio Code",
    // codex-rs builds the model's function output from the structured
    // content when there is any ("we prefer structured_content" in its
    // `FunctionCallOutputPayload` conversion).
    "codex-mcp-client",
];

/// Whether a session with the client `name` gets structured answers.
pub(super) fn structured_for(name: Option<&str>) -> bool {
    !name.is_some_and(|n| TEXT_ONLY_CLIENTS.contains(&n))
}

/// The output schema every tool declares: the envelope, with the typed
/// answer an object whose shape is the tool's `--json`.
pub(super) fn output_schema() -> Arc<JsonObject> {
    let schema = json!({
        "type": "object",
        "properties": {
            "text": { "type": "string" },
            "complete": { "type": "boolean" },
            "notes": { "type": "array", "items": { "type": "string" } },
            "answer": { "type": "object" },
            // Their entries' fields are in docs/mcp.md: each tool's list
            // entry carries this schema, and a client's list grew by a
            // hundred tokens a tool with them spelled out here.
            "servers": { "type": "array", "items": { "type": "object" } },
            "files": { "type": "array", "items": { "type": "object" } },
        },
        "required": ["text", "complete", "notes"],
    });
    match schema {
        Value::Object(o) => Arc::new(o),
        _ => Arc::default(),
    }
}

/// The structured content of a result whose text is `text`, of which the
/// answer's own is `answered` (the rest a line about the session), and
/// whose values (the CLI's JSON) are `answer`.
pub(super) fn structured(text: &str, answered: &str, answer: Option<Value>) -> Value {
    // A note says what was not seen; a list cut short (`... and 3 more`)
    // is not whole either, and says so as a note of its own.
    let notes: Vec<String> = answered
        .lines()
        .filter_map(|l| match l.strip_prefix("note: ") {
            Some(note) => Some(note.to_owned()),
            None => l
                .trim_start()
                .strip_prefix("... and ")
                .map(|more| format!("the list is cut short: {more} not shown")),
        })
        .collect();
    let mut out = json!({
        "text": text,
        "complete": notes.is_empty(),
        "notes": notes,
    });
    // A text answer's JSON is its text again: not repeated.
    if let Some(a) = answer.filter(|a| a.is_object() && *a != json!({ "text": answered })) {
        out["answer"] = a;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_with_a_note_is_not_complete_and_names_it() {
        let text = "2 references\na.py:1:1 x\nnote: 3 packages were not searched: a, b, c\n";
        let s = structured(
            text,
            text,
            Some(json!({ "kind": "references", "locations": [] })),
        );
        assert_eq!(s["complete"], false);
        assert_eq!(s["notes"], json!(["3 packages were not searched: a, b, c"]));
        assert_eq!(s["answer"]["kind"], "references");
        let whole = structured(
            "note: a session line\nno errors\n",
            "no errors\n",
            Some(json!({ "text": "no errors\n" })),
        );
        assert_eq!(whole["complete"], true);
        assert!(whole.get("answer").is_none());
        let cut = structured(
            "3 references\na\n  ... and 2 more\n",
            "3 references\na\n  ... and 2 more\n",
            None,
        );
        assert_eq!(cut["complete"], false);
        assert_eq!(
            cut["notes"],
            json!(["the list is cut short: 2 more not shown"])
        );
    }

    #[test]
    fn only_the_clients_that_drop_the_text_go_without() {
        assert!(!structured_for(Some("claude-code")));
        assert!(!structured_for(Some("codex-mcp-client")));
        assert!(structured_for(Some("gemini-cli-mcp-client")));
        assert!(structured_for(None));
    }
}
