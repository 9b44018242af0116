//! Requests one server makes of another (`Quirks::relay`): vue-language-server
//! sends its TypeScript questions (`tsserver/request`) to the client, which
//! runs them in tsserver, where `@vue/typescript-plugin` knows the `.vue`
//! files, and sends the answers back (`tsserver/response`). Every request
//! gets a reply, a null body when the other server is missing or fails:
//! vue-language-server waits on each one without a timeout of its own.

use std::sync::{Arc, Mutex, Weak};

use serde_json::{Value, json};
use sightline_lsp::request;
use tokio::sync::mpsc;

use crate::catalog::quirks::Relay;
use crate::server::LspServer;

/// The relayed requests of one server: filled by its inbox, drained by the
/// task `LspServer::start_relay` spawns.
pub type RelayQueue = mpsc::UnboundedSender<Value>;

/// The server that answers another's relayed requests; replaced when that
/// server is started anew.
#[derive(Default)]
pub struct RelayTarget(Mutex<Weak<LspServer>>);

impl RelayTarget {
    fn get(&self) -> Option<Arc<LspServer>> {
        self.0.lock().ok()?.upgrade().filter(|s| s.is_alive())
    }
}

/// `[id, command, args]` from a relay notification's params. vscode-jsonrpc
/// sends a single array parameter wrapped in another (`[[id, command,
/// args]]`); both shapes are taken. A command that is not a string comes
/// back empty, so that its id is still answered (with nothing).
fn parse(params: &Value) -> Option<(Value, String, Value)> {
    let list = params.as_array()?;
    let list = match list.as_slice() {
        [Value::Array(inner)] => inner,
        _ => list,
    };
    let [id, command, args, ..] = list.as_slice() else {
        return None;
    };
    Some((
        id.clone(),
        command.as_str().unwrap_or_default().to_owned(),
        args.clone(),
    ))
}

/// One relayed request of a server in flight, counted in its state while
/// it lives (so that a wait on that server sees the other's work as its
/// own); uncounted however the request ends.
struct Relaying<'a>(&'a LspServer);

impl<'a> Relaying<'a> {
    fn start(server: &'a LspServer) -> Relaying<'a> {
        server.state.with(|s| s.relaying += 1);
        Relaying(server)
    }
}

impl Drop for Relaying<'_> {
    fn drop(&mut self) {
        self.0
            .state
            .with(|s| s.relaying = s.relaying.saturating_sub(1));
    }
}

impl LspServer {
    /// Whether this server's relayed requests have a live server to go to.
    pub fn relay_linked(&self) -> bool {
        self.relay_target.get().is_some()
    }

    /// Sends this server's relayed requests to `target` from now on.
    pub fn relay_to(&self, target: &Arc<LspServer>) {
        if let Ok(mut t) = self.relay_target.0.lock() {
            *t = Arc::downgrade(target);
        }
    }

    /// Answers the requests `queue` receives, each in a task of its own (the
    /// asking server sends several at once and waits on each), until this
    /// server is gone.
    pub(super) fn start_relay(
        self: &Arc<Self>,
        relay: Relay,
        mut queue: mpsc::UnboundedReceiver<Value>,
    ) {
        let me = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(params) = queue.recv().await {
                let Some(server) = me.upgrade() else { return };
                let Some((id, command, args)) = parse(&params) else {
                    tracing::warn!(
                        "{}: malformed {}: {params}",
                        server.spec.id,
                        relay.notification
                    );
                    continue;
                };
                let target = server.relay_target.get().filter(|_| !command.is_empty());
                tokio::spawn(async move {
                    let body = match target {
                        Some(t) => {
                            let _relaying = Relaying::start(&server);
                            t.relayed(relay, &command, args).await
                        }
                        None => {
                            tracing::debug!(
                                "{}: no {} server to answer {command}",
                                server.spec.id,
                                relay.to
                            );
                            Value::Null
                        }
                    };
                    if let Err(e) = server.client.notify(relay.reply, json!([[id, body]])) {
                        tracing::debug!("{}: cannot send {}: {e}", server.spec.id, relay.reply);
                    }
                });
            }
        });
    }

    /// Runs one relayed request here; its answer's `body`, or null.
    async fn relayed(&self, relay: Relay, command: &str, args: Value) -> Value {
        let params = json!({
            "command": relay.command,
            "arguments": [command, args, { "isAsync": true, "lowPriority": true }],
        });
        let budget = self.budgets.document.max(self.budgets.ready);
        match self
            .client
            .request_of::<request::ExecuteCommand>(params, budget)
            .await
        {
            Ok(v) => v.get("body").cloned().unwrap_or(Value::Null),
            Err(e) => {
                tracing::debug!("{}: relayed {command} failed: {e}", self.spec.id);
                Value::Null
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_of_the_params_are_taken() {
        let flat = json!([3, "_vue:projectInfo", {"file": "/a.vue"}]);
        let wrapped = json!([[3, "_vue:projectInfo", {"file": "/a.vue"}]]);
        for p in [flat, wrapped] {
            let (id, command, args) = parse(&p).expect("a relay request");
            assert_eq!(id, json!(3));
            assert_eq!(command, "_vue:projectInfo");
            assert_eq!(args, json!({"file": "/a.vue"}));
        }
        assert!(parse(&json!([1, 2])).is_none());
        // A malformed command keeps its id, to be answered.
        let (id, command, _) = parse(&json!([[7, 42, {}]])).expect("an id");
        assert_eq!((id, command.as_str()), (json!(7), ""));
        assert!(parse(&json!({"id": 1})).is_none());
    }
}
