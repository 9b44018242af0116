//! Configuration, trust, `sightline servers`, and installs, through the CLI.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use sightline_test_support::{
    Project, path_with_tools, repo_root, run_cli, sightline_bin, tools_bin,
};

/// Runs the CLI with a given data directory and environment; returns
/// (stdout, stderr, exit code).
fn cli(args: &[&str], data: &Path, env: &[(&str, &str)]) -> (String, String, i32) {
    let daemon = sightline_test_support::DaemonDirs::new();
    let out = Command::new(sightline_bin())
        .args(args)
        .envs(daemon.env())
        .env("SIGHTLINE_DATA_DIR", data)
        // No user configuration: an empty config home.
        .env("XDG_CONFIG_HOME", data)
        .env_remove("SIGHTLINE_CONFIG")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// `sightline --root P diagnostics P/REL` with the pinned servers on PATH,
/// no downloads, and `data` as the data directory (where trust is kept).
fn diagnostics_with_tools(p: &Project, rel: &str, data: &Path) -> (String, String, i32) {
    let path = sightline_test_support::path_with_tools();
    let file = p.path(rel);
    cli(
        &[
            "--root",
            p.root().to_str().unwrap(),
            "diagnostics",
            file.to_str().unwrap(),
        ],
        data,
        &[
            ("PATH", path.as_str()),
            ("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1"),
        ],
    )
}

#[test]
fn an_invalid_project_file_is_one_line_with_file_and_line() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("a.py", "x = 1\n"),
        (
            "sightline.jsonc",
            "{\n  // comments are fine\n  \"lsp\": { \"mine\": { \"command\": [\"m\"] } }\n}\n",
        ),
    ]);
    let data = tempfile::tempdir().unwrap();
    let file = p.path("a.py");
    let (out, _, code) = cli(
        &[
            "--root",
            p.root().to_str().unwrap(),
            "diagnostics",
            file.to_str().unwrap(),
        ],
        data.path(),
        &[],
    );
    assert_eq!(
        out,
        format!(
            "error: {}:3: lsp.\"mine\" is not a built-in server, so it needs \"command\" (such as [\"my-server\", \"--stdio\"]) and \"extensions\" (such as [\".foo\"])\n",
            p.path("sightline.jsonc").display()
        )
    );
    assert_eq!(code, 2);
}

#[test]
fn an_untrusted_project_command_does_not_run_until_trusted() {
    let p = Project::new(&[(".git/HEAD", ""), ("a.mine", "ERR here\n")]);
    // The project's server: it leaves a mark, then is the fake server.
    let fake = super::fake::fake_bin();
    p.write(
        "server.sh",
        &format!("#!/bin/sh\ntouch ran.mark\nexec {} serve\n", fake.display()),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p.path("server.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    p.write("sightline.json", "{\n  \"lsp\": {\n    \"mine\": { \"command\": [\"./server.sh\"], \"extensions\": [\".mine\"] }\n  }\n}\n");
    let data = tempfile::tempdir().unwrap();
    let root = p.root().to_str().unwrap();
    let file = p.path("a.mine");
    let ask = || {
        cli(
            &["--root", root, "diagnostics", file.to_str().unwrap()],
            data.path(),
            &[],
        )
    };
    let (out, _, code) = ask();
    assert_eq!(
        out,
        format!(
            "unavailable: the project configuration ({}:3) sets the command of mine, and {root} is not trusted, so it does not run; trust it with `sightline trust {root}`\n",
            p.path("sightline.json").display()
        )
    );
    assert_eq!(code, 2);
    assert!(!p.path("ran.mark").exists(), "an untrusted command ran");
    // `sightline servers` says the same.
    let (servers, _, _) = cli(&["--root", root, "servers"], data.path(), &[]);
    let line = servers.lines().find(|l| l.starts_with("mine ")).unwrap();
    assert!(
        line.contains(".mine") && line.contains("is not trusted"),
        "{line}"
    );
    // Trust is granted explicitly, and then the command runs.
    let (out, _, code) = cli(&["trust", root], data.path(), &[]);
    assert_eq!(
        (out.as_str(), code),
        (
            format!("trusted {root}: commands in its sightline.json may run\n").as_str(),
            0
        )
    );
    let (out, _, code) = ask();
    assert_eq!(out, "a.mine: 1 diagnostic\n1:1 error: found ERR [fake]\n");
    assert_eq!(code, 1);
    assert!(p.path("ran.mark").exists());
    let (out, _, _) = cli(&["trust", "--revoke", root], data.path(), &[]);
    assert_eq!(out, format!("{root} is no longer trusted\n"));
}

/// The bypass found in review: a project's `env` for pyright ran a script
/// through `NODE_OPTIONS` without trust. Now every key that changes how a
/// program starts is ignored (and said so) until the project is trusted.
#[test]
fn an_untrusted_project_cannot_change_how_a_server_starts() {
    sightline_test_support::require("pyright-langserver");
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("app.py", "x: int = \"s\"\n"),
        (
            "evil.js",
            "require('fs').writeFileSync(__dirname + '/evil.mark', 'ran');\n",
        ),
        (
            "sightline.json",
            "{\n  \"sandbox\": \"danger-full-access\",\n  \"lsp\": {\n    \"pyright\": {\n      \"env\": { \"NODE_OPTIONS\": \"--require ./evil.js\" },\n      \"network\": true,\n      \"initialization\": { \"tsdk\": \"./evil\", \"checkOnSave\": false }\n    }\n  }\n}\n",
        ),
    ]);
    let data = tempfile::tempdir().unwrap();
    let root = p.root().to_str().unwrap();
    let ask = || diagnostics_with_tools(&p, "app.py", data.path());
    let (out, _, code) = ask();
    let json = p.path("sightline.json");
    let json = json.display();
    assert!(out.starts_with("app.py: 1 diagnostic\n"), "{out}");
    assert!(out.contains("\n1:10 error: Type"), "{out}");
    assert!(
        out.contains(&format!(
            "note: {root} is not trusted, so its configuration's sandbox ({json}:2), lsp.pyright.env ({json}:4), lsp.pyright.network ({json}:4), lsp.pyright.initialization.tsdk ({json}:4) were ignored; trust it with `sightline trust {root}`\n"
        )),
        "{out}"
    );
    assert_eq!(code, 1);
    assert!(
        !p.path("evil.mark").exists(),
        "the project's NODE_OPTIONS ran"
    );
    let (config, _, _) = cli(&["--root", root, "config"], data.path(), &[]);
    assert!(!config.contains("danger-full-access"), "{config}");
    assert!(
        config.contains(&format!("# ignored until trusted: sandbox ({json}:2), ")),
        "{config}"
    );
    // Trusted, the same keys apply: the script runs (so the check above can
    // fail), and the note is gone.
    cli(&["trust", root], data.path(), &[]);
    let (out, _, _) = ask();
    assert!(!out.contains("note:"), "{out}");
    assert!(
        p.path("evil.mark").exists(),
        "trusted, NODE_OPTIONS applies"
    );
}

/// A repository can commit `node_modules/.bin/pyright-langserver`: the
/// program a project ships runs only once the project is trusted.
#[test]
fn a_server_the_project_ships_runs_only_when_trusted() {
    sightline_test_support::require("pyright-langserver");
    let real = sightline_test_support::tools_bin().join("pyright-langserver");
    let p = Project::new(&[("pyproject.toml", ""), ("app.py", "x: int = \"s\"\n")]);
    p.write(
        "node_modules/.bin/pyright-langserver",
        &format!(
            "#!/bin/sh\ntouch local.mark\nexec {} \"$@\"\n",
            real.display()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    let script = p.path("node_modules/.bin/pyright-langserver");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = tempfile::tempdir().unwrap();
    let root = p.root().to_str().unwrap();
    let ask = || diagnostics_with_tools(&p, "app.py", data.path());
    let (out, _, _) = ask();
    assert!(
        out.starts_with("app.py: 1 diagnostic\n1:10 error: Type"),
        "{out}"
    );
    assert!(
        !p.path("local.mark").exists(),
        "the project's own server ran untrusted"
    );
    cli(&["trust", root], data.path(), &[]);
    let (out, _, _) = ask();
    assert!(
        out.starts_with("app.py: 1 diagnostic\n1:10 error: Type"),
        "{out}"
    );
    assert!(
        p.path("local.mark").exists(),
        "trusted, the project's server runs"
    );
}

#[test]
fn an_override_without_a_command_keeps_discovery_and_needs_no_trust() {
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("a.py", "x: int = \"s\"\n"),
        (
            "sightline.json",
            "{ \"lsp\": { \"pyright\": { \"initialization\": { \"typeCheckingMode\": \"basic\" }, \"diagnostics\": { \"document_ms\": 8000 } } } }",
        ),
    ]);
    let (out, code) = run_cli(
        &[
            "--root",
            p.root().to_str().unwrap(),
            "diagnostics",
            p.path("a.py").to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        out.starts_with("a.py: 1 diagnostic\n1:10 error: Type \"Literal['s']\" is not assignable"),
        "{out}"
    );
    assert_eq!(code, 1);
    let data = tempfile::tempdir().unwrap();
    let (config, _, _) = cli(
        &["--root", p.root().to_str().unwrap(), "config"],
        data.path(),
        &[],
    );
    let origin = format!("({}:1)", p.path("sightline.json").display());
    assert!(
        config.contains(&format!(
            "lsp.pyright.initialization.typeCheckingMode = \"basic\"  {origin}"
        )),
        "{config}"
    );
    assert!(
        config.contains(&format!(
            "lsp.pyright.diagnostics.document_ms = 8000  {origin}"
        )),
        "{config}"
    );
    assert!(
        config.contains("sandbox = \"workspace-write\"  (default)"),
        "{config}"
    );
}

#[test]
fn schema_is_json_schema() {
    let data = tempfile::tempdir().unwrap();
    let (out, _, code) = cli(&["schema"], data.path(), &[]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert!(v["properties"]["lsp"].is_object());
}

#[test]
fn servers_lists_installed_and_missing() {
    let data = tempfile::tempdir().unwrap();
    let here = tempfile::tempdir().unwrap();
    // Only the pinned test servers are on PATH.
    let path = tools_bin().display().to_string();
    let (out, _, code) = cli(
        &["--root", here.path().to_str().unwrap(), "servers"],
        data.path(),
        &[("PATH", &path)],
    );
    assert_eq!(code, 0);
    let repo = repo_root().display().to_string();
    insta::with_settings!({ filters => vec![
        (repo.as_str(), "[REPO]"),
        (r"installed \d+\.\d+\.\d+ at", "installed [VERSION] at"),
        (r"Landlock ABI \d+", "Landlock ABI [N]"),
    ] }, {
        insta::assert_snapshot!("servers", out);
    });
    let (json, _, _) = cli(
        &["--root", here.path().to_str().unwrap(), "--json", "servers"],
        data.path(),
        &[("PATH", &path)],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let pyright = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "pyright")
        .unwrap();
    assert_eq!(pyright["state"], "installed");
    assert_eq!(pyright["version"], "1.1.414");
    let gopls = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "gopls")
        .unwrap();
    assert_eq!(gopls["state"], "missing");
}

#[test]
fn no_install_runs_with_downloads_disabled() {
    // One file for every server sightline could install by itself.
    let mut files: Vec<(String, String)> = vec![(".git/HEAD".into(), String::new())];
    for spec in sightline::BUILTIN
        .iter()
        .filter(|s| s.installable() && s.role == sightline::Role::Primary)
    {
        let ext = spec.extensions.first().copied().unwrap_or(".txt");
        files.push((format!("{}{ext}", spec.id.replace(' ', "_")), "x\n".into()));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = Project::new(&refs);
    let data = tempfile::tempdir().unwrap();
    let mut asked = 0;
    for (name, _) in files.iter().skip(1) {
        let (out, err, code) = cli(
            &[
                "--root",
                p.root().to_str().unwrap(),
                "diagnostics",
                p.path(name).to_str().unwrap(),
            ],
            data.path(),
            &[
                ("PATH", "/nonexistent"),
                ("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1"),
            ],
        );
        assert!(out.starts_with("unavailable: no "), "{name}: {out}");
        assert!(
            out.contains("unset SIGHTLINE_DISABLE_LSP_DOWNLOAD"),
            "{name}: {out}"
        );
        assert!(!err.contains("installing"), "{name}: {err}");
        assert_eq!(code, 2);
        asked += 1;
    }
    assert!(asked >= 15, "only {asked} installable servers");
    assert!(
        !data.path().join("servers").exists(),
        "something was installed"
    );
}

#[test]
fn install_happens_once_when_two_run_together_and_a_failure_leaves_nothing() {
    let data = tempfile::tempdir().unwrap();
    let path = path_with_tools();
    let start = || {
        Command::new(sightline_bin())
            .args(["install", "bash"])
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", data.path())
            .env_remove("SIGHTLINE_CONFIG")
            // The installed copy, not the one in tools/, must be the answer.
            .env(
                "PATH",
                path.replace(&format!("{}:", tools_bin().display()), ""),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    for o in [&a, &b] {
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("bash")
                && out.contains(&data.path().join("servers/bash").display().to_string()),
            "{out}"
        );
    }
    let installs = [&a, &b]
        .iter()
        .filter(|o| {
            String::from_utf8_lossy(&o.stderr)
                .contains("sightline: installing bash-language-server@5.8.1")
        })
        .count();
    assert_eq!(installs, 1, "the install ran {installs} times");
    // A failing install (an unreachable registry) leaves nothing behind.
    let failed = tempfile::tempdir().unwrap();
    let (out, _, code) = cli(
        &["install", "yaml-ls"],
        failed.path(),
        &[
            (
                "PATH",
                &path.replace(&format!("{}:", tools_bin().display()), ""),
            ),
            ("npm_config_registry", "http://127.0.0.1:9/"),
            ("npm_config_fetch_retries", "0"),
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with("unavailable: installing yaml-ls failed"),
        "{out}"
    );
    let left: Vec<_> = std::fs::read_dir(failed.path().join("servers"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.iter().all(|n| n.to_string_lossy().ends_with(".lock")),
        "{left:?}"
    );
}

#[test]
fn a_failed_install_is_said_at_once_with_its_cause_and_not_tried_on_every_question() {
    // Through one daemon: the registry is unreachable, so yaml-ls's install
    // fails; the next question answers that failure at once, saying when
    // it is tried again, instead of running the install again.
    let p = Project::new(&[("pyproject.toml", ""), ("a.yaml", "a: 1\n")]);
    let data = tempfile::tempdir().unwrap();
    let daemon = sightline_test_support::DaemonDirs::new();
    let path = path_with_tools().replace(&format!("{}:", tools_bin().display()), "");
    let ask = || {
        let out = Command::new(sightline_bin())
            .args(["diagnostics", "a.yaml"])
            .current_dir(p.root())
            .envs(daemon.env())
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", data.path())
            .env_remove("SIGHTLINE_CONFIG")
            .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "")
            .env("PATH", &path)
            .env("npm_config_registry", "http://127.0.0.1:9/")
            .env("npm_config_fetch_retries", "0")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    let first = ask();
    assert!(first.contains("installing yaml-ls failed"), "{first}");
    assert!(!first.contains("sightline tries again in"), "{first}");
    let second = ask();
    assert!(second.contains("installing yaml-ls failed"), "{second}");
    assert!(
        second.contains("s ago; sightline tries again in"),
        "the second question ran the install again: {second}"
    );
    assert!(
        !second.contains("sightline: installing yaml-language-server"),
        "{second}"
    );
    assert!(
        daemon.log().contains("install: installing yaml-ls failed"),
        "the log says why"
    );
}
