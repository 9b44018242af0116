//! Rendering a model configuration as JSONC, with gaps (whitespace,
//! comments, line breaks) between tokens, remembering the line of each key
//! and value.

use super::*;

/// Writes tokens with gaps between them, remembering lines.
struct Writer {
    out: String,
    gaps: Vec<&'static str>,
    next: usize,
}

impl Writer {
    fn gap(&mut self) {
        let g = self.gaps[self.next % self.gaps.len()];
        self.next += 1;
        self.out.push_str(g);
    }

    /// Writes `token` after a gap; returns the line it starts on.
    fn token(&mut self, token: &str) -> usize {
        self.gap();
        let line = self.out.matches('\n').count() + 1;
        self.out.push_str(token);
        line
    }

    fn string(&mut self, s: &str) -> usize {
        self.token(&serde_json::to_string(s).unwrap_or_default())
    }

    fn strings(&mut self, v: &[String]) {
        self.token("[");
        for s in v {
            self.string(s);
            self.token(",");
        }
        self.token("]");
    }
}

/// Where a setting was written: the lines of its key, of its value, and
/// of each lsp entry's key.
pub(super) struct Lines {
    pub(super) key: usize,
    pub(super) value: usize,
    pub(super) entries: Vec<usize>,
}

/// A written configuration.
pub(super) struct Rendered {
    pub(super) text: String,
    pub(super) lines: Vec<Lines>,
    /// The line the error of the bad setting names.
    pub(super) bad: Option<usize>,
}

pub(super) fn render(
    settings: &[Setting],
    bad: Option<(usize, (&str, &str, bool))>,
    gaps: Vec<&'static str>,
) -> Rendered {
    let mut w = Writer {
        out: String::new(),
        gaps,
        next: 0,
    };
    let mut lines = Vec::new();
    let mut bad_line = None;
    w.token("{");
    for (i, s) in settings.iter().enumerate() {
        if let Some((at, (key, value, on_key))) = bad
            && at == i
        {
            let k = w.string(key);
            w.token(":");
            let v = w.token(value);
            w.token(",");
            bad_line = Some(if on_key { k } else { v });
        }
        let (key, value, entries) = match s {
            Setting::Bool(k, b) => {
                let k = w.string(k);
                w.token(":");
                (k, w.token(&b.to_string()), Vec::new())
            }
            Setting::Sandbox(mode) => {
                let k = w.string("sandbox");
                w.token(":");
                (k, w.string(mode), Vec::new())
            }
            Setting::LspOff(b) => {
                let k = w.string("lsp");
                w.token(":");
                (k, w.token(&b.to_string()), Vec::new())
            }
            Setting::Lsp(servers) => {
                let k = w.string("lsp");
                w.token(":");
                let v = w.token("{");
                let mut entries = Vec::new();
                for (id, e) in servers {
                    entries.push(w.string(id));
                    w.token(":");
                    w.token("{");
                    if let Some(d) = e.disabled {
                        w.string("disabled");
                        w.token(":");
                        w.token(&d.to_string());
                        w.token(",");
                    }
                    if let Some(c) = &e.command {
                        w.string("command");
                        w.token(":");
                        w.strings(c);
                        w.token(",");
                    }
                    if let Some(x) = &e.extensions {
                        w.string("extensions");
                        w.token(":");
                        w.strings(x);
                        w.token(",");
                    }
                    w.string("env");
                    w.token(":");
                    w.token("{");
                    for (name, value) in &e.env {
                        w.string(name);
                        w.token(":");
                        w.string(value);
                        w.token(",");
                    }
                    w.token("}");
                    w.token("}");
                    w.token(",");
                }
                w.token("}");
                (k, v, entries)
            }
        };
        w.token(",");
        lines.push(Lines {
            key,
            value,
            entries,
        });
    }
    if let Some((at, (key, value, on_key))) = bad
        && at >= settings.len()
    {
        let k = w.string(key);
        w.token(":");
        let v = w.token(value);
        bad_line = Some(if on_key { k } else { v });
    }
    w.token("}");
    w.gap();
    Rendered {
        text: w.out,
        lines,
        bad: bad_line,
    }
}
