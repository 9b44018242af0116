//! The script a test writes for the fake server: capabilities, how it pushes
//! diagnostics, and rules that replace the default answer to a method with a
//! list of actions (crash, hang, raw bytes, floods, ...).

use serde::Deserialize;
use serde_json::Value;

/// Read from `fake-lsp.json` in the server's working directory (the root).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Script {
    /// Merged over the default capabilities in the `initialize` answer.
    pub capabilities: Value,
    /// How diagnostics are pushed after `didOpen`/`didChange`.
    pub push: PushMode,
    /// Answers a document-scoped request only about a document it was told
    /// of (`didOpen`), as clangd does: about any other, the error clangd
    /// gives (`-32602`, "trying to get AST for non-added document").
    pub only_open: bool,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushMode {
    None,
    #[default]
    Versioned,
    Unversioned,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The method the rule applies to; `$spawn` runs at start-up.
    pub method: String,
    /// Only in this run of the server (1 is the first start in this root).
    #[serde(default)]
    pub run: Option<u32>,
    /// Only for the n-th message of this method in this run (1-based).
    #[serde(default)]
    pub nth: Option<u32>,
    /// Only when the document URI ends with this text.
    #[serde(default)]
    pub file: Option<String>,
    /// Only for pulls of this provider identifier.
    #[serde(default)]
    pub identifier: Option<String>,
    pub actions: Vec<Action>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Prints to stderr and exits with this status.
    Crash(i32),
    /// Never answers this request; other messages are still served.
    Hang,
    /// Skips the default handling of a notification.
    Ignore,
    /// Answers with this result.
    Reply(Value),
    /// Answers with a JSON-RPC error.
    Error {
        code: i64,
        message: String,
    },
    /// Answers after this many milliseconds, without blocking other messages.
    DelayMs(u64),
    /// Blocks the whole server for this many milliseconds.
    SleepMs(u64),
    /// Blocks the whole server for this many milliseconds of the clock,
    /// spinning on the processor (a server at work: starved of the
    /// processor, it is runnable all along).
    SpinMs(u64),
    /// Writes these bytes to stdout as they are.
    Raw(String),
    /// Answers with this text as the body of a correctly framed message;
    /// `$ID` stands for the request's id.
    RawBody(String),
    /// Answers with a body shorter than its `Content-Length` header says.
    Truncated,
    /// Answers with a `Content-Length` header that is not a number.
    MalformedHeader,
    /// Answers with a result string padded to this many bytes.
    Oversized(usize),
    /// Sends this many notifications of this method first.
    Flood {
        count: usize,
        method: String,
    },
    Notify {
        method: String,
        params: Value,
    },
    /// Sends a server-to-client request; the answer is logged.
    Request {
        method: String,
        params: Value,
    },
    /// Publishes the diagnostics of the document: for its current text and
    /// version, or for the text and version before the last change.
    Publish {
        which: Which,
        versioned: bool,
    },
    /// Registers a pull diagnostics provider with this identifier.
    RegisterPull(String),
    /// Sends `$/progress` begin for this token.
    ProgressBegin(String),
    /// Sends `$/progress` begin for this token with this title.
    ProgressTitled {
        token: String,
        title: String,
    },
    /// Runs these actions this many milliseconds later (for the same
    /// document), serving other messages meanwhile.
    Later {
        ms: u64,
        actions: Vec<Action>,
    },
    /// Sends `$/progress` end for this token after this many milliseconds.
    ProgressEnd {
        token: String,
        after_ms: u64,
    },
    /// Starts a `sleep` child in the server's process group.
    SpawnChild,
    /// Tries to write this file (`~/` is the home directory) and logs whether
    /// it could: the sandbox tests' probe.
    WriteFile(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    Current,
    Previous,
    /// The text before the last change, stamped with the current version.
    PreviousAsCurrent,
}

impl Script {
    pub fn load(dir: &std::path::Path) -> Result<Script, String> {
        let path = dir.join("fake-lsp.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(_) => Ok(Script::default()),
        }
    }

    /// The actions of the first rule matching this message, if any.
    pub fn actions(
        &self,
        method: &str,
        run: u32,
        nth: u32,
        params: &serde_json::Value,
    ) -> Option<&[Action]> {
        let uri = params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str)
            .unwrap_or("");
        let identifier = params.get("identifier").and_then(Value::as_str);
        self.rules
            .iter()
            .find(|r| {
                r.method == method
                    && r.run.is_none_or(|x| x == run)
                    && r.nth.is_none_or(|x| x == nth)
                    && r.file.as_deref().is_none_or(|f| uri.ends_with(f))
                    && r.identifier
                        .as_deref()
                        .is_none_or(|i| identifier == Some(i))
            })
            .map(|r| r.actions.as_slice())
    }
}
