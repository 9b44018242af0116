#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn every_tool_is_found_by_its_name_and_unknown_ones_are_not() {
    for t in REGISTRY {
        assert_eq!(find(t.name).map(|f| f.name), Some(t.name));
    }
    assert!(find("lsp_hover").is_none());
    // Which tools are the questions is the README's table's to say
    // (`the_docs_tables_list_the_registry_s_tools_and_commands`).
    assert_eq!(
        listed(true).count(),
        REGISTRY.len() - 1,
        "all but the hook's"
    );
}

/// The checks every registry must pass: each tool named once, each listed
/// tool with a command of its own, no command named twice, each schema an
/// object of the arguments.
fn registry_checks(entries: &[&Entry]) {
    let mut tools: Vec<&str> = entries.iter().map(|t| t.name).collect();
    let all = tools.len();
    tools.sort_unstable();
    tools.dedup();
    assert_eq!(tools.len(), all, "a tool name is used twice");
    let listed = entries
        .iter()
        .filter(|t| t.served != Served::Unlisted && Toolset::with_edit_tools(true).serves(t));
    for t in listed {
        assert!(!t.cli.is_empty(), "{} has no command", t.name);
        for c in t.cli {
            assert_eq!(c.tool, t.name);
        }
        let schema = t.schema();
        assert_eq!(
            schema.get("type"),
            Some(&Value::from("object")),
            "{}",
            t.name
        );
    }
    let mut names: Vec<&str> = entries
        .iter()
        .flat_map(|t| t.cli.iter().map(|c| c.name))
        .collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a command name is used twice");
}

#[test]
fn every_listed_tool_has_a_command_and_no_command_is_named_twice() {
    registry_checks(&REGISTRY.iter().collect::<Vec<_>>());
}

/// CONTRIBUTING's worked example, added as its text says: its module
/// (`contributing_example`) and one registry line.
static EXAMPLE: Entry = entry::<contributing_example::Implementation>();

#[test]
fn a_tool_added_from_one_module_and_one_registry_line_passes_the_registry_checks() {
    let mut with_example: Vec<&Entry> = REGISTRY.iter().collect();
    with_example.push(&EXAMPLE);
    registry_checks(&with_example);
    assert_eq!(EXAMPLE.name, "lsp_implementation");
    assert_eq!(EXAMPLE.cli.first().map(|c| c.name), Some("implementations"));
    let properties = EXAMPLE.schema()["properties"].clone();
    for key in ["file", "line", "column", "symbol", "kind"] {
        assert!(properties.get(key).is_some(), "{key}: {properties}");
    }
}

#[test]
fn the_contributing_example_is_the_fixture_module() {
    let doc = include_str!("../../../../../CONTRIBUTING.md");
    let at = doc.find("1. The module, `frontends/tools/").unwrap();
    let start = doc[at..].find("   ```rust\n").unwrap() + at + "   ```rust\n".len();
    let end = doc[start..].find("   ```\n").unwrap() + start;
    let code: String = doc[start..end]
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("   ").unwrap_or(l)))
        .collect();
    assert_eq!(code, include_str!("contributing_example.rs"));
}

#[test]
fn only_a_dry_run_previews() {
    let edit = find("edit").unwrap();
    let args = |dry_run: bool| {
        serde_json::json!({ "file": "/a.py", "old": "a", "new": "b", "dry_run": dry_run })
            .as_object()
            .cloned()
            .unwrap()
    };
    assert!(edit.previews(&args(true)));
    assert!(!edit.previews(&args(false)));
    let rename = find("rename").unwrap();
    let renamed = serde_json::json!({ "file": "/a.py", "new_name": "b", "dry_run": true });
    // A rename's dry run asks the server, and tells it nothing.
    assert!(!rename.previews(renamed.as_object().unwrap()));
}

#[test]
fn the_edit_command_s_format_range_says_what_the_tool_s_does() {
    // The CLI once could only turn it on; unsaid, the configuration decides.
    let edit = cli_command("edit").unwrap();
    let args = |more: &[&str]| {
        let mut argv = vec!["edit", "/a.py", "--old", "a", "--new", "b"];
        argv.extend_from_slice(more);
        let matches = edit.command().try_get_matches_from(argv).unwrap();
        edit.args(&matches).unwrap()["format_range"].clone()
    };
    assert_eq!(args(&["--format-range", "false"]), Value::Bool(false));
    assert_eq!(args(&["--format-range", "true"]), Value::Bool(true));
    assert_eq!(args(&["--format-range"]), Value::Bool(true));
    assert_eq!(args(&[]), Value::Null);
}

/// The rows of the first Markdown table after `header` in `doc`: each
/// row's cells, code quotes taken off.
fn table_rows(doc: &str, header: &str) -> Vec<Vec<String>> {
    let at = doc.find(header).unwrap();
    doc[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace('`', ""))
                .collect()
        })
        .collect()
}

#[test]
fn the_docs_tables_list_the_registry_s_tools_and_commands() {
    let readme = include_str!("../../../../../README.md");
    let tools: Vec<String> = table_rows(readme, "| tool | arguments | answers |")
        .into_iter()
        .map(|row| row[0].clone())
        .collect();
    let questions: Vec<&str> = listed(false).map(|t| t.name).collect();
    assert_eq!(tools, questions, "README's table of the tools");
    let edit_tools = readme.split("--edit-tools` also serves").nth(1).unwrap();
    for t in listed(true).filter(|t| t.served == Served::WithEditTools) {
        assert!(
            edit_tools.contains(&format!("`{}`", t.name)),
            "README does not name {}",
            t.name
        );
    }
    let cli_doc = include_str!("../../../../../docs/cli.md");
    let documented: Vec<(String, String)> = table_rows(cli_doc, "| tool | commands |")
        .into_iter()
        .map(|row| (row[0].clone(), row[1].clone()))
        .collect();
    let registry: Vec<(String, String)> = listed(true)
        .map(|t| {
            let commands: Vec<&str> = t.cli.iter().map(|c| c.name).collect();
            (t.name.to_owned(), commands.join(", "))
        })
        .collect();
    assert_eq!(documented, registry, "docs/cli.md's table of the commands");
}

#[test]
fn the_position_fields_are_one_type_and_an_unknown_field_is_refused_through_it() {
    let args = |v: Value| match v {
        Value::Object(o) => o,
        _ => unreachable!(),
    };
    // The four tools that take a position describe it in the same words.
    let described = |tool: &str, field: &str| {
        find(tool).unwrap().schema()["properties"][field]["description"]
            .as_str()
            .map(str::to_owned)
    };
    for field in ["line", "column", "symbol", "kind"] {
        let first = described("lsp_definition", field);
        assert!(first.is_some(), "{field}");
        for tool in ["lsp_references", "lsp", "rename"] {
            assert_eq!(described(tool, field), first, "{tool}.{field}");
        }
    }
    let read = parse::<references::ReferencesArgs>(
        "lsp_references",
        args(serde_json::json!({ "file": "/a.py", "line": 2, "column": 5 })),
    )
    .unwrap();
    assert_eq!((read.at.line, read.at.column), (Some(2), Some(5)));
    // A misspelt field, inside the flattened part's names or beside them,
    // is an error naming it, never dropped.
    for bad in ["colum", "declaration"] {
        let mut a = args(serde_json::json!({ "file": "/a.py", "line": 2 }));
        a.insert(bad.to_owned(), Value::from(5));
        let err = parse::<references::ReferencesArgs>("lsp_references", a)
            .err()
            .map(|e| e.into_tool_error().to_string())
            .unwrap_or_default();
        assert!(
            err.contains(&format!("unknown field `{bad}`")) && err.contains("`column`"),
            "{err}"
        );
    }
}
