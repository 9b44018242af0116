//! The project index a server builds in the background (`Quirks::index`,
//! clangd's from `compile_commands.json`): whether it is still to come,
//! a definition that is only a declaration asked again once it is done, and
//! the notes of answers given before it was.

use std::collections::HashMap;

use sightline_lsp::LineIndex;
use sightline_lsp::uri_to_path;
use sightline_lsp::{Location, Position};

use crate::error::ToolError;
use crate::server::LspServer;

impl LspServer {
    /// Whether this server will index the project in the background and
    /// has not finished doing so once: its table entry says it indexes, a
    /// file that makes it index this root is there, and its indexing
    /// progress has not ended since it started (it may not have begun yet:
    /// clangd begins only once the first file is open, so before that
    /// nothing is pending: a restart's wait for readiness opens no file).
    pub(crate) fn index_pending(&self) -> bool {
        let Some(index) = self.spec.quirks.index else {
            return false;
        };
        if self.state.with(|s| s.load.index_done) || !self.is_alive() || !self.docs().ever_opened()
        {
            return false;
        }
        index.when.is_empty() || index.when.iter().any(|f| self.root.join(f).is_file())
    }

    /// The note of an answer given while the index is still to come or
    /// running: its places may be incomplete.
    pub(crate) fn index_note(&self, what: &str) -> Option<String> {
        (self.index_pending() || self.indexing_background_index()).then(|| {
            format!(
                "{} is still indexing the project; {what} may be incomplete",
                self.spec.id
            )
        })
    }

    /// Whether the background index's progress runs now (again, after a
    /// change, or for the first time).
    fn indexing_background_index(&self) -> bool {
        let Some(index) = self.spec.quirks.index else {
            return false;
        };
        self.state
            .with(|s| s.progress.running.values().any(|t| t == index.title))
    }

    /// A definition answer as the index would give it. When `found` is
    /// empty, or every place in it is only a declaration (a prototype, an
    /// `extern`), and the
    /// server's index is not done, it waits for the index within the ready
    /// budget and asks `ask` again; when the budget runs out first, the
    /// answer stands with a note saying what it is.
    pub(crate) async fn past_declarations<F, Fut>(
        &self,
        found: Vec<Location>,
        ask: F,
    ) -> Result<(Vec<Location>, Option<String>), ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Location>, ToolError>>,
    {
        let may_be_declaration = self
            .spec
            .quirks
            .index
            .is_some_and(|i| i.definition_may_be_declaration);
        if !may_be_declaration || !self.index_pending() {
            return Ok((found, None));
        }
        // clangd finds a name it cannot resolve in the file (in code an
        // `#if` leaves out) by looking it up in its index: before the index
        // is done that is no definition at all (`puts` in zlib's inflate.c).
        let mut texts = HashMap::new();
        let all_declarations = found.iter().all(|l| {
            let Ok(path) = uri_to_path(l.uri.as_str()) else {
                return false;
            };
            self.index_for(&path, &mut texts)
                .is_some_and(|index| declaration_only(&index, self, l.range.start))
        });
        if !all_declarations {
            return Ok((found, None));
        }
        let key = format!("index {}", self.spec.id);
        let waiting = crate::progress::call();
        if let Some(p) = &waiting {
            p.begin(
                &key,
                &format!(
                    "waiting for {} to index the project: the definition found is a declaration",
                    self.spec.id
                ),
            );
        }
        let done = self
            .wait_until(self.budgets.ready, |s| s.load.index_done)
            .await;
        if let Some(p) = &waiting {
            p.end(&key, if done { "indexed" } else { "still indexing" });
        }
        if done {
            return Ok((ask().await?, None));
        }
        if found.is_empty() {
            return Ok((
                found,
                Some(format!(
                    "{} is still indexing the project; a definition in a file not indexed yet is not shown",
                    self.spec.id
                )),
            ));
        }
        Ok((
            found,
            Some(format!(
                "{} is still indexing the project; this is the declaration, the definition may be in a file not indexed yet",
                self.spec.id
            )),
        ))
    }
}

/// Whether the C-family declaration whose name starts at `start` in
/// `index` declares only: after the name (and any parenthesized parameters
/// or brackets) comes `;` before a body (`{`), an initializer (`=`) or a
/// constructor's initializers (`:`). A macro's `#define` defines.
fn declaration_only(index: &LineIndex, server: &LspServer, start: Position) -> bool {
    let (line, _) = server.char_position(index, start);
    if index
        .line(line)
        .is_some_and(|l| l.trim_start().starts_with('#'))
    {
        return false;
    }
    let from = server.byte_offset(index, start);
    declares_only(index.text().get(from..).unwrap_or(""))
}

/// See [`declaration_only`]: `rest` is the text from the name on.
fn declares_only(rest: &str) -> bool {
    let mut depth = 0usize;
    let mut chars = rest.chars().peekable();
    // The name itself.
    while chars
        .peek()
        .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    {
        chars.next();
    }
    // A declaration of a few thousand characters is no declaration: give
    // up rather than scan a whole file.
    for c in chars.take(4000) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => return true,
            '{' | '=' | ':' if depth == 0 => return false,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::declares_only;

    #[test]
    fn prototypes_and_externs_declare_and_bodies_define() {
        // zlib's prototypes, one on two lines.
        assert!(declares_only("deflateEnd(z_streamp strm);"));
        assert!(declares_only(
            "_tr_flush_block(deflate_state *s, charf *buf,\n    ulg stored_len, int last);"
        ));
        assert!(declares_only("counter;"));
        assert!(declares_only("f(int (*cb)(void)) const;"));
        assert!(declares_only("node;"));
        assert!(!declares_only("deflateEnd(z_streamp strm) {"));
        assert!(!declares_only("f(int a)\n{\n  return a;\n}"));
        assert!(!declares_only("counter = 3;"));
        assert!(!declares_only("table[4] = { 1, 2 };"));
        assert!(!declares_only("Widget::Widget() : size(0) {}"));
        assert!(!declares_only("node {\n  int v;\n};"));
        assert!(!declares_only("unterminated(int a"));
    }
}
