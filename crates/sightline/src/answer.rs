//! The engine's answers, in agent coordinates: paths, 1-based lines and 1-based
//! character columns. Rendering to text or JSON happens in `render`.

use std::path::PathBuf;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub severity: Severity,
    pub message: String,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// The diagnostics of one file.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostics {
    /// The file as the caller named it (absolute).
    pub file: PathBuf,
    /// The workspace root the file was checked under.
    pub root: PathBuf,
    pub diagnostics: Vec<Finding>,
    /// Lines such as `pyright was still analysing after 5.0 s; ...`.
    pub notes: Vec<String>,
}

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|f| f.severity == Severity::Error)
    }
}

/// One place in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Loc {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The source line, trimmed.
    pub text: String,
}

impl Loc {
    /// The order answers list places in: files inside `root` first, then
    /// library files outside it (typeshed, `lib.dom.d.ts`), each by path,
    /// line and column. Putting the workspace first keeps the order the same
    /// wherever the workspace and the server's own files happen to live.
    pub fn cmp_in(&self, other: &Loc, root: &std::path::Path) -> std::cmp::Ordering {
        let outside = |l: &Loc| !l.path.starts_with(root);
        outside(self)
            .cmp(&outside(other))
            .then_with(|| self.cmp(other))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LocKind {
    Definitions,
    References,
    Implementations,
}

/// The answer to a definition or references question.
#[derive(Debug, Clone, Serialize)]
pub struct Locations {
    pub kind: LocKind,
    pub root: PathBuf,
    pub locations: Vec<Loc>,
}

/// A named thing in the code: a symbol of an outline or a search, or a call
/// hierarchy item. For an incoming call, `loc` is the call site and the item
/// is the caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub name: String,
    /// `function`, `class`, `method`, ... (the LSP symbol kind, in words).
    pub kind: String,
    pub loc: Loc,
    /// The last line of the item's range (outlines only).
    pub end_line: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Item>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemsKind {
    /// `documentSymbol`: the outline of one file.
    Outline,
    /// `workspaceSymbol`.
    Symbols,
    /// `prepareCallHierarchy`.
    CallItems,
    IncomingCalls,
    OutgoingCalls,
}

/// The answer to a symbol or call-hierarchy question.
#[derive(Debug, Clone, Serialize)]
pub struct Items {
    pub kind: ItemsKind,
    pub root: PathBuf,
    /// The file of an outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    pub items: Vec<Item>,
}

/// The answer to a hover question: the server's markdown.
#[derive(Debug, Clone, Serialize)]
pub struct Hover {
    pub root: PathBuf,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
/// The state of one server, as `sightline servers` shows it.
pub enum State {
    Off {
        why: String,
    },
    Running {
        root: PathBuf,
        pid: u32,
    },
    Broken {
        root: PathBuf,
        reason: String,
    },
    Installed {
        path: PathBuf,
        version: Option<String>,
    },
    Missing {
        install: String,
    },
}

/// One line of `sightline servers`: a server and its state.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    pub id: String,
    pub language: String,
    pub extensions: Vec<String>,
    pub role: &'static str,
    #[serde(flatten)]
    pub state: State,
}

#[cfg(test)]
mod tests {
    use super::Loc;
    use std::path::{Path, PathBuf};

    fn loc(path: &str, line: usize) -> Loc {
        Loc {
            path: PathBuf::from(path),
            line,
            column: 1,
            text: String::new(),
        }
    }

    #[test]
    fn workspace_places_come_before_library_places_wherever_either_lives() {
        // The library path sorts before the workspace by name in the first
        // case and after it in the second; the order must not change.
        for (root, library) in [
            ("/tmp/ws", "/a/typeshed/builtins.pyi"),
            ("/a/ws", "/z/typeshed/builtins.pyi"),
        ] {
            let mut locs = [
                loc(library, 3),
                loc(&format!("{root}/b.py"), 1),
                loc(&format!("{root}/a.py"), 9),
            ];
            locs.sort_by(|x, y| x.cmp_in(y, Path::new(root)));
            let order: Vec<_> = locs.iter().map(|l| l.path.clone()).collect();
            assert_eq!(
                order,
                [
                    PathBuf::from(format!("{root}/a.py")),
                    PathBuf::from(format!("{root}/b.py")),
                    PathBuf::from(library),
                ]
            );
        }
    }
}
