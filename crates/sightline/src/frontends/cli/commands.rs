//! The commands of the command line and their arguments, as clap reads
//! them; `--help` of each comes from these doc comments.

use std::path::PathBuf;

use clap::Subcommand;

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the errors and warnings of FILE as it is on disk now.
    Diagnostics {
        /// The file to check.
        file: PathBuf,
        /// `symbol`: each finding also names the symbol it sits in.
        #[arg(long, value_parser = ["symbol"])]
        context: Option<String>,
    },
    /// Print where the symbol at FILE:LINE:COL is defined (1-based line and character column).
    Definition {
        /// The position, as FILE:LINE:COL with the column on the symbol itself
        /// (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
        /// `symbol`: each place also names the symbol it sits in.
        #[arg(long, value_parser = ["symbol"])]
        context: Option<String>,
    },
    /// Print every use of the symbol at FILE:LINE:COL across the workspace.
    References {
        /// The position, as FILE:LINE:COL with the column on the symbol itself
        /// (or FILE:LINE or FILE with --symbol).
        position: String,
        /// Also list the declaration itself.
        #[arg(long)]
        include_declaration: bool,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
        /// `symbol`: each place also names the symbol it sits in.
        #[arg(long, value_parser = ["symbol"])]
        context: Option<String>,
    },
    /// Print the type and documentation of the symbol at FILE:LINE:COL.
    Hover {
        /// The position, as FILE:LINE:COL (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
    },
    /// Print the outline of FILE: its symbols, nested, with line ranges.
    Symbols {
        /// The file.
        file: PathBuf,
    },
    /// Print the symbols of the workspace whose names match QUERY.
    WorkspaceSymbols {
        /// A name or part of one.
        query: String,
        /// A file of the workspace, to pick its servers (default: every
        /// running server).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Print where the symbol at FILE:LINE:COL is implemented (an interface's
    /// or an abstract method's concrete versions).
    Implementation {
        /// The position, as FILE:LINE:COL (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
    },
    /// Print the supertypes (`up`: what the type at FILE:LINE:COL extends
    /// or implements) or subtypes (`down`: what extends or implements it).
    Types {
        /// `up`: supertypes; `down`: subtypes.
        #[arg(value_parser = ["up", "down"])]
        direction: String,
        /// The position, as FILE:LINE:COL (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
    },
    /// Print the calls into (`in`) or out of (`out`) the function at
    /// FILE:LINE:COL.
    Calls {
        /// `in`: who calls it; `out`: what it calls.
        #[arg(value_parser = ["in", "out"])]
        direction: String,
        /// The position, as FILE:LINE:COL (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
    },
    /// Print the errors of every file under DIR (default: --root, or the
    /// current directory) that a server handles: `N errors in M files`
    /// first, then the files by error count. Exits 1 when there are errors.
    Check {
        /// The directory.
        dir: Option<PathBuf>,
    },
    /// Restart the running language servers (all, or SERVER; under --root
    /// when given) and wait until each is ready again: after a change the
    /// server did not pick up, or to free its memory. Useful with the
    /// shared daemon, where servers outlive a command.
    Restart {
        /// The server id, as `sightline servers` lists it (default: every
        /// running server).
        server: Option<String>,
    },
    /// Answer many questions with warm servers: one command per stdin line
    /// (`diagnostics FILE`, `definition FILE:LINE:COL`, `references FILE:LINE:COL`,
    /// `servers`),
    /// each answer followed by an empty line (one JSON line with --json).
    Batch,
    /// List every language server: id, extensions and state (installed with
    /// path and version, missing with the install command, off, running,
    /// broken).
    Servers,
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
    /// Print FILE with numbered lines (the numbers the other commands take).
    Read {
        /// The file to print.
        file: PathBuf,
        /// The first line to print (1-based).
        #[arg(long)]
        offset: Option<usize>,
        /// How many lines to print (default 2000).
        #[arg(long)]
        limit: Option<usize>,
        /// Only this symbol's lines, by its name path in the outline
        /// (`Session/request`, or a bare name).
        #[arg(long, value_name = "NAME_PATH")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
    },
    /// Replace the whole lines of the symbol NAME_PATH in FILE (from the
    /// first line of its header to its last, as `read --symbol` shows them)
    /// with the text on stdin, format it, and print the errors it brought.
    ReplaceSymbolBody {
        /// The file.
        file: PathBuf,
        /// The symbol's name path in the outline (`Session/request`).
        symbol: String,
        /// Only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Put the text on stdin, as whole lines, right before the symbol
    /// NAME_PATH in FILE; format it, and print the errors it brought.
    InsertBeforeSymbol {
        /// The file.
        file: PathBuf,
        /// The symbol's name path in the outline (`Session/request`).
        symbol: String,
        /// Only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Put the text on stdin, as whole lines, right after the symbol
    /// NAME_PATH in FILE; format it, and print the errors it brought.
    InsertAfterSymbol {
        /// The file.
        file: PathBuf,
        /// The symbol's name path in the outline (`Session/request`).
        symbol: String,
        /// Only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Delete the symbol NAME_PATH from FILE when nothing outside it uses
    /// it; otherwise print its uses and write nothing (exit 2). With
    /// --force, delete it anyway and print the errors that broke.
    SafeDelete {
        /// The file.
        file: PathBuf,
        /// The symbol's name path in the outline (`Session/request`).
        symbol: String,
        /// Only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Delete it even while it is used.
        #[arg(long)]
        force: bool,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Replace (or create) FILE with the text on stdin, format it, and print
    /// the errors it now has.
    Write {
        /// The file to write.
        file: PathBuf,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Replace OLD with NEW in FILE, format it, and print the errors it now has.
    Edit {
        /// The file to edit.
        file: PathBuf,
        /// The text to replace.
        #[arg(long)]
        old: String,
        /// The text to put in its place.
        #[arg(long)]
        new: String,
        /// Replace every occurrence (otherwise OLD must occur once).
        #[arg(long)]
        replace_all: bool,
        /// Format only the lines the edit touched.
        #[arg(long)]
        format_range: bool,
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Rename the symbol at FILE:LINE:COL to NEW_NAME in every file the
    /// server knows uses it (all files or none), format them, and print the
    /// errors they now have; --dry-run prints the changed lines instead.
    Rename {
        /// The position, as FILE:LINE:COL (or FILE:LINE or FILE with --symbol).
        position: String,
        /// The new name.
        new_name: String,
        /// The symbol's name on the line, in place of the column; with FILE
        /// alone, its name path in the outline (`Session/request`).
        #[arg(long, value_name = "NAME")]
        symbol: Option<String>,
        /// With --symbol: only symbols of this kind (function, method, class, ...).
        #[arg(long, value_name = "KIND", requires = "symbol")]
        kind: Option<String>,
        /// Keep a re-exported name as an alias of the new one (`export { g
        /// as f }`) instead of renaming it for its importers too.
        #[arg(long)]
        keep_public_names: bool,
        /// Only print what would change.
        #[arg(long)]
        dry_run: bool,
        /// Apply changes the server marks as needing confirmation.
        #[arg(long)]
        confirm: bool,
    },
    /// List the code actions (quick fixes, refactorings, source actions)
    /// the server offers for FILE:LINE or FILE:LINE-END, numbered.
    CodeActions {
        /// The lines, as FILE:LINE or FILE:LINE-END.
        lines: String,
        /// Only actions of this kind (quickfix, refactor.extract, ...).
        #[arg(long)]
        kind: Option<String>,
    },
    /// Apply one code action for FILE:LINE[-END], by its number in the
    /// `code-actions` list or its title (all files or none), and print the
    /// errors the changed files now have.
    ApplyCodeAction {
        /// The lines, as FILE:LINE or FILE:LINE-END (as given to `code-actions`).
        lines: String,
        /// The action's number in the list.
        #[arg(long, conflicts_with = "title", required_unless_present = "title")]
        index: Option<usize>,
        /// The action's title, exactly.
        #[arg(long)]
        title: Option<String>,
        /// Only print what would change.
        #[arg(long)]
        dry_run: bool,
        /// Apply changes the server marks as needing confirmation.
        #[arg(long)]
        confirm: bool,
    },
    /// Sort FILE's imports and drop the unused ones, as its server does.
    OrganizeImports {
        /// The file.
        file: PathBuf,
        /// Only print what would change.
        #[arg(long)]
        dry_run: bool,
    },
    /// Apply the `*** Begin Patch` patch on stdin (all of it or nothing), format
    /// the changed files, and print their errors.
    ApplyPatch {
        /// Only print the errors it would bring; write nothing.
        #[arg(long)]
        dry_run: bool,
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
