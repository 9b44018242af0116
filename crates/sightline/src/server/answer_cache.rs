//! Location answers kept while nothing the server sees has changed: no
//! document changed, no file changed on disk, no indexing running, and
//! (for a server whose answers depend on it) no document opened or closed.
//!
//! A references answer without the declaration asks `definition` and
//! `declaration` at the position as well; an agent that has just asked for
//! the definition there would pay for it twice. On pyright that doubled
//! the cost of references in the replay benchmark (docs/benchmarks.md, "Replay").

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use sightline_lsp::{Location, Position};

use crate::error::ToolError;
use crate::server::LspServer;

/// The kept answers, all from one generation of the server's view.
#[derive(Debug, Default)]
pub(crate) struct AnswerCache {
    inner: Mutex<CachedAnswers>,
}

/// What an answer is kept under: the method, the document's URI and the
/// position's line and character.
type Key = (&'static str, String, u32, u32);

#[derive(Debug, Default)]
struct CachedAnswers {
    generation: u64,
    /// Each answer with when it was asked.
    answers: HashMap<Key, (Instant, Vec<Location>)>,
}

impl CachedAnswers {
    /// The answer kept for `key` in `generation`, if it is young enough.
    fn get(&self, generation: u64, key: &Key) -> Option<&[Location]> {
        if self.generation != generation {
            return None;
        }
        let (at, answer) = self.answers.get(key)?;
        (at.elapsed() < FRESH_FOR).then_some(answer.as_slice())
    }
}

/// Answers kept at most; past this they start over.
const KEPT: usize = 512;

/// How long a kept answer counts at most, each from when it was kept (a
/// generation can last minutes while documents come and go). Changes the
/// file watch cannot see (an `npm install` under `node_modules`, a queue
/// overflow) bump no generation; this bounds how long they can go
/// unnoticed.
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
                .answer_cache
                .inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(hit) = kept.get(generation, &key) {
                return Ok(hit.to_vec());
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
        let loading =
            self.spec.quirks.readiness.waits_for_status() && !self.state.with(|s| s.load.loaded);
        if loading || self.indexing() || self.generation() != generation {
            return;
        }
        let mut kept = self
            .answer_cache
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if kept.generation != generation {
            *kept = CachedAnswers {
                generation,
                answers: HashMap::new(),
            };
        }
        if kept.answers.len() >= KEPT {
            kept.answers.retain(|_, (t, _)| t.elapsed() < FRESH_FOR);
            if kept.answers.len() >= KEPT {
                kept.answers.clear();
            }
        }
        kept.answers.insert(
            (method, uri.to_owned(), at.line, at.character),
            (Instant::now(), answer.to_vec()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(line: u32) -> Key {
        ("definition", "file:///a.py".to_owned(), line, 0)
    }

    #[test]
    fn an_answer_counts_only_in_its_own_generation_and_by_its_own_age() {
        let mut kept = CachedAnswers {
            generation: 3,
            answers: HashMap::new(),
        };
        kept.answers.insert(key(1), (Instant::now(), Vec::new()));
        let old = Instant::now()
            .checked_sub(FRESH_FOR)
            .expect("a clock past the epoch");
        kept.answers.insert(key(2), (old, Vec::new()));
        assert!(kept.get(3, &key(1)).is_some());
        // Another generation: nothing kept counts.
        assert!(kept.get(4, &key(1)).is_none());
        // One answer too old does not take the younger ones with it.
        assert!(kept.get(3, &key(2)).is_none());
        assert!(kept.get(3, &key(3)).is_none());
    }
}
