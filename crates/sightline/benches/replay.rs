//! Replay: one scripted, agent-like session on a pinned real project, asked
//! through sightline's library `Engine` (in-process) and through the bare
//! direct client of `sightline-test-support` on the same server binary, in
//! one run, question by question: the direct client, then sightline, each
//! with the other side's servers stopped while it asks (see `Paused` and
//! `alternate`).
//!
//! Projects (the soak test's): click 8.5.1 with pyright, mobx 6.16.1's `src/`
//! with typescript-language-server, memchr 2.8.3 with rust-analyzer. Each gets
//! its own two copies (one per client), so that the two servers never share
//! a build directory. The session: positions scanned from the source
//! (declarations and calls, spread over the files), asked in windows of a few
//! files: each position's definition, then its references and hover shuffled
//! together, an outline (`documentSymbol`) of some files, and three edit
//! cycles (an error appended on disk, diagnostics, the file reverted,
//! diagnostics again).
//!
//! Printed per kind: median and p95 of both, the ratio of the medians and
//! the median of the question-by-question ratios ("paired"); the
//! cold first answer of both (from spawning the server, or creating the
//! engine, to the first non-empty definition); the servers' resident memory
//! at the end (VmRSS summed over each server's process tree); and this bench
//! process's VmRSS growth from before the engine was created to the end,
//! which is sightline's own memory (the direct client in the same process is
//! a reader thread and two channels).
//!
//! The direct client's diagnostics: pyright is pulled (`didChange`, then
//! `textDocument/diagnostic`); typescript-language-server and rust-analyzer
//! push, and the direct client waits for the publish that shows the appended
//! error on its line (after an edit) or no error on it (after the revert), an
//! oracle no real client has, so a floor. rust-analyzer also gets `didSave`,
//! which starts its `cargo check`.
//!
//! Run with `cargo bench -p sightline-mcp --bench replay` (all three), or pass
//! `pyright`, `typescript` or `rust` after `--` (or set `SIGHTLINE_REPLAY`).
//! `SIGHTLINE_REPLAY_OPEN=N` replays with N documents open at most in place
//! of the server table's number; `SIGHTLINE_REPLAY_SANDBOX=MODE` with another
//! sandbox mode; `SIGHTLINE_REPLAY_FACE=mcp` asks sightline's side as an
//! agent does, through `sightline mcp` and the daemon it starts (its own
//! RSS is then the daemon's and the bridge's; the table's budgets and the
//! two options above do not reach it). `SIGHTLINE_REPLAY_ALTERNATE=1`
//! alternates which side asks first, `SIGHTLINE_REPLAY_TOGETHER=1` keeps both
//! sides' servers running throughout (the designs of earlier runs), and
//! `SIGHTLINE_REPLAY_DUMP=FILE` writes every question's two times.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline::Budgets;
use sightline::Engine;
use sightline_test_support::direct::{Direct, uri};
use sightline_test_support::pinned::{MEMCHR_CARGO_TOML, MOBX_ENV, MOBX_TSCONFIG, memchr_source};
use sightline_test_support::scan::{Lang, Rng, Spot, Tree, scan, spread};
use sightline_test_support::{
    descendants, repo_root, rss_kib, rss_kib_of, runtime, stats::us, tool,
};

/// Positions asked about per project; each gets definition, references and
/// hover.
const SPOTS: usize = 40;
/// Outlines per project.
const OUTLINES: usize = 8;
/// Files whose questions are shuffled together.
const WINDOW: usize = 4;
/// How long the direct client waits for a publish.
const PUSH_WAIT: Duration = Duration::from_secs(90);

/// The capabilities sightline sends (`server/start.rs`), for the direct
/// client: the same settings on both sides.
fn capabilities() -> Value {
    sightline::initialize_params(Path::new("/"), Value::Null)["capabilities"].clone()
}

#[derive(Clone, Copy, Debug)]
enum Q {
    Definition(usize),
    References(usize),
    Hover(usize),
    Outline(usize),
    /// Diagnostics of a file after an error was appended (`true`) or after
    /// it was reverted (`false`).
    Diagnostics(usize, bool),
}

impl Q {
    fn kind(self) -> &'static str {
        match self {
            Q::Definition(_) => "definition",
            Q::References(_) => "references",
            Q::Hover(_) => "hover",
            Q::Outline(_) => "documentSymbol",
            Q::Diagnostics(..) => "diagnostics",
        }
    }
}

/// One project: its name, server and two copies.
struct Setup {
    name: &'static str,
    lang: Lang,
    language_id: &'static str,
    program: PathBuf,
    args: &'static [&'static str],
    init: Value,
    /// The copy the direct client works on, and sightline's.
    direct: Tree,
    through: Tree,
    edits: &'static [&'static str],
    /// Ask references only where the definition is in the project
    /// (rust-analyzer searches the standard library for `From::from`).
    local_references: bool,
    /// Which files to scan for positions.
    keep: fn(&str) -> bool,
    /// sightline's server id, and its budgets.
    server: &'static str,
    budgets: Budgets,
}

fn two(from: &Path, dir: &str, ext: &str) -> (Tree, Tree) {
    (Tree::new(from, dir, ext), Tree::new(from, dir, ext))
}

fn click() -> Setup {
    let lib = std::fs::read_dir(repo_root().join("tools/.venv/lib"))
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|python| python.path().join("site-packages/click"))
        .find(|p| p.join("core.py").is_file())
        .expect("click is not installed in tools/.venv; run `tools/install`");
    let (direct, through) = two(&lib, "click", "py");
    for t in [&direct, &through] {
        std::fs::write(t.root.join("pyproject.toml"), "").unwrap();
    }
    Setup {
        name: "pyright / click 8.5.1",
        lang: Lang::Python,
        language_id: "python",
        program: tool("pyright-langserver"),
        args: &["--stdio"],
        init: json!({}),
        direct,
        through,
        edits: &["click/utils.py", "click/formatting.py", "click/core.py"],
        local_references: false,
        keep: |_| true,
        server: "pyright",
        budgets: Budgets::default(),
    }
}

fn mobx() -> Setup {
    let src = repo_root().join("tools/node_modules/mobx/src");
    assert!(
        src.join("mobx.ts").is_file(),
        "mobx is not installed at {}; run `tools/install`",
        src.display()
    );
    let (direct, through) = two(&src, "src", "ts");
    for t in [&direct, &through] {
        std::fs::write(t.root.join("tsconfig.json"), MOBX_TSCONFIG).unwrap();
        std::fs::write(t.root.join("env.d.ts"), MOBX_ENV).unwrap();
    }
    let tsserver = sightline_test_support::tsserver_js();
    Setup {
        name: "typescript-language-server / mobx 6.16.1 src",
        lang: Lang::TypeScript,
        language_id: "typescript",
        program: tool("typescript-language-server"),
        args: &["--stdio"],
        // sightline's options for this server (`catalog/table/javascript.rs`).
        init: json!({ "tsserver": { "path": tsserver, "useSyntaxServer": "never" } }),
        direct,
        through,
        edits: &[
            "src/api/autorun.ts",
            "src/core/atom.ts",
            "src/types/observablemap.ts",
        ],
        local_references: false,
        keep: |f| !f.ends_with(".d.ts"),
        server: "typescript",
        budgets: Budgets::default(),
    }
}

fn memchr() -> Setup {
    let out = Command::new("rustup")
        .args(["which", "rust-analyzer"])
        .output()
        .expect("rustup");
    assert!(
        out.status.success(),
        "rust-analyzer is not installed; run `tools/install`"
    );
    let program = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let (direct, through) = two(&memchr_source().join("src"), "src", "rs");
    for t in [&direct, &through] {
        std::fs::write(t.root.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    }
    // As the soak test's configuration: rust-analyzer loads the standard
    // library and runs `cargo check` on each save.
    let budgets = Budgets {
        document: Duration::from_secs(30),
        ready: Duration::from_secs(30),
        ..Budgets::default()
    };
    Setup {
        name: "rust-analyzer / memchr 2.8.3",
        lang: Lang::Rust,
        language_id: "rust",
        program,
        args: &[],
        init: json!({}),
        direct,
        through,
        edits: &[
            "src/memchr.rs",
            "src/memmem/mod.rs",
            "src/arch/all/twoway.rs",
        ],
        local_references: true,
        keep: |f| {
            let arch = std::env::consts::ARCH;
            !["x86_64", "aarch64", "wasm32"]
                .iter()
                .any(|a| *a != arch && f.contains(&format!("/{a}/")))
        },
        server: "rust",
        budgets,
    }
}

/// The script: per window of files, the definitions first (they tell which
/// references to skip), then references and hovers shuffled, with outlines
/// and edit cycles spread among them.
fn script(spots: &[Spot], files: &[String], edits: &[&str]) -> Vec<Q> {
    let mut rng = Rng(0x5eed_7e91_a400_0001);
    let outlines = spread(&(0..files.len()).collect::<Vec<_>>(), OUTLINES);
    let edit_files: Vec<usize> = edits
        .iter()
        .map(|e| files.iter().position(|f| f == e).unwrap())
        .collect();
    let mut out = Vec::new();
    for window in (0..files.len()).collect::<Vec<_>>().chunks(WINDOW) {
        let here: Vec<usize> = (0..spots.len())
            .filter(|s| window.contains(&spots[*s].file))
            .collect();
        out.extend(here.iter().map(|s| Q::Definition(*s)));
        let mut rest: Vec<Q> = here
            .iter()
            .flat_map(|s| [Q::References(*s), Q::Hover(*s)])
            .chain(
                window
                    .iter()
                    .filter(|f| outlines.contains(f))
                    .map(|f| Q::Outline(*f)),
            )
            .collect();
        rng.shuffle(&mut rest);
        out.extend(rest);
    }
    // Edit cycles at even intervals.
    let every = out.len() / (edit_files.len() + 1);
    for (k, f) in edit_files.iter().enumerate().rev() {
        let at = every * (k + 1);
        out.insert(at, Q::Diagnostics(*f, false));
        out.insert(at, Q::Diagnostics(*f, true));
    }
    out
}

/// The direct client's side of the session.
struct DirectSide {
    d: Direct,
    root: PathBuf,
    files: Vec<String>,
    language_id: &'static str,
    opened: HashSet<usize>,
    version: i64,
    pull: bool,
    save: bool,
}

fn has_error_on(diags: &Value, line0: usize) -> bool {
    diags.as_array().is_some_and(|a| {
        a.iter()
            .any(|x| x["severity"] == json!(1) && x["range"]["start"]["line"] == json!(line0))
    })
}

impl DirectSide {
    fn open(&mut self, file: usize) -> String {
        let u = uri(&self.root.join(&self.files[file]));
        if self.opened.insert(file) {
            let text = std::fs::read_to_string(self.root.join(&self.files[file])).unwrap();
            self.d.notify(
                "textDocument/didOpen",
                json!({ "textDocument": { "uri": u, "languageId": self.language_id, "version": 0, "text": text } }),
            );
        }
        u
    }

    fn at(&mut self, spot: &Spot) -> Value {
        let u = self.open(spot.file);
        json!({ "textDocument": { "uri": u }, "position": { "line": spot.line - 1, "character": spot.col - 1 } })
    }

    /// Asks `q`; whether the answer holds something.
    fn ask(&mut self, q: Q, spots: &[Spot], edit_line: usize) -> bool {
        match q {
            Q::Definition(s) => {
                let p = self.at(&spots[s]);
                let r = self.d.request("textDocument/definition", p);
                !r["result"].is_null() && r["result"] != json!([])
            }
            Q::References(s) if self.pull => self.exact_references(&spots[s]),
            Q::References(s) => {
                let mut p = self.at(&spots[s]);
                p["context"] = json!({ "includeDeclaration": false });
                let r = self.d.request("textDocument/references", p);
                r["result"].is_array()
            }
            Q::Hover(s) => {
                let p = self.at(&spots[s]);
                !self.d.request("textDocument/hover", p)["result"].is_null()
            }
            Q::Outline(f) => {
                let u = self.open(f);
                let r = self.d.request(
                    "textDocument/documentSymbol",
                    json!({ "textDocument": { "uri": u } }),
                );
                r["result"].is_array()
            }
            Q::Diagnostics(f, edited) => self.diagnostics(f, edited, edit_line),
        }
    }

    /// The references without the declaration as pyright needs to be asked
    /// for them to be right: pyright's `includeDeclaration: false` leaves
    /// out the name under the cursor, declaration or not, so a client that
    /// wants the uses asks with the declaration and for the definition
    /// together, and takes the definition out (what sightline does).
    /// Whether pyright answered a list.
    fn exact_references(&mut self, spot: &Spot) -> bool {
        let p = self.at(spot);
        let mut r = p.clone();
        r["context"] = json!({ "includeDeclaration": true });
        let answers = self.d.requests(vec![
            ("textDocument/references", r),
            ("textDocument/definition", p),
        ]);
        let definitions = match &answers[1]["result"] {
            Value::Array(v) => v.clone(),
            Value::Null => Vec::new(),
            one => vec![one.clone()],
        };
        let starts: Vec<(&Value, &Value)> = definitions
            .iter()
            .map(|d| {
                (
                    d.get("targetUri").or(d.get("uri")).unwrap_or(&Value::Null),
                    d.get("targetSelectionRange")
                        .or(d.get("range"))
                        .map_or(&Value::Null, |r| &r["start"]),
                )
            })
            .collect();
        let Some(found) = answers[0]["result"].as_array() else {
            return false;
        };
        let uses: Vec<&Value> = found
            .iter()
            .filter(|l| !starts.contains(&(&l["uri"], &l["range"]["start"])))
            .collect();
        std::hint::black_box(uses);
        true
    }

    /// The file is already written on disk; sends it and waits for its
    /// diagnostics to show (or, after the revert, no longer show) the error.
    fn diagnostics(&mut self, f: usize, edited: bool, line1: usize) -> bool {
        let u = self.open(f);
        // Drop stale publishes.
        while self.d.notifications.try_recv().is_ok() {}
        let text = std::fs::read_to_string(self.root.join(&self.files[f])).unwrap();
        self.version += 1;
        self.d.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": u, "version": self.version }, "contentChanges": [{ "text": text }] }),
        );
        if self.save {
            self.d.notify(
                "textDocument/didSave",
                json!({ "textDocument": { "uri": u } }),
            );
        }
        if self.pull {
            let r = self.d.request(
                "textDocument/diagnostic",
                json!({ "textDocument": { "uri": u } }),
            );
            return has_error_on(&r["result"]["items"], line1 - 1) == edited;
        }
        let until = Instant::now() + PUSH_WAIT;
        loop {
            let Some(left) = until.checked_duration_since(Instant::now()) else {
                return false;
            };
            let Ok(n) = self.d.notifications.recv_timeout(left) else {
                return false;
            };
            if n["method"] == json!("textDocument/publishDiagnostics")
                && n["params"]["uri"] == json!(u)
                && has_error_on(&n["params"]["diagnostics"], line1 - 1) == edited
            {
                return true;
            }
        }
    }
}

/// sightline's side: the library's `Engine` in this process, or with
/// `SIGHTLINE_REPLAY_FACE=mcp` an agent's path, `sightline mcp` (through
/// the daemon it starts, with runtime directories of its own).
enum Through {
    Engine(Box<Engine>),
    Mcp(McpSide),
}

/// A `sightline mcp` child spoken to in MCP's JSON lines.
struct McpSide {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    next: u64,
    dirs: sightline_test_support::DaemonDirs,
}

impl McpSide {
    fn start(root: &Path) -> McpSide {
        use std::io::BufRead;
        let dirs = sightline_test_support::DaemonDirs::new();
        let mut child = Command::new(sightline_test_support::sightline_bin())
            .arg("mcp")
            .current_dir(root)
            .env("PATH", sightline_test_support::path_with_tools())
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(dirs.env())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut side = McpSide {
            stdin: child.stdin.take(),
            child,
            lines,
            next: 0,
            dirs,
        };
        side.request(
            "initialize",
            json!({ "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "replay", "version": "0" } }),
        );
        side.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        side
    }

    fn send(&mut self, msg: &Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("sightline mcp did not answer");
            let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// A tool's text, unless it is an error.
    fn call(&mut self, tool: &str, args: Value) -> Option<String> {
        let r = self.request("tools/call", json!({ "name": tool, "arguments": args }));
        if r.pointer("/result/isError") == Some(&json!(true)) {
            return None;
        }
        r.pointer("/result/content/0/text")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn daemon_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.dirs.runtime().join("sightline/daemon.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for McpSide {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
        // `dirs` stops the daemon as it drops, after this.
    }
}

impl Through {
    async fn ask(&mut self, root: &Path, files: &[String], q: Q, spots: &[Spot]) -> (bool, bool) {
        match self {
            Through::Engine(ws) => through(ws, root, files, q, spots).await,
            Through::Mcp(m) => through_mcp(m, root, files, q, spots),
        }
    }

    /// The language servers' pids.
    fn server_pids(&self, direct_pids: &[u32]) -> Vec<u32> {
        match self {
            Through::Engine(_) => descendants(std::process::id())
                .into_iter()
                .filter(|p| !direct_pids.contains(p))
                .collect(),
            Through::Mcp(m) => m.daemon_pid().map(descendants).unwrap_or_default(),
        }
    }

    /// sightline's own resident memory beyond the bench's (the daemon's and
    /// the bridge's), in KiB.
    fn own_rss(&self) -> u64 {
        match self {
            Through::Engine(_) => 0,
            Through::Mcp(m) => {
                m.daemon_pid().and_then(rss_kib_of).unwrap_or(0)
                    + rss_kib_of(m.child.id()).unwrap_or(0)
            }
        }
    }

    async fn shutdown(self) {
        match self {
            Through::Engine(ws) => ws.shutdown().await,
            Through::Mcp(m) => drop(m),
        }
    }
}

fn mcp_face() -> bool {
    std::env::var("SIGHTLINE_REPLAY_FACE").is_ok_and(|v| v == "mcp")
}

/// [`through`] as an agent asks it, over MCP.
fn through_mcp(
    m: &mut McpSide,
    root: &Path,
    files: &[String],
    q: Q,
    spots: &[Spot],
) -> (bool, bool) {
    let path = |f: usize| root.join(&files[f]);
    let at = |s: usize| {
        let sp = &spots[s];
        json!({ "file": path(sp.file), "line": sp.line, "column": sp.col })
    };
    match q {
        Q::Definition(s) => match m.call("lsp_definition", at(s)) {
            Some(text) => {
                let none = text.starts_with("no definition") || text.trim().is_empty();
                // The project's files are listed relative to the root.
                let local = text.lines().skip(1).any(|l| !l.starts_with('/'));
                (!none, local)
            }
            None => (false, false),
        },
        Q::References(s) => {
            let mut a = at(s);
            a["include_declaration"] = json!(false);
            (m.call("lsp_references", a).is_some(), false)
        }
        Q::Hover(s) => {
            let mut a = at(s);
            a["operation"] = json!("hover");
            (m.call("lsp", a).is_some(), false)
        }
        Q::Outline(f) => (
            m.call(
                "lsp",
                json!({ "operation": "documentSymbol", "file": path(f) }),
            )
            .is_some(),
            false,
        ),
        Q::Diagnostics(f, _) => (
            m.call("lsp_diagnostics", json!({ "file": path(f) }))
                .is_some(),
            false,
        ),
    }
}

/// sightline's side: asks `q`; whether the answer holds something, and
/// whether the definition is in the project.
async fn through(ws: &Engine, root: &Path, files: &[String], q: Q, spots: &[Spot]) -> (bool, bool) {
    let path = |f: usize| root.join(&files[f]);
    match q {
        Q::Definition(s) => {
            let sp = &spots[s];
            match ws.definition(&path(sp.file), sp.line, sp.col).await {
                Ok(l) => (
                    !l.locations.is_empty(),
                    l.locations.iter().any(|x| x.path.starts_with(root)),
                ),
                Err(_) => (false, false),
            }
        }
        Q::References(s) => {
            let sp = &spots[s];
            let r = ws.references(&path(sp.file), sp.line, sp.col, false).await;
            (r.is_ok(), false)
        }
        Q::Hover(s) => {
            let sp = &spots[s];
            (
                ws.hover(&path(sp.file), sp.line, sp.col).await.is_ok(),
                false,
            )
        }
        Q::Outline(f) => (ws.document_symbols(&path(f)).await.is_ok(), false),
        Q::Diagnostics(f, _) => (ws.diagnostics(&path(f)).await.is_ok(), false),
    }
}

/// The direct client's server and its children.
fn direct_pids_now(direct: &DirectSide) -> Vec<u32> {
    std::iter::once(direct.d.pid())
        .chain(descendants(direct.d.pid()))
        .collect()
}

/// One side's server processes, stopped (`SIGSTOP`) while the other side
/// asks and continued after. Run side by side on this 2-core machine, the
/// side that asked second was measured slower whichever it was (pyright:
/// the second's definition median 0.9 ms over the first's, paired question
/// by question), because the first side's server goes on checking files
/// after it answers, on a core the second needs. A user's machine runs one
/// of them. `SIGHTLINE_REPLAY_TOGETHER=1` keeps both running. (Killed
/// while one side is stopped, for example by Ctrl-C, the bench leaves those
/// servers stopped; the in-process engine's die with the bench, a daemon's
/// stay stopped until it is stopped: `sightline daemon stop` in the bench's
/// runtime directory, or `kill -CONT`.)
struct Paused(Vec<u32>);

impl Paused {
    fn all(pids: Vec<u32>) -> Paused {
        Paused(if std::env::var_os("SIGHTLINE_REPLAY_TOGETHER").is_some() {
            Vec::new()
        } else {
            pids
        })
    }

    /// Stops them until the guard drops.
    fn stop(&self) -> Stopped<'_> {
        for &p in &self.0 {
            // SAFETY: `kill` only sends a signal.
            unsafe { libc::kill(p as i32, libc::SIGSTOP) };
        }
        Stopped(&self.0)
    }
}

struct Stopped<'a>(&'a [u32]);

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        for &p in self.0 {
            // SAFETY: as above.
            unsafe { libc::kill(p as i32, libc::SIGCONT) };
        }
    }
}

/// Whether the side that asks first alternates question by question
/// (`SIGHTLINE_REPLAY_ALTERNATE=1`) rather than the direct client always
/// asking first. Alternating orders the asks D S S D D S: each side asks
/// twice in a row, then waits through two of the other's, and pyright
/// answers a question that follows a wait slower (timers it set after
/// the last question fire first): question by question, the side that asked
/// after the wait was 0.9-1.3 ms slower on the median definition, whichever
/// it was. Strictly in turn (D S D S), each side waits through one of the
/// other's.
fn alternate() -> bool {
    std::env::var_os("SIGHTLINE_REPLAY_ALTERNATE").is_some()
}

fn tree_rss(pids: &[u32]) -> u64 {
    pids.iter().map(|p| rss_kib_of(*p).unwrap_or(0)).sum()
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    us(d) / 1000.0
}

/// Waits until the direct server has been quiet for `quiet` (rust-analyzer:
/// or says it is quiescent), at most `max`: its background indexing would
/// otherwise run during sightline's cold start.
fn settle(d: &Direct, quiet: Duration, max: Duration) {
    let until = Instant::now() + max;
    while Instant::now() < until {
        match d.notifications.recv_timeout(quiet) {
            Err(_) => return,
            Ok(n) => {
                if n["method"] == json!("experimental/serverStatus")
                    && n["params"]["quiescent"] == json!(true)
                {
                    return;
                }
            }
        }
    }
}

fn run(setup: Setup) {
    let started = Instant::now();
    let texts: Vec<String> = setup
        .direct
        .files
        .iter()
        .map(|f| {
            if (setup.keep)(f) {
                std::fs::read_to_string(setup.direct.root.join(f)).unwrap()
            } else {
                String::new()
            }
        })
        .collect();
    let (decls, calls) = scan(setup.lang, &texts);
    let n = spots_wanted();
    let mut spots = spread(&decls, n / 3);
    spots.extend(spread(&calls, n - spots.len()));
    spots.sort_by_key(|s| (s.file, s.line, s.col));
    let files = setup.direct.files.clone();
    let questions = script(&spots, &files, setup.edits);

    let rt = runtime();
    let (mut direct, _) = direct_start(&setup, &files, &spots);
    settle(&direct.d, Duration::from_secs(3), Duration::from_secs(60));
    let mut times: BTreeMap<&'static str, (Vec<Duration>, Vec<Duration>)> = BTreeMap::new();
    let mut misses: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut skipped = 0;
    let mut rss_samples: (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    let rss_before = rss_kib();
    let (rss_end, server_rss) = rt.block_on(async {
        let (mut ws, _) = through_start(&setup, &files, &spots).await;
        let root = setup.through.root.clone();
        let mut local = vec![true; spots.len()];
        let mut edit_line = 0;
        let mut originals: HashMap<PathBuf, String> = HashMap::new();
        let mut dump =
            std::env::var_os("SIGHTLINE_REPLAY_DUMP").map(|p| std::fs::File::create(p).unwrap());
        for (k, q) in questions.iter().enumerate() {
            if let Q::References(s) = q
                && setup.local_references
                && !local[*s]
            {
                skipped += 1;
                continue;
            }
            if let Q::Diagnostics(f, edited) = q {
                let rel = &files[*f];
                for tree in [&setup.direct, &setup.through] {
                    let path = tree.root.join(rel);
                    if *edited {
                        let original = std::fs::read_to_string(&path).unwrap();
                        let mut text = original.clone();
                        if !text.ends_with('\n') {
                            text.push('\n');
                        }
                        edit_line = text.lines().count() + 1;
                        text.push_str(setup.lang.error_line());
                        text.push('\n');
                        std::fs::write(&path, text).unwrap();
                        originals.insert(path, original);
                    } else {
                        std::fs::write(&path, originals.remove(&path).unwrap()).unwrap();
                    }
                }
            }
            // Each side asks with the other side's servers stopped, as on
            // a machine that runs one of them (see `Paused`), and reads its
            // own servers' memory right after it asked, so that each side
            // waits through the same work between two of its questions.
            // Both servers' memory after every question: a node or Java
            // server's RSS rises and falls with its garbage collector, so
            // one reading at the end says little.
            let direct_first = k % 2 == 0 || !alternate();
            let (mut dt, mut direct_ok) = (Duration::ZERO, false);
            let (mut st, mut ok, mut is_local) = (Duration::ZERO, false, false);
            for direct_turn in [direct_first, !direct_first] {
                if direct_turn {
                    let ours = Paused::all(ws.server_pids(&direct_pids_now(&direct)));
                    let stopped = ours.stop();
                    let t = Instant::now();
                    direct_ok = direct.ask(*q, &spots, edit_line);
                    dt = t.elapsed();
                    drop(stopped);
                    rss_samples.0.push(tree_rss(&direct_pids_now(&direct)));
                } else {
                    let theirs = Paused::all(direct_pids_now(&direct));
                    let stopped = theirs.stop();
                    let t = Instant::now();
                    (ok, is_local) = ws.ask(&root, &files, *q, &spots).await;
                    st = t.elapsed();
                    drop(stopped);
                    rss_samples
                        .1
                        .push(tree_rss(&ws.server_pids(&direct_pids_now(&direct))));
                }
            }
            if let Q::Definition(s) = q {
                local[*s] = is_local;
            }
            if let Some(f) = dump.as_mut() {
                use std::io::Write;
                let first = if direct_first { "direct" } else { "sightline" };
                writeln!(
                    f,
                    "{k} {} {} {} {first}",
                    q.kind(),
                    dt.as_micros(),
                    st.as_micros(),
                )
                .unwrap();
            }
            let e = times.entry(q.kind()).or_default();
            e.0.push(dt);
            e.1.push(st);
            let m = misses.entry(q.kind()).or_default();
            m.0 += usize::from(!direct_ok);
            m.1 += usize::from(!ok);
        }
        let rss_end = rss_kib() + ws.own_rss();
        let server_rss = tree_rss(&ws.server_pids(&direct_pids_now(&direct)));
        ws.shutdown().await;
        (rss_end, server_rss)
    });
    let direct_rss = tree_rss(
        &std::iter::once(direct.d.pid())
            .chain(descendants(direct.d.pid()))
            .collect::<Vec<_>>(),
    );
    drop(direct);
    let (direct_colds, through_colds) = colds(&setup, &files, &spots);

    let asked: usize = times.values().map(|v| v.0.len()).sum();
    println!(
        "{}{}: {} files, {} positions, {asked} questions each ({skipped} references not asked: defined outside the project), {:.0} s",
        setup.name,
        open_documents().map_or(String::new(), |n| format!(" (open documents: {n})")),
        files.len(),
        spots.len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "  {:<18} {:>4} {:>11} {:>11} {:>11} {:>11} {:>7} {:>7}",
        "kind", "n", "direct p50", "direct p95", "sightl p50", "sightl p95", "ratio", "paired"
    );
    for (kind, (mut d, mut s)) in times {
        let n = d.len();
        // The median of the question-by-question ratios: steadier than the
        // ratio of the medians, which moves with whichever questions land
        // next to the middle.
        let mut each: Vec<f64> = d
            .iter()
            .zip(&s)
            .map(|(d, s)| s.as_secs_f64() / d.as_secs_f64().max(1e-9))
            .collect();
        each.sort_by(f64::total_cmp);
        let paired = each.get(each.len() / 2).copied().unwrap_or(f64::NAN);
        let (d50, d95) = (pct(&mut d, 0.5), pct(&mut d, 0.95));
        let (s50, s95) = (pct(&mut s, 0.5), pct(&mut s, 0.95));
        let (dm, sm) = misses[kind];
        println!(
            "  {kind:<18} {n:>4} {:>8.2} ms {:>8.2} ms {:>8.2} ms {:>8.2} ms {:>6.2}x {:>6.2}x{}",
            ms(d50),
            ms(d95),
            ms(s50),
            ms(s95),
            s50.as_secs_f64() / d50.as_secs_f64(),
            paired,
            if dm + sm > 0 {
                format!("  (empty/failed: direct {dm}, sightline {sm})")
            } else {
                String::new()
            }
        );
    }
    let secs = |v: &[Duration]| {
        v.iter()
            .map(|d| format!("{:.2}", d.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "  cold first definition, median of {} (order alternating): direct {:.2} s ({} s), sightline {:.2} s ({} s)",
        direct_colds.len(),
        median(&direct_colds).as_secs_f64(),
        secs(&direct_colds),
        median(&through_colds).as_secs_f64(),
        secs(&through_colds),
    );
    let mid_max = |v: &mut Vec<u64>| {
        v.sort_unstable();
        (
            v.get(v.len() / 2).copied().unwrap_or(0) / 1024,
            v.last().copied().unwrap_or(0) / 1024,
        )
    };
    let (d_mid, d_max) = mid_max(&mut rss_samples.0);
    let (s_mid, s_max) = mid_max(&mut rss_samples.1);
    println!(
        "  server RSS (process tree) after each question, median / peak: direct {d_mid} / {d_max} MiB, sightline's {s_mid} / {s_max} MiB ({:+.1}% / {:+.1}%); at the end {} vs {} MiB",
        (s_mid as f64 / d_mid.max(1) as f64 - 1.0) * 100.0,
        (s_max as f64 / d_max.max(1) as f64 - 1.0) * 100.0,
        direct_rss / 1024,
        server_rss / 1024
    );
    println!(
        "  sightline's own RSS (bench process VmRSS, before the engine -> end): {} -> {} MiB ({:+} MiB)",
        rss_before / 1024,
        rss_end / 1024,
        (rss_end as i64 - rss_before as i64) / 1024
    );
}

/// Starts the direct client and asks the first definition until it holds
/// something: the client, and the time from spawn to that answer.
fn direct_start(setup: &Setup, files: &[String], spots: &[Spot]) -> (DirectSide, Duration) {
    let t = Instant::now();
    let d = Direct::start_with(
        &setup.program,
        setup.args,
        &setup.direct.root,
        capabilities(),
        setup.init.clone(),
    );
    let mut direct = DirectSide {
        d,
        root: setup.direct.root.clone(),
        files: files.to_vec(),
        language_id: setup.language_id,
        opened: HashSet::new(),
        version: 0,
        pull: setup.lang == Lang::Python,
        save: setup.lang == Lang::Rust,
    };
    // rust-analyzer answers empty until it has loaded the workspace.
    while !direct.ask(Q::Definition(0), spots, 0) && t.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    (direct, t.elapsed())
}

/// Creates an engine and asks the first definition until it holds
/// something: the engine, and the time from its creation to that answer.
async fn through_start(setup: &Setup, files: &[String], spots: &[Spot]) -> (Through, Duration) {
    if mcp_face() {
        let t = Instant::now();
        let mut side = Through::Mcp(McpSide::start(&setup.through.root));
        while !side
            .ask(&setup.through.root, files, Q::Definition(0), spots)
            .await
            .0
            && t.elapsed() < Duration::from_secs(120)
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        return (side, t.elapsed());
    }
    let mut options = sightline::Options {
        search_path: vec![sightline_test_support::tools_bin()],
        downloads: Some(false),
        ..sightline::Options::default()
    };
    // `SIGHTLINE_REPLAY_SANDBOX`: another sandbox mode for sightline's
    // server (`danger-full-access` measures what the sandbox costs).
    if let Ok(mode) = std::env::var("SIGHTLINE_REPLAY_SANDBOX") {
        options.sandbox = Some(sightline::SandboxMode::parse(&mode).expect("a sandbox mode"));
    }
    let mut budgets = setup.budgets;
    // The open-document limit under test, when not the table's.
    if let Some(n) = open_documents() {
        budgets.open_documents = Some(n);
    }
    options
        .server_budgets
        .insert(setup.server.to_owned(), budgets);
    let t = Instant::now();
    let ws = Engine::new(options);
    while !through(&ws, &setup.through.root, files, Q::Definition(0), spots)
        .await
        .0
        && t.elapsed() < Duration::from_secs(120)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (Through::Engine(Box::new(ws)), t.elapsed())
}

/// Cold first answers, `SIGHTLINE_REPLAY_COLD` rounds (5 unless set: with 3,
/// rust-analyzer's medians moved 0.2 s between runs), each a fresh server
/// per side, the side that starts first alternating. On
/// this machine the same pyright's `initialize` alone took 0.2 s to 0.9 s
/// from one start to the next (a bare script, no sightline), and a server
/// started while another was up tended to the slow end; one start per
/// side in a fixed order charged that to one side.
fn colds(setup: &Setup, files: &[String], spots: &[Spot]) -> (Vec<Duration>, Vec<Duration>) {
    let rounds = std::env::var("SIGHTLINE_REPLAY_COLD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5usize);
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for side in 0..2 {
            if (round + side) % 2 == 0 {
                let (d, cold) = direct_start(setup, files, spots);
                drop(d);
                direct.push(cold);
            } else {
                runtime().block_on(async {
                    let (ws, cold) = through_start(setup, files, spots).await;
                    ws.shutdown().await;
                    through.push(cold);
                });
            }
        }
    }
    (direct, through)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// `SIGHTLINE_REPLAY_POSITIONS`: how many positions to ask about (40 unless
/// set); more make the medians steadier and the run longer.
fn spots_wanted() -> usize {
    std::env::var("SIGHTLINE_REPLAY_POSITIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SPOTS)
        .max(1)
}

/// `SIGHTLINE_REPLAY_OPEN`: the open-document limit to replay with, in place
/// of the server table's (how the table's numbers were chosen).
fn open_documents() -> Option<usize> {
    std::env::var("SIGHTLINE_REPLAY_OPEN").ok()?.parse().ok()
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    // `RUST_LOG` shows sightline's own log (each request and its answer at
    // `trace`) on stderr, to profile a replay.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    // `cargo bench` passes `--bench`; any other word picks the servers.
    let mut picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if let Ok(v) = std::env::var("SIGHTLINE_REPLAY") {
        picked.extend(v.split(',').map(str::to_owned));
    }
    let wants =
        |name: &str| picked.is_empty() || picked.iter().any(|p| name.starts_with(p.as_str()));
    if wants("pyright") {
        run(click());
    }
    if wants("typescript") {
        run(mobx());
    }
    if wants("rust-analyzer") {
        run(memchr());
    }
}
