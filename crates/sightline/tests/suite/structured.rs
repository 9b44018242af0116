//! Structured answers over MCP, checked by the official Python SDK (which
//! validates each result's `structuredContent` against the tool's
//! `outputSchema` itself): every tool declares the schema; each answer
//! carries its text unchanged, `complete: false` exactly where the text
//! has a note, the notes, and the places or diagnostics as values; a
//! client whose model reads the structured content in place of the text
//! (Claude Code) gets the text alone. Through the daemon and in process.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline_test_support::mcp::{Answer, McpDriver};
use sightline_test_support::{Project, git, path_with_tools, require};

const CORE: &str = "def total(a: int, b: int) -> int:\n    return a + b\n";
const REPORT: &str = "from core import total\n\n\ndef show() -> int:\n    return total(1, 2)\n";

/// What the text itself says was not seen: its notes, and each list cut
/// short.
fn the_notes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| match l.strip_prefix("note: ") {
            Some(n) => Some(n.to_owned()),
            None => l
                .trim_start()
                .strip_prefix("... and ")
                .map(|more| format!("the list is cut short: {more} not shown")),
        })
        .collect()
}

/// The SHA-256 of `text`, in hex.
fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The structured content of `a`, checked against its text.
fn checked(a: &Answer) -> Value {
    let s = a
        .structured
        .clone()
        .unwrap_or_else(|| panic!("no structured content: {}", a.text));
    assert_eq!(s["text"], a.text.as_str());
    let notes = the_notes(&a.text);
    assert_eq!(s["complete"], notes.is_empty(), "{}", a.text);
    assert_eq!(s["notes"], json!(notes));
    s
}

#[test]
fn every_answer_carries_its_values_and_whether_it_is_whole_beside_the_same_text() {
    require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("core.py", CORE),
        ("report.py", REPORT),
    ]);
    git(p.root(), &["init", "-q"]);
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", "one"]);
    let core = p.root().join("core.py");
    let report = p.root().join("report.py");
    let mut d = McpDriver::start();
    let mut texts = Vec::new();
    for (session, args) in [
        ("daemon", vec!["mcp", "--edit-tools"]),
        ("in_process", vec!["mcp", "--edit-tools", "--no-daemon"]),
    ] {
        d.open_args(session, p.root(), &path_with_tools(), &args);
        let tools = d.send(json!({ "cmd": "list", "session": session }))["tools"].clone();
        for t in tools.as_array().unwrap() {
            assert_eq!(t["outputSchema"]["type"], "object", "{t}");
            assert_eq!(
                t["outputSchema"]["required"],
                json!(["text", "complete", "notes"]),
                "{t}"
            );
        }

        let refs = d.call(
            session,
            "lsp_references",
            json!({ "file": core, "line": 1, "symbol": "total" }),
        );
        assert!(!refs.is_error, "{}", refs.text);
        texts.push(refs.text.clone());
        let s = checked(&refs);
        let places: Vec<(String, u64)> = s["answer"]["locations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["file"].as_str().unwrap().to_owned(),
                    l["line"].as_u64().unwrap(),
                )
            })
            .collect();
        let report_s = report.display().to_string();
        assert_eq!(
            places,
            [(report_s.clone(), 1), (report_s.clone(), 5)],
            "{s:#}"
        );
        // Where it came from: the server that answers for the files, as it
        // named itself, and each file read with its content's hash now.
        assert_eq!(s["servers"].as_array().unwrap().len(), 1, "{s:#}");
        assert_eq!(s["servers"][0]["id"], "pyright", "{s:#}");
        assert!(
            s["servers"][0]["version"]
                .as_str()
                .is_some_and(|v| v.starts_with("1.1.")),
            "{s:#}"
        );
        assert_eq!(
            s["servers"][0]["root"],
            p.root().display().to_string(),
            "{s:#}"
        );
        let read: Vec<(&str, &str)> = s["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["file"].as_str().unwrap(), f["sha256"].as_str().unwrap()))
            .collect();
        let core_s = core.display().to_string();
        assert_eq!(
            read,
            [
                (core_s.as_str(), sha256(CORE).as_str()),
                (report_s.as_str(), sha256(REPORT).as_str())
            ],
            "{s:#}"
        );

        let diags = d.call(session, "lsp_diagnostics", json!({ "file": report }));
        let s = checked(&diags);
        assert!(s["answer"].is_object(), "{s:#}");

        // A text answer is its text, with no values repeated.
        let outline = d.call(
            session,
            "lsp",
            json!({ "operation": "documentSymbol", "file": core }),
        );
        let s = checked(&outline);
        assert!(s.get("answer").is_none(), "{s:#}");

        // An answer with a note is not whole, and says which.
        std::fs::write(&core, CORE.replace("b: int)", "b: int, c: int)")).unwrap();
        std::fs::write(&report, format!("{REPORT}\n# shown\n")).unwrap();
        let impact = d.call(session, "impact", json!({ "path": p.root() }));
        let s = checked(&impact);
        assert_eq!(s["complete"], false, "{}", impact.text);
        assert!(
            s["notes"][0]
                .as_str()
                .unwrap()
                .contains("at its line before the diff"),
            "{s:#}"
        );
        std::fs::write(&core, CORE).unwrap();
        std::fs::write(&report, REPORT).unwrap();
        d.close(session);
    }

    // Claude Code gives its model the structured content in place of the
    // text: it gets the text alone, the same text.
    d.open_as("claude", p.root(), "claude-code");
    let tools = d.send(json!({ "cmd": "list", "session": "claude" }))["tools"].clone();
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("outputSchema").is_none())
    );
    let refs = d.call(
        "claude",
        "lsp_references",
        json!({ "file": core, "line": 1, "symbol": "total" }),
    );
    assert!(refs.structured.is_none(), "{:?}", refs.structured);
    assert_eq!(refs.text, texts[0]);
    assert_eq!(texts[0], texts[1]);
    d.close("claude");
}
