//! The JSON (and JSONC) edits of `setup`, on the file's syntax tree
//! (jsonc-parser's CST), so that every comment and all the formatting the
//! user wrote stay as they were.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Value, json};

/// The file's tree; an empty file is an empty object.
fn parse(text: &str) -> Result<CstRootNode, String> {
    let text = if text.trim().is_empty() { "{}\n" } else { text };
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| e.to_string())
}

/// A JSON value as the tree takes it.
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// Whether a file holds nothing but an empty object (or nothing).
pub(super) fn is_empty(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t == "{}"
}

/// Adds (or with `remove`, takes out) the `sightline` server under `key`;
/// what changed.
pub(super) fn mcp_server(
    text: &mut String,
    key: &str,
    opencode: bool,
    program: &str,
    remove: bool,
) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let obj = root.object_value_or_set();
    let name = format!("{key}.sightline");
    if remove {
        let Some(servers) = obj.get(key) else {
            return Ok(Vec::new());
        };
        let Some(list) = servers.value().and_then(|v| v.as_object()) else {
            return Ok(Vec::new());
        };
        let Some(ours) = list.get("sightline") else {
            return Ok(Vec::new());
        };
        ours.remove();
        if list.properties().is_empty() {
            servers.remove();
        }
        *text = root.to_string();
        return Ok(vec![name]);
    }
    let wanted = if opencode {
        json!({ "type": "local", "command": [program, "mcp"], "enabled": true })
    } else {
        json!({ "command": program, "args": ["mcp"] })
    };
    let list = obj.object_value_or_set(key);
    match list.get("sightline") {
        Some(p) if p.value().and_then(|v| v.to_serde_value()) == Some(wanted.clone()) => {
            return Ok(Vec::new());
        }
        Some(p) => p.set_value(input(&wanted)),
        None => {
            list.append("sightline", input(&wanted));
        }
    }
    *text = root.to_string();
    Ok(vec![name])
}

/// Whether an entry of an event's hook list runs `command`, or the same
/// hook of another sightline program (an older install's path).
fn runs(entry: &Value, command: &str) -> bool {
    let (_, args) = command.split_once(' ').unwrap_or((command, ""));
    let same = |c: &str| {
        c == command
            || c.split_once(' ').is_some_and(|(program, rest)| {
                rest == args
                    && std::path::Path::new(program)
                        .file_stem()
                        .is_some_and(|s| s == "sightline")
            })
    };
    entry["hooks"].as_array().is_some_and(|hooks| {
        hooks
            .iter()
            .any(|h| h["command"].as_str().is_some_and(same))
    })
}

/// Adds (or with `remove`, takes out) a hook running `command` for each
/// event (with its tool matcher) under `hooks`; what changed.
pub(super) fn hooks(
    text: &mut String,
    events: &[(&str, Option<&str>)],
    command: &str,
    timeout: u64,
    remove: bool,
) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let obj = root.object_value_or_set();
    let mut changed = Vec::new();
    if remove {
        let Some(hooks) = obj.get("hooks") else {
            return Ok(changed);
        };
        let Some(by_event) = hooks.value().and_then(|v| v.as_object()) else {
            return Ok(changed);
        };
        for (event, _) in events {
            let Some(list) = by_event.get(event) else {
                continue;
            };
            let Some(array) = list.value().and_then(|v| v.as_array()) else {
                continue;
            };
            for element in array.elements() {
                if element.to_serde_value().is_some_and(|v| runs(&v, command)) {
                    element.remove();
                    changed.push(format!("hooks.{event}"));
                }
            }
            if array.elements().is_empty() {
                list.remove();
            }
        }
        if by_event.properties().is_empty() {
            hooks.remove();
        }
        if !changed.is_empty() {
            *text = root.to_string();
        }
        return Ok(changed);
    }
    let by_event: CstObject = obj.object_value_or_set("hooks");
    for (event, matcher) in events {
        let mut wanted =
            json!({ "hooks": [{ "type": "command", "command": command, "timeout": timeout }] });
        if let Some(m) = matcher {
            wanted["matcher"] = json!(m);
        }
        let array = by_event.array_value_or_set(event);
        let present: Vec<Value> = array
            .elements()
            .iter()
            .filter_map(|e| e.to_serde_value())
            .collect();
        if present.contains(&wanted) {
            continue;
        }
        // An older entry of ours (another matcher) is replaced.
        for element in array.elements() {
            if element.to_serde_value().is_some_and(|v| runs(&v, command)) {
                element.remove();
            }
        }
        array.append(input(&wanted));
        changed.push(format!("hooks.{event}"));
    }
    if !changed.is_empty() {
        *text = root.to_string();
    }
    Ok(changed)
}

/// Adds (or with `remove`, takes out) `value` in the string list `key`;
/// what changed.
pub(super) fn in_list(
    text: &mut String,
    key: &str,
    value: &str,
    remove: bool,
) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let obj = root.object_value_or_set();
    let name = format!("{key}: {value}");
    let has = |array: &jsonc_parser::cst::CstArray| {
        array
            .elements()
            .into_iter()
            .find(|e| e.to_serde_value() == Some(Value::String(value.to_owned())))
    };
    if remove {
        let Some(prop) = obj.get(key) else {
            return Ok(Vec::new());
        };
        let Some(array) = prop.value().and_then(|v| v.as_array()) else {
            return Ok(Vec::new());
        };
        let Some(element) = has(&array) else {
            return Ok(Vec::new());
        };
        element.remove();
        if array.elements().is_empty() {
            prop.remove();
        }
        *text = root.to_string();
        return Ok(vec![name]);
    }
    let array = obj.array_value_or_set(key);
    if has(&array).is_some() {
        return Ok(Vec::new());
    }
    array.append(CstInputValue::String(value.to_owned()));
    *text = root.to_string();
    Ok(vec![name])
}

/// A Claude Code plugin's manifest (`.claude-plugin/plugin.json`): its
/// name, version and description; what changed.
pub(super) fn plugin_manifest(text: &mut String, remove: bool) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let obj = root.object_value_or_set();
    let fields = [
        ("name", json!("sightline")),
        ("version", json!(env!("CARGO_PKG_VERSION"))),
        (
            "description",
            json!(
                "The errors of Claude's own edits and the exact uses of a symbol, from the project's real language servers (sightline)"
            ),
        ),
    ];
    let mut changed = Vec::new();
    for (key, value) in fields {
        match (obj.get(key), remove) {
            (Some(p), true) => {
                p.remove();
                changed.push(key.to_owned());
            }
            (None, true) => {}
            (Some(p), false)
                if p.value().and_then(|v| v.to_serde_value()) == Some(value.clone()) => {}
            (Some(p), false) => {
                p.set_value(input(&value));
                changed.push(key.to_owned());
            }
            (None, false) => {
                obj.append(key, input(&value));
                changed.push(key.to_owned());
            }
        }
    }
    if !changed.is_empty() {
        *text = root.to_string();
    }
    Ok(changed)
}
