//! The tools `sightline mcp` lists, as the registry defines them: each
//! tool's description, its argument schema and its annotations.

use rmcp::model::{Tool, ToolAnnotations};

use crate::frontends::tools::{Effect, Entry, Toolset};

/// The tools a session lists; with `structured`, each with its output
/// schema.
pub(super) fn tools(set: &Toolset, structured: bool) -> Vec<Tool> {
    set.listed()
        .into_iter()
        .map(as_listed)
        .map(|t| match structured {
            true => t.with_raw_output_schema(super::structured::output_schema()),
            false => t,
        })
        .collect()
}

/// The tool as the tool list gives it: its description, its arguments'
/// schema and what it does to the workspace.
fn as_listed(tool: &Entry) -> Tool {
    let annotations = ToolAnnotations::with_title(tool.title).open_world(false);
    // For a tool that only reads, the protocol gives `destructiveHint`
    // and `idempotentHint` no meaning: they are left out.
    let annotations = match tool.effect {
        Effect::Reads => annotations.read_only(true),
        Effect::Restarts => annotations
            .read_only(false)
            .destructive(false)
            .idempotent(true),
        Effect::Writes { idempotent } => annotations
            .read_only(false)
            .destructive(true)
            .idempotent(idempotent),
    };
    let schema = std::sync::Arc::new(super::lean::lean(&tool.schema()));
    Tool::new(tool.name, tool.description, schema).annotate(annotations)
}
