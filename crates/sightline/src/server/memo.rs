//! Location answers kept while nothing the server sees has changed: no
//! document opened, changed or closed, no file changed on disk, and no
//! indexing running.
//!
//! A references answer without the declaration asks `definition` and
//! `declaration` at the position as well; an agent that has just asked for
//! the definition there would pay for it twice. On pyright that doubled
//! the cost of references in the replay benchmark (README, "Replay").

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use sightline_lsp::protocol::{Location, Position};

use crate::error::ToolError;
use crate::server::LspServer;

/// The kept answers, all from one generation of the server's view.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    generation: u64,
    /// When this generation's first answer was kept.
    since: Option<std::time::Instant>,
    answers: HashMap<(&'static str, String, u32, u32), Vec<Location>>,
}

impl Kept {
    fn fresh(&self, generation: u64) -> bool {
        self.generation == generation && self.since.is_some_and(|t| t.elapsed() < FRESH_FOR)
    }
}

/// Answers kept at most; past this they start over.
const KEPT: usize = 512;

/// How long a kept answer counts at most. Changes the file watch cannot see
/// (an `npm install` under `node_modules`, a queue overflow) bump no
/// generation; this bounds how long they can go unnoticed.
const FRESH_FOR: std::time::Duration = std::time::Duration::from_secs(10);

impl LspServer {
    /// `ask`'s answer for `method` at `uri`:`at`, or the one kept from the
    /// same generation.
    pub(crate) async fn remembered(
        &self,
        method: &'static str,
        uri: &str,
        at: Position,
        ask: impl Future<Output = Result<Vec<Location>, ToolError>>,
    ) -> Result<Vec<Location>, ToolError> {
        let key = (method, uri.to_owned(), at.line, at.character);
        let generation = self.generation();
        if !self.indexing() {
            let kept = self
                .memo
                .inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if kept.fresh(generation)
                && let Some(hit) = kept.answers.get(&key)
            {
                return Ok(hit.clone());
            }
        }
        let answer = ask.await?;
        self.keep(method, uri, at, generation, &answer);
        Ok(answer)
    }

    /// Keeps `answer`, asked at `generation`, if nothing changed while it
    /// was computed, no indexing runs, and the server has loaded its
    /// project (rust-analyzer answers empty before; see `while_loading`).
    pub(crate) fn keep(
        &self,
        method: &'static str,
        uri: &str,
        at: Position,
        generation: u64,
        answer: &[Location],
    ) {
        let loading = self.spec.quirks.ready_on_status && !self.state.with(|s| s.loaded);
        if loading || self.indexing() || self.generation() != generation {
            return;
        }
        let mut kept = self
            .memo
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !kept.fresh(generation) || kept.answers.len() >= KEPT {
            *kept = Kept {
                generation,
                since: Some(std::time::Instant::now()),
                answers: HashMap::new(),
            };
        }
        kept.answers.insert(
            (method, uri.to_owned(), at.line, at.character),
            answer.to_vec(),
        );
    }
}
