//! The user's network settings reach the installers whichever client
//! started the daemon: a daemon started from an environment without any
//! certificate variable (as Gemini CLI starts its MCP servers) installs
//! pyright from an npm registry on loopback whose TLS certificate only the
//! user configuration's `network_env` CA trusts; without that setting, the
//! same install fails on the certificate and the registry is never asked.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sightline_test_support::process::succeeded;
use sightline_test_support::{DaemonDirs, Project, isolation, repo_root, sightline_bin};

/// `openssl` with `args` in `dir`, which must succeed.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl (the test CA is made with it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test CA (`ca.pem`) and a certificate it signed for 127.0.0.1
/// (`server.pem`, `server.key`) in `dir`.
fn test_ca(dir: &Path) {
    let subject = |cn: &str| format!("/CN={cn}");
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            &subject("sightline test CA"),
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            &subject("127.0.0.1"),
        ],
    );
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ],
    );
}

/// The pinned pyright that `tools/install` put in `tools/node_modules`,
/// packed as npm's tarball in `dir`, its `package.json` beside it.
fn pyright_tarball(dir: &Path) -> PathBuf {
    let package = repo_root().join("tools/node_modules/pyright");
    assert!(
        package.join("package.json").is_file(),
        "pyright is not in tools/node_modules: run `tools/install`"
    );
    succeeded(
        Command::new("npm")
            .args(["pack", "--ignore-scripts", "--pack-destination"])
            .arg(dir)
            .arg(&package)
            .env("npm_config_cache", dir.join("npm-cache")),
    );
    std::fs::copy(package.join("package.json"), dir.join("package.json")).unwrap();
    let version: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    dir.join(format!(
        "pyright-{}.tgz",
        version["version"].as_str().unwrap()
    ))
}

/// A `PATH` with npm and node (wherever they are installed) and the
/// system's directories, but no pyright: the first question installs it.
fn node_path() -> String {
    let npm = which::which("npm").expect("npm on PATH (the installer runs it)");
    let dir = npm.parent().unwrap().display().to_string();
    format!("{dir}:/usr/local/bin:/usr/bin:/bin")
}

/// `tests/fixtures/tls_registry.py` serving `tarball`; the paths it was
/// asked for, as they come.
struct Registry {
    child: Child,
    port: u16,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Registry {
    fn start(certs: &Path, tarball: &Path) -> Registry {
        let name = tarball.file_name().unwrap().to_str().unwrap();
        let version = name.trim_start_matches("pyright-").trim_end_matches(".tgz");
        let child = Command::new("python3")
            .arg(repo_root().join("crates/sightline/tests/fixtures/tls_registry.py"))
            .args([
                certs.join("server.pem"),
                certs.join("server.key"),
                tarball.to_owned(),
            ])
            .args(["pyright", version])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Owned at once: killed however this goes on.
        let mut registry = Registry {
            child,
            port: 0,
            asked: Arc::new(Mutex::new(Vec::new())),
        };
        let mut lines = BufReader::new(registry.child.stdout.take().unwrap()).lines();
        registry.port = lines.next().unwrap().unwrap().trim().parse().unwrap();
        let log = registry.asked.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                log.lock().unwrap().push(line);
            }
        });
        registry
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `sightline diagnostics` of a Python file through a new daemon, from an
/// environment with nothing but its paths, a fresh data directory
/// (pyright must be installed), a home of its own (npm's cache is empty)
/// and `network_env` as the user configuration's; stdout, stderr, exit.
fn first_question(network_env: Value) -> (String, String, i32) {
    let p = Project::new(&[("pyproject.toml", ""), ("ok.py", "x: int = 1\n")]);
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let config = home.path().join("sightline.json");
    std::fs::write(&config, json!({ "network_env": network_env }).to_string()).unwrap();
    let dirs = DaemonDirs::new();
    let mut cmd = Command::new(sightline_bin());
    // Nothing inherited: no proxy, no CA file, no registry setting.
    cmd.args(["diagnostics", p.path("ok.py").to_str().unwrap()])
        .env_clear()
        .envs(isolation::env())
        .envs(dirs.env())
        // npm's own directory, and no pyright.
        .env("PATH", node_path())
        .env("HOME", home.path())
        .env("SIGHTLINE_DATA_DIR", data.path())
        .env("SIGHTLINE_DISABLE_LSP_DOWNLOAD", "")
        .env("SIGHTLINE_CONFIG", &config);
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn an_install_trusts_the_ca_the_user_configuration_names_whichever_client_started_the_daemon() {
    let certs = tempfile::tempdir().unwrap();
    test_ca(certs.path());
    let tarball = pyright_tarball(certs.path());
    let registry = Registry::start(certs.path(), &tarball);
    let url = format!("https://127.0.0.1:{}/", registry.port);

    // Without the CA: npm refuses the registry's certificate, nothing is
    // asked of it, and the answer says why. (npm tries a refused fetch
    // again twice, 10 s and more apart, unless told not to.)
    let (out, err, code) = first_question(json!({
        "npm_config_registry": url,
        "npm_config_fetch_retries": "0",
    }));
    assert_ne!(code, 0, "{out}{err}");
    let said = format!("{out}{err}");
    assert!(said.contains("pyright"), "{said}");
    assert!(said.contains("certificate"), "{said}");
    assert_eq!(registry.asked(), Vec::<String>::new());

    // With it, in the user configuration alone: installed from the
    // registry, then the answer.
    let (out, err, code) = first_question(json!({
        "npm_config_registry": url,
        "NODE_EXTRA_CA_CERTS": certs.path().join("ca.pem"),
    }));
    assert_eq!(
        (out.as_str(), code),
        ("ok.py: no diagnostics\n", 0),
        "{err}"
    );
    let asked = registry.asked();
    assert!(asked.contains(&"/pyright".to_owned()), "{asked:?}");
    assert!(
        asked.iter().any(|p| p.starts_with("/pyright/-/pyright-")),
        "{asked:?}"
    );
}
