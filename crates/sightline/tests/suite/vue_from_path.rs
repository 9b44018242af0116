//! Vue outside the pinned set-up: typescript-language-server taken from
//! PATH with no `@vue/typescript-plugin` beside it (`tools/ts-alone`), and
//! the Vue server installed by `sightline install vue` from npm into a
//! fresh data directory. The component's type error is answered through
//! the daemon and in process; it was a crash ("Cannot read properties of
//! undefined (reading 'protocol')", TypeScript 7 installed as the server's
//! missing peer).

#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

use sightline_test_support::{DaemonDirs, Project, repo_root, require, sightline_bin};

#[test]
fn vue_with_typescript_language_server_from_path_and_an_installed_vue_server() {
    let alone = repo_root().join("tools/ts-alone/node_modules/.bin");
    assert!(
        alone.join("typescript-language-server").is_file(),
        "tools/ts-alone is not installed; run tools/install"
    );
    require("typescript-language-server");
    let p = Project::new(&[
        ("package.json", "{\"name\": \"v\", \"private\": true}"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"*.ts\", \"*.vue\"]}",
        ),
        (
            "App.vue",
            "<script setup lang=\"ts\">\nconst n: number = \"x\";\n</script>\n\n<template>\n  <p>{{ n }}</p>\n</template>\n",
        ),
    ]);
    let data = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let daemon = DaemonDirs::new();
    // Only the system's programs (node, npm) besides ts-alone: not the
    // pinned servers of tools/node_modules, whose Vue plugin would be found.
    let node = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .find(|d| d.join("node").is_file() && !d.starts_with(repo_root().join("tools")))
        .expect("node is on PATH");
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        alone.display(),
        node.display()
    );
    let run = |args: &[&str]| {
        let out = Command::new(sightline_bin())
            .args(args)
            .current_dir(p.root())
            .env("PATH", &path)
            .env("SIGHTLINE_DATA_DIR", data.path())
            .env("XDG_CONFIG_HOME", config.path())
            .env_remove("SIGHTLINE_DISABLE_LSP_DOWNLOAD")
            .env_remove("SIGHTLINE_NO_DAEMON")
            .envs(daemon.env())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    };
    let (out, err, code) = run(&["install", "vue"]);
    assert_eq!(code, 0, "{out}{err}");
    let expected = "App.vue: 1 diagnostic\n2:7 error: Type 'string' is not assignable to type 'number'. [typescript]\n";
    for args in [
        &["diagnostics", "App.vue"][..],
        &["--no-daemon", "diagnostics", "App.vue"],
    ] {
        let (out, err, code) = run(args);
        assert_eq!(out, expected, "{args:?}: {err}");
        assert_eq!(code, 1);
    }
}
