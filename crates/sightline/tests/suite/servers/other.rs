//! The other servers (`catalog/table/other.rs`): bash, YAML, Dockerfile,
//! PHP, Prisma, TOML and Markdown.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

#[test]
fn bash_language_server_with_shellcheck() {
    require(&tools("node_modules/.bin/bash-language-server"));
    require(&tools(".venv/bin/shellcheck"));
    let path = format!(
        "{}:{}",
        tools(".venv/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            ("lib.sh", "#!/bin/bash\ngreet() {\n  echo \"hello $1\"\n}\n"),
            (
                "main.sh",
                "#!/bin/bash\n# shellcheck source=lib.sh\nsource ./lib.sh\ngreet world\necho $undefined_var\n",
            ),
        ],
        config: json!({ "lsp": { "bash": { "env": { "PATH": path } } } }),
        diagnose: "main.sh",
        definition: ("main.sh", 4, 1),
        references: ("lib.sh", 2, 1),
    });
    snapshot("bash", &out);
}

/// yaml-language-server offers no references: that answer says so.
#[test]
fn yaml_language_server() {
    require(&tools("node_modules/.bin/yaml-language-server"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            ("base.yaml", "defaults: &defaults\n  retries: 3\n"),
            (
                "app.yaml",
                "base: &base\n  name: app\nservice:\n  <<: *base\n  ports: [80, 443\n",
            ),
        ],
        config: json!({}),
        diagnose: "app.yaml",
        definition: ("app.yaml", 4, 8),
        references: ("app.yaml", 1, 8),
    });
    snapshot("yaml", &out);
}

/// dockerfile-language-server-nodejs: an invalid health-check interval
/// (from dockerfile-utils, its linter), a `--from` stage resolved to its
/// `AS` name; it offers no references, and that answer says so.
#[test]
fn dockerfile_language_server() {
    require(&tools("node_modules/.bin/docker-langserver"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "Dockerfile",
                "FROM alpine:3.19 AS base\nRUN echo hi\nFROM base\nCOPY --from=base /a /b\nHEALTHCHECK --interval=x CMD true\n",
            ),
        ],
        config: json!({}),
        diagnose: "Dockerfile",
        definition: ("Dockerfile", 4, 15),
        references: ("Dockerfile", 1, 21),
    });
    snapshot("dockerfile", &out);
}

/// intelephense: answers only once it has indexed the workspace (its
/// indexing progress is waited for at start); a call with too few
/// arguments, a function across files.
#[test]
fn intelephense() {
    require(&tools("node_modules/.bin/intelephense"));
    let out = run(Case {
        files: &[
            ("composer.json", "{}"),
            (
                "lib.php",
                "<?php\n\nfunction add(int $a, int $b): int\n{\n    return $a + $b;\n}\n",
            ),
            (
                "app.php",
                "<?php\n\nrequire \"lib.php\";\n\n$total = add(1, 2);\n$broken = add(1);\n",
            ),
        ],
        config: json!({}),
        diagnose: "app.php",
        definition: ("app.php", 5, 10),
        references: ("lib.php", 3, 10),
    });
    snapshot("intelephense", &out);
}

/// @prisma/language-server (npm; sightline used to look only for the
/// `prisma` CLI on PATH): an unknown field type, a relation resolved to
/// its model, the model's uses.
#[test]
fn prisma_language_server() {
    require(&tools("node_modules/.bin/prisma-language-server"));
    let out = run(Case {
        files: &[(
            "schema.prisma",
            "datasource db {\n  provider = \"sqlite\"\n}\n\nmodel User {\n  id    Int    @id\n  posts Post[]\n}\n\nmodel Post {\n  id       Int  @id\n  authorId Int\n  author   User @relation(fields: [authorId], references: [id])\n  bad      Strin\n}\n",
        )],
        config: json!({}),
        diagnose: "schema.prisma",
        definition: ("schema.prisma", 7, 9),
        references: ("schema.prisma", 5, 7),
    });
    snapshot("prisma", &out);
}

/// tombi (PyPI): a Cargo member's `edition` given as a number, against
/// the Cargo schema tombi carries (it runs `--offline`); a workspace
/// dependency resolved to the workspace's `Cargo.toml`, and back.
#[test]
fn tombi_toml() {
    require(&tools(".venv/bin/tombi"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/a\"]\n\n[workspace.dependencies]\nserde = \"1\"\n",
            ),
            (
                "crates/a/Cargo.toml",
                "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = 2021\n\n[dependencies]\nserde = { workspace = true }\n",
            ),
        ],
        config: json!({}),
        diagnose: "crates/a/Cargo.toml",
        definition: ("crates/a/Cargo.toml", 7, 1),
        references: ("Cargo.toml", 5, 1),
    });
    snapshot("tombi", &out);
}

/// rumdl (PyPI), a Markdown linter: a link to a heading that does not
/// exist and a heading without its space; a link resolved to the heading
/// in another file.
#[test]
fn rumdl_markdown() {
    require(&tools(".venv/bin/rumdl"));
    let out = run(Case {
        files: &[
            (".git/HEAD", ""),
            (
                "README.md",
                "# Title\n\nSee [the guide](guide.md#setup) and [missing](#nope).\n\n#Bad heading\n",
            ),
            ("guide.md", "# Guide\n\n## Setup\n\nText.\n"),
        ],
        config: json!({}),
        diagnose: "README.md",
        definition: ("README.md", 3, 20),
        references: ("README.md", 3, 20),
    });
    snapshot("rumdl", &out);
}
