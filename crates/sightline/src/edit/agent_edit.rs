//! One edit an agent's own tool makes (Claude Code's `Edit`, Gemini CLI's
//! `replace`, Codex's `apply_patch`), as its hook payload names it: the
//! files it touches, and for a patch already applied, the text before it.

use std::path::PathBuf;

use crate::edit::patch;

/// One edit an agent's tool is about to make.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentEdit {
    /// `old` replaced by `new` in `file`, once or everywhere.
    Replace {
        /// The file.
        file: PathBuf,
        /// The text replaced.
        old: String,
        /// Its replacement.
        new: String,
        /// Every occurrence, not only the first.
        all: bool,
    },
    /// `file` written whole.
    Write {
        /// The file.
        file: PathBuf,
        /// Its new content.
        content: String,
    },
    /// A `*** Begin Patch` patch, its paths relative to `base`.
    Patch {
        /// The patch.
        text: String,
        /// The directory its relative paths start from.
        base: PathBuf,
    },
}

impl AgentEdit {
    /// The files the edit names (a patch's, once parsed).
    pub fn files(&self) -> Vec<PathBuf> {
        match self {
            AgentEdit::Replace { file, .. } | AgentEdit::Write { file, .. } => vec![file.clone()],
            AgentEdit::Patch { text, base } => patch::parse(text, base)
                .map(|ops| {
                    ops.into_iter()
                        .flat_map(|op| match op {
                            patch::Op::Add { path, .. } | patch::Op::Delete { path } => vec![path],
                            patch::Op::Update { path, move_to, .. } => {
                                std::iter::once(path).chain(move_to).collect()
                            }
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl AgentEdit {
    /// For a patch already applied: each updated file's text before it,
    /// its hunks undone on the file as it is now (a file the patch moved,
    /// added or deleted is left out).
    pub fn undone(&self) -> Vec<(PathBuf, String)> {
        let AgentEdit::Patch { text, base } = self else {
            return Vec::new();
        };
        let Ok(ops) = patch::parse(text, base) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for op in ops {
            let patch::Op::Update {
                path,
                move_to: None,
                hunks,
            } = op
            else {
                continue;
            };
            let Ok(now) = std::fs::read_to_string(&path) else {
                continue;
            };
            let back: Vec<patch::Hunk> = hunks
                .into_iter()
                .map(|h| patch::Hunk {
                    old: h.new,
                    new: h.old,
                    ..h
                })
                .collect();
            let lines: Vec<String> = now.lines().map(str::to_owned).collect();
            if let Ok(mut before) = patch::apply(&path, &lines, &back).map(|l| l.join("\n")) {
                if now.ends_with('\n') {
                    before.push('\n');
                }
                out.push((path, before));
            }
        }
        out
    }
}
