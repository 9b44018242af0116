//! The commands of the command line and their arguments, as clap reads
//! them; `--help` of each comes from these doc comments.

use std::path::PathBuf;

use clap::Subcommand;

/// The commands that mirror no tool (those that do are the tools' own:
/// `frontends::tools`).
#[derive(Debug, Subcommand)]
pub enum OtherCommand {
    /// Answer many questions with warm servers: one command per stdin line
    /// (`diagnostics FILE`, `definition FILE:LINE:COL`, `references FILE:LINE:COL`,
    /// `servers`),
    /// each answer followed by an empty line (one JSON line with --json).
    Batch,
    /// List every language server: id, extensions and state (installed with
    /// path and version, missing with the install command, off, running,
    /// broken).
    Servers,
    /// For each language the project has, the server that answers it,
    /// whether it is installed, and which tools and lsp operations it
    /// supports, read from its own initialize answer (a server not running
    /// is started for the report); with --all, every built-in server's
    /// state, none started.
    Capabilities {
        /// Every built-in server, not only the project's languages.
        #[arg(long)]
        all: bool,
    },
    /// Say what is set up and active: for each agent (Claude Code, Codex,
    /// Gemini CLI, OpenCode, Cursor) whether its MCP entry and hooks are in
    /// place here and for the user, and what still needs you (Codex's hooks
    /// to review); which daemon this shell reaches; the servers installed,
    /// and those installed on first use.
    Doctor,
    /// Install a server (npm, PyPI or toolchain, at its pinned version) into
    /// sightline's data directory.
    Install {
        /// The server id, as `sightline servers` lists it.
        id: String,
    },
    /// Print the effective configuration, each value with the file and line
    /// it came from.
    Config,
    /// Print the JSON Schema of configuration files.
    Schema,
    /// Trust the project in DIR (default: --root or the current directory),
    /// so that the commands its sightline.json names may run.
    Trust {
        /// The directory (default: --root or the current directory).
        dir: Option<PathBuf>,
        /// Stop trusting it.
        #[arg(long)]
        revoke: bool,
    },
    /// Run the formatters that are on for each FILE.
    Format {
        /// The files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the formatters for FILE: whether each is on, and why.
    Formatters {
        /// The file the formatters would format.
        file: PathBuf,
    },
    /// Serve the tools over the Model Context Protocol on stdin/stdout
    /// (lsp_diagnostics, lsp_definition, lsp_references, lsp, lsp_check and lsp_restart). The workspace
    /// is --root, or else the current directory; files under other project
    /// roots are still served, each under its own root. Ends when stdin closes.
    Mcp {
        /// Also serve the edit tools: read, write, edit, apply_patch, rename,
        /// code_actions, apply_code_action and organize_imports.
        #[arg(long)]
        edit_tools: bool,
        /// Which tools to list: `minimal` (lsp_diagnostics, lsp_definition,
        /// lsp_references), `default` (the questions; with --edit-tools
        /// the edit tools too) or `all` (every tool). Without it, the user
        /// configuration's `mcp.tools`, else `default`.
        #[arg(long, value_name = "PROFILE", value_parser = clap::builder::PossibleValuesParser::new(crate::frontends::tools::PROFILES))]
        tools: Option<String>,
        /// Another directory whose packages references, rename, move,
        /// impact and the edit check reach as the workspace's own (a
        /// library's consumer checked out beside it); repeatable. Adds to
        /// the user configuration's `workspace.folders`.
        #[arg(long = "folder", value_name = "DIR")]
        folders: Vec<PathBuf>,
        /// Serve MCP over Streamable HTTP at ADDR (a port, or IP:PORT;
        /// loopback unless --allow-remote) instead of stdio, at `/mcp`.
        /// Every request must carry `Authorization: Bearer TOKEN`.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// The bearer token's file (its first line). Without it a token
        /// is generated into the runtime directory (mode 0600) and printed
        /// once on stderr.
        #[arg(long, value_name = "FILE", requires = "http")]
        token_file: Option<PathBuf>,
        /// Let --http listen on an address other machines reach.
        #[arg(long, requires = "http")]
        allow_remote: bool,
        /// Bridge to the shared daemon (started when none runs), so that
        /// sessions on one root share their servers. This is the default;
        /// `--no-daemon` starts servers in this process instead.
        #[arg(long, hide = true)]
        daemon: bool,
    },
    /// Set an agent up to use sightline: its MCP server entry and, for
    /// Claude Code, Codex and Gemini CLI, the hooks that bring the errors
    /// of the agent's own edits back to it (`sightline hook`). Idempotent;
    /// keeps the rest of each file, comments included; prints what changed.
    Setup {
        /// claude-code, codex, gemini, opencode or cursor.
        #[arg(value_parser = ["claude-code", "codex", "gemini", "opencode", "cursor"])]
        agent: String,
        /// The project's files (the default): in the working directory, or `--root`.
        #[arg(long, conflicts_with = "user")]
        project: bool,
        /// The user's files, under the home directory.
        #[arg(long)]
        user: bool,
        /// Take out what setup added, and nothing else.
        #[arg(long)]
        remove: bool,
        /// Make a Claude Code plugin in this directory instead
        /// (`.claude-plugin/plugin.json`, `.mcp.json`, `hooks/hooks.json`),
        /// running `sightline` from PATH.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["user", "project"])]
        plugin: Option<PathBuf>,
        /// Write the MCP entry to reach `sightline mcp --http` at ADDR (a
        /// port, HOST:PORT or a URL) instead of starting `sightline mcp`;
        /// the agent sends the token from `SIGHTLINE_MCP_TOKEN`, which
        /// is never written into its files.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
    },
    /// Answer an agent's tool hook: reads the hook's JSON on stdin (Claude
    /// Code's, Codex's or Gemini CLI's), and prints only that agent's JSON:
    /// after the agent's own edit, the errors it introduced (in the changed
    /// files and the files using what changed); before a search for a bare
    /// identifier, its exact uses; at session start, it starts the
    /// project's servers. Prints nothing when there is nothing to add, and
    /// always exits 0 within its budget: it never fails the agent's tool.
    /// `sightline setup AGENT` installs it.
    Hook {
        /// The agent whose hook this is; detected from the payload without it.
        #[arg(long, value_parser = ["claude-code", "codex", "gemini"])]
        agent: Option<String>,
        /// How long the hook may take, in milliseconds (default 8000, or
        /// `SIGHTLINE_HOOK_MS`); on a cold or busy server it says so in one
        /// line instead.
        #[arg(long)]
        budget_ms: Option<u64>,
    },
    /// Run the shared daemon in the foreground (`sightline mcp --daemon`
    /// starts it when none runs), or ask the running one for its status or
    /// to stop.
    Daemon {
        #[command(subcommand)]
        /// What to ask the running daemon; without it, run the daemon.
        action: Option<DaemonAction>,
        /// A pipe the daemon writes one byte to once it listens (given by
        /// the client that starts it): a descriptor on Unix, an inherited
        /// handle on Windows.
        #[arg(long, hide = true)]
        ready_fd: Option<i64>,
    },
}

/// What to ask the running daemon.
#[derive(Debug, Subcommand)]
pub enum DaemonAction {
    /// Its pid, uptime and clients, and each running server with its root,
    /// pid, resident memory and idle time.
    Status,
    /// Stop it and every server it runs.
    Stop,
}
