//! A staged `WorkspaceEdit` shown before it is applied: each changed file
//! with its changed lines, old and new, within a bound.

use std::path::Path;

use crate::edit::Text;
use crate::edit::workspace::Plan;

/// At most this many preview lines are shown.
const PREVIEW_LINES: usize = 50;

impl Plan {
    /// The preview: each changed file with its changed lines, old and new,
    /// at most [`PREVIEW_LINES`] lines in all.
    pub fn preview(&self, root: &Path) -> String {
        let mut lines: Vec<String> = Vec::new();
        for a in &self.annotations {
            let confirm = if self.confirm.contains(a) {
                " (needs confirmation)"
            } else {
                ""
            };
            lines.push(format!("annotation: {a}{confirm}"));
        }
        for (path, after) in self.staged() {
            let show = crate::render::shown(root, &path);
            let before = self.files[&path]
                .before
                .as_ref()
                .and_then(|b| Text::decode(b, &path).ok());
            match (before, after) {
                (None, Some(_)) => lines.push(format!("{show}: created")),
                (Some(_), None) => lines.push(format!("{show}: deleted")),
                (Some(b), Some(a)) => {
                    lines.push(format!("{show}:"));
                    lines.extend(changed_lines(&b.body, &a.body));
                }
                (None, None) => {}
            }
        }
        let total = lines.len();
        let mut out: String = lines
            .into_iter()
            .take(PREVIEW_LINES)
            .map(|l| l + "\n")
            .collect();
        if total > PREVIEW_LINES {
            out.push_str(&format!("... and {} more lines\n", total - PREVIEW_LINES));
        }
        out
    }
}

/// The lines that differ between `old` and `new`: line by line when the
/// count is the same, else the changed middle between the common start and
/// end. Each as `  N - old` and `  N + new`.
fn changed_lines(old: &str, new: &str) -> Vec<String> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut out = Vec::new();
    if a.len() == b.len() {
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if x != y {
                out.push(format!("  {} - {}", i + 1, x.trim_end()));
                out.push(format!("  {} + {}", i + 1, y.trim_end()));
            }
        }
        return out;
    }
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    for (i, x) in a[head..a.len() - tail].iter().enumerate() {
        out.push(format!("  {} - {}", head + i + 1, x.trim_end()));
    }
    for (i, y) in b[head..b.len() - tail].iter().enumerate() {
        out.push(format!("  {} + {}", head + i + 1, y.trim_end()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn changed_lines_pair_old_and_new() {
        assert_eq!(
            changed_lines("a\nfoo()\nb\n", "a\nbar()\nb\n"),
            ["  2 - foo()", "  2 + bar()"]
        );
        assert_eq!(
            changed_lines("import b\nimport a\n\nx\n", "import a\n\nx\n"),
            ["  1 - import b"]
        );
    }
}
