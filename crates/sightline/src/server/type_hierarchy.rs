//! The type hierarchy requests (`textDocument/prepareTypeHierarchy`, then
//! `typeHierarchy/supertypes` or `typeHierarchy/subtypes`), for a server
//! that offers them (clangd, gopls, jdtls); the ways around them for one
//! that does not are the engine's (`engine::type_hierarchy`).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};
use sightline_lsp::Position;
use sightline_lsp::request;

use crate::answer::Item;
use crate::error::ToolError;
use crate::server::LspServer;

impl LspServer {
    /// The supertypes (`up`) or subtypes of the type at `pos`, through the
    /// server's type hierarchy.
    pub async fn type_hierarchy(
        &self,
        path: &Path,
        pos: Position,
        up: bool,
    ) -> Result<Vec<Item>, ToolError> {
        let prepared = self
            .ask_of::<request::TypeHierarchyPrepare>(Self::at(path, pos))
            .await?;
        let mut texts = HashMap::new();
        let mut out = Vec::new();
        for item in prepared.as_array().into_iter().flatten() {
            let params = json!({ "item": item });
            let v = if up {
                self.ask_of::<request::TypeHierarchySupertypes>(params)
                    .await?
            } else {
                self.ask_of::<request::TypeHierarchySubtypes>(params)
                    .await?
            };
            out.extend(
                v.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t: &Value| self.call_item(t, &mut texts)),
            );
        }
        Ok(out)
    }
}
