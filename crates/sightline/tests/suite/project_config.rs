//! One configuration rule for every face and mode: a file's answers use the
//! user file merged with the nearest `sightline.json` above the file, in the
//! CLI through the daemon (the default) and in process, in `batch` and over
//! MCP, whether the command runs in the project's directory or elsewhere.
//! Each case is a disabled server, an invalid entry and pyright `settings`,
//! answered by the real pyright.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use sightline_test_support::cli::{Input, run_with_stdin};

use serde_json::json;
use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{DaemonDirs, Project, path_with_tools, require, sightline_bin};

const OFF: &str = "unavailable: every server for this file is turned off in the configuration";
const MISSING: &str =
    "app.py: 1 diagnostic\n1:8 error: Import \"nothere\" could not be resolved [Pyright]\n";

/// One user's world: a daemon of its own, and private data and config
/// directories, so that no test reads the user's own.
struct World {
    daemon: DaemonDirs,
    data: tempfile::TempDir,
    config: tempfile::TempDir,
    elsewhere: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        require("pyright-langserver");
        World {
            daemon: DaemonDirs::new(),
            data: tempfile::tempdir().unwrap(),
            config: tempfile::tempdir().unwrap(),
            elsewhere: tempfile::tempdir().unwrap(),
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .daemon
            .env()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.display().to_string()))
            .collect();
        env.extend([
            ("PATH".into(), path_with_tools()),
            (
                "SIGHTLINE_DATA_DIR".into(),
                self.data.path().display().to_string(),
            ),
            (
                "XDG_CONFIG_HOME".into(),
                self.config.path().display().to_string(),
            ),
            ("SIGHTLINE_DISABLE_LSP_DOWNLOAD".into(), "1".into()),
        ]);
        env
    }

    /// `sightline ARGS` run in `cwd`, with `stdin`; (stdout, exit status).
    fn run(&self, cwd: &Path, args: &[&str], stdin: &str) -> (String, i32) {
        run_with_stdin(
            Command::new(sightline_bin())
                .args(args)
                .current_dir(cwd)
                .env_remove("SIGHTLINE_NO_DAEMON")
                .env_remove("SIGHTLINE_DAEMON")
                .envs(self.env()),
            // A face that answers a broken project file's error line at
            // once may exit before it reads stdin: its answer counts.
            stdin,
            Input::MayBeUnread,
        )
    }

    /// `diagnostics FILE` in every face and mode, from the project and from
    /// elsewhere: each answer, labelled.
    fn every_face(&self, p: &Project, file: &str) -> Vec<(String, String)> {
        let abs = p.path(file).display().to_string();
        let mut answers = Vec::new();
        for (place, cwd) in [("project", p.root()), ("elsewhere", self.elsewhere.path())] {
            let arg = if cwd == p.root() { file } else { abs.as_str() };
            let (daemon, _) = self.run(cwd, &["diagnostics", arg], "");
            answers.push((format!("daemon CLI from {place}"), daemon));
            let (own, _) = self.run(cwd, &["--no-daemon", "diagnostics", arg], "");
            answers.push((format!("in-process CLI from {place}"), own));
            let (batch, _) = self.run(cwd, &["batch"], &format!("diagnostics {abs}\n"));
            answers.push((
                format!("batch from {place}"),
                batch.trim_end().to_owned() + "\n",
            ));
            answers.push((format!("MCP from {place}"), self.mcp(cwd, &abs)));
        }
        assert!(
            self.daemon.runtime().join("sightline/daemon.pid").is_file(),
            "the CLI's questions did not go through the daemon"
        );
        answers
    }

    /// `lsp_diagnostics` over MCP (through the daemon) from `cwd`.
    fn mcp(&self, cwd: &Path, file: &str) -> String {
        let mut d = McpDriver::start();
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let opened = d.open_env("s", cwd, &path_with_tools(), &["mcp"], &env);
        assert!(opened.get("error").is_none(), "{opened}");
        let r = d.call("s", "lsp_diagnostics", json!({ "file": file }));
        d.close("s");
        r.text
    }
}

fn assert_all(answers: &[(String, String)], check: impl Fn(&str) -> bool, what: &str) {
    for (face, answer) in answers {
        assert!(check(answer), "{face}: expected {what}, got {answer:?}");
    }
}

#[test]
fn a_server_the_project_file_turns_off_is_off_in_every_face_and_from_any_directory() {
    let w = World::new();
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "x: int = \"a\"\n"),
        (
            "sightline.json",
            r#"{ "lsp": { "pyright": { "disabled": true } } }"#,
        ),
    ]);
    let answers = w.every_face(&p, "app.py");
    assert_all(&answers, |a| a.starts_with(OFF), OFF);
}

#[test]
fn an_invalid_project_entry_is_the_same_error_line_in_every_face_and_from_any_directory() {
    let w = World::new();
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "x = 1\n"),
        (
            "sightline.json",
            "{\n  \"lsp\": {\n    \"mylang\": { \"command\": [\"mylang-server\"] }\n  }\n}\n",
        ),
    ]);
    let expected = format!(
        "error: {}:3: lsp.\"mylang\" is not a built-in server, so it needs \"command\"",
        p.path("sightline.json").display()
    );
    let answers = w.every_face(&p, "app.py");
    assert_all(&answers, |a| a.starts_with(&expected), &expected);
}

#[test]
fn pyright_settings_of_the_project_file_apply_in_every_face_and_when_written_later() {
    let w = World::new();
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import nothere\n\nnothere.x = 1\n"),
    ]);
    // Without the file, every face sees the error.
    assert_all(&w.every_face(&p, "app.py"), |a| a == MISSING, MISSING);
    // The daemon answered: its pyright for the project served questions.
    let (status, code) = w.run(w.elsewhere.path(), &["daemon", "status", "--json"], "");
    assert_eq!(code, 0, "{status}");
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let root = p.root().display().to_string();
    assert!(
        status["servers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == "pyright"
                && s["root"].as_str() == Some(root.as_str())
                && s["requests"].as_u64().unwrap_or(0) > 0),
        "{status}"
    );
    // Written while the daemon's pyright runs: every face takes it in.
    p.write(
        "sightline.json",
        &json!({ "lsp": { "pyright": { "settings": { "python": { "analysis": {
            "diagnosticSeverityOverrides": { "reportMissingImports": "none" }
        } } } } } })
        .to_string(),
    );
    let quiet = "app.py: no diagnostics\n";
    assert_all(&w.every_face(&p, "app.py"), |a| a == quiet, quiet);
    // Edited while the servers run: the new severity reaches them live.
    p.write(
        "sightline.json",
        &json!({ "lsp": { "pyright": { "settings": { "python": { "analysis": {
            "diagnosticSeverityOverrides": { "reportMissingImports": "warning" }
        } } } } } })
        .to_string(),
    );
    let warned =
        "app.py: 1 diagnostic\n1:8 warning: Import \"nothere\" could not be resolved [Pyright]\n";
    assert_all(&w.every_face(&p, "app.py"), |a| a == warned, warned);
    // Removed again: the error is back everywhere.
    std::fs::remove_file(p.path("sightline.json")).unwrap();
    assert_all(&w.every_face(&p, "app.py"), |a| a == MISSING, MISSING);
}
