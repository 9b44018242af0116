//! The messages a server sends on its own initiative, parsed once into the
//! requests and notifications sightline handles (helix-lsp's `MethodCall`
//! and `Notification`). The parameter types are lenient: a field an odd
//! server leaves out, or sends in another shape, takes its default, as a
//! missing one always has; only a publish that is not one is dropped.

use serde::Deserialize;
use serde_json::Value;
use sightline_lsp::PublishDiagnosticsParams;

use crate::catalog::ServerSpec;

/// A server-to-client request sightline answers.
#[derive(Debug)]
pub(crate) enum ServerRequest {
    /// `workspace/configuration`: the settings of each section asked.
    Configuration(ConfigurationParams),
    /// `client/registerCapability`.
    RegisterCapability(RegistrationParams),
    /// `client/unregisterCapability`.
    UnregisterCapability(UnregistrationParams),
    /// `workspace/diagnostic/refresh`: pulled diagnostics are stale.
    DiagnosticRefresh,
    /// `workspace/workspaceFolders`.
    WorkspaceFolders,
    /// `workspace/applyEdit`: an edit of a command sightline runs.
    ApplyEdit(ApplyEditParams),
    /// A request acknowledged with `null` and nothing else: progress
    /// tokens, messages to show, the refreshes of what a client shows.
    Acknowledged,
    /// Any other method: answered "method not found".
    Unknown(String),
}

impl ServerRequest {
    /// The request `method` with `params`.
    pub(crate) fn parse(method: &str, params: Value) -> ServerRequest {
        match method {
            "workspace/configuration" => ServerRequest::Configuration(lenient(params)),
            "client/registerCapability" => ServerRequest::RegisterCapability(lenient(params)),
            "client/unregisterCapability" => ServerRequest::UnregisterCapability(lenient(params)),
            "workspace/diagnostic/refresh" => ServerRequest::DiagnosticRefresh,
            "workspace/workspaceFolders" => ServerRequest::WorkspaceFolders,
            "workspace/applyEdit" => ServerRequest::ApplyEdit(lenient(params)),
            "window/workDoneProgress/create"
            | "window/showMessageRequest"
            | "window/showDocument"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => ServerRequest::Acknowledged,
            other => ServerRequest::Unknown(other.to_owned()),
        }
    }
}

/// A notification sightline reads.
#[derive(Debug)]
pub(crate) enum ServerNotification {
    /// `textDocument/publishDiagnostics`; `None` when it is not one.
    PublishDiagnostics(Option<PublishDiagnosticsParams>),
    /// `window/logMessage`.
    LogMessage(LogMessageParams),
    /// `$/progress` with a token.
    Progress(ProgressParams),
    /// rust-analyzer's `experimental/serverStatus`.
    ServerStatus(ServerStatusParams),
    /// jdtls's `language/status`.
    LanguageStatus(LanguageStatusParams),
    /// The notification a server relays to another (`Quirks::relay`).
    Relayed(Value),
    /// Anything else: counted, not read.
    Other,
}

impl ServerNotification {
    /// The notification `method` with `params`, from `spec`.
    pub(crate) fn parse(spec: &ServerSpec, method: &str, params: Value) -> ServerNotification {
        match method {
            "textDocument/publishDiagnostics" => {
                ServerNotification::PublishDiagnostics(serde_json::from_value(params).ok())
            }
            m if spec.quirks.relay.is_some_and(|r| r.notification == m) => {
                ServerNotification::Relayed(params)
            }
            "window/logMessage" => ServerNotification::LogMessage(lenient(params)),
            "$/progress" => match ProgressParams::parse(params) {
                Some(p) => ServerNotification::Progress(p),
                None => ServerNotification::Other,
            },
            "experimental/serverStatus" => ServerNotification::ServerStatus(lenient(params)),
            "language/status" => ServerNotification::LanguageStatus(lenient(params)),
            _ => ServerNotification::Other,
        }
    }
}

/// The params as `T`, or `T`'s defaults when they are not its shape.
fn lenient<T: for<'de> Deserialize<'de> + Default>(params: Value) -> T {
    serde_json::from_value(params).unwrap_or_default()
}

/// A list whose items each take their defaults when they are not their
/// shape, and that is empty when it is not a list: one odd item must not
/// lose the others (a configuration answer has one entry per item asked).
fn lenient_items<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: for<'a> Deserialize<'a> + Default,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items.into_iter().map(lenient).collect(),
        _ => Vec::new(),
    })
}

/// A text field, or none when it is not text.
fn lenient_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Value::deserialize(d)?.as_str().map(str::to_owned))
}

/// `workspace/configuration` params.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ConfigurationParams {
    /// The sections asked, in order.
    #[serde(deserialize_with = "lenient_items")]
    pub(crate) items: Vec<ConfigurationItem>,
}

/// One section asked.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ConfigurationItem {
    /// The section (`python.analysis`), or none for the whole.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) section: Option<String>,
}

/// `client/registerCapability` params.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RegistrationParams {
    /// What is registered.
    #[serde(deserialize_with = "lenient_items")]
    pub(crate) registrations: Vec<Registration>,
}

/// One registration.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Registration {
    /// Its id, for unregistering.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) id: Option<String>,
    /// The method it serves.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) method: Option<String>,
    /// Its options (watchers' globs, a pull's identifier).
    pub(crate) register_options: Value,
}

/// `client/unregisterCapability` params (the protocol's misspelling).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UnregistrationParams {
    /// What is unregistered.
    #[serde(deserialize_with = "lenient_items")]
    pub(crate) unregisterations: Vec<Unregistration>,
}

/// One unregistration.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Unregistration {
    /// The id it was registered with.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) id: Option<String>,
}

/// `workspace/applyEdit` params.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ApplyEditParams {
    /// The `WorkspaceEdit`, kept as sent: it is applied with the change.
    pub(crate) edit: Value,
}

/// `window/logMessage` params.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LogMessageParams {
    /// The text logged.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) message: Option<String>,
}

/// `$/progress` params with their token as text.
#[derive(Debug)]
pub(crate) struct ProgressParams {
    /// The token (a number as its decimal text).
    pub(crate) token: String,
    /// `begin`, `report` or `end`.
    pub(crate) kind: ProgressKind,
    /// The title a `begin` gives ("working" when it gives none).
    pub(crate) title: String,
}

/// What a progress message says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProgressKind {
    /// The work began.
    Begin,
    /// The work ended.
    End,
    /// Anything else (`report`, or no kind).
    Report,
}

impl ProgressParams {
    /// The params, when they have a token.
    fn parse(params: Value) -> Option<ProgressParams> {
        let token = match params.get("token")? {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text = |pointer: &str| params.pointer(pointer).and_then(Value::as_str);
        let kind = match text("/value/kind") {
            Some("begin") => ProgressKind::Begin,
            Some("end") => ProgressKind::End,
            _ => ProgressKind::Report,
        };
        let title = text("/value/title").unwrap_or("working").to_owned();
        Some(ProgressParams { token, kind, title })
    }
}

/// rust-analyzer's `experimental/serverStatus` params.
#[derive(Debug, Deserialize)]
#[serde(default)]
pub(crate) struct ServerStatusParams {
    /// False while it loads or indexes.
    pub(crate) quiescent: bool,
    /// What it says it is doing, or what is wrong.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) message: Option<String>,
    /// `ok`, `warning` or `error`.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) health: Option<String>,
}

impl Default for ServerStatusParams {
    fn default() -> Self {
        // A status without `quiescent` says nothing is going on.
        ServerStatusParams {
            quiescent: true,
            message: None,
            health: None,
        }
    }
}

/// jdtls's `language/status` params.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct LanguageStatusParams {
    /// `Starting`, `ServiceReady`, `Started`, ...
    #[serde(rename = "type", deserialize_with = "lenient_text")]
    pub(crate) kind: Option<String>,
    /// What it says.
    #[serde(deserialize_with = "lenient_text")]
    pub(crate) message: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn odd_shapes_take_the_defaults_and_unknown_methods_are_named() {
        let ServerRequest::Configuration(c) =
            ServerRequest::parse("workspace/configuration", json!({ "items": "nope" }))
        else {
            panic!("not a configuration request");
        };
        assert!(c.items.is_empty());
        let ServerRequest::RegisterCapability(r) = ServerRequest::parse(
            "client/registerCapability",
            json!({ "registrations": [{ "id": "1", "method": "textDocument/diagnostic" }] }),
        ) else {
            panic!("not a registration");
        };
        assert_eq!(
            r.registrations[0].method.as_deref(),
            Some("textDocument/diagnostic")
        );
        // One odd section keeps its place among the others.
        let ServerRequest::Configuration(c) = ServerRequest::parse(
            "workspace/configuration",
            json!({ "items": [{ "section": 3 }, "x", { "section": "python" }] }),
        ) else {
            panic!("not a configuration request");
        };
        let sections: Vec<_> = c.items.iter().map(|i| i.section.as_deref()).collect();
        assert_eq!(sections, [None, None, Some("python")]);
        assert!(matches!(
            ServerRequest::parse("x/y", Value::Null),
            ServerRequest::Unknown(m) if m == "x/y"
        ));
        let spec = &crate::catalog::table::PYRIGHT;
        let ServerNotification::ServerStatus(s) =
            ServerNotification::parse(spec, "experimental/serverStatus", json!({ "health": "ok" }))
        else {
            panic!("not a status");
        };
        assert!(s.quiescent);
        let ServerNotification::Progress(p) =
            ServerNotification::parse(spec, "$/progress", json!({ "token": 7, "value": {} }))
        else {
            panic!("not a progress");
        };
        assert_eq!((p.token.as_str(), p.kind), ("7", ProgressKind::Report));
        assert!(matches!(
            ServerNotification::parse(spec, "$/progress", json!({})),
            ServerNotification::Other
        ));
    }
}
