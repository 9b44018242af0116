//! The edit tools' own value: an [`Editor`] is an engine's edits, apart
//! from its questions, so that every edit tool's code is found on one type
//! under `edit/` and every question's on [`Engine`] under `engine/`.

use crate::engine::Engine;

/// The edits of one engine (or of one of its views: a session's, a dry
/// run's): `read`, `write`, `edit`, `apply_patch`, the refactorings, the
/// checkpoints and the agents' hooks. It borrows the engine, whose servers,
/// files and sandbox its edits use, and whose questions check them.
#[derive(Clone, Copy)]
pub struct Editor<'e> {
    pub(crate) engine: &'e Engine,
}

impl Engine {
    /// This engine's edits. The one bridge from an engine to its edit tools:
    /// the engine's own modules never call an edit.
    pub fn editor(&self) -> Editor<'_> {
        Editor { engine: self }
    }
}
