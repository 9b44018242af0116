//! `sightline doctor`: for each agent, whether sightline is set up for it
//! in this project and for the user (its MCP entry, its hooks, Claude
//! Code's permission for the answering tools), and what still needs the
//! user: Codex runs a project's hooks only once they were reviewed in its
//! TUI, and `codex exec` skips them without a word.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::{Entry, Scope, SetupAgent, jsonc, targets};

/// One agent as `doctor` finds it.
#[derive(Debug, Serialize)]
pub struct AgentState {
    /// The agent's name as `setup` takes it.
    pub agent: &'static str,
    /// Whether its program is on PATH.
    pub on_path: bool,
    /// This project's set-up, then the user's.
    pub scopes: Vec<ScopeState>,
}

/// One scope's set-up of an agent.
#[derive(Debug, Serialize)]
pub struct ScopeState {
    /// `project` or `user`.
    pub scope: &'static str,
    /// Its MCP entry is in place.
    pub mcp: bool,
    /// The URL its entry reaches sightline at, when it is over HTTP
    /// (`setup --http`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// Whether doctor asked that server (it asks only one on this machine
    /// over plain HTTP: the token is never sent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_checked: Option<bool>,
    /// Its hooks are in place (`None`: the agent takes none from setup).
    pub hooks: Option<bool>,
    /// Claude Code's permission for the answering tools is in place.
    pub tools_allowed: Option<bool>,
    /// What still needs the user, each with the step.
    pub needs: Vec<String>,
}

const AGENTS: &[(SetupAgent, &str, &str)] = &[
    (SetupAgent::ClaudeCode, "claude-code", "claude"),
    (SetupAgent::Codex, "codex", "codex"),
    (SetupAgent::Gemini, "gemini", "gemini"),
    (SetupAgent::OpenCode, "opencode", "opencode"),
    (SetupAgent::Cursor, "cursor", "cursor-agent"),
];

/// The name `setup` and `doctor` give `agent`.
pub fn name_of(agent: SetupAgent) -> &'static str {
    AGENTS
        .iter()
        .find(|(a, ..)| *a == agent)
        .map_or("", |(_, name, _)| name)
}

/// Each agent's set-up in `project` and under `home` (and `codex_home`).
pub fn agents(project: &Path, home: &Path, codex_home: Option<PathBuf>) -> Vec<AgentState> {
    let codex_dir = codex_home.clone().unwrap_or_else(|| home.join(".codex"));
    AGENTS
        .iter()
        .map(|(agent, name, program)| {
            let scopes = [
                ("project", Scope::Project(project.to_owned())),
                (
                    "user",
                    Scope::User {
                        home: home.to_owned(),
                        codex_home: codex_home.clone(),
                    },
                ),
            ]
            .into_iter()
            .map(|(scope, at)| scope_state(*agent, scope, &at, &codex_dir))
            .collect();
            AgentState {
                agent: name,
                on_path: which::which(program).is_ok(),
                scopes,
            }
        })
        .collect()
}

fn scope_state(agent: SetupAgent, scope: &'static str, at: &Scope, codex_dir: &Path) -> ScopeState {
    let mut state = ScopeState {
        scope,
        mcp: false,
        http: None,
        http_checked: None,
        hooks: None,
        tools_allowed: None,
        needs: Vec::new(),
    };
    for target in targets(agent, at) {
        let text = std::fs::read_to_string(&target.path).ok();
        let value = text.as_deref().and_then(jsonc::value_of);
        for entry in &target.entries {
            match entry {
                Entry::McpJson { key, .. } => {
                    let entry = value.as_ref().and_then(|v| v[*key].get("sightline"));
                    state.mcp |= entry.is_some();
                    let url = entry.and_then(|e| e.get("url").or_else(|| e.get("httpUrl")));
                    state.http = state
                        .http
                        .take()
                        .or_else(|| Some(url?.as_str()?.to_owned()));
                }
                Entry::McpToml => {
                    state.mcp |= text
                        .as_deref()
                        .is_some_and(|t| t.contains("[mcp_servers.sightline]"));
                    let table = text
                        .as_deref()
                        .and_then(|t| crate::syntax::toml_table(t).ok());
                    let url = table.as_ref().and_then(|t| {
                        t.get("mcp_servers")?
                            .get("sightline")?
                            .get("url")?
                            .as_str()
                            .map(str::to_owned)
                    });
                    state.http = state.http.take().or(url);
                }
                Entry::Hooks(..) => {
                    let set = text
                        .as_deref()
                        .is_some_and(|t| t.contains("sightline hook"));
                    state.hooks = Some(state.hooks.unwrap_or(false) || set);
                    if set && agent == SetupAgent::Codex && !codex_trusts(codex_dir, &target.path) {
                        state.needs.push(format!(
                            "Codex runs these hooks only once reviewed: run `codex` in {} and accept \"Hooks need review\" (`codex exec` skips them without a word until then)",
                            target.path.parent().and_then(Path::parent).unwrap_or(&target.path).display()
                        ));
                    }
                }
                Entry::AllowAnsweringTools => {
                    state.tools_allowed = Some(value.as_ref().is_some_and(allows_answering_tools));
                }
                Entry::ApproveMcpJson | Entry::PluginManifest | Entry::MovedAnsweringTools => {}
            }
        }
    }
    if state.mcp && state.tools_allowed == Some(false) {
        state.needs.push(
            "headless `claude -p` refuses sightline's tools: run `sightline setup claude-code` again to allow the answering tools".to_owned(),
        );
    }
    state
}

/// Asks each HTTP entry's server whether it answers with the token in
/// `SIGHTLINE_MCP_TOKEN` (as the agent will send it), and adds what needs
/// the user when it does not.
pub async fn check_http(states: &mut [AgentState]) {
    let token = std::env::var(super::TOKEN_VAR).ok();
    for scope in states.iter_mut().flat_map(|a| a.scopes.iter_mut()) {
        let Some(url) = scope.http.clone() else {
            continue;
        };
        // A project's file (a cloned repository's) may name any host: the
        // user's token goes to none but this machine's.
        let checked = super::probe::on_this_machine(&url);
        scope.http_checked = Some(checked);
        if !checked {
            continue;
        }
        let Some(token) = token.as_deref() else {
            scope.needs.push(format!(
                "the agent sends the token from {}, which is not set here: set it to the token `sightline mcp --http` serves with",
                super::TOKEN_VAR
            ));
            continue;
        };
        if let Err(why) = super::probe::answers(&url, token).await {
            scope.needs.push(format!("{url}: {why}"));
        }
    }
}

/// Whether Claude Code's settings allow sightline's answering tools.
fn allows_answering_tools(settings: &Value) -> bool {
    settings["permissions"]["allow"]
        .as_array()
        .is_some_and(|a| {
            a.iter().any(|r| {
                r.as_str()
                    .is_some_and(|r| r.starts_with("mcp__sightline__"))
            })
        })
}

/// Whether Codex has the hooks in `hooks_json` reviewed: it writes
/// `[hooks.state."<path>:<event>:..."] trusted_hash = ...` into its
/// `config.toml` when the user accepts them in its TUI.
fn codex_trusts(codex_dir: &Path, hooks_json: &Path) -> bool {
    let Ok(config) = std::fs::read_to_string(codex_dir.join("config.toml")) else {
        return false;
    };
    let path = hooks_json.display().to_string();
    config
        .lines()
        .any(|l| l.contains("hooks.state.") && l.contains(&format!("{path}:")))
        && config.contains("trusted_hash")
}

/// The agents' lines for a person.
pub fn text(states: &[AgentState]) -> String {
    let mut out = String::new();
    for a in states {
        let on_path = if a.on_path { "" } else { " (not on PATH)" };
        out.push_str(&format!("{}{on_path}\n", a.agent));
        for s in &a.scopes {
            let yes = |b: bool| if b { "yes" } else { "no" };
            let mut parts = vec![format!("mcp {}", yes(s.mcp))];
            if let Some(url) = &s.http {
                parts[0].push_str(&format!(" (over HTTP at {url})"));
                if s.http_checked == Some(false) {
                    parts[0].push_str(
                        ", not checked: doctor sends the token only to this machine over http://",
                    );
                }
            }
            if let Some(h) = s.hooks {
                parts.push(format!("hooks {}", yes(h)));
            }
            if let Some(t) = s.tools_allowed {
                parts.push(format!("tools allowed {}", yes(t)));
            }
            out.push_str(&format!("  {}: {}\n", s.scope, parts.join(", ")));
            for n in &s.needs {
                out.push_str(&format!("    needs you: {n}\n"));
            }
        }
    }
    out
}
