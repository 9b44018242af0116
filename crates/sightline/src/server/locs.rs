//! Server positions and agent coordinates: a server's position in its
//! encoding (utf-8, utf-16 or utf-32) turned into a 1-based line and
//! character column, and back; and places read from the files they are in.

use crate::sync::TextsByPath;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sightline_lsp::LineIndex;
use sightline_lsp::{Location, Position};
use sightline_lsp::{normalize, uri_to_path};

use crate::answer::{Loc, Pos};
use crate::server::LspServer;
use crate::server::documents::Doc;

impl LspServer {
    /// The server position of a caller's position in `doc`, in the server's
    /// encoding.
    pub fn position(&self, doc: &Doc, pos: Pos) -> Option<Position> {
        let (line, column) = pos.zero_based()?;
        doc.index.to_lsp(line, column, self.encoding)
    }

    /// Converts server locations into agent coordinates, reading each target
    /// file once. Locations in files that cannot be read are dropped.
    pub fn to_locs(
        &self,
        locations: &[Location],
        texts: &mut HashMap<PathBuf, Arc<LineIndex>>,
    ) -> Vec<Loc> {
        let mut out = Vec::new();
        for l in locations {
            let Ok(path) = uri_to_path(l.uri.as_str()) else {
                continue;
            };
            let path = normalize(&path);
            let Some(index) = self.index_for(&path, texts) else {
                continue;
            };
            let (line, col) = index.from_lsp(l.range.start, self.encoding);
            let text = index.line(line).unwrap_or("").trim().to_owned();
            let at = Pos::from_zero_based(line, col);
            out.push(Loc {
                path,
                line: at.line,
                column: at.column,
                text,
            });
        }
        out
    }

    /// The line index of `path`: the open document's, else read from disk,
    /// remembered in `texts`.
    pub fn index_for(
        &self,
        path: &Path,
        texts: &mut HashMap<PathBuf, Arc<LineIndex>>,
    ) -> Option<Arc<LineIndex>> {
        if let Some(i) = texts.get(path) {
            return Some(i.clone());
        }
        let index = match self.docs().get(path) {
            Some(doc) => doc.index.clone(),
            None => crate::sync::Snapshot::read(path).ok()?.index,
        };
        texts.insert(path.to_owned(), index.clone());
        Some(index)
    }

    /// The 0-based line and character column of a server position in `index`.
    pub fn char_position(&self, index: &LineIndex, pos: Position) -> (usize, usize) {
        index.from_lsp(pos, self.encoding)
    }

    /// The server position of a 0-based line and character column of `index`.
    pub fn position_at(&self, index: &LineIndex, line: usize, column: usize) -> Option<Position> {
        index.to_lsp(line, column, self.encoding)
    }

    /// A place in agent coordinates, reading the file's text when needed.
    pub(super) fn loc_at(
        &self,
        path: &Path,
        start: Position,
        texts: &mut TextsByPath,
    ) -> Option<Loc> {
        let index = self.index_for(path, texts)?;
        let (line, col) = index.from_lsp(start, self.encoding);
        let at = Pos::from_zero_based(line, col);
        Some(Loc {
            path: path.to_owned(),
            line: at.line,
            column: at.column,
            text: index.line(line).unwrap_or("").trim().to_owned(),
        })
    }

    pub(super) fn line_of(&self, path: &Path, pos: Position, texts: &mut TextsByPath) -> usize {
        self.index_for(path, texts)
            .map(|i| i.from_lsp(pos, self.encoding).0 + 1)
            .unwrap_or(pos.line as usize + 1)
    }

    /// The byte offset of a server position in `index`'s text.
    pub fn byte_offset(&self, index: &LineIndex, pos: Position) -> usize {
        index.offset(pos, self.encoding)
    }
}
