//! The JSON (and JSONC) edits of `setup`, on the file's syntax tree
//! (jsonc-parser's CST), so that every comment and all the formatting the
//! user wrote stay as they were. An add records each container it had to
//! make (`made`); a remove drops a container only when it is empty and was
//! made by setup, so that `--remove` leaves the file as it was.

use std::collections::BTreeSet;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Value, json};

use super::targets::McpShape;

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

/// Whether `program` (a command line's first word) is a sightline: an
/// entry setup wrote, with this program or an older install's path.
fn is_sightline(program: &str) -> bool {
    let program = program.trim_matches('"');
    std::path::Path::new(program)
        .file_stem()
        .is_some_and(|s| s == "sightline")
}

/// Whether an MCP entry is one setup writes (a sightline program run with
/// `mcp`, or sightline over HTTP with its token's variable), not one the
/// user wrote (`uvx --from sightline-mcp ...`).
fn ours(entry: &Value) -> bool {
    let command = match &entry["command"] {
        Value::String(c) => Some(c.as_str()),
        Value::Array(a) => a.first().and_then(Value::as_str),
        _ => None,
    };
    let over_http = entry["headers"]["Authorization"]
        .as_str()
        .is_some_and(|a| a.contains(super::TOKEN_VAR));
    command.is_some_and(is_sightline) || over_http
}

/// The entry `shape` spells for sightline run as `argv` (the program and
/// its first arguments) with `mcp`, or reached over HTTP at `url`.
fn entry_for(shape: McpShape, argv: &[String], url: Option<&str>) -> Result<Value, String> {
    let var = super::TOKEN_VAR;
    if let Some(url) = url {
        return Ok(match shape {
            McpShape::ClaudeCode => json!({ "type": "http", "url": url,
                "headers": { "Authorization": format!("Bearer ${{{var}}}") } }),
            McpShape::Gemini => json!({ "httpUrl": url,
                "headers": { "Authorization": format!("Bearer ${{{var}}}") } }),
            McpShape::OpenCode => json!({ "type": "remote", "url": url, "enabled": true,
                "headers": { "Authorization": format!("Bearer {{env:{var}}}") } }),
            McpShape::Cursor => json!({ "url": url,
                "headers": { "Authorization": format!("Bearer ${{env:{var}}}") } }),
        });
    }
    let (program, rest) = argv.split_first().ok_or("no program")?;
    let mut args: Vec<Value> = rest.iter().map(|a| json!(a)).collect();
    args.push(json!("mcp"));
    Ok(if shape == McpShape::OpenCode {
        let mut command = vec![json!(program)];
        command.extend(args);
        json!({ "type": "local", "command": command, "enabled": true })
    } else {
        json!({ "command": program, "args": args })
    })
}

/// Adds (or with `remove`, takes out) the `sightline` server under `key`;
/// what changed. A `sightline` entry the user wrote is left alone.
pub(super) fn mcp_server(
    text: &mut String,
    (key, shape): (&str, McpShape),
    argv: &[String],
    url: Option<&str>,
    remove: bool,
    made: &mut BTreeSet<String>,
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
        let Some(entry) = list.get("sightline") else {
            return Ok(Vec::new());
        };
        if !entry
            .value()
            .and_then(|v| v.to_serde_value())
            .is_some_and(|v| ours(&v))
        {
            return Ok(Vec::new());
        }
        entry.remove();
        if list.properties().is_empty() && made.contains(key) {
            servers.remove();
        }
        *text = root.to_string();
        return Ok(vec![name]);
    }
    let wanted = entry_for(shape, argv, url)?;
    if obj.get(key).is_none() {
        made.insert(key.to_owned());
    }
    let list = obj.object_value_or_set(key);
    match list.get("sightline") {
        Some(p) => match p.value().and_then(|v| v.to_serde_value()) {
            Some(v) if v == wanted => return Ok(Vec::new()),
            // The user's own entry for sightline stays as they wrote it.
            Some(v) if !ours(&v) => return Ok(Vec::new()),
            _ => p.set_value(input(&wanted)),
        },
        None => {
            list.append("sightline", input(&wanted));
        }
    }
    *text = root.to_string();
    Ok(vec![name])
}

/// Whether `c` runs the hook `command`, or the same hook of another
/// sightline program (an older install's path).
fn same_hook(c: &str, command: &str) -> bool {
    let tail = |s: &str| s.rsplit_once(" hook ").map(|(_, t)| t.to_owned());
    c == command
        || (c.rsplit_once(" hook ").is_some_and(|(program, _)| {
            is_sightline(program.rsplit(' ').next().unwrap_or(program))
        }) && tail(c) == tail(command))
}

/// Adds (or with `remove`, takes out) a hook running `command` for each
/// event (with its tool matcher) under `hooks`; what changed. Only
/// setup's own hook is touched: a group holding the user's hooks too keeps
/// them.
pub(super) fn hooks(
    text: &mut String,
    events: &[(&str, Option<&str>)],
    command: &str,
    timeout: u64,
    remove: bool,
    made: &mut BTreeSet<String>,
) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let obj = root.object_value_or_set();
    let mut changed = Vec::new();
    // Setup's hooks out of each group; a group left with none goes.
    let take_out = |array: &jsonc_parser::cst::CstArray| -> bool {
        let mut took = false;
        for group in array.elements() {
            let Some(list) = group
                .as_object()
                .and_then(|g| g.get("hooks"))
                .and_then(|h| h.value())
                .and_then(|v| v.as_array())
            else {
                continue;
            };
            for hook in list.elements() {
                let runs = hook
                    .to_serde_value()
                    .is_some_and(|h| h["command"].as_str().is_some_and(|c| same_hook(c, command)));
                if runs {
                    hook.remove();
                    took = true;
                }
            }
            if list.elements().is_empty() {
                group.remove();
            }
        }
        took
    };
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
            if take_out(&array) {
                changed.push(format!("hooks.{event}"));
            }
            if array.elements().is_empty() && made.contains(&format!("hooks.{event}")) {
                list.remove();
            }
        }
        if by_event.properties().is_empty() && made.contains("hooks") {
            hooks.remove();
        }
        if !changed.is_empty() {
            *text = root.to_string();
        }
        return Ok(changed);
    }
    if obj.get("hooks").is_none() {
        made.insert("hooks".to_owned());
    }
    let by_event: CstObject = obj.object_value_or_set("hooks");
    for (event, matcher) in events {
        let mut wanted =
            json!({ "hooks": [{ "type": "command", "command": command, "timeout": timeout }] });
        if let Some(m) = matcher {
            wanted["matcher"] = json!(m);
        }
        if by_event.get(event).is_none() {
            made.insert(format!("hooks.{event}"));
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
        // An older hook of ours (another matcher or program) is replaced.
        take_out(&array);
        array.append(input(&wanted));
        changed.push(format!("hooks.{event}"));
    }
    if !changed.is_empty() {
        *text = root.to_string();
    }
    Ok(changed)
}

/// `value` in the list at `path` (objects, then the list's key), added or
/// taken out; what changed. The objects and list setup creates are
/// recorded in `made` (by dotted path), and taken out with the last value.
pub(super) fn in_list(
    text: &mut String,
    path: &[&str],
    value: &str,
    remove: bool,
    made: &mut BTreeSet<String>,
) -> Result<Vec<String>, String> {
    let root = parse(text)?;
    let (key, parents) = path.split_last().ok_or("an empty key path")?;
    let name = format!("{}: {value}", path.join("."));
    let has = |array: &jsonc_parser::cst::CstArray| {
        array
            .elements()
            .into_iter()
            .find(|e| e.to_serde_value() == Some(Value::String(value.to_owned())))
    };
    if remove {
        let mut objects = vec![root.object_value_or_set()];
        for parent in parents {
            let Some(next) = objects
                .last()
                .and_then(|o| o.get(parent))
                .and_then(|p| p.value())
                .and_then(|v| v.as_object())
            else {
                return Ok(Vec::new());
            };
            objects.push(next);
        }
        let obj = objects.last().ok_or("no object")?;
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
        // What setup created goes once empty, innermost first.
        if array.elements().is_empty() && made.contains(&path.join(".")) {
            prop.remove();
            for depth in (0..parents.len()).rev() {
                let dotted = parents[..=depth].join(".");
                let parent = &objects[depth];
                let emptied = objects[depth + 1].properties().is_empty();
                if emptied
                    && made.contains(&dotted)
                    && let Some(p) = parent.get(parents[depth])
                {
                    p.remove();
                }
            }
        }
        *text = root.to_string();
        return Ok(vec![name]);
    }
    let mut obj = root.object_value_or_set();
    for (depth, parent) in parents.iter().enumerate() {
        if obj.get(parent).is_none() {
            made.insert(parents[..=depth].join("."));
        }
        obj = obj.object_value_or_set(parent);
    }
    if obj.get(key).is_none() {
        made.insert(path.join("."));
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

/// A JSONC text's value (its comments dropped), or `None` when it does not
/// parse.
pub(super) fn value_of(text: &str) -> Option<Value> {
    parse(text).ok()?.value()?.to_serde_value()
}
