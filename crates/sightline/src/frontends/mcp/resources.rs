//! Diagnostics and the capability report as MCP resources: a file's
//! diagnostics (`sightline://diagnostics/ABSOLUTE/PATH`, a template), the
//! workspace's (`sightline://diagnostics`), and `sightline://capabilities`;
//! each read is the same question as the tool's, answered fresh. A client
//! may subscribe to a file's diagnostics: it hears
//! `notifications/resources/updated` when the file changes on disk, and
//! reads them again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::RoleServer;
use rmcp::model::{Resource, ResourceTemplate, ResourceUpdatedNotificationParam};
use rmcp::service::Peer;
use serde_json::json;

use crate::frontends::tools::{Session, Toolset, find};

/// The workspace's diagnostics.
pub(super) const WORKSPACE: &str = "sightline://diagnostics";
/// The capability report of the workspace's languages.
pub(super) const CAPABILITIES: &str = "sightline://capabilities";
/// How often a subscribed file's modification time and size are looked
/// at: a file's stamp is a few bytes read, and an agent hears of a change
/// within this.
const LOOK_EVERY: Duration = Duration::from_millis(250);
/// At most this many files are subscribed to in one session.
const MOST_SUBSCRIBED: usize = 256;

/// Whether a session of `tools` answers `tool`'s question, which a
/// resource's read asks.
fn serves(tools: &Toolset, tool: &str) -> bool {
    find(tool).is_some_and(|t| tools.serves(t))
}

/// The resources a session of `tools` lists: those whose question it
/// answers.
pub(super) fn listed(tools: &Toolset) -> Vec<Resource> {
    let mut out = Vec::new();
    if serves(tools, "lsp_check") {
        out.push(
            Resource::new(WORKSPACE, "workspace diagnostics")
                .with_description(
                    "The errors of every file of the workspace, as lsp_check answers.",
                )
                .with_mime_type("text/plain"),
        );
    }
    out.push(
        Resource::new(CAPABILITIES, "capabilities")
            .with_description(
                "For each language of the workspace, its server and the tools and lsp operations it answers.",
            )
            .with_mime_type("text/plain"),
    );
    out
}

/// The resource templates a session of `tools` lists.
pub(super) fn templates(tools: &Toolset) -> Vec<ResourceTemplate> {
    if !serves(tools, "lsp_diagnostics") {
        return Vec::new();
    }
    vec![
        ResourceTemplate::new(format!("{WORKSPACE}{{+path}}"), "file diagnostics")
            .with_description(
                "A file's diagnostics, as lsp_diagnostics answers; PATH is absolute. Subscribe to hear when the file changes.",
            )
            .with_mime_type("text/plain"),
    ]
}

/// The file a diagnostics URI names, if it names one: the absolute path
/// after the prefix, percent-decoded as a `file:` URI's is.
pub(super) fn file_of(uri: &str) -> Option<PathBuf> {
    let path = uri.strip_prefix(WORKSPACE)?;
    if !path.starts_with('/') {
        return None;
    }
    sightline_lsp::uri_to_path(&format!("file://{path}")).ok()
}

/// The text of the resource `uri` for a session of `tools`, or why none.
pub(super) async fn read(session: &Session, tools: &Toolset, uri: &str) -> Result<String, String> {
    let (tool, args) = if uri == WORKSPACE {
        ("lsp_check", json!({}))
    } else if uri == CAPABILITIES {
        let engine = session.engine();
        let root = engine
            .workspace_root()
            .map(Path::to_owned)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let lines = engine.servers().capabilities(&root, false).await;
        return Ok(crate::engine::capabilities::capabilities_text(
            &lines, &root,
        ));
    } else if let Some(file) = file_of(uri) {
        ("lsp_diagnostics", json!({ "file": file }))
    } else {
        return Err(format!(
            "no resource `{uri}`; the resources are {WORKSPACE}, {WORKSPACE}/ABSOLUTE/PATH and {CAPABILITIES}"
        ));
    };
    if !serves(tools, tool) {
        return Err(format!(
            "no resource `{uri}` in this session: it does not serve {tool}"
        ));
    }
    let serde_json::Value::Object(args) = args else {
        return Err("no arguments".to_owned());
    };
    match session.call(tool, args, false).await {
        Ok(answered) => Ok(answered.text),
        Err(e) => Ok(crate::render::error_text(&e.into_tool_error())),
    }
}

/// A session's subscriptions: a task per subscribed file, each stopped
/// when unsubscribed or when the session ends.
#[derive(Clone, Default)]
pub(super) struct Subscriptions {
    tasks: Arc<Tasks>,
}

/// The tasks, by key; dropped (every clone of the session gone), each is
/// stopped.
#[derive(Default)]
struct Tasks(Mutex<HashMap<String, tokio::task::AbortHandle>>);

impl Tasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, tokio::task::AbortHandle>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Tasks {
    fn drop(&mut self) {
        for t in self.lock().values() {
            t.abort();
        }
    }
}

impl Subscriptions {
    /// Tells `peer` each time the file `uri` names changes on disk, until
    /// unsubscribed; or why it cannot.
    pub(super) fn subscribe(&self, uri: &str, peer: Peer<RoleServer>) -> Result<(), String> {
        let Some(file) = file_of(uri) else {
            return Err(format!(
                "only a file's diagnostics can be subscribed to ({WORKSPACE}/ABSOLUTE/PATH), not `{uri}`"
            ));
        };
        let mut tasks = self.tasks.lock();
        if tasks.len() >= MOST_SUBSCRIBED && !tasks.contains_key(uri) {
            return Err(format!(
                "a session subscribes to at most {MOST_SUBSCRIBED} files; unsubscribe from one first"
            ));
        }
        let owned = uri.to_owned();
        // Taken now: a change made once the subscription is answered is a
        // change.
        let mut seen = stamp(&file);
        let task = tokio::spawn(async move {
            loop {
                tokio::time::sleep(LOOK_EVERY).await;
                let now = stamp(&file);
                if now != seen {
                    seen = now;
                    let updated = ResourceUpdatedNotificationParam::new(owned.clone());
                    if peer.notify_resource_updated(updated).await.is_err() {
                        break;
                    }
                }
            }
        });
        if let Some(old) = tasks.insert(uri.to_owned(), task.abort_handle()) {
            old.abort();
        }
        Ok(())
    }

    /// Runs the task `start` makes under `key` once for the session (the
    /// forwarding of server events), stopped with the session.
    pub(super) fn once(&self, key: &str, start: impl FnOnce() -> tokio::task::AbortHandle) {
        let mut tasks = self.tasks.lock();
        if !tasks.contains_key(key) {
            tasks.insert(key.to_owned(), start());
        }
    }

    /// Stops telling of `uri`.
    pub(super) fn unsubscribe(&self, uri: &str) {
        let mut tasks = self.tasks.lock();
        if let Some(t) = tasks.remove(uri) {
            t.abort();
        }
    }
}

/// What a change of a file changes: its modification time and size, or
/// that it is not there.
fn stamp(file: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(file).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_s_diagnostics_uri_names_its_absolute_path_and_no_other_does() {
        assert_eq!(
            file_of("sightline://diagnostics/src/app.py"),
            Some(PathBuf::from("/src/app.py"))
        );
        assert_eq!(file_of(WORKSPACE), None);
        assert_eq!(file_of(CAPABILITIES), None);
        assert_eq!(file_of("sightline://diagnosticsx"), None);
        // Percent-encoded as a URI template's reserved expansion leaves
        // what is not reserved.
        assert_eq!(
            file_of("sightline://diagnostics/src/my%20app/caf%C3%A9.py"),
            Some(PathBuf::from("/src/my app/café.py"))
        );
    }
}
