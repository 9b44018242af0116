//! The file watchers a server registers (`workspace/didChangeWatchedFiles`):
//! glob patterns, relative patterns and `kind` masks, and which disk
//! changes they ask for. A server that registers none is told about the
//! files of its own languages, as before it could say.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline_lsp::uri_to_path;

use crate::sync::watch::Change;

/// One registered watcher.
#[derive(Debug, Clone)]
pub struct Watcher {
    /// A relative pattern's base directory; `None` matches the whole path.
    pub base: Option<PathBuf>,
    glob: globset::GlobMatcher,
    /// `WatchKind` bits: 1 create, 2 change, 4 delete.
    kind: u8,
}

impl Watcher {
    /// Whether this watcher asks for `change` of `path`.
    pub fn wants(&self, path: &Path, change: Change) -> bool {
        let bit = match change {
            Change::Created => 1,
            Change::Changed => 2,
            Change::Deleted => 4,
        };
        if self.kind & bit == 0 {
            return false;
        }
        match &self.base {
            Some(base) => path
                .strip_prefix(base)
                .is_ok_and(|rel| self.glob.is_match(rel)),
            None => self.glob.is_match(path),
        }
    }
}

/// The watchers of one `registerOptions`; patterns that do not parse are
/// left out (logged).
pub fn parse(options: &Value) -> Vec<Watcher> {
    let Some(watchers) = options.get("watchers").and_then(Value::as_array) else {
        return Vec::new();
    };
    watchers
        .iter()
        .filter_map(|w| {
            let kind = w
                .get("kind")
                .and_then(Value::as_u64)
                .and_then(|k| u8::try_from(k).ok())
                .unwrap_or(7);
            let (base, pattern) = match w.get("globPattern")? {
                Value::String(p) => (None, p.as_str()),
                rel => {
                    let base = match rel.get("baseUri")? {
                        Value::String(u) => u.as_str(),
                        // A WorkspaceFolder.
                        folder => folder.get("uri")?.as_str()?,
                    };
                    (Some(uri_to_path(base).ok()?), rel.get("pattern")?.as_str()?)
                }
            };
            // LSP globs: `*` stays within a path component, `**` crosses them.
            let glob = globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| tracing::debug!("a watcher's pattern {pattern:?}: {e}"))
                .ok()?
                .compile_matcher();
            Some(Watcher { base, glob, kind })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn globs_relative_patterns_and_kinds_as_servers_register_them() {
        // As rust-analyzer and pyright register them.
        let w = parse(&json!({ "watchers": [
            { "globPattern": { "baseUri": "file:///p", "pattern": "**/Cargo.{lock,toml}" } },
            { "globPattern": "/p/Cargo.toml" },
            { "globPattern": "**/pyrightconfig.json", "kind": 7 },
            { "globPattern": "src/*.rs", "kind": 4 },
            { "globPattern": "[" },
        ]}));
        assert_eq!(w.len(), 4);
        let any = |p: &str, c| w.iter().any(|w| w.wants(Path::new(p), c));
        assert!(any("/p/crates/a/Cargo.toml", Change::Changed));
        assert!(any("/p/Cargo.lock", Change::Created));
        assert!(!any("/q/Cargo.lock", Change::Created));
        assert!(any("/x/y/pyrightconfig.json", Change::Deleted));
        assert!(!any("/p/src/main.rs", Change::Changed));
        // `*` does not cross a separator.
        let rel = parse(&json!({ "watchers": [
            { "globPattern": { "baseUri": "file:///p", "pattern": "src/*.rs" }, "kind": 4 },
        ]}));
        assert!(rel[0].wants(Path::new("/p/src/main.rs"), Change::Deleted));
        assert!(!rel[0].wants(Path::new("/p/src/main.rs"), Change::Changed));
        assert!(!rel[0].wants(Path::new("/p/src/a/main.rs"), Change::Deleted));
    }
}
