//! The TOML and YAML of project files, read by well-kept crates (`toml`,
//! `yaml-rust2`) and never by hand. A cloned repository writes these files,
//! so each reader is bounded: the text comes capped
//! ([`crate::files::read_project_file`]), the TOML parser stops at its
//! nesting limit, and YAML is read as a stream of events, once, in time and
//! memory linear in the text (its aliases are never expanded, so a file of
//! nested aliases cannot grow into gigabytes).

use yaml_rust2::parser::{Event, Parser};

/// Why a project file's text could not be read as its syntax.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// The text is not valid TOML.
    #[error("is not valid TOML: {0}")]
    Toml(String),
    /// The text is not valid YAML.
    #[error("is not valid YAML: {0}")]
    Yaml(String),
}

/// A TOML document's top-level table.
pub fn toml_table(text: &str) -> Result<toml::Table, SyntaxError> {
    toml::from_str(text).map_err(|e| {
        // The crate's own text quotes the source over several lines; the
        // message and its line say it in one.
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let message = first_line(e.message());
        SyntaxError::Toml(match line {
            Some(line) => format!("{message} (line {line})"),
            None => message,
        })
    })
}

/// The strings of the list under the top-level key `key` of a YAML
/// document's mapping: `None` when the document is not a mapping or has no
/// such key, the list's scalar items otherwise (a non-list value is an empty
/// list; nested lists, mappings and aliases among the items are left out).
pub fn yaml_top_level_strings(text: &str, key: &str) -> Result<Option<Vec<String>>, SyntaxError> {
    let text = flow_ends_indented(text);
    let mut events = YamlEvents(Parser::new_from_str(&text));
    // The stream's start, its first document's, then that document's root.
    loop {
        match events.next()? {
            Event::StreamStart | Event::DocumentStart => {}
            Event::MappingStart(..) => return mapping_strings(&mut events, key),
            _ => return Ok(None),
        }
    }
}

/// `text` with a space before each line that starts at its first column
/// inside a flow list or mapping (`packages: [` … `]`). pnpm reads its
/// file with js-yaml, which takes such lines; yaml-rust2 follows YAML's rule
/// that a flow collection's lines be indented within its key's. The space
/// changes nothing else: inside a flow collection, a scalar's continuation
/// lines lose their leading blanks.
fn flow_ends_indented(text: &str) -> std::borrow::Cow<'_, str> {
    let mut depth: usize = 0;
    let mut out = String::with_capacity(text.len() + 16);
    let mut changed = false;
    for line in text.split_inclusive('\n') {
        if depth > 0 && !line.starts_with([' ', '\t', '\n', '\r']) {
            out.push(' ');
            changed = true;
        }
        out.push_str(line);
        let mut quote = None;
        let mut previous = ' ';
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '#') if previous == ' ' || previous == '\t' => break,
                (None, '[' | '{') => depth += 1,
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            previous = c;
        }
    }
    if changed { out.into() } else { text.into() }
}

/// Within a mapping whose start was read: the strings of `key`'s list.
fn mapping_strings(events: &mut YamlEvents, key: &str) -> Result<Option<Vec<String>>, SyntaxError> {
    loop {
        let found = match events.next()? {
            Event::MappingEnd | Event::StreamEnd => return Ok(None),
            Event::Scalar(name, ..) => name == key,
            other => {
                events.skip_rest_of(&other)?;
                false
            }
        };
        let value = events.next()?;
        if !found {
            events.skip_rest_of(&value)?;
            continue;
        }
        if !matches!(value, Event::SequenceStart(..)) {
            events.skip_rest_of(&value)?;
            return Ok(Some(Vec::new()));
        }
        let mut items = Vec::new();
        loop {
            match events.next()? {
                Event::SequenceEnd | Event::StreamEnd => return Ok(Some(items)),
                Event::Scalar(item, ..) => items.push(item),
                other => events.skip_rest_of(&other)?,
            }
        }
    }
}

/// A YAML parser's events, its errors as [`SyntaxError`]s.
struct YamlEvents<'a>(Parser<std::str::Chars<'a>>);

impl YamlEvents<'_> {
    fn next(&mut self) -> Result<Event, SyntaxError> {
        self.0.next_token().map(|(e, _)| e).map_err(yaml_error)
    }

    /// Reads past the rest of the node that `first` began: nothing for a
    /// scalar or an alias, up to the matching end for a list or a mapping.
    fn skip_rest_of(&mut self, first: &Event) -> Result<(), SyntaxError> {
        let mut depth: usize = match first {
            Event::SequenceStart(..) | Event::MappingStart(..) => 1,
            _ => 0,
        };
        while depth > 0 {
            match self.next()? {
                Event::SequenceStart(..) | Event::MappingStart(..) => depth += 1,
                Event::SequenceEnd | Event::MappingEnd => depth -= 1,
                Event::StreamEnd => return Ok(()),
                _ => {}
            }
        }
        Ok(())
    }
}

fn yaml_error(e: yaml_rust2::ScanError) -> SyntaxError {
    SyntaxError::Yaml(first_line(&e.to_string()))
}

/// A parser's message as one line: the crates' messages may quote the
/// offending source over several.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_yaml_list_under_a_top_level_key_in_block_or_flow_form() {
        let block = "# top\npackages:\n  - 'a/*'\n  - \"b/**\" # c\n  - {x: 1}\n  - [n]\n  - d\nother: [z]\n";
        assert_eq!(
            yaml_top_level_strings(block, "packages").unwrap(),
            Some(vec!["a/*".into(), "b/**".into(), "d".into()])
        );
        assert_eq!(
            yaml_top_level_strings("other: {packages: [x]}\npackages: [p, 'q#r']\n", "packages")
                .unwrap(),
            Some(vec!["p".into(), "q#r".into()])
        );
        assert_eq!(
            yaml_top_level_strings("packages:\n", "packages").unwrap(),
            Some(vec![])
        );
        // js-yaml's leniency, which pnpm's files may rely on: a flow
        // list's items and its closing bracket at the first column.
        assert_eq!(
            yaml_top_level_strings("packages: [\n'a/*',\n\"b/*\" # x]\n]\n", "packages").unwrap(),
            Some(vec!["a/*".into(), "b/*".into()])
        );
        assert_eq!(
            yaml_top_level_strings(
                "packages: [\n  'a/*',\n  '!a/x'\n]\nx: {\n a: 1\n}\n",
                "packages"
            )
            .unwrap(),
            Some(vec!["a/*".into(), "!a/x".into()])
        );
        assert_eq!(
            yaml_top_level_strings("- packages\n", "packages").unwrap(),
            None
        );
        assert_eq!(yaml_top_level_strings("", "packages").unwrap(), None);
        assert!(matches!(
            yaml_top_level_strings("packages: [a\n", "packages"),
            Err(SyntaxError::Yaml(_))
        ));
    }

    #[test]
    fn nested_aliases_are_never_expanded() {
        // A "billion laughs": each level names the one below ten times.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..40 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        text.push_str("packages: [*a39, p]\n");
        assert_eq!(
            yaml_top_level_strings(&text, "packages").unwrap(),
            Some(vec!["p".into()])
        );
    }

    #[test]
    fn toml_errors_are_one_line() {
        let e = toml_table("x = 1\n[a\nb = 1\n").unwrap_err();
        // What is wrong and where, on one line.
        assert!(
            matches!(&e, SyntaxError::Toml(m) if m.ends_with("(line 2)") && m.len() > "(line 2)".len() + 2),
            "{e}"
        );
        assert_eq!(toml_table("x = 1\n").unwrap()["x"].as_integer(), Some(1));
    }
}
