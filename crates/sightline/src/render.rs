//! The exact text of the tool contract (the answer formats README.md and
//! docs/cli.md show), and the JSON form the CLI prints with `--json`.

use std::path::Path;

use serde_json::{Value, json};

use crate::answer::{
    Diagnostics, Hover, Item, Items, ItemsKind, Loc, LocKind, Locations, ServerStatus, State,
};
use crate::error::ToolError;

/// Long results stop here, then one line `... and N more`.
pub const CAP: usize = 50;

/// A path relative to the workspace root, or absolute when outside it.
pub fn shown(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    match n {
        0 => format!("no {many}"),
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// The diagnostics answer: `PATH: N diagnostics`, notes, then a line each.
pub fn diagnostics_text(d: &Diagnostics) -> String {
    let path = sightline_lsp::normalize(&d.file);
    let mut out = format!(
        "{}: {}\n",
        shown(&d.root, &path),
        plural(d.diagnostics.len(), "diagnostic", "diagnostics")
    );
    for note in &d.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    let findings: Vec<(&crate::answer::Finding, Option<&String>)> = d
        .diagnostics
        .iter()
        .enumerate()
        .map(|(i, f)| (f, d.enclosing.get(i).and_then(Option::as_ref)))
        .collect();
    push_capped(&mut out, &findings, |(f, enclosing)| {
        let within = enclosing.map(|e| format!("[{e}] ")).unwrap_or_default();
        format!(
            "{}:{} {within}{}: {} [{}]",
            f.line,
            f.column,
            f.severity.as_str(),
            f.message,
            f.source
        )
    });
    out
}

/// Appends one line per item, stopping at [`CAP`] with `... and N more`.
fn push_capped<T>(out: &mut String, items: &[T], line: impl Fn(&T) -> String) {
    for item in items.iter().take(CAP) {
        out.push_str(&line(item));
        out.push('\n');
    }
    if items.len() > CAP {
        out.push_str(&format!("... and {} more\n", items.len() - CAP));
    }
}

/// A list of places: `N references`, then `PATH:LINE:COL TEXT` each.
pub fn locations_text(l: &Locations) -> String {
    let (one, many) = match l.kind {
        LocKind::Definitions => ("definition", "definitions"),
        LocKind::References => ("reference", "references"),
        LocKind::Implementations => ("implementation", "implementations"),
    };
    let mut out = format!("{}\n", plural(l.locations.len(), one, many));
    for note in &l.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    let places: Vec<(&Loc, Option<&String>)> = l
        .locations
        .iter()
        .enumerate()
        .map(|(i, loc)| (loc, l.enclosing.get(i).and_then(Option::as_ref)))
        .collect();
    push_capped(&mut out, &places, |(loc, enclosing)| {
        let within = enclosing.map(|e| format!("[{e}] ")).unwrap_or_default();
        format!(
            "{}:{}:{} {within}{}",
            shown(&l.root, &loc.path),
            loc.line,
            loc.column,
            loc.text
        )
    });
    out
}

/// Symbols, call hierarchy items and calls. An outline is indented by
/// nesting and shows line ranges; the others are `PATH:LINE:COL` lists.
pub fn items_text(i: &Items) -> String {
    let (one, many) = match i.kind {
        ItemsKind::Outline | ItemsKind::Symbols => ("symbol", "symbols"),
        ItemsKind::CallItems => ("call hierarchy item", "call hierarchy items"),
        ItemsKind::IncomingCalls => ("incoming call", "incoming calls"),
        ItemsKind::OutgoingCalls => ("outgoing call", "outgoing calls"),
        ItemsKind::Supertypes => ("supertype", "supertypes"),
        ItemsKind::Subtypes => ("subtype", "subtypes"),
    };
    if i.kind == ItemsKind::Outline {
        let mut lines = Vec::new();
        outline(&i.items, 0, &mut lines);
        let file = i
            .file
            .as_deref()
            .map(|f| shown(&i.root, f))
            .unwrap_or_default();
        let mut out = format!("{file}: {}\n", plural(lines.len(), one, many));
        push_capped(&mut out, &lines, String::clone);
        return out;
    }
    let mut out = format!("{}\n", plural(i.items.len(), one, many));
    for note in &i.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    push_capped(&mut out, &i.items, |item| {
        let at = format!(
            "{}:{}:{}",
            shown(&i.root, &item.loc.path),
            item.loc.line,
            item.loc.column
        );
        match i.kind {
            ItemsKind::IncomingCalls => {
                format!("{at} {} (in {} {})", item.loc.text, item.kind, item.name)
            }
            _ => format!("{at} {} {}", item.kind, item.name),
        }
    });
    out
}

fn outline(items: &[Item], depth: usize, lines: &mut Vec<String>) {
    for item in items {
        let range = if item.end_line > item.loc.line {
            format!("{}-{}", item.loc.line, item.end_line)
        } else {
            item.loc.line.to_string()
        };
        lines.push(format!(
            "{}{} {} {range}",
            "  ".repeat(depth),
            item.kind,
            item.name
        ));
        outline(&item.children, depth + 1, lines);
    }
}

/// The hover answer: the server's markdown, or that there is none.
pub fn hover_text(h: &Hover) -> String {
    if h.text.trim().is_empty() {
        return "no hover information\n".into();
    }
    format!("{}\n", h.text.trim())
}

/// The JSON of a symbol or call-hierarchy answer.
pub fn items_json(i: &Items) -> Value {
    json!({ "kind": i.kind, "items": i.items })
}

/// A failure as the tools give it: one line.
pub fn error_text(e: &ToolError) -> String {
    format!("{e}\n")
}

/// The JSON of a diagnostics answer.
pub fn diagnostics_json(d: &Diagnostics) -> Value {
    let path = sightline_lsp::normalize(&d.file);
    json!({
        "path": shown(&d.root, &path),
        "file": path,
        "root": d.root,
        "count": d.diagnostics.len(),
        "diagnostics": d.diagnostics,
        "notes": d.notes,
    })
}

/// The JSON of a list of places (all of them, not capped).
pub fn locations_json(l: &Locations) -> Value {
    let locations: Vec<Value> = l
        .locations
        .iter()
        .enumerate()
        .map(|(i, loc)| {
            let mut v = json!({ "path": shown(&l.root, &loc.path), "file": loc.path, "line": loc.line, "column": loc.column, "text": loc.text });
            if let Some(Some(e)) = l.enclosing.get(i) {
                v["symbol"] = json!(e);
            }
            v
        })
        .collect();
    json!({ "kind": l.kind, "root": l.root, "count": l.locations.len(), "locations": locations, "notes": l.notes })
}

/// The JSON of a failure: its kind and message.
pub fn error_json(e: &ToolError) -> Value {
    let text = e.to_string();
    let message = text
        .split_once(": ")
        .map(|(_, m)| m.to_owned())
        .unwrap_or(text);
    json!({ "error": { "kind": e.kind.name(), "message": message } })
}

/// The text table of `sightline servers`.
pub fn servers_text(states: &[ServerStatus]) -> String {
    let id_w = states.iter().map(|s| s.id.len()).max().unwrap_or(2).max(2);
    let ext_w = states
        .iter()
        .map(|s| s.extensions.join(" ").chars().count().min(28))
        .max()
        .unwrap_or(10);
    let mut out = String::new();
    for s in states {
        let mut exts = s.extensions.join(" ");
        if exts.chars().count() > 28 {
            exts = format!("{}…", exts.chars().take(27).collect::<String>());
        }
        let state = match &s.state {
            State::Off { why } => format!("off: {why}"),
            State::Running { root, pid } => format!("running for {} (pid {pid})", root.display()),
            State::Broken { root, reason } => format!("broken for {}: {reason}", root.display()),
            State::Installed { path, version } => format!(
                "installed {}at {}",
                version
                    .as_ref()
                    .map(|v| format!("{v} "))
                    .unwrap_or_default(),
                path.display()
            ),
            State::Missing { install } => format!("missing: {install}"),
        };
        out.push_str(&format!("{:<id_w$}  {:<ext_w$}  {state}\n", s.id, exts));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::answer::{Finding, Loc, Severity};

    fn finding(line: usize, sev: Severity, msg: &str) -> Finding {
        Finding {
            line,
            column: 5,
            end_line: line,
            end_column: 9,
            severity: sev,
            message: msg.into(),
            source: "pyright".into(),
            code: None,
        }
    }

    #[test]
    fn diagnostics_header_and_lines() {
        let mut d = Diagnostics {
            file: PathBuf::from("/nonexistent-root/src/runner.py"),
            root: PathBuf::from("/nonexistent-root"),
            diagnostics: vec![
                finding(14, Severity::Warning, "\"requests\" is not accessed"),
                finding(27, Severity::Error, "\"widget\" is not defined"),
            ],
            notes: vec![],
            enclosing: Vec::new(),
        };
        insta::assert_snapshot!(diagnostics_text(&d), @r#"
        src/runner.py: 2 diagnostics
        14:5 warning: "requests" is not accessed [pyright]
        27:5 error: "widget" is not defined [pyright]
        "#);
        d.diagnostics.truncate(1);
        d.notes
            .push("pyright was still analysing after 5.0 s; results may be incomplete".into());
        insta::assert_snapshot!(diagnostics_text(&d), @r#"
        src/runner.py: 1 diagnostic
        note: pyright was still analysing after 5.0 s; results may be incomplete
        14:5 warning: "requests" is not accessed [pyright]
        "#);
        d.diagnostics.clear();
        d.notes.clear();
        assert_eq!(diagnostics_text(&d), "src/runner.py: no diagnostics\n");
    }

    #[test]
    fn locations_cap_at_fifty() {
        let root = PathBuf::from("/r");
        let locations = (1..=53)
            .map(|i| Loc {
                path: root.join("a.py"),
                line: i,
                column: 1,
                text: format!("f({i})"),
            })
            .collect();
        let l = Locations {
            kind: LocKind::References,
            root: root.clone(),
            locations,
            notes: vec![],
            enclosing: vec![],
        };
        let text = locations_text(&l);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "53 references");
        assert_eq!(lines[1], "a.py:1:1 f(1)");
        assert_eq!(lines.len(), 52);
        assert_eq!(lines[51], "... and 3 more");
        let outside = Locations {
            kind: LocKind::Definitions,
            root,
            locations: vec![Loc {
                path: PathBuf::from("/usr/lib/x.pyi"),
                line: 3,
                column: 5,
                text: "def f(): ...".into(),
            }],
            notes: vec![],
            enclosing: vec![],
        };
        assert_eq!(
            locations_text(&outside),
            "1 definition\n/usr/lib/x.pyi:3:5 def f(): ...\n"
        );
        let noted = Locations {
            notes: vec![
                "clangd is still indexing the project; references may be incomplete".into(),
            ],
            ..outside
        };
        assert_eq!(
            locations_text(&noted),
            "1 definition\nnote: clangd is still indexing the project; references may be incomplete\n/usr/lib/x.pyi:3:5 def f(): ...\n"
        );
        assert_eq!(
            locations_json(&noted)["notes"][0],
            "clangd is still indexing the project; references may be incomplete"
        );
    }
}
