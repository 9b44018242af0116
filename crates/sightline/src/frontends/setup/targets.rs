//! Which files `setup` edits for each agent and scope, and what each file
//! gets: the MCP entry, the hooks and their events, Claude Code's approval
//! and permission.

use std::path::PathBuf;

use super::{Scope, SetupAgent};

/// What one file gets.
#[derive(Debug, Clone)]
pub(super) enum Entry {
    /// An MCP server entry in a JSON file, under this key path.
    McpJson {
        /// The object holding the servers (`mcpServers`, `mcp`).
        key: &'static str,
        /// The agent's shape of an entry.
        shape: McpShape,
    },
    /// Hooks in Claude Code's shape: event → matcher, and the timeout in
    /// the agent's unit (Claude Code and Codex: seconds; Gemini CLI:
    /// milliseconds).
    Hooks(&'static [(&'static str, Option<&'static str>)], u64),
    /// Codex's `[mcp_servers.sightline]` table.
    McpToml,
    /// A Claude Code plugin's manifest.
    PluginManifest,
    /// Claude Code's approval of the project's `.mcp.json` server
    /// (`enabledMcpjsonServers`), which it otherwise asks for first.
    ApproveMcpJson,
    /// Claude Code's permission to call sightline's answering tools (not
    /// the edit tools): headless `claude -p` refuses an MCP tool that its
    /// settings do not allow.
    AllowAnsweringTools,
    /// That permission as an earlier setup wrote it into a project's
    /// shared `settings.json`: taken out, setup or `--remove` alike (it
    /// lives in `settings.local.json` now).
    MovedAnsweringTools,
}

/// How an agent spells an MCP server entry in JSON: a command is `command`
/// and `args` but for OpenCode; a server over HTTP differs for each, as
/// does how a header names an environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum McpShape {
    /// Claude Code: `"type": "http"`, `${VAR}` in headers.
    ClaudeCode,
    /// Gemini CLI: `httpUrl`, `${VAR}` in headers.
    Gemini,
    /// OpenCode: `"type": "local"` with `command` as a list, or
    /// `"type": "remote"`; `{env:VAR}` in headers.
    OpenCode,
    /// Cursor: `url`, `${env:VAR}` in headers.
    Cursor,
}

/// One file `setup` edits, and what it puts there.
pub(super) struct Target {
    pub(super) path: PathBuf,
    pub(super) entries: Vec<Entry>,
}

// A subagent (the `Agent` tool) gets no `SessionStart`: `SubagentStart`
// hands it the same guidance. Every tool's after-event, and the end of a
// turn, bring the late checks of the agent's earlier edits
// (`hooks::late`).
const CLAUDE_HOOKS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("SubagentStart", None),
    ("PreToolUse", Some("Edit|MultiEdit|Write|Grep|Bash")),
    ("PostToolUse", None),
    ("Stop", None),
    ("SubagentStop", None),
];
// Codex calls its shell `Bash` in hooks, and takes added context only
// after a tool: a search's uses come then, and every tool's after-event
// brings the late checks of earlier edits; the end of its turn (`Stop`,
// fired by Codex 0.169) brings those still running, or they were lost.
const CODEX_HOOKS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("PreToolUse", Some("apply_patch")),
    ("PostToolUse", None),
    ("Stop", None),
];
// Gemini CLI takes added context only after a tool: a search's uses come
// then, and every tool's after-event brings the late checks of earlier
// edits; the end of its turn (`AfterAgent`) brings those still running.
const GEMINI_HOOKS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("BeforeTool", Some("replace|write_file")),
    ("AfterTool", None),
    ("AfterAgent", None),
];

/// The files `setup` edits for `agent` in `scope`, and what each gets.
pub(super) fn targets(agent: SetupAgent, scope: &Scope) -> Vec<Target> {
    let mcp = |shape| Entry::McpJson {
        key: "mcpServers",
        shape,
    };
    let t = |path: PathBuf, entries: Vec<Entry>| Target { path, entries };
    match (agent, scope) {
        (SetupAgent::ClaudeCode, Scope::Project(p)) => vec![
            t(p.join(".mcp.json"), vec![mcp(McpShape::ClaudeCode)]),
            t(
                p.join(".claude/settings.json"),
                vec![
                    Entry::ApproveMcpJson,
                    Entry::MovedAnsweringTools,
                    Entry::Hooks(CLAUDE_HOOKS, 30),
                ],
            ),
            // Claude Code 2.1.328 applies the permissions of a project's
            // shared `settings.json` only once the folder's trust dialog was
            // accepted, which headless `claude -p` never shows: the
            // answering tools were refused ("you haven't granted it yet").
            // The personal `settings.local.json` applies at once.
            t(
                p.join(".claude/settings.local.json"),
                vec![Entry::AllowAnsweringTools],
            ),
        ],
        (_, Scope::Plugin(dir)) => vec![
            t(
                dir.join(".claude-plugin/plugin.json"),
                vec![Entry::PluginManifest],
            ),
            t(dir.join(".mcp.json"), vec![mcp(McpShape::ClaudeCode)]),
            t(
                dir.join("hooks/hooks.json"),
                vec![Entry::Hooks(CLAUDE_HOOKS, 30)],
            ),
        ],
        (SetupAgent::ClaudeCode, Scope::User { home, .. }) => vec![
            t(home.join(".claude.json"), vec![mcp(McpShape::ClaudeCode)]),
            t(
                home.join(".claude/settings.json"),
                vec![Entry::AllowAnsweringTools, Entry::Hooks(CLAUDE_HOOKS, 30)],
            ),
        ],
        (SetupAgent::Codex, scope) => {
            let dir = match scope {
                Scope::Project(p) | Scope::Plugin(p) => p.join(".codex"),
                Scope::User { home, codex_home } => {
                    codex_home.clone().unwrap_or_else(|| home.join(".codex"))
                }
            };
            vec![
                t(dir.join("config.toml"), vec![Entry::McpToml]),
                t(dir.join("hooks.json"), vec![Entry::Hooks(CODEX_HOOKS, 30)]),
            ]
        }
        (SetupAgent::Gemini, scope) => {
            let dir = match scope {
                Scope::Project(p) | Scope::Plugin(p) => p.join(".gemini"),
                Scope::User { home, .. } => home.join(".gemini"),
            };
            vec![t(
                dir.join("settings.json"),
                vec![mcp(McpShape::Gemini), Entry::Hooks(GEMINI_HOOKS, 30_000)],
            )]
        }
        (SetupAgent::OpenCode, scope) => {
            let path = match scope {
                Scope::Project(p) | Scope::Plugin(p) => p.join("opencode.json"),
                Scope::User { home, .. } => home.join(".config/opencode/opencode.json"),
            };
            vec![t(
                path,
                vec![Entry::McpJson {
                    key: "mcp",
                    shape: McpShape::OpenCode,
                }],
            )]
        }
        (SetupAgent::Cursor, scope) => {
            let dir = match scope {
                Scope::Project(p) | Scope::Plugin(p) => p.join(".cursor"),
                Scope::User { home, .. } => home.join(".cursor"),
            };
            vec![t(dir.join("mcp.json"), vec![mcp(McpShape::Cursor)])]
        }
    }
}
