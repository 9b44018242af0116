//! A tool's answer: its text, the CLI's JSON of it when asked, and whether
//! it lists an error (the CLI's exit status).

use serde_json::Value;

use crate::answer::Locations;
use crate::render;

/// A tool's answer: its text, and with `json` asked, the JSON the CLI's
/// `--json` prints for it (the tool result's structured content).
#[derive(Debug)]
pub struct Answered {
    /// The tool's text.
    pub text: String,
    /// The CLI's JSON of it, when asked for.
    pub json: Option<Value>,
    /// Whether the answer lists an error diagnostic (the CLI's exit status).
    pub errors: bool,
}

impl Answered {
    /// A text answer (its JSON is `{"text": ...}`).
    pub(crate) fn text(text: String, json: bool) -> Answered {
        Answered {
            json: json.then(|| serde_json::json!({ "text": text })),
            text,
            errors: false,
        }
    }

    /// A text answer that lists errors when `errors`.
    pub(crate) fn with_errors(mut self, errors: bool) -> Answered {
        self.errors = errors;
        self
    }

    /// A list of places.
    pub(crate) fn locations(l: &Locations, json: bool) -> Answered {
        Answered {
            text: render::locations_text(l),
            json: json.then(|| render::locations_json(l)),
            errors: false,
        }
    }
}
