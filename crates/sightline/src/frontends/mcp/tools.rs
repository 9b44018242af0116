//! The tools `sightline mcp` lists, as the registry defines them: each
//! tool's description, its argument schema and its annotations.

use rmcp::model::{Tool, ToolAnnotations};

use crate::frontends::tools::{Effect, Entry, listed};

/// The tools a session lists.
pub(super) fn tools(edit_tools: bool) -> Vec<Tool> {
    listed(edit_tools).map(as_listed).collect()
}

/// The tool as the tool list gives it: its description, its arguments'
/// schema and what it does to the workspace.
fn as_listed(tool: &Entry) -> Tool {
    let annotations = ToolAnnotations::with_title(tool.title).open_world(false);
    let annotations = match tool.effect {
        Effect::Reads => annotations
            .read_only(true)
            .destructive(false)
            .idempotent(true),
        Effect::Restarts => annotations
            .read_only(false)
            .destructive(false)
            .idempotent(true),
        Effect::Writes { idempotent } => annotations
            .read_only(false)
            .destructive(true)
            .idempotent(idempotent),
    };
    Tool::new(tool.name, tool.description, tool.schema()).annotate(annotations)
}
