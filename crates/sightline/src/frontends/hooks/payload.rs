//! A hook's payload read: the agent's event, its tool and input, and what
//! sightline asks of the daemon for it (Claude Code's, Codex's and Gemini
//! CLI's shapes).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Agent, Hook, Request};
use crate::edit::agent_edits::AgentEdit;

/// Reads a hook's payload (`agent` when `--agent` named it).
pub fn read(payload: &Value, agent: Option<Agent>) -> Hook {
    let agent = agent.unwrap_or_else(|| Agent::detect(payload));
    let event = payload["hook_event_name"].as_str().unwrap_or("").to_owned();
    let cwd = PathBuf::from(payload["cwd"].as_str().unwrap_or("."));
    let session = edit_owner(payload);
    let tool = payload["tool_name"].as_str().unwrap_or("");
    let input = &payload["tool_input"];
    let claude = agent == Agent::ClaudeCode;
    let request = match event.as_str() {
        // A Claude Code subagent starts with no `SessionStart` of its own.
        "SessionStart" | "SubagentStart" => Some(Request::SessionStart { cwd }),
        "PreToolUse" | "BeforeTool" => match edits_of(tool, input, &cwd) {
            Some(edits) if !edits.is_empty() => Some(Request::BeforeEdit { session, edits }),
            _ => searched_name(tool, input)
                .map(|name| Request::BeforeSearch { name, cwd })
                .or_else(|| claude.then_some(Request::Collect { settle: false })),
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
            // Claude Code's uses of a search came before the tool.
            None if claude => Some(Request::Collect { settle: false }),
            // Gemini CLI and Codex add context only after a tool: a
            // search's uses come then.
            None => searched_name(tool, input)
                .map(|name| Request::BeforeSearch { name, cwd })
                .or(Some(Request::Collect { settle: false })),
        },
        // The end of the turn: nothing comes after to bring a late check.
        e if super::end_of_turn(e) => Some(Request::Collect { settle: true }),
        _ => None,
    };
    // Codex and Gemini CLI take added context only after a tool.
    let before = matches!(event.as_str(), "PreToolUse" | "BeforeTool");
    let asker = if before && !claude {
        String::new()
    } else {
        agent_of(payload)
    };
    Hook {
        agent,
        event,
        request,
        asker,
    }
}

/// Whose the late checks handed over at an event are: the session, and
/// within it the subagent (Claude Code's `agent_id`), never a parallel
/// one's.
fn agent_of(payload: &Value) -> String {
    let session = payload["session_id"].as_str().unwrap_or("");
    match payload["agent_id"].as_str() {
        Some(id) if !id.is_empty() => format!("{session}/{id}"),
        _ => session.to_owned(),
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
        // argument list of a shell call); no other tool's (sightline's own
        // `apply_patch` answers its errors itself, and its dry run changes
        // nothing).
        _ if PATCH_TOOLS.contains(&tool) => patch_in(input).map(|text| {
            vec![AgentEdit::Patch {
                text,
                base: cwd.to_owned(),
            }]
        }),
        _ => None,
    }
}

/// The tools whose input may hold a `*** Begin Patch` patch the agent
/// applies: Codex's `apply_patch` and its shells.
const PATCH_TOOLS: &[&str] = &[
    "apply_patch",
    "shell",
    "exec_command",
    "local_shell",
    "Bash",
    "container.exec",
];

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
