//! `sightline_hook`: an agent's tool hook (`sightline hook`) as the daemon
//! answers it; never listed, and no command of its own (the hook command
//! reads the agent's payload itself).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::frontends::hooks::Call;
use crate::frontends::tools::{Answered, Effect, Served, Session, Tool};

/// The tool.
pub(crate) struct Hook;

/// The hook's question, as `sightline hook` sends it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct HookArgs(Call);

// The hook's payload is sightline's own, never listed to a model: an open
// object is all a client that lists it anyway needs.
impl JsonSchema for HookArgs {
    fn schema_name() -> Cow<'static, str> {
        "HookArgs".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({ "type": "object" })
    }
}

impl Tool for Hook {
    const NAME: &'static str = "sightline_hook";
    const TITLE: &'static str = "Agent hook";
    const DESCRIPTION: &'static str =
        "An agent hook's question (`sightline hook`); not for models.";
    const EFFECT: Effect = Effect::Reads;
    const SERVED: Served = Served::Unlisted;
    type Args = HookArgs;

    /// An agent's hook takes its turns itself: its before-edit baseline is
    /// asked of the text before the edit, held in memory, in a task of its
    /// own that the after-edit call waits for (`edit::agent_edits`).
    const OWN_TURN: bool = true;

    async fn run(session: &Session, a: HookArgs, json: bool) -> Result<Answered, ToolError> {
        let text =
            crate::frontends::hooks::answer(session.engine(), session.pending_checks(), a.0).await;
        Ok(Answered::text(text, json))
    }
}
