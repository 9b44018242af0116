//! The edit tools obey the sandbox mode their children obey: `read-only`
//! refuses every write, `workspace-write` refuses any path outside the
//! workspace (after `..` and symbolic links), every file of a patch and a
//! move's both ends included, and `danger-full-access` writes anywhere. A
//! refusal is one `error:` line and changes nothing; the formatters of a
//! refused write never run. Over MCP and through the CLI.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use sightline_test_support::cli::{Input, run_with_stdin};

use serde_json::json;

use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{DaemonDirs, path_with_tools, sightline_bin};

/// A workspace `ws` beside a directory `outside`, in one temporary
/// directory, with a user configuration of our own (none of this machine's)
/// whose formatter for `.txt` files records each run in `ws/formatted`.
struct Setup {
    _dir: tempfile::TempDir,
    /// The CLI's own daemon and data directory: its commands, the edits
    /// too, go through a daemon as a user's do.
    daemon: DaemonDirs,
    data: tempfile::TempDir,
    top: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
    config: PathBuf,
}

impl Setup {
    fn new(extra_config: serde_json::Value) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let (ws, outside) = (top.join("ws"), top.join("outside"));
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(ws.join("a.txt"), "one\n").unwrap();
        std::fs::write(outside.join("victim.txt"), "mine\n").unwrap();
        let mut config = json!({ "formatter": { "record": {
            "command": ["sh", "-c", format!("echo ran >> '{}'", ws.join("formatted").display())],
            "extensions": [".txt"],
        } } });
        if let (Some(c), Some(extra)) = (config.as_object_mut(), extra_config.as_object()) {
            c.extend(extra.clone());
        }
        let config_path = top.join("config.json");
        std::fs::write(&config_path, config.to_string()).unwrap();
        Setup {
            _dir: dir,
            daemon: DaemonDirs::new(),
            data: tempfile::tempdir().unwrap(),
            top,
            ws,
            outside,
            config: config_path,
        }
    }

    /// Starts `sightline [ARGS] mcp --edit-tools` in the workspace.
    fn mcp(&self, d: &mut McpDriver, session: &str, sandbox: &[&str]) {
        let mut args = sandbox.to_vec();
        args.extend(["mcp", "--edit-tools"]);
        d.open_env(
            session,
            &self.ws,
            &path_with_tools(),
            &args,
            &[("SIGHTLINE_CONFIG", self.config.to_str().unwrap())],
        );
    }

    /// Runs the CLI with `--root ws`, `stdin` as its input; (stdout, exit).
    fn cli(&self, args: &[&str], stdin: &str) -> (String, i32) {
        run_with_stdin(
            Command::new(sightline_bin())
                .arg("--root")
                .arg(&self.ws)
                .args(args)
                .env("PATH", path_with_tools())
                .envs(self.daemon.env())
                .env("SIGHTLINE_DATA_DIR", self.data.path())
                .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "1")
                .env("SIGHTLINE_CONFIG", &self.config),
            stdin,
            Input::Read,
        )
    }

    /// Every file and directory under the temporary directory, with each
    /// file's text (links as their targets): the state nothing may change.
    fn tree(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut dirs = vec![self.top.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let rel = p.strip_prefix(&self.top).unwrap().display().to_string();
                let t = e.file_type().unwrap();
                let what = if t.is_symlink() {
                    format!("-> {}", std::fs::read_link(&p).unwrap().display())
                } else if t.is_dir() {
                    dirs.push(p);
                    "dir".into()
                } else {
                    std::fs::read_to_string(&p).unwrap()
                };
                out.push((rel, what));
            }
        }
        out.sort();
        out
    }
}

fn outside_it(ws: &Path, what: &str) -> String {
    format!(
        "error: the sandbox mode workspace-write allows writes only inside {}; {what} outside it\n",
        ws.display()
    )
}

const READ_ONLY: &str = "error: the sandbox mode read-only allows no writes; write refused\n";

#[test]
fn read_only_refuses_every_edit_tool() {
    let s = Setup::new(json!({}));
    let before = s.tree();
    let mut d = McpDriver::start();
    s.mcp(&mut d, "ro", &["--sandbox", "read-only"]);
    for (tool, args) in [
        (
            "write",
            json!({ "file": s.ws.join("new.txt"), "content": "x\n" }),
        ),
        (
            "write",
            json!({ "file": s.ws.join("a.txt"), "content": "x\n" }),
        ),
        (
            "edit",
            json!({ "file": s.ws.join("a.txt"), "old": "one", "new": "two" }),
        ),
        (
            "apply_patch",
            json!({ "patch": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n" }),
        ),
        // Refused whatever the patch holds.
        ("apply_patch", json!({ "patch": "not a patch" })),
    ] {
        let a = d.call("ro", tool, args);
        assert_eq!((a.is_error, a.text.as_str()), (true, READ_ONLY), "{tool}");
    }
    // Reading stays open.
    let a = d.call("ro", "read", json!({ "file": s.ws.join("a.txt") }));
    assert_eq!((a.is_error, a.text.as_str()), (false, "     1\tone\n"));
    d.close("ro");
    let a_txt = s.ws.join("a.txt");
    let a_txt = a_txt.to_str().unwrap();
    for (args, stdin) in [
        (vec!["--sandbox", "read-only", "write", a_txt], "x\n"),
        (
            vec![
                "--sandbox",
                "read-only",
                "edit",
                a_txt,
                "--old",
                "one",
                "--new",
                "two",
            ],
            "",
        ),
        (
            vec!["--sandbox", "read-only", "apply-patch"],
            "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n",
        ),
    ] {
        assert_eq!(s.cli(&args, stdin), (READ_ONLY.to_owned(), 2), "{args:?}");
    }
    assert_eq!(s.tree(), before);
}

#[test]
fn workspace_write_refuses_every_path_outside_the_workspace() {
    let s = Setup::new(json!({}));
    let (ws, out) = (&s.ws, &s.outside);
    std::os::unix::fs::symlink(out, ws.join("link")).unwrap();
    std::os::unix::fs::symlink(out.join("victim.txt"), ws.join("victim.txt")).unwrap();
    let before = s.tree();
    let mut d = McpDriver::start();
    s.mcp(&mut d, "ww", &[]);
    let patch = |body: &str| json!({ "patch": format!("*** Begin Patch\n{body}*** End Patch\n") });
    let cases = [
        (
            "an absolute path outside",
            "write",
            json!({ "file": out.join("evil.py"), "content": "x = 1\n" }),
            format!("{} is", out.join("evil.py").display()),
        ),
        (
            "a .. escape",
            "write",
            json!({ "file": ws.join("../outside/evil2.py"), "content": "x = 1\n" }),
            format!(
                "{}/../outside/evil2.py resolves to {}, which is",
                ws.display(),
                out.join("evil2.py").display()
            ),
        ),
        (
            "a directory link pointing outside",
            "write",
            json!({ "file": ws.join("link/evil3.py"), "content": "x = 1\n" }),
            format!(
                "{} resolves to {}, which is",
                ws.join("link/evil3.py").display(),
                out.join("evil3.py").display()
            ),
        ),
        (
            "a file link pointing outside",
            "edit",
            json!({ "file": ws.join("victim.txt"), "old": "mine", "new": "theirs" }),
            format!(
                "{} resolves to {}, which is",
                ws.join("victim.txt").display(),
                out.join("victim.txt").display()
            ),
        ),
        (
            "a patch whose second file is outside",
            "apply_patch",
            patch(&format!(
                "*** Add File: first.txt\n+first\n*** Add File: {}\n+second\n",
                out.join("second.txt").display()
            )),
            format!("{} is", out.join("second.txt").display()),
        ),
        (
            "a move to outside",
            "apply_patch",
            patch("*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-one\n+uno\n"),
            format!(
                "{}/../outside/moved.txt resolves to {}, which is",
                ws.display(),
                out.join("moved.txt").display()
            ),
        ),
        (
            "a move from outside",
            "apply_patch",
            patch(&format!(
                "*** Update File: {}\n*** Move to: stolen.txt\n@@\n-mine\n+ours\n",
                out.join("victim.txt").display()
            )),
            format!("{} is", out.join("victim.txt").display()),
        ),
        (
            "a delete outside",
            "apply_patch",
            patch(&format!(
                "*** Delete File: {}\n",
                out.join("victim.txt").display()
            )),
            format!("{} is", out.join("victim.txt").display()),
        ),
    ];
    for (case, tool, args, what) in cases {
        let a = d.call("ww", tool, args);
        assert_eq!(
            (a.is_error, a.text),
            (true, outside_it(ws, &what)),
            "{case}"
        );
        assert_eq!(s.tree(), before, "{case}: something changed on disk");
    }
    // Inside, the same tools write (and the formatter runs).
    let a = d.call(
        "ww",
        "write",
        json!({ "file": ws.join("sub/../ok.txt"), "content": "ok\n" }),
    );
    assert!(!a.is_error, "{}", a.text);
    assert_eq!(std::fs::read_to_string(ws.join("ok.txt")).unwrap(), "ok\n");
    assert_eq!(
        std::fs::read_to_string(ws.join("formatted")).unwrap(),
        "ran\n"
    );
    d.close("ww");
}

#[test]
fn the_cli_refuses_outside_writes_and_runs_no_formatter_for_them() {
    let s = Setup::new(json!({}));
    let evil = s.outside.join("evil.txt");
    let before = s.tree();
    assert_eq!(
        s.cli(&["write", evil.to_str().unwrap()], "x\n"),
        (outside_it(&s.ws, &format!("{} is", evil.display())), 2)
    );
    let patch = "*** Begin Patch\n*** Add File: first.txt\n+first\n*** Add File: ../outside/second.txt\n+second\n*** End Patch\n";
    assert_eq!(
        s.cli(&["apply-patch"], patch),
        (
            outside_it(
                &s.ws,
                &format!(
                    "{}/../outside/second.txt resolves to {}, which is",
                    s.ws.display(),
                    s.outside.join("second.txt").display()
                )
            ),
            2
        )
    );
    let victim = s.outside.join("victim.txt");
    assert_eq!(
        s.cli(
            &[
                "edit",
                victim.to_str().unwrap(),
                "--old",
                "mine",
                "--new",
                "x"
            ],
            ""
        ),
        (outside_it(&s.ws, &format!("{} is", victim.display())), 2)
    );
    // Nothing written, and the formatter (which may write the workspace)
    // never ran.
    assert_eq!(s.tree(), before);
    // Without a sandbox, the same write goes through and is formatted.
    let (text, status) = s.cli(
        &[
            "--sandbox",
            "danger-full-access",
            "write",
            evil.to_str().unwrap(),
        ],
        "x\n",
    );
    assert_eq!(
        (text.as_str(), status),
        (
            format!("created {}\nno errors\n", evil.display()).as_str(),
            0
        )
    );
    assert_eq!(std::fs::read_to_string(&evil).unwrap(), "x\n");
    assert_eq!(
        std::fs::read_to_string(s.ws.join("formatted")).unwrap(),
        "ran\n"
    );
}

#[test]
fn danger_full_access_writes_anywhere() {
    let s = Setup::new(json!({}));
    let mut d = McpDriver::start();
    s.mcp(&mut d, "dfa", &["--sandbox", "danger-full-access"]);
    let evil = s.outside.join("evil.txt");
    let a = d.call("dfa", "write", json!({ "file": evil, "content": "x\n" }));
    assert_eq!(
        (a.is_error, a.text),
        (false, format!("created {}\nno errors\n", evil.display()))
    );
    let a = d.call(
        "dfa",
        "apply_patch",
        json!({ "patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-one\n+uno\n*** End Patch\n" }),
    );
    assert!(!a.is_error, "{}", a.text);
    d.close("dfa");
    assert_eq!(std::fs::read_to_string(&evil).unwrap(), "x\n");
    assert_eq!(
        std::fs::read_to_string(s.outside.join("moved.txt")).unwrap(),
        "uno\n"
    );
    assert!(!s.ws.join("a.txt").exists());
}

#[test]
fn writable_roots_from_the_user_configuration_widen_workspace_write() {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().canonicalize().unwrap().join("extra");
    let s = Setup::new(json!({ "writable_roots": [extra] }));
    let mut d = McpDriver::start();
    s.mcp(&mut d, "x", &[]);
    let a = d.call(
        "x",
        "write",
        json!({ "file": extra.join("new/ok.txt"), "content": "ok\n" }),
    );
    assert!(!a.is_error, "{}", a.text);
    let evil = s.outside.join("evil.txt");
    let a = d.call("x", "write", json!({ "file": evil, "content": "x\n" }));
    assert_eq!(
        (a.is_error, a.text),
        (
            true,
            format!(
                "error: the sandbox mode workspace-write allows writes only inside {}, {}; {} is outside them\n",
                s.ws.display(),
                extra.display(),
                evil.display()
            )
        )
    );
    d.close("x");
    assert_eq!(
        std::fs::read_to_string(extra.join("new/ok.txt")).unwrap(),
        "ok\n"
    );
    assert!(!evil.exists());
    // A project file may not widen what is written.
    std::fs::write(
        s.ws.join("sightline.json"),
        format!("{{\n  \"writable_roots\": [\"{}\"]\n}}\n", s.top.display()),
    )
    .unwrap();
    assert_eq!(
        s.cli(&["write", evil.to_str().unwrap()], "x\n"),
        (
            format!(
                "error: {}:2: \"writable_roots\" may only be set in the user configuration\n",
                s.ws.join("sightline.json").display()
            ),
            2
        )
    );
    assert!(!evil.exists());
}
