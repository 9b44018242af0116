//! `sightline setup AGENT [--project|--user] [--remove]`: writes sightline's
//! MCP server entry and, where the agent has them, its hooks
//! (`sightline hook`) into that agent's own configuration files. It is
//! idempotent, says what it changed, and keeps the rest of each file as it
//! was, comments included (`jsonc` edits the syntax tree; `toml` adds and
//! removes one delimited block). `--remove` takes out exactly what it adds.

use std::path::{Path, PathBuf};

pub mod doctor;
mod jsonc;
mod probe;
mod targets;
mod toml;

use targets::{Entry, targets};

/// The environment variable an agent's HTTP entry reads sightline's bearer
/// token from (`setup --http`): the token itself is never written into an
/// agent's files, which a project may commit.
pub const TOKEN_VAR: &str = "SIGHTLINE_MCP_TOKEN";

/// The URL of sightline's MCP endpoint an agent is set up to reach for
/// `--http ADDR`: a full `http://` URL as given, or a port or `HOST:PORT`
/// on `/mcp`.
pub fn http_url(addr: &str) -> Result<String, String> {
    let addr = addr.trim();
    if addr.starts_with("http://") || addr.starts_with("https://") {
        return Ok(addr.to_owned());
    }
    let host_port = match addr.trim_start_matches(':').parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_)
            if addr
                .rsplit_once(':')
                .is_some_and(|(_, p)| p.parse::<u16>().is_ok()) =>
        {
            addr.to_owned()
        }
        Err(_) => {
            return Err(format!(
                "`{addr}` is not an address of `sightline mcp --http` (PORT, HOST:PORT or a URL)"
            ));
        }
    };
    Ok(format!("http://{host_port}/mcp"))
}

/// The agents `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupAgent {
    /// Claude Code: `.mcp.json` and `.claude/settings.json`.
    ClaudeCode,
    /// Codex: `.codex/config.toml` and `.codex/hooks.json`.
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// OpenCode: `opencode.json` (no hooks: OpenCode's own edit tools
    /// already answer with diagnostics).
    OpenCode,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
}

impl SetupAgent {
    /// The agent a command line names.
    pub fn named(name: &str) -> Option<SetupAgent> {
        match name {
            "claude-code" | "claude" => Some(SetupAgent::ClaudeCode),
            "codex" => Some(SetupAgent::Codex),
            "gemini" | "gemini-cli" => Some(SetupAgent::Gemini),
            "opencode" => Some(SetupAgent::OpenCode),
            "cursor" => Some(SetupAgent::Cursor),
            _ => None,
        }
    }
}

/// Where the entries go: the project's files, or the user's.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Under this project directory.
    Project(PathBuf),
    /// A Claude Code plugin directory made here (`scripts/package`):
    /// `.claude-plugin/plugin.json`, `.mcp.json` and `hooks/hooks.json`.
    Plugin(PathBuf),
    /// Under this home directory (and Codex's `CODEX_HOME`, when set).
    User {
        /// The home directory.
        home: PathBuf,
        /// `CODEX_HOME`, when set.
        codex_home: Option<PathBuf>,
    },
}

/// The command line the entries run (the program, then its first
/// arguments): `sightline` when that is this program on PATH;
/// `uvx --from sightline-mcp sightline` or `npx -y sightline-mcp` when this
/// program runs from uv's or npx's cache (a path that goes away); else
/// this program's absolute path.
pub fn program() -> Vec<String> {
    let me = std::env::current_exe().ok();
    let on_path = which::which("sightline").ok();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect();
    match (me, on_path) {
        (Some(me), Some(p)) if same_file(&me, &p) => words(&["sightline"]),
        (Some(me), _) => {
            let shown = me.display().to_string().replace('\\', "/");
            if shown.contains("/uv/") || shown.contains("/.cache/uv") {
                words(&["uvx", "--from", "sightline-mcp", "sightline"])
            } else if shown.contains("/_npx/") {
                words(&["npx", "-y", "sightline-mcp"])
            } else {
                vec![me.display().to_string()]
            }
        }
        (None, _) => words(&["sightline"]),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `argv` as one shell command line, each word quoted when it must be.
fn command_line(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            if w.chars()
                .any(|c| c.is_whitespace() || c == '"' || c == '\'')
            {
                format!("\"{}\"", w.replace('"', "\\\""))
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What setup made, by file, so that `--remove` takes out exactly that: the
/// containers it had to create, and whether it created the file. Kept in
/// sightline's data directory, never in the agent's files.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct FileRecord {
    #[serde(default)]
    files: std::collections::BTreeMap<String, MadeIn>,
}

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
struct MadeIn {
    /// Setup created the file.
    file: bool,
    /// The containers setup created in it (`mcpServers`, `hooks`,
    /// `hooks.PreToolUse`, ...).
    containers: std::collections::BTreeSet<String>,
    /// The file's text before setup first changed it, and the text setup
    /// last wrote: while the file is still that, `--remove` puts the first
    /// back byte for byte (the syntax tree's edits may reflow a line).
    #[serde(default)]
    original: Option<String>,
    #[serde(default)]
    written: Option<String>,
}

/// One `setup` at a time in this process: the record is read, changed and
/// written whole.
static RECORD: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn made_path() -> PathBuf {
    crate::files::data_dir().join("setup-made.json")
}

fn load_made() -> FileRecord {
    std::fs::read_to_string(made_path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn save_made(made: &FileRecord) {
    let path = made_path();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_string_pretty(made) {
        let _ = crate::files::atomic_write(&path, text.as_bytes());
    }
}

/// Adds (or with `remove`, takes out) one entry of a file's `text`: the
/// names of what changed.
fn apply_entry(
    entry: &Entry,
    text: &mut String,
    launch: &Launch<'_>,
    hook_command: &str,
    remove: bool,
    c: &mut std::collections::BTreeSet<String>,
) -> Result<Vec<String>, String> {
    let (argv, url) = (launch.argv, launch.url);
    match entry {
        Entry::McpJson { key, shape } => {
            jsonc::mcp_server(text, (key, *shape), argv, url, remove, c)
        }
        Entry::Hooks(events, timeout) => {
            jsonc::hooks(text, events, hook_command, *timeout, remove, c)
        }
        Entry::McpToml => Ok(toml::mcp_server(text, argv, url, remove)),
        Entry::PluginManifest => jsonc::plugin_manifest(text, remove),
        Entry::ApproveMcpJson => {
            jsonc::in_list(text, &["enabledMcpjsonServers"], "sightline", remove, c)
        }
        Entry::AllowAnsweringTools | Entry::MovedAnsweringTools => {
            let moved = matches!(entry, Entry::MovedAnsweringTools);
            let mut changed = Vec::new();
            for rule in answering_tools() {
                changed.extend(jsonc::in_list(
                    text,
                    &["permissions", "allow"],
                    &rule,
                    remove || moved,
                    c,
                )?);
            }
            // One line for the lot.
            Ok(if changed.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "permissions.allow: sightline's {} answering tools (mcp__sightline__*; not the edit tools)",
                    changed.len()
                )]
            })
        }
    }
}

/// How the agent reaches sightline: the program its hooks (and, without
/// `url`, its MCP entry) run, and the HTTP endpoint of `--http`.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The program and its first arguments.
    pub argv: &'a [String],
    /// `sightline mcp --http`'s URL, when the MCP entry is to reach it.
    pub url: Option<&'a str>,
}

/// Sets up (or, with `remove`, takes out) `agent` in `scope` as `launch`
/// says; one line per file about what changed.
pub fn run(
    agent: SetupAgent,
    scope: &Scope,
    launch: &Launch<'_>,
    remove: bool,
) -> Result<Vec<String>, String> {
    let argv = launch.argv;
    let agent_flag = match agent {
        SetupAgent::ClaudeCode => "claude-code",
        SetupAgent::Codex => "codex",
        SetupAgent::Gemini => "gemini",
        SetupAgent::OpenCode | SetupAgent::Cursor => "",
    };
    let hook_command = format!("{} hook --agent {agent_flag}", command_line(argv));
    let _one = RECORD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut record = load_made();
    let mut lines = Vec::new();
    for target in targets(agent, scope) {
        let key = target.path.display().to_string();
        let before = match std::fs::read_to_string(&target.path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot read {}: {e}", target.path.display())),
        };
        let mut made = record.files.get(&key).cloned().unwrap_or_default();
        if before.is_none() && !remove {
            made.file = true;
        }
        let mut text = before.clone().unwrap_or_default();
        // Untouched since setup wrote it: put back what was there.
        if remove && made.written.is_some() && made.written == before {
            record.files.remove(&key);
            let shown = target.path.display();
            match &made.original {
                Some(original) if !made.file => {
                    crate::files::atomic_write(&target.path, original.as_bytes())
                        .map_err(|e| format!("cannot write {shown}: {e}"))?;
                    lines.push(format!("{shown}: removed what setup added"));
                }
                _ => {
                    std::fs::remove_file(&target.path)
                        .map_err(|e| format!("cannot remove {shown}: {e}"))?;
                    if let Some(dir) = target.path.parent() {
                        let _ = std::fs::remove_dir(dir);
                    }
                    lines.push(format!(
                        "{shown}: removed what setup added (the file is gone)"
                    ));
                }
            }
            continue;
        }
        if made.original.is_none() && !remove {
            made.original = before.clone();
        }
        let mut what = Vec::new();
        for entry in &target.entries {
            let c = &mut made.containers;
            let changed = apply_entry(entry, &mut text, launch, &hook_command, remove, c)
                .map_err(|e| format!("{}: {e}", target.path.display()))?;
            what.extend(changed);
        }
        let shown = target.path.display();
        if remove {
            record.files.remove(&key);
        } else if !what.is_empty() || record.files.contains_key(&key) {
            record.files.insert(key.clone(), made.clone());
        }
        if what.is_empty() {
            lines.push(format!("{shown}: unchanged"));
            continue;
        }
        let verb = if remove { "removed" } else { "added" };
        if remove && made.file && jsonc::is_empty(&text) {
            // Setup made the file: taking out what it added leaves none.
            std::fs::remove_file(&target.path)
                .map_err(|e| format!("cannot remove {shown}: {e}"))?;
            if let Some(dir) = target.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            lines.push(format!(
                "{shown}: {verb} {} (the file is gone)",
                what.join(", ")
            ));
            continue;
        }
        if let Some(dir) = target.path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        crate::files::atomic_write(&target.path, text.as_bytes())
            .map_err(|e| format!("cannot write {shown}: {e}"))?;
        if !remove && let Some(m) = record.files.get_mut(&key) {
            m.written = Some(text.clone());
        }
        lines.push(format!("{shown}: {verb} {}", what.join(", ")));
    }
    save_made(&record);
    Ok(lines)
}

/// Claude Code's permission rule for each of sightline's answering tools
/// (`mcp__SERVER__TOOL`).
fn answering_tools() -> Vec<String> {
    crate::frontends::tools::listed(false)
        .map(|t| format!("mcp__sightline__{}", t.name))
        .collect()
}

#[cfg(test)]
mod tests;
