//! Codex's `config.toml` edit of `setup`: one delimited block holding the
//! `[mcp_servers.sightline]` table, appended as it is and taken out exactly,
//! so that the rest of the file (comments, order, formatting) is untouched.
//! A `sightline` server the user wrote (as a table, an inline table or
//! dotted keys) is left alone.

/// The first line of the block, which marks it as `setup`'s.
const MARK: &str = "# sightline's MCP server (`sightline setup codex`; `--remove` takes it out)";

/// A TOML string.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The block for `argv` (the program and its first arguments). Codex
/// starts MCP servers with a cleared environment (no `XDG_*`, no
/// `VIRTUAL_ENV`) where its hooks get the whole one; `env_vars` passes
/// on the variables that decide which daemon `sightline mcp` reaches and
/// what its servers see (`daemon::client_vars`), so that the session and
/// the hooks meet in one daemon.
fn block(argv: &[String]) -> String {
    let (program, rest) = argv
        .split_first()
        .map_or(("sightline", &[][..]), |(p, r)| (p.as_str(), r));
    let mut args: Vec<String> = rest.iter().map(|a| quoted(a)).collect();
    args.push(quoted("mcp"));
    let vars: Vec<String> = crate::frontends::daemon::client_vars()
        .chunks(5)
        .map(|line| {
            let names: Vec<String> = line.iter().map(|v| quoted(v)).collect();
            format!("  {},\n", names.join(", "))
        })
        .collect();
    format!(
        "{MARK}\n[mcp_servers.sightline]\ncommand = {}\nargs = [{}]\nenv_vars = [\n{}]\n",
        quoted(program),
        args.join(", "),
        vars.concat()
    )
}

/// Where `setup`'s block is in `text`: its start (with the line break
/// before it that `setup` added) and its end. The block is its mark, the
/// table's line, `command`, `args`, and `env_vars` through its closing
/// line (a block written before `env_vars` ends at `args`).
fn find(text: &str) -> Option<(usize, usize)> {
    let at = text.find(MARK)?;
    let start = if text[..at].ends_with('\n') {
        at - 1
    } else {
        at
    };
    let mut lines = text[at..].split_inclusive('\n');
    let mut len: usize = lines.by_ref().take(4).map(str::len).sum();
    // `env_vars` as setup writes it: its opening line, lines of quoted
    // names, and a line `]`. Anything else ends the block (a list closed
    // on its own line, a line of the user's), so that nothing past it is
    // ever taken out.
    let mut rest = lines.peekable();
    if let Some(open) = rest.next_if(|l| l.starts_with("env_vars = [")) {
        len += open.len();
        if !open.contains(']') {
            let listed = |l: &&str| {
                let t = l.trim();
                t == "]" || (t.starts_with('"') && t.ends_with(','))
            };
            while let Some(line) = rest.next_if(listed) {
                len += line.len();
                if line.trim() == "]" {
                    break;
                }
            }
        }
    }
    Some((start, at + len))
}

/// Whether the user's own lines (outside setup's block, which is not in
/// `text` here) define a `sightline` MCP server, in any of TOML's forms
/// (`[mcp_servers.sightline]`, a key under `[mcp_servers]`, dotted keys).
/// A file that is not valid TOML defines none that Codex would start.
fn users_own(text: &str) -> bool {
    crate::syntax::toml_table(text).is_ok_and(|config| {
        config
            .get("mcp_servers")
            .and_then(|servers| servers.get("sightline"))
            .is_some()
    })
}

/// The block for sightline over HTTP at `url`: Codex sends the bearer
/// token it reads from the variable (`bearer_token_env_var`).
fn http_block(url: &str) -> String {
    format!(
        "{MARK}\n[mcp_servers.sightline]\nurl = {}\nbearer_token_env_var = {}\n",
        quoted(url),
        quoted(super::TOKEN_VAR)
    )
}

/// Adds (or with `remove`, takes out) the block (for `argv`, or over HTTP
/// at `url`); what changed.
pub(super) fn mcp_server(
    text: &mut String,
    argv: &[String],
    url: Option<&str>,
    remove: bool,
) -> Vec<String> {
    let wanted = url.map_or_else(|| block(argv), http_block);
    let name = "mcp_servers.sightline".to_owned();
    match (find(text), remove) {
        (Some((start, end)), true) => {
            text.replace_range(start..end, "");
            vec![name]
        }
        (None, true) => Vec::new(),
        (Some((start, end)), false) => {
            let at = text[start..].find(MARK).map_or(start, |i| start + i);
            if text[at..end] == wanted {
                return Vec::new();
            }
            text.replace_range(at..end, &wanted);
            vec![name]
        }
        (None, false) if users_own(text) => Vec::new(),
        (None, false) => {
            // One line break before the block, which `remove` takes back:
            // a blank line after a file that ends with one, the end of the
            // last line after one that does not.
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&wanted);
            vec![name]
        }
    }
}
