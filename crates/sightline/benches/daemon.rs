//! The shared daemon against a direct client on the same pinned pyright, in
//! one run: warm `definition` through the CLI (a process per call) and
//! through an MCP session (`sightline mcp --daemon`), a second session's
//! first answer on a warm root, and the servers' memory for four sessions
//! against one. The daemon gets private runtime and state directories and
//! is stopped at the end. Run with `cargo bench -p sightline-mcp --bench daemon`.

#![allow(
    clippy::too_many_lines,
    reason = "a test or bench is one scenario, read top to bottom"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_test_support::direct::{Direct, uri};
use sightline_test_support::stats::{median, us};
use sightline_test_support::{descendants, path_with_tools, rss_kib_of, tool};

const ROUNDS: usize = 200;
const CLI_ROUNDS: usize = 30;
const LIB: &str = "def add(a: int, b: int) -> int:\n    return a + b\n";
const APP: &str = "from lib import add\n\ntotal = add(1, 2)\nprint(total)\n";

/// One `sightline mcp --daemon` process and its stdio.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Session {
    fn open(root: &Path, env: &[(&str, String)]) -> Session {
        Session::open_args(root, env, &["mcp", "--daemon"])
    }

    fn open_args(root: &Path, env: &[(&str, String)], args: &[&str]) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sightline"));
        cmd.args(args)
            .current_dir(root)
            .env("PATH", path_with_tools())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut s = Session {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next: 1,
        };
        s.request("initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bench", "version": "0" } }));
        writeln!(
            s.stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
        )
        .unwrap();
        s
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        )
        .unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the bridge closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn definition(&mut self, app: &Path) -> String {
        let r = self.request(
            "tools/call",
            json!({ "name": "lsp_definition", "arguments": { "file": app, "line": 3, "column": 9 } }),
        );
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        assert!(text.contains("lib.py"), "{r}");
        text
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pyright_rss(daemon: u32) -> u64 {
    descendants(daemon)
        .iter()
        .filter_map(|p| rss_kib_of(*p))
        .sum()
}

/// `--relay PROGRAM ARGS...`: this binary as a process that only copies
/// bytes between its stdio and PROGRAM's, with no parsing. A direct client
/// talking to pyright through one or two of these measures what a process
/// hop alone costs on this machine: the floor under any tool that sits
/// between a client and its server.
fn relay(args: &[String]) -> ! {
    use std::io::Read;
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = child.stdin.take().unwrap();
    let mut from = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut out = std::io::stdout().lock();
        while let Ok(n @ 1..) = from.read(&mut buf) {
            if out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
    });
    let mut buf = vec![0u8; 1 << 16];
    let mut stdin = std::io::stdin().lock();
    while let Ok(n @ 1..) = stdin.read(&mut buf) {
        if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            break;
        }
    }
    drop(to);
    let _ = child.wait();
    std::process::exit(0)
}

/// Warm definition medians, asked in turn, of a direct client and of one
/// through one or two relay processes.
fn relay_floor(root: &Path, app: &Path, hops: usize) -> (Duration, Duration) {
    let me = std::env::current_exe().unwrap();
    let pyright = tool("pyright-langserver");
    let mut args: Vec<String> = Vec::new();
    for _ in 1..hops {
        args.extend(["--relay".to_owned(), me.display().to_string()]);
    }
    args.extend([
        "--relay".to_owned(),
        pyright.display().to_string(),
        "--stdio".to_owned(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let open = |d: &mut Direct| {
        let u = uri(app);
        d.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "python", "version": 1, "text": APP}}),
        );
        let params = json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 8}});
        assert!(
            d.request("textDocument/definition", params.clone())["result"]
                .to_string()
                .contains("lib.py")
        );
        params
    };
    let mut direct = Direct::start(&pyright, root, json!({}), json!({}));
    let mut relayed = Direct::start_with(&me, &args, root, json!({}), json!({}));
    let params = open(&mut direct);
    open(&mut relayed);
    let (mut d_times, mut r_times) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        for (d, times) in [(&mut direct, &mut d_times), (&mut relayed, &mut r_times)] {
            let t = Instant::now();
            let r = d.request("textDocument/definition", params.clone());
            times.push(t.elapsed());
            assert!(r["result"].is_array());
        }
    }
    (median(d_times), median(r_times))
}

fn main() {
    sightline_test_support::isolation::isolate_main();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--relay") {
        relay(&args[1..]);
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pyproject.toml"), "").unwrap();
    std::fs::write(root.join("lib.py"), LIB).unwrap();
    std::fs::write(root.join("app.py"), APP).unwrap();
    let app = root.join("app.py");
    let runtime = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let env = vec![
        ("XDG_RUNTIME_DIR", runtime.path().display().to_string()),
        ("XDG_STATE_HOME", state.path().display().to_string()),
        ("SIGHTLINE_DAEMON", "1".to_owned()),
        ("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1".to_owned()),
    ];

    // The direct client, warm.
    let mut direct = Direct::start(&tool("pyright-langserver"), &root, json!({}), json!({}));
    let u = uri(&app);
    direct.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": u, "languageId": "python", "version": 1, "text": APP}}),
    );
    let params = json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 8}});
    assert!(
        direct.request("textDocument/definition", params.clone())["result"]
            .to_string()
            .contains("lib.py")
    );
    let mut ask_direct = || {
        let t = Instant::now();
        let r = direct.request("textDocument/definition", params.clone());
        assert!(r["result"].is_array());
        t.elapsed()
    };

    // MCP through the daemon, warm, asked in turn with the direct client.
    let cold = Instant::now();
    let mut first = Session::open(&root, &env);
    first.definition(&app);
    let cold = cold.elapsed();
    let (mut d_times, mut m_times) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            d_times.push(ask_direct());
        }
        let t = Instant::now();
        first.definition(&app);
        m_times.push(t.elapsed());
        if round % 2 == 1 {
            d_times.push(ask_direct());
        }
    }
    let direct_mcp = median(d_times);
    let mcp = median(m_times);

    // The same through `sightline mcp` in process, for comparison.
    let (mut d_times, mut p_times) = (Vec::new(), Vec::new());
    {
        let in_process_env = vec![("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1".to_owned())];
        let mut own = Session::open_args(&root, &in_process_env, &["--no-daemon", "mcp"]);
        own.definition(&app);
        for round in 0..ROUNDS {
            if round % 2 == 0 {
                d_times.push(ask_direct());
            }
            let t = Instant::now();
            own.definition(&app);
            p_times.push(t.elapsed());
            if round % 2 == 1 {
                d_times.push(ask_direct());
            }
        }
    }
    let direct_own = median(d_times);
    let own = median(p_times);

    // The CLI through the daemon: a process per call.
    let (mut d_times, mut c_times) = (Vec::new(), Vec::new());
    for _ in 0..CLI_ROUNDS {
        d_times.push(ask_direct());
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sightline"));
        cmd.args(["definition", "app.py:3:9"])
            .current_dir(&root)
            .env("PATH", path_with_tools())
            .stdin(Stdio::null());
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let t = Instant::now();
        let out = cmd.output().unwrap();
        c_times.push(t.elapsed());
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("lib.py"),
            "{out:?}"
        );
    }
    let direct_cli = median(d_times);
    let cli = median(c_times);

    // A second session's first answer on the warm root.
    let mut second_times = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let mut s = Session::open(&root, &env);
        s.definition(&app);
        second_times.push(t.elapsed());
    }
    let second = median(second_times);

    // Server memory: one session, then four.
    let pid: u32 = std::fs::read_to_string(runtime.path().join("sightline/daemon.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let one = pyright_rss(pid);
    let mut more: Vec<Session> = (0..3).map(|_| Session::open(&root, &env)).collect();
    for s in &mut more {
        s.definition(&app);
    }
    let four = pyright_rss(pid);
    let servers = descendants(pid).len();
    // sightline's own memory with the servers running: the daemon, and one
    // session's bridge.
    let daemon_rss = rss_kib_of(pid).unwrap_or(0);
    let bridge_rss = rss_kib_of(first.child.id()).unwrap_or(0);
    drop(more);
    drop(first);

    let floor1 = relay_floor(&root, &app, 1);
    let floor2 = relay_floor(&root, &app, 2);

    println!("daemon vs a direct client on pyright (one run)");
    println!(
        "  MCP session, warm definition, {ROUNDS} rounds in turn: direct {:.1} us, through the daemon {:.1} us, ratio {:.2}x",
        us(direct_mcp),
        us(mcp),
        mcp.as_secs_f64() / direct_mcp.as_secs_f64()
    );
    println!(
        "  MCP session in process (no daemon), {ROUNDS} rounds in turn: direct {:.1} us, sightline mcp {:.1} us, ratio {:.2}x",
        us(direct_own),
        us(own),
        own.as_secs_f64() / direct_own.as_secs_f64()
    );
    for (hops, (d, r)) in [(1, floor1), (2, floor2)] {
        println!(
            "  the floor: a direct client through {hops} relay process(es) that only copy bytes, {ROUNDS} rounds in turn: direct {:.1} us, relayed {:.1} us, ratio {:.2}x",
            us(d),
            us(r),
            r.as_secs_f64() / d.as_secs_f64()
        );
    }
    println!(
        "  CLI definition (a process per call), {CLI_ROUNDS} rounds: direct {:.2} ms, sightline {:.2} ms, +{:.2} ms",
        us(direct_cli) / 1000.0,
        us(cli) / 1000.0,
        (us(cli) - us(direct_cli)) / 1000.0
    );
    println!(
        "  first session's first answer (daemon and pyright cold): {:.0} ms",
        cold.as_secs_f64() * 1000.0
    );
    println!(
        "  a new session's first answer on the warm root (median of 10): {:.1} ms",
        second.as_secs_f64() * 1000.0
    );
    println!(
        "  server processes under the daemon with four sessions: {servers}; their RSS: one session {} MiB, four sessions {} MiB",
        one / 1024,
        four / 1024
    );
    println!(
        "  sightline's own RSS: the daemon {:.1} MiB, a session's bridge {:.1} MiB",
        daemon_rss as f64 / 1024.0,
        bridge_rss as f64 / 1024.0
    );

    let mut stop = Command::new(env!("CARGO_BIN_EXE_sightline"));
    stop.args(["daemon", "stop"])
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    for (k, v) in &env {
        stop.env(k, v);
    }
    let _ = stop.status();
    let until = Instant::now() + Duration::from_secs(15);
    while sightline_test_support::alive(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
}
