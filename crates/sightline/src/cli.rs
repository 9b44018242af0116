//! The command line: argument parsing, the spinner, and turning answers into
//! stdout text and exit codes. `main` only wires this up.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::{Parser, Subcommand};

use crate::error::ToolError;
use crate::progress::Progress;
use crate::render;
use crate::workspace::{Options, Workspace};

/// Exit status: the command answered.
pub const EXIT_OK: i32 = 0;
/// Exit status: the diagnostics contain an error.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit status: bad input, an unsupported file, or no server available.
pub const EXIT_FAILED: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Ask real language servers what a type checker knows about your files on disk now",
    after_help = "Exit status: 0 answered, 1 diagnostics contain an error, 2 bad input or no server available.\n\
                  Logs go to stderr; set RUST_LOG=debug (or trace) for more.\n\
                  Servers missing from PATH are installed from npm into $SIGHTLINE_DATA_DIR unless SIGHTLINE_DISABLE_LSP_DOWNLOAD=1."
)]
pub struct Cli {
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// The workspace directory; files outside every project marker but inside it are served under it.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Where servers, formatters and the edit tools may write:
    /// workspace-write (default), read-only, or danger-full-access (no sandbox).
    #[arg(long, global = true, value_name = "MODE", value_parser = ["workspace-write", "read-only", "danger-full-access"])]
    pub sandbox: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the errors and warnings of FILE as it is on disk now.
    Diagnostics {
        /// The file to check.
        file: PathBuf,
    },
    /// Print where the symbol at FILE:LINE:COL is defined (1-based line and character column).
    Definition {
        /// The position, as FILE:LINE:COL with the column on the symbol itself.
        position: String,
    },
    /// Print every use of the symbol at FILE:LINE:COL across the workspace.
    References {
        /// The position, as FILE:LINE:COL with the column on the symbol itself.
        position: String,
        /// Also list the declaration itself.
        #[arg(long)]
        include_declaration: bool,
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
        dir: Option<PathBuf>,
        /// Stop trusting it.
        #[arg(long)]
        revoke: bool,
    },
    /// Run the formatters that are on for each FILE.
    Format {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the formatters for FILE: whether each is on, and why.
    Formatters { file: PathBuf },
    /// Print FILE with numbered lines (the numbers the other commands take).
    Read {
        file: PathBuf,
        /// The first line to print (1-based).
        #[arg(long)]
        offset: Option<usize>,
        /// How many lines to print (default 2000).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Replace (or create) FILE with the text on stdin, format it, and print
    /// the errors it now has.
    Write { file: PathBuf },
    /// Replace OLD with NEW in FILE, format it, and print the errors it now has.
    Edit {
        file: PathBuf,
        #[arg(long)]
        old: String,
        #[arg(long)]
        new: String,
        /// Replace every occurrence (otherwise OLD must occur once).
        #[arg(long)]
        replace_all: bool,
        /// Format only the lines the edit touched.
        #[arg(long)]
        format_range: bool,
    },
    /// Apply the `*** Begin Patch` patch on stdin (all of it or nothing), format
    /// the changed files, and print their errors.
    ApplyPatch,
    /// Serve the tools over the Model Context Protocol on stdin/stdout
    /// (lsp_diagnostics, lsp_definition, lsp_references and lsp). The workspace
    /// is --root, or else the current directory; files under other project
    /// roots are still served, each under its own root. Ends when stdin closes.
    Mcp {
        /// Also serve the edit tools: read, write, edit and apply_patch.
        #[arg(long)]
        edit_tools: bool,
    },
}

/// Parses `FILE:LINE:COL` from the right, so a path may itself hold colons.
pub fn parse_position(spec: &str) -> Result<(PathBuf, usize, usize), ToolError> {
    let bad = || ToolError::BadInput(format!("expected FILE:LINE:COL, got `{spec}`"));
    let mut parts = spec.rsplitn(3, ':');
    let col = parts.next().ok_or_else(bad)?;
    let line = parts.next().ok_or_else(bad)?;
    let file = parts.next().filter(|f| !f.is_empty()).ok_or_else(bad)?;
    let num = |s: &str, what: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| ToolError::BadInput(format!("{what} must be a number, got `{s}`")))
    };
    Ok((PathBuf::from(file), num(line, "line")?, num(col, "column")?))
}

/// People type relative paths; the tools themselves require absolute ones.
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

/// One answer, rendered, with its exit status.
pub struct Rendered {
    pub text: String,
    pub status: i32,
}

fn failed(e: &ToolError, json: bool) -> Rendered {
    Rendered {
        text: if json {
            format!("{}\n", render::error_json(e))
        } else {
            render::error_text(e)
        },
        status: EXIT_FAILED,
    }
}

/// The command's name, as typed (for `internal error in <command>`).
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Diagnostics { .. } => "diagnostics",
        Command::Definition { .. } => "definition",
        Command::References { .. } => "references",
        Command::Batch => "batch",
        Command::Servers => "servers",
        Command::Install { .. } => "install",
        Command::Config => "config",
        Command::Schema => "schema",
        Command::Trust { .. } => "trust",
        Command::Format { .. } => "format",
        Command::Formatters { .. } => "formatters",
        Command::Read { .. } => "read",
        Command::Write { .. } => "write",
        Command::Edit { .. } => "edit",
        Command::ApplyPatch => "apply-patch",
        Command::Mcp { .. } => "mcp",
    }
}

/// Answers one command; a panic inside it becomes an `error:` answer with
/// the failure status, never a crash.
pub async fn answer(ws: &Workspace, command: &Command, json: bool) -> Rendered {
    let work = async { Ok(answer_inner(ws, command, json).await) };
    match crate::error::caught(command_name(command), work).await {
        Ok(r) => r,
        Err(e) => failed(&e, json),
    }
}

async fn answer_inner(ws: &Workspace, command: &Command, json: bool) -> Rendered {
    let fail = |e: ToolError| failed(&e, json);
    match command {
        Command::Diagnostics { file } => match ws.diagnostics(&absolute(file)).await {
            Ok(d) => Rendered {
                text: if json {
                    format!("{}\n", render::diagnostics_json(&d))
                } else {
                    render::diagnostics_text(&d)
                },
                status: if d.has_errors() {
                    EXIT_FINDINGS
                } else {
                    EXIT_OK
                },
            },
            Err(e) => fail(e),
        },
        Command::Definition { position } | Command::References { position, .. } => {
            let (file, line, col) = match parse_position(position) {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            let file = absolute(&file);
            let result = match command {
                Command::References {
                    include_declaration,
                    ..
                } => ws.references(&file, line, col, *include_declaration).await,
                _ => ws.definition(&file, line, col).await,
            };
            match result {
                Ok(l) => Rendered {
                    text: if json {
                        format!("{}\n", render::locations_json(&l))
                    } else {
                        render::locations_text(&l)
                    },
                    status: EXIT_OK,
                },
                Err(e) => fail(e),
            }
        }
        _ => fail(ToolError::BadInput(
            "only diagnostics, definition and references can be asked in batch".into(),
        )),
    }
}

/// Reads commands from stdin until EOF, answering each in turn.
pub async fn batch(ws: &Workspace, json: bool) -> i32 {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut worst = EXIT_OK;
    while let Some(line) = rx.recv().await {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim().to_owned();
        let command = match verb {
            "diagnostics" => Some(Command::Diagnostics {
                file: PathBuf::from(rest),
            }),
            "definition" => Some(Command::Definition { position: rest }),
            "references" => Some(Command::References {
                position: rest,
                include_declaration: false,
            }),
            "servers" => Some(Command::Servers),
            _ => None,
        };
        let rendered = match command {
            // In a long-lived session, `servers` shows the running ones.
            Some(Command::Servers) => {
                let here = std::env::current_dir().unwrap_or_default();
                let (text, status) = crate::admin::run(ws, &Command::Servers, &here, json).await;
                Rendered { text, status }
            }
            Some(c) => answer(ws, &c, json).await,
            None => {
                let e = ToolError::BadInput(format!(
                    "unknown command `{verb}`; use diagnostics, definition, references or servers"
                ));
                Rendered {
                    text: if json {
                        format!("{}\n", render::error_json(&e))
                    } else {
                        render::error_text(&e)
                    },
                    status: EXIT_FAILED,
                }
            }
        };
        worst = worst.max(rendered.status);
        let mut out = std::io::stdout().lock();
        let sep = if json { "" } else { "\n" };
        if write!(out, "{}{sep}", rendered.text)
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    worst
}

/// A spinner per job on stderr while installs and starts run.
#[derive(Default)]
pub struct Spinner {
    bars: Mutex<HashMap<String, indicatif::ProgressBar>>,
}

impl Progress for Spinner {
    fn begin(&self, key: &str, title: &str) {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(title.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if bar.is_hidden() && key.starts_with("install") {
            // Not a terminal: still say what is happening, as plain lines.
            plain(&format!("sightline: {title}"));
        }
        if let Ok(mut bars) = self.bars.lock() {
            bars.insert(key.to_owned(), bar);
        }
    }
    fn update(&self, key: &str, message: &str) {
        if let Ok(bars) = self.bars.lock()
            && let Some(bar) = bars.get(key)
        {
            bar.set_message(message.to_owned());
        }
    }
    fn end(&self, key: &str, message: &str) {
        let bar = self.bars.lock().ok().and_then(|mut b| b.remove(key));
        if let Some(bar) = bar {
            let elapsed = bar.elapsed().as_secs_f64();
            bar.finish_and_clear();
            if key.starts_with("install") {
                plain(&format!("sightline: {message} ({elapsed:.1} s)"));
            }
        }
    }
}

fn plain(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn print_out(text: &str, status: i32) -> i32 {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    status
}

/// Resolves on Ctrl-C or SIGTERM, so that either shuts the servers down in
/// order before exiting. The handlers are installed when this is called, not
/// when the future is first polled, so a signal that arrives in between is
/// not lost to the default action (which would skip the orderly shutdown).
/// Call it inside the runtime.
pub fn interrupted() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let int = signal(SignalKind::interrupt()).ok();
    let term = signal(SignalKind::terminate()).ok();
    async move {
        let wait = |s: Option<tokio::signal::unix::Signal>| async move {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = wait(int) => {}
            _ = wait(term) => {}
        }
    }
}

pub async fn run(cli: Cli) -> i32 {
    let workdir = cli
        .root
        .clone()
        .map(|r| absolute(&r))
        .or_else(|| std::env::current_dir().ok());
    if let Command::Schema = cli.command {
        let text = serde_json::to_string_pretty(&crate::config::schema()).unwrap_or_default();
        return print_out(&format!("{text}\n"), EXIT_OK);
    }
    if let Command::Trust { dir, revoke } = &cli.command {
        let dir = dir
            .as_ref()
            .map(|d| absolute(d))
            .or(workdir.clone())
            .unwrap_or_default();
        return match crate::config::set_trusted(&dir, !revoke) {
            Ok(d) if *revoke => {
                print_out(&format!("{} is no longer trusted\n", d.display()), EXIT_OK)
            }
            Ok(d) => print_out(
                &format!(
                    "trusted {}: commands in its sightline.json may run\n",
                    d.display()
                ),
                EXIT_OK,
            ),
            Err(e) => print_out(&format!("error: cannot record trust: {e}\n"), EXIT_FAILED),
        };
    }
    let config = match crate::config::Config::load(workdir.as_deref()) {
        Ok(c) => c,
        Err(e) => return print_out(&format!("error: {e}\n"), EXIT_FAILED),
    };
    if let Command::Mcp { edit_tools } = cli.command {
        let edit_tools = edit_tools || config.edit_tools;
        // stdout carries the protocol: progress goes to the client, logs to stderr.
        let ws = Arc::new(Workspace::new(Options {
            root: workdir,
            config,
            sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
            ..Options::default()
        }));
        return tokio::select! {
            status = crate::mcp::serve(ws.clone(), edit_tools) => status,
            _ = interrupted() => {
                ws.shutdown().await;
                EXIT_FAILED
            }
        };
    }
    let options = Options {
        root: cli.root.clone(),
        progress: Arc::new(Spinner::default()),
        config,
        sandbox: cli.sandbox.as_deref().and_then(crate::sandbox::Mode::parse),
        ..Options::default()
    };
    let ws = Workspace::new(options);
    let status = match &cli.command {
        Command::Servers
        | Command::Install { .. }
        | Command::Config
        | Command::Format { .. }
        | Command::Formatters { .. }
        | Command::Read { .. }
        | Command::Write { .. }
        | Command::Edit { .. }
        | Command::ApplyPatch => {
            let here = workdir.unwrap_or_default();
            let work = async { Ok(crate::admin::run(&ws, &cli.command, &here, cli.json).await) };
            match crate::error::caught(command_name(&cli.command), work).await {
                Ok((text, status)) => print_out(&text, status),
                Err(e) => {
                    let r = failed(&e, cli.json);
                    print_out(&r.text, r.status)
                }
            }
        }
        Command::Batch => {
            tokio::select! {
                s = batch(&ws, cli.json) => s,
                _ = interrupted() => EXIT_FAILED,
            }
        }
        command => {
            let r = tokio::select! {
                r = answer(&ws, command, cli.json) => r,
                _ = interrupted() => Rendered { text: String::new(), status: EXIT_FAILED },
            };
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(r.text.as_bytes()).and_then(|()| out.flush());
            r.status
        }
    };
    ws.shutdown().await;
    status
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn positions_parse_from_the_right() {
        assert_eq!(
            parse_position("/a:b/c.py:3:7").unwrap(),
            (PathBuf::from("/a:b/c.py"), 3, 7)
        );
        assert_eq!(
            parse_position("x.py:3").unwrap_err().to_string(),
            "error: expected FILE:LINE:COL, got `x.py:3`"
        );
        assert_eq!(
            parse_position("x.py:a:1").unwrap_err().to_string(),
            "error: line must be a number, got `a`"
        );
    }
}
