//! No client's credentials reach what sightline starts: a daemon started
//! from an environment holding an agent's keys (canaries) has none of them,
//! nor do the servers and formatters it starts.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::json;
use sightline_test_support::{DaemonDirs, Project, path_with_tools, sightline_bin};

/// An agent's keys, and what a developer's shell holds besides: database
/// and cache URLs, an SSH agent (a child could sign as the user), registry
/// and CI tokens, webhooks, a proxy with a password (with a scheme and
/// without), a registry token in a query string.
const CANARIES: &[(&str, &str)] = &[
    ("ANTHROPIC_API_KEY", "canary-anthropic"),
    ("OPENAI_API_KEY", "canary-openai"),
    ("GITHUB_TOKEN", "canary-github"),
    ("CLAUDE_CODE_MESSAGING_TOKEN", "canary-claude-code"),
    ("DATABASE_URL", "postgres://app:canary-database@db/app"),
    ("PGPASSWORD", "canary-pgpassword"),
    ("SSH_AUTH_SOCK", "/tmp/canary-ssh-agent.sock"),
    ("MYSQL_PWD", "canary-mysql"),
    ("REDIS_URL", "redis://:canary-redis@cache:6379"),
    ("npm_config__authToken", "canary-npm-auth"),
    ("HTTPS_PROXY", "http://me:canary-proxy@proxy:3128"),
    ("ALL_PROXY", "me:canary-bare-proxy@proxy:3128"),
    (
        "PIP_INDEX_URL",
        "https://pypi.example/simple?token=canary-index",
    ),
    ("SENTRY_DSN", "https://canary-sentry@o1.ingest.sentry.io/1"),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/canary-slack",
    ),
    ("DOCKER_AUTH_CONFIG", "{\"auths\":\"canary-docker\"}"),
    ("CI_JOB_JWT", "canary-ci-jwt"),
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

#[test]
fn an_untrusted_project_s_own_interpreter_is_never_run_and_its_packages_still_resolve() {
    sightline_test_support::require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "import canarypkg\n\nx: int = canarypkg.VALUE\n"),
        (
            ".venv/lib/python3.12/site-packages/canarypkg/__init__.py",
            "VALUE: str = \"a\"\n",
        ),
        (".venv/pyvenv.cfg", "home = /usr/bin\n"),
    ]);
    // The repository's interpreter: it would leave a mark, then answer as
    // python does.
    let marker = p.root().join("interpreter-ran");
    let python = p.path(".venv/bin/python");
    std::fs::create_dir_all(std::path::Path::new(&python).parent().unwrap()).unwrap();
    std::fs::write(
        &python,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec python3 \"$@\"\n",
            marker.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&python).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&python, perms).unwrap();
    let dirs = DaemonDirs::new();
    let config = dirs.runtime().join("config.json");
    std::fs::write(&config, "{}").unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = dirs
        .command(p.root(), &config, data.path())
        .args(["diagnostics", "app.py"])
        .env("PATH", path_with_tools())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The package in the project's virtualenv resolved (its type is
    // known), found by its directory.
    assert!(
        text.starts_with("app.py: 1 diagnostic\n3:10 error: Type \"str\" is not assignable to declared type \"int\""),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !marker.exists(),
        "pyright ran the untrusted project's .venv/bin/python"
    );
}
