//! The answer of `impact`: its text, as the CLI and the MCP tool give it,
//! and its JSON.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::edit::FileErrors;
use crate::edit::impact::{Change, Impact, USES_SHOWN};

impl Impact {
    /// Whether the diff brought errors (the CLI exits 1).
    pub fn brought_errors(&self) -> bool {
        self.check.brought_errors()
    }

    /// The answer's text: a line on what was compared, each declaration
    /// with its uses, then the errors as an edit's answer lists them.
    pub fn text(&self) -> String {
        let show = |p: &Path| crate::render::shown(&self.root, p);
        let mut out = format!(
            "impact of {}: {} changed {} a server reads\n",
            self.label,
            self.files.len(),
            if self.files.len() == 1 {
                "file"
            } else {
                "files"
            }
        );
        for s in &self.symbols {
            let change = match s.change {
                Change::Added => "added",
                Change::Removed => "removed",
                Change::Changed => "changed",
            };
            let kind = if s.kind.is_empty() {
                String::new()
            } else {
                format!("{} ", s.kind)
            };
            let at = format!("{}:{}", show(&s.path), s.line);
            let at = if s.change == Change::Removed {
                format!("was {at}")
            } else {
                at
            };
            out.push_str(&format!("{change} {kind}{} ({at})", s.name));
            if s.change == Change::Added {
                out.push('\n');
                continue;
            }
            let files: HashSet<&PathBuf> = s.uses.iter().map(|u| &u.path).collect();
            let tests = s.uses.iter().filter(|u| u.test).count();
            out.push_str(&match s.uses.len() {
                0 if !s.uses_looked_for => ": uses not looked for\n".to_owned(),
                0 => ": no uses\n".to_owned(),
                n => format!(
                    ": {n} {} in {} {}{}\n",
                    if n == 1 { "use" } else { "uses" },
                    files.len(),
                    if files.len() == 1 { "file" } else { "files" },
                    if tests > 0 {
                        format!(", {tests} in tests")
                    } else {
                        String::new()
                    }
                ),
            });
            for u in s.uses.iter().take(USES_SHOWN) {
                out.push_str(&format!("  {}:{}:{}", show(&u.path), u.line, u.column));
                if let Some(symbol) = &u.symbol {
                    out.push_str(&format!(" in {symbol}"));
                }
                if u.test {
                    out.push_str(" (test)");
                }
                out.push('\n');
            }
            if s.uses.len() > USES_SHOWN {
                out.push_str(&format!("  ... and {} more\n", s.uses.len() - USES_SHOWN));
            }
        }
        if self.symbols.is_empty() && !self.files.is_empty() {
            out.push_str("no declaration changed\n");
        }
        out.push_str(&self.check.text());
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }

    /// The answer as the CLI's `--json` prints it.
    pub fn json(&self) -> serde_json::Value {
        let errors: Vec<serde_json::Value> = self
            .check
            .files
            .iter()
            .map(|f: &FileErrors| {
                serde_json::json!({
                    "path": f.path,
                    "errors": f.errors,
                    "compared": f.delta,
                    "fixed": f.fixed,
                    "kept": f.kept,
                    "uses_what_changed": f.dependent,
                    "notes": f.notes,
                })
            })
            .collect();
        let mut notes = self.check.notes.clone();
        notes.extend(self.notes.iter().cloned());
        serde_json::json!({
            "root": self.root,
            "against": self.label,
            "files": self.files,
            "symbols": self.symbols,
            "errors": errors,
            "notes": notes,
        })
    }
}
