//! `sightline hook`: what an agent's tool hook asks, in Claude Code's,
//! Codex's or Gemini CLI's shape, and the answer in that agent's words.
//!
//! - Before the agent's own edit tool runs (Claude Code `Edit`, `MultiEdit`,
//!   `Write`; Codex `apply_patch`; Gemini CLI `replace`, `write_file`), the
//!   files it will change are asked for their errors (`before_agent_edit`).
//! - After it ran, the errors the edit introduced, in those files and in the
//!   files using what changed, go back to the model as added context.
//!   Nothing is said when it introduced none.
//! - Before a search (`Grep`, `grep`/`rg` in a shell) for a bare identifier
//!   the project's server resolves, its exact uses are added as context; the
//!   search still runs.
//! - At session start, the project's servers are started in the daemon.
//!
//! The CLI (`frontends/cli/hook_command.rs`) reads the payload and asks the
//! daemon (`Request`, as the hidden tool `sightline_hook`); the daemon
//! answers with `answer`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::edit::agent_edits::AgentEdit;
use crate::engine::Engine;

/// The agents whose hooks `sightline hook` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Claude Code (`PreToolUse`, `PostToolUse`, `SessionStart`,
    /// `SubagentStart`).
    ClaudeCode,
    /// Codex (Claude Code's hook shape).
    Codex,
    /// Gemini CLI (`BeforeTool`, `AfterTool`, `SessionStart`).
    Gemini,
}

impl Agent {
    /// The agent a `--agent` value names.
    pub fn named(name: &str) -> Option<Agent> {
        match name {
            "claude-code" | "claude" => Some(Agent::ClaudeCode),
            "codex" => Some(Agent::Codex),
            "gemini" | "gemini-cli" => Some(Agent::Gemini),
            _ => None,
        }
    }

    /// The agent whose hook sent `payload`: Gemini CLI's events are
    /// `BeforeTool`/`AfterTool`; Codex's tools are `apply_patch` and
    /// `shell`/`exec_command`; the rest is Claude Code's.
    pub fn detect(payload: &Value) -> Agent {
        let event = payload["hook_event_name"].as_str().unwrap_or("");
        let tool = payload["tool_name"].as_str().unwrap_or("");
        if matches!(event, "BeforeTool" | "AfterTool") || payload.get("timestamp").is_some() {
            Agent::Gemini
        } else if matches!(
            tool,
            "apply_patch" | "shell" | "exec_command" | "local_shell"
        ) {
            Agent::Codex
        } else {
            Agent::ClaudeCode
        }
    }
}

/// What a hook asks of the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Request {
    /// The agent's tool is about to make these edits.
    BeforeEdit {
        /// The agent's session.
        session: String,
        /// The edits.
        edits: Vec<AgentEdit>,
    },
    /// The agent's tool changed these files.
    AfterEdit {
        /// The agent's session.
        session: String,
        /// The files.
        files: Vec<PathBuf>,
        /// Each file's text before the edit, where the agent said it
        /// (Claude Code's `originalFile`) or the replacement can be undone.
        #[serde(default)]
        originals: Vec<(PathBuf, String)>,
    },
    /// The agent is about to search for `name`.
    BeforeSearch {
        /// The bare identifier searched for.
        name: String,
        /// The agent's working directory.
        cwd: PathBuf,
    },
    /// A session starts in `cwd`.
    SessionStart {
        /// The agent's working directory.
        cwd: PathBuf,
    },
}

/// A hook's payload, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// The agent that sent it.
    pub agent: Agent,
    /// Its event name, echoed in the answer (`PostToolUse`, `AfterTool`).
    pub event: String,
    /// What to ask the daemon; `None` for a tool call sightline has nothing
    /// to add to.
    pub request: Option<Request>,
}

/// Reads a hook's payload (`agent` when `--agent` named it).
pub fn read(payload: &Value, agent: Option<Agent>) -> Hook {
    let agent = agent.unwrap_or_else(|| Agent::detect(payload));
    let event = payload["hook_event_name"].as_str().unwrap_or("").to_owned();
    let cwd = PathBuf::from(payload["cwd"].as_str().unwrap_or("."));
    let session = edit_owner(payload);
    let tool = payload["tool_name"].as_str().unwrap_or("");
    let input = &payload["tool_input"];
    let request = match event.as_str() {
        // A Claude Code subagent starts with no `SessionStart` of its own.
        "SessionStart" | "SubagentStart" => Some(Request::SessionStart { cwd }),
        "PreToolUse" | "BeforeTool" => match edits_of(tool, input, &cwd) {
            Some(edits) if !edits.is_empty() => Some(Request::BeforeEdit { session, edits }),
            _ => searched_name(tool, input).map(|name| Request::BeforeSearch { name, cwd }),
        },
        "PostToolUse" | "AfterTool" => match edits_of(tool, input, &cwd) {
            Some(edits) => {
                let mut files: Vec<PathBuf> = edits.iter().flat_map(AgentEdit::files).collect();
                files.dedup();
                let originals = originals(&edits, &payload["tool_response"]);
                (!files.is_empty()).then_some(Request::AfterEdit {
                    session,
                    files,
                    originals,
                })
            }
            // Gemini CLI and Codex add context only after a tool: a
            // search's uses come then (Claude Code's set-up asks before).
            None => searched_name(tool, input).map(|name| Request::BeforeSearch { name, cwd }),
        },
        _ => None,
    };
    Hook {
        agent,
        event,
        request,
    }
}

/// Whose edit a before- and after-tool pair is, as the baseline between
/// them is kept: the session, and within it the tool call (Claude Code's
/// `tool_use_id`, the same before and after the tool) or else the agent
/// (`agent_id`). Claude Code's subagents share their parent's session, and
/// two editing one file at once would otherwise take each other's
/// baseline.
fn edit_owner(payload: &Value) -> String {
    let session = payload["session_id"].as_str().unwrap_or("");
    let within = payload["tool_use_id"]
        .as_str()
        .or_else(|| payload["agent_id"].as_str());
    match within {
        Some(id) if !id.is_empty() => format!("{session}/{id}"),
        _ => session.to_owned(),
    }
}

/// Each edited file's text before the edit: Claude Code's `originalFile`,
/// or the file as it is now with the replacements (or a patch's hunks)
/// undone.
fn originals(edits: &[AgentEdit], response: &Value) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    for edit in edits.iter().rev() {
        let AgentEdit::Replace {
            file,
            old,
            new,
            all,
        } = edit
        else {
            out.extend(edit.undone());
            continue;
        };
        if let Some(original) = response["originalFile"].as_str() {
            if !out.iter().any(|(p, _)| p == file) {
                out.push((file.clone(), original.to_owned()));
            }
            continue;
        }
        let now = match out.iter().position(|(p, _)| p == file) {
            Some(i) => out.remove(i).1,
            None => match std::fs::read_to_string(file) {
                Ok(t) => t,
                Err(_) => continue,
            },
        };
        // A deletion cannot be undone by replacing: where the text was is
        // not known.
        if new.is_empty() {
            continue;
        }
        let undone = if *all {
            now.replace(new, old)
        } else {
            now.replacen(new, old, 1)
        };
        out.push((file.clone(), undone));
    }
    out
}

/// `path` under `cwd` when it is relative.
fn under(cwd: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_owned()
    } else {
        cwd.join(p)
    }
}

/// The edits a file-editing tool call makes, or `None` for another tool.
fn edits_of(tool: &str, input: &Value, cwd: &Path) -> Option<Vec<AgentEdit>> {
    let file = || input["file_path"].as_str().map(|f| under(cwd, f));
    let text = |k: &str| input[k].as_str().unwrap_or("").to_owned();
    match tool {
        // Claude Code's and Gemini CLI's replacements.
        "Edit" | "replace" => Some(vec![AgentEdit::Replace {
            file: file()?,
            old: text("old_string"),
            new: text("new_string"),
            all: input["replace_all"].as_bool().unwrap_or(false)
                || input["expected_replacements"]
                    .as_u64()
                    .is_some_and(|n| n > 1),
        }]),
        "MultiEdit" => {
            let file = file()?;
            Some(
                input["edits"]
                    .as_array()?
                    .iter()
                    .map(|e| AgentEdit::Replace {
                        file: file.clone(),
                        old: e["old_string"].as_str().unwrap_or("").to_owned(),
                        new: e["new_string"].as_str().unwrap_or("").to_owned(),
                        all: e["replace_all"].as_bool().unwrap_or(false),
                    })
                    .collect(),
            )
        }
        "Write" | "write_file" => Some(vec![AgentEdit::Write {
            file: file()?,
            content: text("content"),
        }]),
        // Codex's patch, wherever its input holds it (a string, or the
        // argument list of a shell call).
        _ => patch_in(input).map(|text| {
            vec![AgentEdit::Patch {
                text,
                base: cwd.to_owned(),
            }]
        }),
    }
}

/// A `*** Begin Patch` text anywhere in a tool's input.
fn patch_in(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => s.find("*** Begin Patch").map(|i| s[i..].to_owned()),
        Value::Array(a) => a.iter().find_map(patch_in),
        Value::Object(o) => o.values().find_map(patch_in),
        _ => None,
    }
}

/// The bare identifier a search looks for: Claude Code's `Grep` pattern,
/// Gemini CLI's `search_file_content`, or the pattern of a `grep`/`rg` in a
/// shell command. `None` for a regular expression or anything else.
fn searched_name(tool: &str, input: &Value) -> Option<String> {
    let pattern = match tool {
        "Grep" | "search_file_content" | "grep_search" => input["pattern"].as_str()?.to_owned(),
        _ => {
            let command = match &input["command"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => input["cmd"].as_str()?.to_owned(),
            };
            shell_pattern(&command)?
        }
    };
    identifier(&pattern)
}

/// The pattern of the first `grep`/`rg` in a shell command line.
fn shell_pattern(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| matches!(*w, "grep" | "rg" | "egrep" | "git-grep"))?;
    words[at + 1..]
        .iter()
        .find(|w| !w.starts_with('-'))
        .map(|w| w.trim_matches(|c| c == '"' || c == '\'').to_owned())
}

/// `pattern` as a bare identifier (word boundaries allowed), or `None`.
fn identifier(pattern: &str) -> Option<String> {
    let p = pattern.trim();
    let p = p.strip_prefix("\\b").unwrap_or(p);
    let p = p.strip_suffix("\\b").unwrap_or(p);
    let ok = p.len() >= 3
        && p.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !p.chars().next().is_some_and(|c| c.is_ascii_digit());
    ok.then(|| p.to_owned())
}

/// The daemon's answer to a hook: the context for the model, or nothing.
pub async fn answer(engine: &std::sync::Arc<Engine>, request: Request) -> String {
    match request {
        Request::BeforeEdit { session, edits } => {
            if let Err(e) = engine.before_agent_edit(&session, &edits).await {
                tracing::info!("hook: no baseline for the edit: {e}");
            }
            String::new()
        }
        Request::AfterEdit {
            session,
            files,
            originals,
        } => {
            let answer = engine.after_agent_edit(&session, &files, &originals).await;
            after_edit::context(&answer, engine.config().untrusted_note().as_deref())
        }
        Request::BeforeSearch { name, cwd } => {
            // The hook's calls take their turn here (`mcp::dispatch`).
            let _turn = crate::sync::preview::shared_turn().await;
            search::uses(engine, &name, &cwd).await.unwrap_or_default()
        }
        Request::SessionStart { cwd } => {
            let anchors = session_start::anchors_to_warm(engine, &cwd);
            if anchors.is_empty() {
                return String::new();
            }
            // Started in the background: the session does not wait for it.
            let engine = engine.clone();
            tokio::spawn(async move {
                for file in anchors {
                    // In turn: an agent's edit asked of its text held in
                    // memory must not see the warming tell a server the disk's.
                    let _turn = crate::sync::preview::shared_turn().await;
                    let _ = engine.diagnostics(&file).await;
                }
            });
            "sightline is starting this project's language servers: prefer its lsp_references over grep for the exact uses of a symbol (no comment or string matches, aliases followed), and lsp_diagnostics for a file's errors now.\n".to_owned()
        }
    }
}

/// One file under `cwd` per server that handles it, the first met.
pub(super) fn anchors(engine: &Engine, cwd: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(Vec<&'static str>, PathBuf)> = Vec::new();
    for path in crate::sync::walk::files_under(cwd).into_iter().take(5000) {
        let ids: Vec<&'static str> = engine.servers_for(&path).iter().map(|s| s.id).collect();
        if !ids.is_empty() && !found.iter().any(|(i, _)| *i == ids) {
            found.push((ids, path));
        }
    }
    found.into_iter().map(|(_, p)| p).collect()
}

/// The hook's answer in the agent's words: its JSON line, or `None` when
/// there is nothing to add (the agent then goes on as if no hook ran).
pub fn output(hook: &Hook, context: &str) -> Option<String> {
    if context.trim().is_empty() {
        return None;
    }
    // Claude Code, Codex and Gemini CLI all take added context here.
    let _ = hook.agent;
    Some(format!(
        "{}\n",
        json!({ "hookSpecificOutput": {
            "hookEventName": hook.event,
            "additionalContext": context,
        } })
    ))
}

mod after_edit;
mod search;
mod session_start;
#[cfg(test)]
mod tests;
