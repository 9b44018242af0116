//! Reading the values of a configuration file: typed values with
//! one-line errors naming the file and line, and the `lsp` and `formatter`
//! entries.

use std::collections::BTreeMap;
use std::path::Path;

use jsonc_parser::ast;
use serde_json::Value;

use crate::config::{BUDGET_KEYS, ConfigError, ENTRY_KEYS, FormatterEntry, LspEntry, Origin};

pub(super) fn root_range(v: &ast::Value) -> jsonc_parser::common::Range {
    match v {
        ast::Value::StringLit(x) => x.range,
        ast::Value::NumberLit(x) => x.range,
        ast::Value::BooleanLit(x) => x.range,
        ast::Value::Object(x) => x.range,
        ast::Value::Array(x) => x.range,
        ast::Value::NullKeyword(x) => x.range,
    }
}

pub(super) fn to_json(v: &ast::Value) -> Value {
    match v {
        ast::Value::StringLit(s) => Value::String(s.value.to_string()),
        ast::Value::NumberLit(n) => serde_json::from_str(n.value).unwrap_or(Value::Null),
        ast::Value::BooleanLit(b) => Value::Bool(b.value),
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(a) => Value::Array(a.elements.iter().map(to_json).collect()),
        ast::Value::Object(o) => Value::Object(
            o.properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), to_json(&p.value)))
                .collect(),
        ),
    }
}

/// Leaf values of `v` under dotted keys.
pub(super) fn flatten(prefix: &str, v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Object(o) if !o.is_empty() => o
            .iter()
            .flat_map(|(k, v)| flatten(&format!("{prefix}.{k}"), v))
            .collect(),
        other => vec![(prefix.to_owned(), other.clone())],
    }
}

pub(super) fn bool_of(file: &File, v: &ast::Value, message: &str) -> Result<bool, ConfigError> {
    match v {
        ast::Value::BooleanLit(b) => Ok(b.value),
        other => Err(file.error(root_range(other), message)),
    }
}

pub(super) fn strings_of(
    file: &File,
    v: &ast::Value,
    message: &str,
) -> Result<Vec<String>, ConfigError> {
    let ast::Value::Array(a) = v else {
        return Err(file.error(root_range(v), message));
    };
    a.elements
        .iter()
        .map(|e| match e {
            ast::Value::StringLit(s) => Ok(s.value.to_string()),
            other => Err(file.error(root_range(other), message)),
        })
        .collect()
}

/// A list of absolute directories (`writable_roots`, `workspace.folders`):
/// `key` names it in the error.
pub(super) fn absolute_dirs_of(
    file: &File,
    v: &ast::Value,
    key: &str,
) -> Result<Vec<std::path::PathBuf>, ConfigError> {
    let message = format!("\"{key}\" must be a list of absolute directories");
    let dirs = strings_of(file, v, &message)?;
    if let Some(rel) = dirs.iter().find(|d| !std::path::Path::new(d).is_absolute()) {
        return Err(file.error(root_range(v), &format!("{message}, got `{rel}`")));
    }
    Ok(dirs.into_iter().map(std::path::PathBuf::from).collect())
}

/// `command`: a list of strings whose first names a program.
fn command_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
    example: &str,
) -> Result<Vec<String>, ConfigError> {
    let c = strings_of(
        file,
        &prop.value,
        &format!("{what}.command must be a list of strings, such as {example}"),
    )?;
    if c.first().is_none_or(String::is_empty) {
        return Err(file.error(prop.range, &format!("{what}.command must name a program")));
    }
    Ok(c)
}

/// `extensions`: a non-empty list of extensions with their dot, lower-cased.
/// An empty list is refused, so that it is never read as "every file".
fn extensions_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
) -> Result<Vec<String>, ConfigError> {
    let e = strings_of(
        file,
        &prop.value,
        &format!("{what}.extensions must be a list of strings, such as [\".foo\"]"),
    )?;
    if e.is_empty() {
        return Err(file.error(prop.range, &format!("{what}.extensions must not be empty")));
    }
    if let Some(bad) = e.iter().find(|x| !x.starts_with('.') || x.len() < 2) {
        return Err(file.error(
            root_range(&prop.value),
            &format!("{what}.extensions: \"{bad}\" must start with a dot, such as \".foo\""),
        ));
    }
    Ok(e.iter().map(|x| x.to_lowercase()).collect())
}

/// An object of strings (`env`, `environment`).
pub(super) fn string_map_of(
    file: &File,
    prop: &ast::ObjectProp,
    what: &str,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let ast::Value::Object(o) = &prop.value else {
        return Err(file.error(
            root_range(&prop.value),
            &format!("{what} must be an object of strings"),
        ));
    };
    let mut out = BTreeMap::new();
    for p in &o.properties {
        let ast::Value::StringLit(s) = &p.value else {
            return Err(file.error(
                p.range,
                &format!("{what}.{} must be a string", p.name.as_str()),
            ));
        };
        out.insert(p.name.as_str().to_owned(), s.value.to_string());
    }
    Ok(out)
}

/// The keys a server entry and a formatter entry share, read into either.
struct Shared<'e> {
    disabled: &'e mut bool,
    command: &'e mut Option<Vec<String>>,
    extensions: &'e mut Option<Vec<String>>,
}

impl Shared<'_> {
    /// Reads `prop` when it is `disabled`, `command` or `extensions` of the
    /// entry `what` (`lsp."id"`, `formatter."name"`), whose command would
    /// look like `example`; whether it was one of them.
    fn read(
        self,
        file: &File,
        prop: &ast::ObjectProp,
        what: &str,
        example: &str,
    ) -> Result<bool, ConfigError> {
        match prop.name.as_str() {
            "disabled" => {
                *self.disabled = bool_of(
                    file,
                    &prop.value,
                    &format!("{what}.disabled must be true or false"),
                )?;
            }
            "command" => *self.command = Some(command_of(file, prop, what, example)?),
            "extensions" => *self.extensions = Some(extensions_of(file, prop, what)?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `v` as an object, else the error `message` at its place.
fn object_of<'v, 'a>(
    file: &File,
    v: &'v ast::Value<'a>,
    message: &str,
) -> Result<&'v ast::Object<'a>, ConfigError> {
    match v {
        ast::Value::Object(o) => Ok(o),
        _ => Err(file.error(root_range(v), message)),
    }
}

pub(super) fn parse_entry(
    file: &File,
    id: &str,
    v: &ast::Value,
    entry: &mut LspEntry,
) -> Result<(), ConfigError> {
    let what = format!("lsp.\"{id}\"");
    let obj = object_of(
        file,
        v,
        &format!(
            "{what} must be an object such as {{\"disabled\": true}} or {{\"command\": [...], \"extensions\": [...]}}"
        ),
    )?;
    for prop in &obj.properties {
        let key = prop.name.as_str();
        let v = &prop.value;
        let shared = Shared {
            disabled: &mut entry.disabled,
            command: &mut entry.command,
            extensions: &mut entry.extensions,
        };
        if shared.read(file, prop, &what, "[\"my-server\", \"--stdio\"]")? {
            continue;
        }
        match key {
            "env" => entry
                .env
                .extend(string_map_of(file, prop, &format!("lsp.\"{id}\".env"))?),
            "network" => {
                entry.network = Some(bool_of(
                    file,
                    v,
                    &format!("lsp.\"{id}\".network must be true or false"),
                )?);
            }
            "initialization" => match to_json(v) {
                Value::Object(o) => {
                    let mut merged = entry.initialization.take().unwrap_or_default();
                    merged.extend(o);
                    entry.initialization = Some(merged);
                }
                _ => {
                    return Err(file.error(
                        root_range(v),
                        &format!("lsp.\"{id}\".initialization must be an object"),
                    ));
                }
            },
            "settings" => match to_json(v) {
                Value::Object(o) => {
                    let mut merged = Value::Object(entry.settings.take().unwrap_or_default());
                    crate::config::merge_deep(&mut merged, &Value::Object(o));
                    entry.settings = match merged {
                        Value::Object(m) => Some(m),
                        _ => None,
                    };
                }
                _ => {
                    return Err(file.error(
                        root_range(v),
                        &format!("lsp.\"{id}\".settings must be an object"),
                    ));
                }
            },
            "diagnostics" => budgets_of(file, id, v, &mut entry.diagnostics)?,
            other => {
                return Err(file.error(
                    prop.range,
                    &format!(
                        "unknown key lsp.\"{id}\".{other}; expected one of {}",
                        ENTRY_KEYS.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `lsp."id".diagnostics`: wait budgets in milliseconds, by name.
fn budgets_of(
    file: &File,
    id: &str,
    v: &ast::Value,
    budgets: &mut BTreeMap<String, u64>,
) -> Result<(), ConfigError> {
    let ast::Value::Object(o) = v else {
        return Err(file.error(
            root_range(v),
            &format!("lsp.\"{id}\".diagnostics must be an object of budgets in milliseconds"),
        ));
    };
    for p in &o.properties {
        let name = p.name.as_str();
        let n = match &p.value {
            ast::Value::NumberLit(n) => n.value.parse::<u64>().ok(),
            _ => None,
        };
        match (BUDGET_KEYS.contains(&name), n) {
            (true, Some(n)) => {
                budgets.insert(name.to_owned(), n);
            }
            (true, None) => {
                return Err(file.error(
                    p.range,
                    &format!(
                        "lsp.\"{id}\".diagnostics.{name} must be a whole number of milliseconds"
                    ),
                ));
            }
            (false, _) => {
                return Err(file.error(
                    p.range,
                    &format!(
                        "unknown budget \"{name}\"; expected one of {}",
                        BUDGET_KEYS.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn parse_formatter(
    file: &File,
    name: &str,
    v: &ast::Value,
    entry: &mut FormatterEntry,
) -> Result<(), ConfigError> {
    let what = format!("formatter.\"{name}\"");
    let obj = object_of(
        file,
        v,
        &format!("{what} must be an object such as {{\"disabled\": true}}"),
    )?;
    for prop in &obj.properties {
        let key = prop.name.as_str();
        let v = &prop.value;
        let shared = Shared {
            disabled: &mut entry.disabled,
            command: &mut entry.command,
            extensions: &mut entry.extensions,
        };
        if shared.read(file, prop, &what, "[\"fmt\", \"$FILE\"]")? {
            continue;
        }
        match key {
            "environment" => entry.environment.extend(string_map_of(
                file,
                prop,
                &format!("formatter.\"{name}\".environment"),
            )?),
            "timeout_ms" => {
                match v {
                    ast::Value::NumberLit(n) if n.value.parse::<u64>().is_ok() => {
                        entry.timeout_ms = n.value.parse().ok()
                    }
                    other => return Err(file.error(
                        root_range(other),
                        &format!(
                            "formatter.\"{name}\".timeout_ms must be a whole number of milliseconds"
                        ),
                    )),
                }
            }
            other => {
                return Err(file.error(
                    prop.range,
                    &format!("unknown key formatter.\"{name}\".{other}; expected one of disabled, command, extensions, environment, timeout_ms"),
                ));
            }
        }
    }
    Ok(())
}

/// A file being read, for errors with line numbers.
pub(super) struct File<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
}

impl File<'_> {
    pub(super) fn line(&self, range: jsonc_parser::common::Range) -> usize {
        self.text[..range.start.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    pub(super) fn origin(&self, range: jsonc_parser::common::Range) -> Origin {
        Origin::File {
            path: self.path.to_owned(),
            line: self.line(range),
        }
    }

    pub(super) fn error(&self, range: jsonc_parser::common::Range, message: &str) -> ConfigError {
        ConfigError::Invalid {
            file: self.path.display().to_string(),
            line: self.line(range),
            message: message.to_owned(),
        }
    }
}
