//! A tool's argument schema as the tool list gives it: what schemars
//! derives, less what a model does not read (every token of the list is in
//! its context on every turn). References are inlined, an optional field
//! is its own type (optional by not being required, not by also taking
//! `null`), and the schema's own title, `$schema` and Rust formats go.
//! Arguments are still parsed as the full type: a client that sends
//! `null` for an optional field is answered as before.

use rmcp::model::JsonObject;
use serde_json::Value;

/// The lean form of `schema`.
pub(super) fn lean(schema: &JsonObject) -> JsonObject {
    let defs = match schema.get("$defs") {
        Some(Value::Object(d)) => d.clone(),
        _ => JsonObject::new(),
    };
    let mut out = object(schema, &defs);
    // "`lsp` arguments." says nothing the tool's description does not.
    out.remove("description");
    out
}

fn object(node: &JsonObject, defs: &JsonObject) -> JsonObject {
    if let Some(Value::String(r)) = node.get("$ref")
        && let Some(Value::Object(def)) = r.strip_prefix("#/$defs/").and_then(|n| defs.get(n))
    {
        let mut merged = def.clone();
        for (k, v) in node {
            if k != "$ref" {
                merged.insert(k.clone(), v.clone());
            }
        }
        return object(&merged, defs);
    }
    let mut out = JsonObject::new();
    for (key, given) in node {
        match (key.as_str(), given) {
            // Unknown fields are refused and a line is 1-based whatever
            // the schema says: the model needs neither `additionalProperties`
            // nor `minimum` to call a tool right.
            ("$schema" | "$defs" | "title" | "format" | "additionalProperties" | "minimum", _) => {}
            ("type", Value::Array(types)) => {
                let kept: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                let t = match kept.as_slice() {
                    [one] => (*one).clone(),
                    _ => Value::Array(kept.into_iter().cloned().collect()),
                };
                out.insert(key.clone(), t);
            }
            ("anyOf", Value::Array(options)) => {
                let kept: Vec<&Value> = options
                    .iter()
                    .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                match kept.as_slice() {
                    [Value::Object(one)] => {
                        for (k, v) in object(one, defs) {
                            out.entry(k).or_insert(v);
                        }
                    }
                    _ => {
                        let kept = kept.into_iter().map(|v| value(v, defs)).collect();
                        out.insert(key.clone(), Value::Array(kept));
                    }
                }
            }
            ("oneOf", Value::Array(options))
                if options.iter().all(|o| o.get("const").is_some()) =>
            {
                let names = options.iter().filter_map(|o| o.get("const").cloned());
                out.insert("type".to_owned(), Value::from("string"));
                out.insert("enum".to_owned(), Value::Array(names.collect()));
            }
            ("description", Value::String(text)) => {
                // The doc comments' line breaks are the source's, not the
                // text's.
                out.insert(key.clone(), Value::from(text.replace('\n', " ")));
            }
            _ => {
                out.insert(key.clone(), value(given, defs));
            }
        }
    }
    out
}

fn value(v: &Value, defs: &JsonObject) -> Value {
    match v {
        Value::Object(o) => Value::Object(object(o, defs)),
        Value::Array(items) => Value::Array(items.iter().map(|i| value(i, defs)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn references_are_inlined_nulls_dropped_and_titles_gone() {
        let schema = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "description": "`x` arguments.",
            "type": "object",
            "additionalProperties": false,
            "$defs": {
                "Op": { "description": "An operation.", "type": "string", "enum": ["a", "b"] },
                "Ctx": { "oneOf": [{ "const": "symbol", "type": "string", "description": "d" }] }
            },
            "properties": {
                "op": { "$ref": "#/$defs/Op", "description": "Which\nquestion." },
                "line": { "type": ["integer", "null"], "format": "uint", "minimum": 1 },
                "context": { "anyOf": [{ "$ref": "#/$defs/Ctx" }, { "type": "null" }], "description": "c" }
            },
            "required": ["op"]
        });
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        assert_eq!(
            Value::Object(lean(&schema)),
            serde_json::json!({
                "type": "object",
                "properties": {
                    "op": { "type": "string", "enum": ["a", "b"], "description": "Which question." },
                    "line": { "type": "integer" },
                    "context": { "type": "string", "enum": ["symbol"], "description": "c" }
                },
                "required": ["op"]
            })
        );
    }
}
