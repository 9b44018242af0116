//! Diagnostics as MCP resources, through the official Python SDK: a file's
//! (a template), the workspace's and the capability report are listed and
//! read, each read the same answer as the tool's; a subscription to a
//! file's diagnostics hears `notifications/resources/updated` when the file
//! changes on disk, and the read after it has the new error. Through the
//! daemon and in process.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{Project, path_with_tools, require};

const APP: &str = "def total(a: int, b: int) -> int:\n    return a + b\n";

fn read(d: &mut McpDriver, session: &str, uri: &str) -> String {
    let r = d.send(json!({ "cmd": "read", "session": session, "uri": uri }));
    r["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"))
        .to_owned()
}

#[test]
fn a_file_s_diagnostics_are_a_resource_whose_subscription_hears_each_change_on_disk() {
    require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("app.py", APP),
    ]);
    let app = p.root().join("app.py");
    let uri = format!("sightline://diagnostics{}", app.display());
    let mut d = McpDriver::start();
    for (session, args) in [
        ("daemon", vec!["mcp"]),
        ("in_process", vec!["mcp", "--no-daemon"]),
    ] {
        std::fs::write(&app, APP).unwrap();
        d.open_args(session, p.root(), &path_with_tools(), &args);
        let listed = d.send(json!({ "cmd": "resources", "session": session }));
        let uris: Vec<&str> = listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            ["sightline://diagnostics", "sightline://capabilities"],
            "{listed}"
        );
        assert_eq!(
            listed["templates"][0]["uriTemplate"], "sightline://diagnostics{+path}",
            "{listed}"
        );

        // A read is the tool's answer.
        let tool = d.call(session, "lsp_diagnostics", json!({ "file": app }));
        assert_eq!(read(&mut d, session, &uri), tool.text);
        assert_eq!(tool.text, "app.py: no diagnostics\n");

        // Subscribed, it hears the file change on disk, and reads the error.
        let sub = d.send(json!({ "cmd": "subscribe", "session": session, "uri": uri }));
        assert_eq!(sub["subscribed"], uri.as_str(), "{sub}");
        std::fs::write(&app, format!("{APP}\nx: str = total(1, 2)\n")).unwrap();
        let heard =
            d.send(json!({ "cmd": "updated", "session": session, "uri": uri, "seconds": 60 }));
        assert_eq!(heard["updated"], uri.as_str(), "{heard}");
        let after = read(&mut d, session, &uri);
        assert!(after.starts_with("app.py: 1 diagnostic"), "{after}");
        assert!(after.contains("4:10 error"), "{after}");

        // Only a file's diagnostics can be subscribed to.
        let refused = d.send(
            json!({ "cmd": "subscribe", "session": session, "uri": "sightline://diagnostics" }),
        );
        assert!(
            refused["protocol_error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("only a file's diagnostics"),
            "{refused}"
        );
        // The workspace's and the capability report.
        let all = read(&mut d, session, "sightline://diagnostics");
        assert!(all.starts_with("1 error in 1 file"), "{all}");
        let capabilities = read(&mut d, session, "sightline://capabilities");
        assert!(capabilities.contains("Python: pyright ("), "{capabilities}");
        let unknown =
            d.send(json!({ "cmd": "read", "session": session, "uri": "sightline://nothing" }));
        assert!(unknown.get("protocol_error").is_some(), "{unknown}");
        d.close(session);
    }
}

/// The same through the official MCP TypeScript SDK (pinned in
/// tools/package.json), whose `Client.callTool` checks each result's
/// structured content against the tool's output schema itself: through the
/// daemon, the tool list with output schemas, references and diagnostics
/// with their values, the resources read, and a subscription that hears
/// the file change.
#[test]
fn the_typescript_sdk_validates_the_structured_answers_and_hears_a_subscription() {
    require("pyright-langserver");
    let p = ts_sdk_project();
    let app = p.root().join("app.py");
    let daemon = sightline_test_support::DaemonDirs::new();
    let data = tempfile::tempdir().unwrap();
    let bin = sightline_test_support::sightline_bin();
    let mut env: Vec<(&str, std::path::PathBuf)> = daemon.env();
    env.push(("SIGHTLINE_DATA_DIR", data.path().to_owned()));
    let seen = ts_sdk_saw(&bin.display().to_string(), p.root(), &app, &[], &env);
    assert_ts_sdk_saw(&seen, &app);
}

/// The project the TypeScript SDK's check runs in: `app.py` (`APP`) and
/// `use.py`, which calls its `total`.
pub(super) fn ts_sdk_project() -> Project {
    Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("app.py", APP),
        ("use.py", "from app import total\n\nprint(total(1, 2))\n"),
    ])
}

/// What `tests/mcp/ts_sdk_check.mjs` saw through `target` (this build's
/// `sightline`, or an HTTP endpoint whose token is `args[0]`), run in
/// `cwd` on `app` with the private directories and `env`.
pub(super) fn ts_sdk_saw(
    target: &str,
    cwd: &std::path::Path,
    app: &std::path::Path,
    args: &[&str],
    env: &[(&str, std::path::PathBuf)],
) -> serde_json::Value {
    let sdk =
        sightline_test_support::repo_root().join("tools/node_modules/@modelcontextprotocol/sdk");
    assert!(
        sdk.join("package.json").is_file(),
        "the MCP TypeScript SDK is not at {}; run tools/install",
        sdk.display()
    );
    let out = std::process::Command::new("node")
        .arg(
            sightline_test_support::repo_root().join("crates/sightline/tests/mcp/ts_sdk_check.mjs"),
        )
        .arg(&sdk)
        .arg(target)
        .arg(cwd)
        .arg(app)
        .arg(format!("{APP}\nx: str = total(1, 2)\n"))
        .args(args)
        .envs(sightline_test_support::isolation::env())
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .env("PATH", path_with_tools())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(said.trim()).unwrap()
}

/// What the TypeScript SDK must have seen of `ts_sdk_project()`: every tool
/// with an output schema, the references and diagnostics with their
/// values, the resources read, and a subscription that heard `app` change.
pub(super) fn assert_ts_sdk_saw(seen: &serde_json::Value, app: &std::path::Path) {
    assert!(seen.get("error").is_none(), "{seen:#}");
    assert_eq!(
        seen["tools"],
        json!(sightline_test_support::mcp::questions_in_readme()),
        "{seen:#}"
    );
    assert_eq!(seen["every_tool_has_an_output_schema"], true, "{seen:#}");
    let refs = &seen["references"];
    assert_eq!(refs["structured"]["text"], refs["text"], "{seen:#}");
    assert_eq!(refs["structured"]["complete"], true, "{seen:#}");
    assert_eq!(refs["structured"]["answer"]["count"], 2, "{seen:#}");
    assert_eq!(
        seen["diagnostics"]["text"], "app.py: no diagnostics\n",
        "{seen:#}"
    );
    assert_eq!(seen["templates"], json!(["sightline://diagnostics{+path}"]));
    assert_eq!(seen["read"], "app.py: no diagnostics\n", "{seen:#}");
    let uri = format!("sightline://diagnostics{}", app.display());
    assert_eq!(seen["updated"], uri.as_str(), "{seen:#}");
    assert!(
        seen["read_after"]
            .as_str()
            .unwrap()
            .starts_with("app.py: 1 diagnostic"),
        "{seen:#}"
    );
}

/// What happens to a server reaches the client as log messages: its start
/// (info), and after it is killed, its exit (warning) and its new start.
/// In process, where the test can find the server among the session's
/// children, and through the daemon.
#[test]
fn a_server_s_start_and_crash_are_log_messages() {
    require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"a\"\n"),
        ("app.py", APP),
    ]);
    let app = p.root().join("app.py");
    let mut d = McpDriver::start();
    let opened = d.open_args("s", p.root(), &path_with_tools(), &["mcp", "--no-daemon"]);
    let pid = opened["pid"].as_u64().unwrap() as u32;
    let logs = |d: &mut McpDriver, contains: &str| -> Vec<(String, String)> {
        let r =
            d.send(json!({ "cmd": "logs", "session": "s", "contains": contains, "seconds": 60 }));
        r["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["level"].as_str().unwrap().to_owned(),
                    m["data"].to_string(),
                )
            })
            .collect()
    };
    assert!(
        !d.call("s", "lsp_diagnostics", json!({ "file": app }))
            .is_error
    );
    let started = format!("pyright for {} started", p.root().display());
    let seen = logs(&mut d, &started);
    assert!(
        seen.iter()
            .any(|(level, text)| level == "info" && text.contains(&started)),
        "{seen:?}"
    );
    // Killed behind sightline's back, the next question finds it gone.
    let pyright: Vec<u32> = sightline_test_support::descendants(pid)
        .into_iter()
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/cmdline"))
                .is_ok_and(|cmd| cmd.contains("pyright"))
        })
        .collect();
    assert!(!pyright.is_empty(), "no pyright under {pid}");
    for c in &pyright {
        let _ = std::process::Command::new("kill")
            .args(["-9", &c.to_string()])
            .status();
    }
    sightline_test_support::poll_until(std::time::Duration::from_secs(30), || {
        pyright
            .iter()
            .all(|c| !sightline_test_support::alive(*c))
            .then_some(())
    })
    .expect("pyright did not die");
    // A question the moment after the crash may still reach the dead
    // server and say so; the next one finds it gone and starts another.
    let after = d.call("s", "lsp_diagnostics", json!({ "file": app }));
    if after.is_error {
        assert_eq!(after.text, "error: pyright exited\n");
        let again = d.call("s", "lsp_diagnostics", json!({ "file": app }));
        assert!(!again.is_error, "{}", again.text);
    }
    let seen = logs(&mut d, "has exited");
    assert!(
        seen.iter().any(|(level, text)| level == "warning"
            && text.contains("pyright for ")
            && text.contains("has exited")),
        "{seen:?}"
    );
    // The new start is told too; it may come after the exit's message,
    // and after the answer.
    let starts = sightline_test_support::poll_until(std::time::Duration::from_secs(60), || {
        let seen = logs(&mut d, &started);
        let n = seen.iter().filter(|(_, t)| t.contains(&started)).count();
        (n >= 2).then_some(n)
    });
    assert_eq!(starts, Some(2), "the new start was not told");
    d.close("s");

    // A session that serves no lsp_check lists no workspace resource.
    d.open_args(
        "minimal",
        p.root(),
        &path_with_tools(),
        &["mcp", "--tools", "minimal"],
    );
    let listed = d.send(json!({ "cmd": "resources", "session": "minimal" }));
    assert!(
        !listed.to_string().contains("\"sightline://diagnostics\""),
        "{listed}"
    );
    let refused =
        d.send(json!({ "cmd": "read", "session": "minimal", "uri": "sightline://diagnostics" }));
    assert!(refused.get("protocol_error").is_some(), "{refused}");
    d.close("minimal");

    // Through the daemon, the same start.
    d.open("daemon", p.root());
    assert!(
        !d.call("daemon", "lsp_diagnostics", json!({ "file": app }))
            .is_error
    );
    let r =
        d.send(json!({ "cmd": "logs", "session": "daemon", "contains": started, "seconds": 60 }));
    assert!(r.to_string().contains(&started), "{r}");
    d.close("daemon");
}
