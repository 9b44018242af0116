//! `sightline mcp --http`: MCP over Streamable HTTP, driven by the official
//! SDKs' HTTP clients (Python and TypeScript) and by raw requests. Every
//! request needs the bearer token (401 without it), a browser's `Origin`
//! other than the server's own is refused (403), the stateless 2026-07-28
//! revision is answered beside today's sessions, and an HTTP session is a
//! session of the same daemon as a stdio one (one pyright for both), which
//! neither can stop. In
//! process with `--no-daemon` too; an address other machines reach is
//! refused unless asked.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use sightline_test_support::mcp::{McpDriver, questions_in_readme};
use sightline_test_support::{Project, path_with_tools, require, sightline_bin};

use super::resources::{assert_ts_sdk_saw, ts_sdk_project, ts_sdk_saw};

const APP: &str = "def total(a: int, b: int) -> int:\n    return a + b\n";
const BAD: &str = "from app import total\n\nx: str = total(1, 2)\n";

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "raw", "version": "1" } } })
}

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

/// The JSON-RPC messages of an answer given as server-sent events (or as
/// one JSON body).
fn messages(body: &str) -> Vec<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return vec![v];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// A Python project whose `bad.py` has one error (at 3:10).
fn http_project() -> Project {
    Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("app.py", APP),
        ("bad.py", BAD),
    ])
}

#[test]
fn an_http_session_needs_the_token_and_its_own_origin_and_shares_the_daemon_with_stdio() {
    require("pyright-langserver");
    let p = http_project();
    let bad = p.root().join("bad.py");
    let mut d = McpDriver::start();
    let mut h = d.serve_http(p.root(), &["mcp", "--http", "0"], None);
    let bearer = format!("Bearer {}", h.token);
    let wrong = format!("Bearer {}", "0".repeat(h.token.len()));

    // Without the token, or with another, nothing is served.
    for auth in [None, Some(wrong.as_str())] {
        let mut headers = vec![ACCEPT, JSON];
        headers.extend(auth.map(|a| ("Authorization", a)));
        let (status, body) = d.http_post(&h.url, &headers, initialize());
        assert_eq!(status, 401, "{auth:?}: {body}");
    }
    // A page of another origin (DNS rebinding) is refused with the token;
    // the server's own origin is not.
    let evil = [
        ACCEPT,
        JSON,
        ("Authorization", bearer.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let (status, body) = d.http_post(&h.url, &evil, initialize());
    assert_eq!(status, 403, "{body}");
    let origin = h.origin();
    let own = [
        ACCEPT,
        JSON,
        ("Authorization", bearer.as_str()),
        ("Origin", origin.as_str()),
    ];
    let (status, body) = d.http_post(&h.url, &own, initialize());
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        messages(&body)[0]["result"]["serverInfo"]["name"],
        "sightline",
        "{body}"
    );

    // The token it made is its owner's alone.
    let file = h.token_file.clone().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), h.token);

    // The Python SDK's HTTP client: the tools, an answer with its
    // structured content (checked by the SDK against the output schema),
    // and a subscription that hears the file change.
    d.open_http("h", &h);
    let listed = d.send(json!({ "cmd": "list", "session": "h" }));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, questions_in_readme());
    let over_http = d.call("h", "lsp_diagnostics", json!({ "file": bad }));
    assert!(
        over_http.text.starts_with("bad.py: 1 diagnostic"),
        "{over_http:?}"
    );
    let structured = over_http.structured.clone().unwrap();
    assert_eq!(structured["text"], over_http.text.as_str());
    assert_eq!(structured["complete"], true);
    let uri = format!("sightline://diagnostics{}", bad.display());
    let sub = d.send(json!({ "cmd": "subscribe", "session": "h", "uri": uri }));
    assert_eq!(sub["subscribed"], uri.as_str(), "{sub}");
    std::fs::write(&bad, "from app import total\n\nx: int = total(1, 2)\n").unwrap();
    let heard = d.send(json!({ "cmd": "updated", "session": "h", "uri": uri, "seconds": 60 }));
    assert_eq!(heard["updated"], uri.as_str(), "{heard}");
    let fixed = d.call("h", "lsp_diagnostics", json!({ "file": bad }));
    assert_eq!(fixed.text, "bad.py: no diagnostics\n");
    std::fs::write(&bad, BAD).unwrap();

    // The stateless revision (2026-07-28): no session, the client named in
    // the request's own metadata (Claude Code, which gets the text alone).
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "claude-code", "version": "9" },
    });
    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "lsp_diagnostics", "arguments": { "file": bad }, "_meta": meta } });
    let stateless = [
        ACCEPT,
        JSON,
        ("Authorization", bearer.as_str()),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "lsp_diagnostics"),
    ];
    let (status, body) = d.http_post(&h.url, &stateless, call);
    assert_eq!(status, 200, "{body}");
    let answer = messages(&body).into_iter().find(|m| m["id"] == 7).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        over_http.text.as_str(),
        "{body}"
    );
    assert!(
        answer["result"].get("structuredContent").is_none(),
        "{body}"
    );

    // A stdio session of the same project is the same daemon's: the same
    // answer, and one pyright for the two.
    d.open("s", p.root());
    let over_stdio = d.call("s", "lsp_diagnostics", json!({ "file": bad }));
    assert_eq!(over_stdio.text, over_http.text);
    let status = d.daemon_status();
    let servers: Vec<&Value> = status["servers"].as_array().unwrap().iter().collect();
    assert_eq!(servers.len(), 1, "{status:#}");
    assert_eq!(servers[0]["id"], "pyright", "{status:#}");
    // No agent's session, over HTTP or stdio, stops (or reads) the daemon
    // every session shares: those are a control session's alone.
    for session in ["h", "s"] {
        for tool in ["sightline_daemon_stop", "sightline_daemon_status"] {
            let refused = d.protocol_error(session, tool, json!({}));
            let message = refused["message"].as_str().unwrap();
            assert!(
                message.contains("unknown tool"),
                "{session} {tool}: {refused}"
            );
        }
    }
    assert_eq!(d.daemon_status()["pid"], status["pid"]);
    d.close("s");
    d.close("h");

    // Stopped, it takes its token with it.
    assert!(h.stop().success());
    assert!(!file.exists(), "{} outlived the server", file.display());
}

#[test]
fn the_typescript_sdk_s_http_client_gets_the_same_answers_and_subscription() {
    require("pyright-langserver");
    let p = ts_sdk_project();
    let app = p.root().join("app.py");
    let mut d = McpDriver::start();
    let token = "a-token-of-the-test-0123456789";
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), format!("{token}\n")).unwrap();
    let token_file = file.path().display().to_string();
    let h = d.serve_http(
        p.root(),
        &["mcp", "--http", "0", "--token-file", &token_file],
        Some(token),
    );
    let seen = ts_sdk_saw(&h.url, p.root(), &app, &[token], &[]);
    assert_ts_sdk_saw(&seen, &app);
}

#[test]
fn in_process_http_answers_and_what_cannot_be_served_is_one_line() {
    require("pyright-langserver");
    let p = http_project();
    let bad = p.root().join("bad.py");
    let mut d = McpDriver::start();
    let h = d.serve_http(p.root(), &["mcp", "--no-daemon", "--http", "0"], None);
    d.open_http("h", &h);
    let answer = d.call("h", "lsp_diagnostics", json!({ "file": bad }));
    assert!(
        answer.text.starts_with("bad.py: 1 diagnostic"),
        "{answer:?}"
    );
    assert!(answer.text.contains("3:10 error"), "{answer:?}");
    d.close("h");
    drop(h);

    // Served to other machines (asked for), a client names the server by
    // whatever reaches it: any `Host`, the token still required.
    let remote = d.serve_http(
        p.root(),
        &[
            "mcp",
            "--no-daemon",
            "--http",
            "0.0.0.0:0",
            "--allow-remote",
        ],
        None,
    );
    let url = remote.url.replace("0.0.0.0", "127.0.0.1");
    let port = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_owned();
    let host = format!("devbox.lan:{port}");
    let bearer = format!("Bearer {}", remote.token);
    let named = [
        ACCEPT,
        JSON,
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
    ];
    let (status, body) = d.http_post(&url, &named, initialize());
    assert_eq!(status, 200, "{body}");
    let (status, _) = d.http_post(&url, &named[..3], initialize());
    assert_eq!(status, 401);
    drop(remote);

    // An address other machines reach, unless asked; a token file too
    // short to guard anything.
    let short = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(short.path(), "abc\n").unwrap();
    let short = short.path().display().to_string();
    for (args, says) in [
        (vec!["mcp", "--http", "0.0.0.0:0"], "--allow-remote"),
        (
            vec!["mcp", "--http", "0", "--token-file", &short],
            "at least 16",
        ),
        (vec!["mcp", "--http", "nowhere"], "not an address"),
    ] {
        let out = std::process::Command::new(sightline_bin())
            .args(&args)
            .current_dir(p.root())
            .envs(sightline_test_support::isolation::env())
            .env("PATH", path_with_tools())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(says),
            "{args:?}: {stderr}"
        );
    }
}

/// The daemon killed during a call over HTTP: the call is answered at once
/// with what happened (not left waiting), and the session's next call is
/// answered by a new daemon, as over stdio.
#[test]
fn the_daemon_killed_during_an_http_call_answers_it_and_the_session_goes_on() {
    use super::daemon::{pyrights_under, wait_until};
    use std::time::{Duration, Instant};
    require("pyright-langserver");
    let p = http_project();
    let bad = p.root().join("bad.py");
    let mut d = McpDriver::start();
    let h = d.serve_http(p.root(), &["mcp", "--http", "0"], None);
    d.open_http("h", &h);
    let daemon = u32::try_from(d.daemon_status()["pid"].as_u64().unwrap()).unwrap();
    // Killed as soon as its pyright runs: the call that started it is in
    // flight then.
    let killer = std::thread::spawn(move || {
        let started = wait_until(Duration::from_secs(60), || {
            !pyrights_under(daemon).is_empty()
        });
        let killing = Instant::now();
        // SAFETY: the daemon's pid, from its own status.
        unsafe { libc::kill(daemon as i32, libc::SIGKILL) };
        (started, killing)
    });
    let cut = d.call("h", "lsp_diagnostics", json!({ "file": bad }));
    let answered = Instant::now();
    let (started, killed) = killer.join().unwrap();
    assert!(started, "the daemon never started pyright");
    assert!(cut.is_error, "{}", cut.text);
    assert!(
        cut.text
            .starts_with("error: the sightline daemon exited during the call"),
        "{}",
        cut.text
    );
    assert!(answered >= killed);
    let again = d.call("h", "lsp_diagnostics", json!({ "file": bad }));
    assert!(
        again.text.starts_with("bad.py: 1 diagnostic"),
        "{}",
        again.text
    );
    assert_ne!(d.daemon_status()["pid"], json!(daemon));
    d.close("h");
}
