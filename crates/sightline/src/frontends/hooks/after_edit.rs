//! What the model hears after its own edit: the errors the edit brought,
//! by file, the files past the list counted, and what could not be seen
//! said, in the agent's added context.

use crate::edit::EditAnswer;

/// At most this many errors are listed in one edit's context; the rest are
/// counted. Five errors, the common case, stay within 300 tokens.
const LISTED: usize = 6;
/// A message longer than this many characters is cut (pyright's explain
/// each type mismatch over several lines).
const MESSAGE_CHARS: usize = 150;

/// The added context for an edit's answer, or "" when it brought nothing
/// and everything was seen.
pub(super) fn context(answer: &EditAnswer, untrusted: Option<&str>) -> String {
    let root = answer.root.clone().unwrap_or_default();
    // Files whose errors could not be had whole are said, never
    // passed over as clean.
    let unseen: Vec<String> = answer
        .not_checked
        .iter()
        .chain(
            answer
                .files
                .iter()
                // The untrusted project's note comes with every answer,
                // and says nothing of this one's completeness.
                .filter(|f| {
                    f.errors.is_empty() && f.notes.iter().any(|n| Some(n.as_str()) != untrusted)
                })
                .map(|f| &f.path),
        )
        .map(|p| crate::render::shown(&root, p))
        .collect();
    // What the check could not look at (the users of what changed, a
    // package left out) is said with any answer, a clean one too: "no
    // error" from a check that did not see the files using what the edit
    // changed is a silent partial answer.
    let notes: Vec<&String> = answer
        .notes
        .iter()
        .filter(|n| Some(n.as_str()) != untrusted)
        .collect();
    if !answer.brought_errors() {
        if unseen.is_empty() && notes.is_empty() {
            return String::new();
        }
        if notes.is_empty() {
            return format!(
                "sightline: no error found after this edit, but these files were not checked whole in time (ask lsp_diagnostics for them): {}\n",
                unseen.join(", ")
            );
        }
        let mut out = String::from(
            "sightline: no error found after this edit, but the check was not whole:\n",
        );
        for n in notes {
            out.push_str(&format!("note: {n}\n"));
        }
        if !unseen.is_empty() {
            out.push_str(&format!(
                "note: not checked whole in time (ask lsp_diagnostics for them): {}\n",
                unseen.join(", ")
            ));
        }
        return out;
    }
    // Errors that could not be compared with the file's before are not
    // listed: the model would take a file's old errors for its edit's.
    // One line names those files.
    let uncompared: Vec<String> = answer
        .files
        .iter()
        .filter(|f| !f.errors.is_empty() && f.not_compared.is_some())
        .map(|f| crate::render::shown(&root, &f.path))
        .collect();
    let (mut out, unlisted) = new_errors_listed(answer, &root);
    let uncompared_line = (!uncompared.is_empty()).then(|| {
        format!(
            "the errors before this edit could not be had for {}, so theirs after it are not compared (ask lsp_diagnostics for them)\n",
            uncompared.join(", ")
        )
    });
    if out.is_empty() {
        // Nothing to list: that one line is the answer.
        return format!("sightline: {}", uncompared_line.unwrap_or_default());
    }
    out =
        format!("sightline (the project's language servers) found errors after this edit:\n{out}");
    if let Some(line) = uncompared_line {
        out.push_str(&format!("note: {line}"));
    }
    if unlisted > 0 {
        out.push_str(&format!(
            "... and {unlisted} more new errors (lsp_check lists them)\n"
        ));
    }
    // What the answer did not list is counted, and what it could
    // not see is said: never a silent partial answer.
    if answer.more_dependents > 0 {
        out.push_str(&format!(
            "... and {} more files that use what changed have new errors (lsp_check lists them)\n",
            answer.more_dependents
        ));
    }
    for n in &answer.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if !unseen.is_empty() {
        out.push_str(&format!(
            "note: not checked whole in time (ask lsp_diagnostics for them): {}\n",
            unseen.join(", ")
        ));
    }
    out
}

/// The compared files' new errors, at most [`LISTED`] of them, and how
/// many more there are.
fn new_errors_listed(answer: &EditAnswer, root: &std::path::Path) -> (String, usize) {
    let mut out = String::new();
    let mut listed = 0;
    let mut unlisted = 0;
    // The edited files come first in the answer, then the files using
    // what changed: the edit's own errors are always listed.
    for f in answer
        .files
        .iter()
        .filter(|f| !f.errors.is_empty() && f.not_compared.is_none())
    {
        let show = crate::render::shown(root, &f.path);
        let noun = if f.errors.len() == 1 {
            "error"
        } else {
            "errors"
        };
        let what = if f.dependent {
            format!("new {noun} (it uses what the edit changed)")
        } else {
            format!("new {noun}")
        };
        let room = LISTED - listed;
        if room == 0 {
            unlisted += f.errors.len();
            continue;
        }
        out.push_str(&format!("{show}: {} {what}\n", f.errors.len()));
        for e in f.errors.iter().take(room) {
            out.push_str(&format!(
                "  {show}:{}:{} {}\n",
                e.line,
                e.column,
                cut(&e.message)
            ));
        }
        listed += f.errors.len().min(room);
        unlisted += f.errors.len().saturating_sub(room);
    }
    (out, unlisted)
}

/// `message` on one line, at most [`MESSAGE_CHARS`] characters.
fn cut(message: &str) -> String {
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MESSAGE_CHARS {
        return one_line;
    }
    let mut short: String = one_line.chars().take(MESSAGE_CHARS - 1).collect();
    short.push('…');
    short
}
