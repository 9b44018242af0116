//! Codex's `config.toml` edit of `setup`: one delimited block holding the
//! `[mcp_servers.sightline]` table, appended as it is and taken out exactly,
//! so that the rest of the file (comments, order, formatting) is untouched.

/// The first line of the block, which marks it as `setup`'s.
const MARK: &str = "# sightline's MCP server (`sightline setup codex`; `--remove` takes it out)";

/// The block for `program`.
fn block(program: &str) -> String {
    let quoted = serde_json::to_string(program).unwrap_or_else(|_| "\"sightline\"".into());
    format!("{MARK}\n[mcp_servers.sightline]\ncommand = {quoted}\nargs = [\"mcp\"]\n")
}

/// Where `setup`'s block is in `text`: its start (with the blank line
/// before it that `setup` added) and its end.
fn find(text: &str) -> Option<(usize, usize)> {
    let at = text.find(MARK)?;
    let start = if text[..at].ends_with("\n\n") {
        at - 1
    } else {
        at
    };
    let rest = &text[at..];
    // The block is its four lines.
    let len: usize = rest.split_inclusive('\n').take(4).map(str::len).sum();
    Some((start, at + len))
}

/// Adds (or with `remove`, takes out) the block; what changed. A table of
/// that name the user wrote is left alone.
pub(super) fn mcp_server(text: &mut String, program: &str, remove: bool) -> Vec<String> {
    let name = "mcp_servers.sightline".to_owned();
    match (find(text), remove) {
        (Some((start, end)), true) => {
            text.replace_range(start..end, "");
            vec![name]
        }
        (None, true) => Vec::new(),
        (Some((start, end)), false) => {
            let wanted = block(program);
            let at = text[start..].find(MARK).map_or(start, |i| start + i);
            if text[at..end] == wanted {
                return Vec::new();
            }
            text.replace_range(at..end, &wanted);
            vec![name]
        }
        (None, false) if text.contains("[mcp_servers.sightline]") => Vec::new(),
        (None, false) => {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&block(program));
            vec![name]
        }
    }
}
