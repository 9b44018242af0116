//! `merge_text` against configurations rendered from a model with
//! comments and line breaks anywhere, and on token soup. `render` writes a
//! model out as JSONC.

use super::*;
use proptest::prelude::*;

const FILE: &str = "/p/sightline.jsonc";

#[derive(Debug, Clone, Default)]
struct Entry {
    disabled: Option<bool>,
    command: Option<Vec<String>>,
    extensions: Option<Vec<String>>,
    env: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
enum Setting {
    Bool(&'static str, bool),
    Sandbox(&'static str),
    LspOff(bool),
    Lsp(Vec<(&'static str, Entry)>),
}

/// A value of the wrong shape (or an unknown key), and whether the error
/// names the line of the key rather than of the value.
const BAD: &[(&str, &str, bool)] = &[
    ("autoinstall", "3", false),
    ("format_range", "\"yes\"", false),
    ("sandbox", "\"none\"", false),
    ("lsp", "[]", false),
    ("formatter", "1", false),
    ("lps", "true", true),
    ("allow_unsandboxed", "true", true),
    ("writable_roots", "[\"/x\"]", true),
];

fn entry(custom: bool) -> impl Strategy<Value = Entry> {
    let command = prop::collection::vec("\\PC{1,6}", 1..3);
    let extensions = prop::collection::vec("\\.[a-zA-Z0-9éÉ]{1,4}", 1..3);
    (
        prop::option::of(any::<bool>()),
        prop::option::of(command),
        prop::option::of(extensions),
        prop::collection::btree_map("[A-Z_]{1,4}", "\\PC{0,5}", 0..3),
    )
        .prop_map(move |(disabled, command, extensions, env)| Entry {
            disabled,
            // A server of one's own needs both.
            command: if custom {
                command.or_else(|| Some(vec!["m".into()]))
            } else {
                command
            },
            extensions: if custom {
                extensions.or_else(|| Some(vec![".m".into()]))
            } else {
                extensions
            },
            env,
        })
}

fn settings() -> impl Strategy<Value = Vec<Setting>> {
    let lsp = prop_oneof![
        any::<bool>().prop_map(Setting::LspOff),
        (
            prop::option::of(entry(false)),
            prop::option::of(entry(false)),
            prop::option::of(entry(true)),
            prop::option::of(entry(true)),
        )
            .prop_map(|(a, b, c, d)| {
                // Two built-in servers (from the table) and two custom ones.
                let ids = [
                    crate::catalog::table::PYRIGHT.id,
                    crate::catalog::table::TY.id,
                    "mine",
                    "é-lsp",
                ];
                Setting::Lsp(
                    ids.into_iter()
                        .zip([a, b, c, d])
                        .filter_map(|(id, e)| Some((id, e?)))
                        .collect(),
                )
            }),
    ];
    (
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(prop::sample::select(SANDBOX_MODES)),
        prop::option::of(lsp),
    )
        .prop_map(|(auto, range, tools, sandbox, lsp)| {
            let mut v = Vec::new();
            v.extend(auto.map(|b| Setting::Bool("autoinstall", b)));
            v.extend(range.map(|b| Setting::Bool("format_range", b)));
            v.extend(tools.map(|b| Setting::Bool("edit_tools", b)));
            v.extend(sandbox.map(Setting::Sandbox));
            v.extend(lsp);
            v
        })
        .prop_shuffle()
}

/// What may stand between two tokens.
fn gaps() -> impl Strategy<Value = Vec<&'static str>> {
    let gap = prop::sample::select(vec![
        "",
        " ",
        "\n",
        "\r\n  ",
        "\t",
        "// é 🙂 \"x\": 1,\n",
        "/* 名前\n 🙂 */",
        "/**/",
    ]);
    prop::collection::vec(gap, 1..40)
}

mod render;
use render::{Lines, Rendered, render};

fn origin(line: usize) -> Origin {
    Origin::File {
        path: FILE.into(),
        line,
    }
}

/// Tokens of JSONC, right and wrong, and characters of every width.
fn soup() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "\"lsp\"",
            "\"formatter\"",
            "\"sandbox\"",
            "\"autoinstall\"",
            "\"pyright\"",
            "\"command\"",
            "\"extensions\"",
            "\"diagnostics\"",
            "\"document_ms\"",
            "\"timeout_ms\"",
            "\"env\"",
            "\"initialization\"",
            "\"disabled\"",
            "\"ruff\"",
            "\"x\"",
            "\".é\"",
            "true",
            "false",
            "null",
            "0x1F",
            "-1",
            "1e400",
            "NaN",
            "+5",
            "'s'",
            "\"\\u00e9\"",
            "//",
            "/*",
            "*/",
            "\n",
            " ",
            "é",
            "🙂",
        ])
        .prop_map(str::to_owned),
        "\\PC{0,4}",
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

/// Well-formed JSONC of any shape, with the keys the reader knows, keys
/// of its own (loose ones too), and characters of every width.
fn shapes() -> impl Strategy<Value = String> {
    let gap = prop::sample::select(vec!["", " ", "\n", "/* é */", "// 🙂\n"]);
    let leaf = prop::sample::select(vec![
        "true",
        "false",
        "null",
        "1",
        "-2",
        "900",
        "0x1F",
        "1.5",
        "\"s\"",
        "\"é\"",
        "\".x\"",
        "\"workspace-write\"",
        "'q'",
        "[]",
        "{}",
        "[\"m\"]",
    ])
    .prop_map(str::to_owned);
    let key = prop::sample::select(vec![
        "\"lsp\"",
        "\"formatter\"",
        "\"sandbox\"",
        "\"autoinstall\"",
        "\"pyright\"",
        "\"ruff\"",
        "\"mine\"",
        "\"command\"",
        "\"extensions\"",
        "\"env\"",
        "\"environment\"",
        "\"initialization\"",
        "\"diagnostics\"",
        "\"document_ms\"",
        "\"timeout_ms\"",
        "\"disabled\"",
        "\"é\"",
        "é",
        "名前",
        "x",
    ]);
    let value = leaf.prop_recursive(4, 32, 4, move |inner| {
        let array = prop::collection::vec((gap.clone(), inner.clone()), 0..4).prop_map(|v| {
            let items: Vec<String> = v.into_iter().map(|(g, x)| format!("{g}{x}")).collect();
            format!("[{}]", items.join(","))
        });
        let object = prop::collection::vec((gap.clone(), key.clone(), inner), 0..4).prop_map(|v| {
            let props: Vec<String> = v
                .into_iter()
                .map(|(g, k, x)| format!("{g}{k}:{g}{x}"))
                .collect();
            format!("{{{}}}", props.join(","))
        });
        prop_oneof![array, object]
    });
    prop_oneof![1 => value.clone(), 4 => value.prop_filter("not an object", |v| v.starts_with('{'))]
}

proptest! {
    #![proptest_config(crate::proptest_config())]

    /// A configuration written from a model, with comments and line
    /// breaks anywhere, reads back as the model, each value from the
    /// line it is on.
    #[test]
    fn config_reads_back_what_was_written(settings in settings(), gaps in gaps()) {
        let Rendered { text, lines, .. } = render(&settings, None, gaps);
        // Trusted: this is about reading, not about the trust gate.
        let mut c = Config { trusted: true, ..Config::default() };
        let r = c.merge_text(Path::new(FILE), &text, true);
        prop_assert_eq!(r, Ok(()), "{}", text);
        for (s, Lines { key, value, entries }) in settings.iter().zip(&lines) {
            let (key, value) = (*key, *value);
            match s {
                Setting::Bool(k, b) => {
                    let got = match *k {
                        "autoinstall" => c.autoinstall.unwrap_or(!b),
                        "format_range" => c.format_range,
                        _ => c.edit_tools,
                    };
                    prop_assert_eq!(got, *b);
                    prop_assert_eq!(&c.values[*k], &(json!(b), origin(key)));
                }
                Setting::Sandbox(m) => {
                    prop_assert_eq!(c.sandbox.as_deref(), Some(*m));
                    prop_assert_eq!(&c.values["sandbox"], &(json!(m), origin(key)));
                }
                Setting::LspOff(b) => {
                    prop_assert_eq!(c.lsp_enabled, *b);
                    prop_assert_eq!(&c.lsp_origin, &origin(value));
                }
                Setting::Lsp(servers) => {
                    prop_assert!(c.lsp_enabled);
                    prop_assert_eq!(&c.lsp_origin, &origin(value));
                    prop_assert_eq!(c.servers.len(), servers.len());
                    for ((id, e), &line) in servers.iter().zip(entries) {
                        let got = &c.servers[*id];
                        prop_assert_eq!(got.disabled, e.disabled.unwrap_or(false));
                        prop_assert_eq!(&got.command, &e.command);
                        let lower = e.extensions.as_ref().map(|x| {
                            x.iter().map(|x| x.to_lowercase()).collect::<Vec<_>>()
                        });
                        prop_assert_eq!(&got.extensions, &lower);
                        prop_assert_eq!(&got.env, &e.env);
                        prop_assert_eq!(&got.origin, &Some(origin(line)));
                    }
                }
            }
        }
    }

    /// Any bytes, any size up to 64 KiB, nesting thousands deep: a
    /// configuration file is read or refused with one error, never a panic
    /// or a stack overflow.
    #[test]
    fn any_bytes_any_depth_is_read_or_one_error(
        bytes in proptest::collection::vec(any::<u8>(), 0..65536),
        depth in 1usize..20000,
    ) {
        let text = String::from_utf8_lossy(&bytes);
        let deep = format!("{{\"lsp\": {}", "[".repeat(depth));
        for t in [text.as_ref(), deep.as_str()] {
            let mut c = Config::default();
            let _ = c.merge_text(Path::new(FILE), t, true);
        }
    }

    /// A value of the wrong shape anywhere is an error naming its line.
    #[test]
    fn config_errors_name_the_line(
        settings in settings(),
        gaps in gaps(),
        at in 0..6usize,
        bad in prop::sample::select(BAD),
    ) {
        let Rendered { text, bad: line, .. } = render(&settings, Some((at, bad)), gaps);
        let mut c = Config::default();
        match c.merge_text(Path::new(FILE), &text, true) {
            Err(ConfigError::Invalid { file, line: got, .. }) => {
                prop_assert_eq!(file, FILE);
                prop_assert_eq!(Some(got), line, "{}", text);
            }
            other => prop_assert!(false, "{:?} for {}", other, text),
        }
    }

    /// Any text reads without a panic; an error names a line of the file.
    #[test]
    fn config_never_panics(text in prop_oneof![soup(), shapes()], project: bool) {
        let mut c = Config::default();
        if let Err(e) = c.merge_text(Path::new(FILE), &text, project) {
            let ConfigError::Invalid { line, .. } = e else {
                return Err(TestCaseError::fail(format!("not an invalid-file error: {e}")));
            };
            prop_assert!(line >= 1 && line <= text.matches('\n').count() + 1, "{} for {:?}", line, text);
        }
    }
}
