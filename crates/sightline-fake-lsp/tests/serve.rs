//! The fake server on its own, over stdio with hand framing: it answers
//! `initialize`, publishes one error per `ERR` line of an opened file with
//! the document's version, counts its runs, and exits on `exit`.
//!
//! This test also makes `cargo test --workspace` build the fake's binary
//! (cargo builds a package's binaries for its integration tests), which
//! sightline's own fault and lifecycle tests run.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Before any test thread starts: this process's XDG and data directories
/// are its own (`sightline_test_support::isolation`).
#[ctor::ctor(unsafe)]
fn isolate() {
    sightline_test_support::isolation::isolate();
}

fn send(w: &mut impl Write, v: &Value) {
    let body = serde_json::to_vec(v).unwrap();
    write!(w, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
    w.write_all(&body).unwrap();
    w.flush().unwrap();
}

fn read(r: &mut impl BufRead) -> Value {
    let mut len = 0;
    loop {
        let mut line = String::new();
        assert!(
            r.read_line(&mut line).unwrap() > 0,
            "the fake closed stdout"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            len = n.parse().unwrap();
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn it_initializes_publishes_err_lines_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("a.fake");
    let uri = format!("file://{}", file.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_sightline-fake-lsp"))
        .arg("serve")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    );
    let init = read(&mut stdout);
    assert_eq!(init["id"], 1);
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    );
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": { "uri": uri, "languageId": "fake", "version": 3, "text": "ok\nalpha ERR\n" }
        } }),
    );
    let publish = loop {
        let m = read(&mut stdout);
        if m["method"] == "textDocument/publishDiagnostics" {
            break m;
        }
    };
    assert_eq!(publish["params"]["uri"], uri.as_str());
    assert_eq!(publish["params"]["version"], 3);
    let diags = publish["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{publish}");
    assert_eq!(diags[0]["range"]["start"]["line"], 1);
    send(
        &mut stdin,
        &json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null }),
    );
    send(&mut stdin, &json!({ "jsonrpc": "2.0", "method": "exit" }));
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(root.join("fake-lsp.runs")).unwrap(),
        "1"
    );
}
