//! No client's credentials reach what sightline starts: a daemon started
//! from an environment holding an agent's keys (canaries) has none of them,
//! nor do the servers and formatters it starts.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::json;
use sightline_test_support::{DaemonDirs, Project, path_with_tools, sightline_bin};

const CANARIES: &[(&str, &str)] = &[
    ("ANTHROPIC_API_KEY", "canary-anthropic"),
    ("OPENAI_API_KEY", "canary-openai"),
    ("GITHUB_TOKEN", "canary-github"),
    ("CLAUDE_CODE_MESSAGING_TOKEN", "canary-claude-code"),
];

#[test]
fn a_daemon_started_with_an_agent_s_keys_gives_its_servers_and_formatters_none() {
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = 1\n")]);
    let dirs = DaemonDirs::new();
    // A formatter of the user's that writes down its own environment
    // (`$FILE.env`, in the project, which it may write).
    let config = dirs.runtime().join("config.json");
    std::fs::write(
        &config,
        json!({ "formatter": { "envdump": {
            "command": ["sh", "-c", "tr '\\000' '\\n' < /proc/$$/environ > \"$0.env\"", "$FILE"],
            "extensions": [".py"],
        } } })
        .to_string(),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(sightline_bin())
            .args(args)
            .current_dir(p.root())
            .env("PATH", path_with_tools())
            .env("SIGHTLINE_CONFIG", &config)
            .envs(dirs.env())
            .envs(CANARIES.iter().copied())
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // A question starts the daemon and pyright; a format runs the formatter.
    let (out, err) = run(&["diagnostics", "app.py"]);
    assert_eq!(out, "app.py: no diagnostics\n", "{err}");
    let (_, err) = run(&["format", "app.py"]);
    let dumped = std::fs::read_to_string(p.path("app.py.env"))
        .unwrap_or_else(|e| panic!("the formatter ran and wrote its environment: {e}; {err}"));
    assert!(dumped.contains("PATH="), "{dumped}");
    let needles: Vec<&str> = CANARIES.iter().map(|(_, v)| *v).collect();
    let leaked: Vec<&str> = dumped
        .lines()
        .filter(|l| needles.iter().any(|n| l.contains(n)))
        .collect();
    assert_eq!(leaked, Vec::<&str>::new(), "the formatter's environment");
    // The daemon itself, and pyright under it.
    assert!(
        !sightline_test_support::descendants(dirs.daemon_pid().unwrap()).is_empty(),
        "pyright runs under the daemon"
    );
    assert_eq!(dirs.environ_holding(&needles), Vec::<String>::new());
}
