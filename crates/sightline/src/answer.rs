//! The engine's answers, in agent coordinates: paths, 1-based lines and 1-based
//! character columns. Rendering to text or JSON happens in `render`.

use std::path::PathBuf;

use serde::Serialize;

/// How much a finding matters, as the server rated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Must be fixed: the code does not type-check.
    Error,
    /// Likely wrong, but valid.
    Warning,
    /// Information.
    Info,
    /// A hint (an unused name, a deprecation).
    Hint,
}

impl Severity {
    /// The word the text answers use (`error`, `warning`, ...).
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
    /// The 1-based line the finding starts on.
    pub line: usize,
    /// The 1-based character column it starts at.
    pub column: usize,
    /// The 1-based line it ends on.
    pub end_line: usize,
    /// The 1-based character column it ends at.
    pub end_column: usize,
    /// How much it matters.
    pub severity: Severity,
    /// The message, on one line.
    pub message: String,
    /// Who reported it (`Pyright`, `ts`, `eslint`, ...).
    pub source: String,
    /// The server's code for it, if any.
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
    /// The findings, by position, each once.
    pub diagnostics: Vec<Finding>,
    /// Lines such as `pyright was still analysing after 5.0 s; ...`.
    pub notes: Vec<String>,
    /// With `context: "symbol"`: the name path of the symbol each finding
    /// sits in, one per finding; empty otherwise.
    #[serde(skip)]
    pub enclosing: Vec<Option<String>>,
}

impl Diagnostics {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|f| f.severity == Severity::Error)
    }
}

/// A position as callers count it: a 1-based line and a 1-based column in
/// characters (Unicode code points), so that a symbol after emoji or CJK text
/// has the column a person would count. A server's position is another
/// thing (0-based, counted in the server's encoding); only
/// `LspServer::position` turns one into the other, knowing the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// The line, from 1.
    pub line: usize,
    /// The column in characters, from 1.
    pub column: usize,
}

impl Pos {
    /// The position at `line` and `column`, both 1-based.
    pub fn new(line: usize, column: usize) -> Pos {
        Pos { line, column }
    }

    /// The position of a 0-based line and character column, as a
    /// `LineIndex` counts them.
    pub fn from_zero_based(line: usize, column: usize) -> Pos {
        Pos {
            line: line + 1,
            column: column + 1,
        }
    }

    /// The 0-based line and character column, as a `LineIndex` counts them;
    /// none for line or column 0, which no file has.
    pub fn zero_based(self) -> Option<(usize, usize)> {
        Some((self.line.checked_sub(1)?, self.column.checked_sub(1)?))
    }
}

/// One place in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Loc {
    /// The file, absolute.
    pub path: PathBuf,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based character column.
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

/// What a list of places answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LocKind {
    /// Where a symbol is defined.
    Definitions,
    /// Where a symbol is used.
    References,
    /// Where an interface or abstract method is implemented.
    Implementations,
}

/// The answer to a definition or references question.
#[derive(Debug, Clone, Serialize)]
pub struct Locations {
    /// What the places are.
    pub kind: LocKind,
    /// The workspace root the places are shown relative to.
    pub root: PathBuf,
    /// The places, workspace first, each once.
    pub locations: Vec<Loc>,
    /// What the caller should know about how complete the places are.
    pub notes: Vec<String>,
    /// With `context: "symbol"`: the name path of the symbol each place
    /// sits in, one per place (`Session.request`); empty otherwise.
    #[serde(skip)]
    pub enclosing: Vec<Option<String>>,
}

/// A named thing in the code: a symbol of an outline or a search, or a call
/// hierarchy item. For an incoming call, `loc` is the call site and the item
/// is the caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// The symbol's name.
    pub name: String,
    /// `function`, `class`, `method`, ... (the LSP symbol kind, in words).
    pub kind: String,
    /// Where it is (for an incoming call, the call site).
    pub loc: Loc,
    /// The first line of the item's range, where its header begins
    /// (decorators and attributes included); outlines only, and not in the
    /// JSON, whose shape predates it.
    #[serde(skip)]
    pub start_line: usize,
    /// The last line of the item's range (outlines only).
    pub end_line: usize,
    /// Nested symbols (outlines only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Item>,
}

/// What a list of items answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemsKind {
    /// `documentSymbol`: the outline of one file.
    Outline,
    /// `workspaceSymbol`.
    Symbols,
    /// `prepareCallHierarchy`.
    CallItems,
    /// `incomingCalls`: the callers, one entry per call site.
    IncomingCalls,
    /// `supertypes`: the types a type extends or implements.
    Supertypes,
    /// `subtypes`: the types that extend or implement a type.
    Subtypes,
    /// `outgoingCalls`: what the item calls.
    OutgoingCalls,
}

/// The answer to a symbol or call-hierarchy question.
#[derive(Debug, Clone, Serialize)]
pub struct Items {
    /// What the items are.
    pub kind: ItemsKind,
    /// The workspace root the places are shown relative to.
    pub root: PathBuf,
    /// The file of an outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The items, by position.
    pub items: Vec<Item>,
    /// How the items were found, when not by the obvious request (a type
    /// hierarchy from `implementation`, or from the bases a declaration
    /// names).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Items {
    /// Items from across files, as a hierarchy or workspace search finds
    /// them: by place (files in `root` first), then name, each once.
    pub(crate) fn across_files(
        kind: ItemsKind,
        root: PathBuf,
        mut items: Vec<Item>,
        notes: Vec<String>,
    ) -> Items {
        items.sort_by(|a, b| a.loc.cmp_in(&b.loc, &root).then(a.name.cmp(&b.name)));
        items.dedup();
        Items {
            kind,
            root,
            file: None,
            items,
            notes,
        }
    }
}

/// The answer to a hover question: the server's markdown.
#[derive(Debug, Clone, Serialize)]
pub struct Hover {
    /// The workspace root of the server that answered.
    pub root: PathBuf,
    /// The hover text, as the server wrote it (markdown).
    pub text: String,
}

/// The state of one server, as `sightline servers` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Turned off; `why` says how to turn it on.
    Off {
        /// Why it is off.
        why: String,
    },
    /// Running for a root.
    Running {
        /// The root it serves.
        root: PathBuf,
        /// Its process id.
        pid: u32,
    },
    /// Failed too often recently; not restarted until its cool-down passes.
    Broken {
        /// The root it failed for.
        root: PathBuf,
        /// Its last failure.
        reason: String,
    },
    /// Found where sightline looks.
    Installed {
        /// The executable.
        path: PathBuf,
        /// Its version, when it can be told without running it.
        version: Option<String>,
    },
    /// Not found; `install` is how to get it.
    Missing {
        /// The command that installs it.
        install: String,
    },
}

/// One line of `sightline servers`: a server and its state.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    /// The server id (the configuration key).
    pub id: String,
    /// The language family it serves.
    pub language: String,
    /// The extensions and file names it handles.
    pub extensions: Vec<String>,
    /// `primary`, `alternative` or `linter`.
    pub role: &'static str,
    /// Its state.
    #[serde(flatten)]
    pub state: State,
}

/// Folds a multi-line message onto one line, as a finding shows it.
pub fn fold(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
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
    fn a_callers_position_is_one_based() {
        use super::Pos;
        assert_eq!(Pos::new(3, 7).zero_based(), Some((2, 6)));
        assert_eq!(Pos::from_zero_based(2, 6), Pos::new(3, 7));
        assert_eq!(Pos::new(0, 1).zero_based(), None);
        assert_eq!(Pos::new(1, 0).zero_based(), None);
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
