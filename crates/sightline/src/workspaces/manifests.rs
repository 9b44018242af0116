//! The files that declare a workspace, each read for the package patterns it
//! names: `pnpm-workspace.yaml`, `package.json`'s `workspaces` (npm, yarn,
//! bun), `lerna.json`, `nx.json`, a `tsconfig.json` with project
//! `references`, `pyproject.toml`'s `[tool.uv.workspace]` and
//! `sightline.json`'s `workspace`. Each reader takes the file's text and
//! answers `None` when the file declares no workspace; none of them fails.

use serde_json::Value;

/// The package patterns a file declares, relative to its directory:
/// globs to include, and globs to leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patterns {
    /// Globs of package directories (`packages/*`, `apps/**`).
    pub include: Vec<String>,
    /// Globs of directories that are not packages, though included.
    pub exclude: Vec<String>,
}

impl Patterns {
    /// Splits npm-style patterns, where a leading `!` excludes.
    fn from_npm(patterns: impl IntoIterator<Item = String>) -> Self {
        let mut out = Patterns::default();
        for p in patterns {
            match p.strip_prefix('!') {
                Some(rest) => out.exclude.push(clean(rest)),
                None => out.include.push(clean(&p)),
            }
        }
        out
    }
}

/// A pattern without a leading `./` or trailing `/`.
fn clean(pattern: &str) -> String {
    pattern
        .trim()
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_owned()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `pnpm-workspace.yaml`: the list under the top-level `packages:` key.
pub fn pnpm_workspace(text: &str) -> Option<Patterns> {
    let mut in_packages = false;
    let mut found = Vec::new();
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or_default();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let top_level = !line.starts_with([' ', '\t', '-']);
        if top_level {
            in_packages = line.trim_end() == "packages:";
            continue;
        }
        if in_packages && let Some(item) = line.trim_start().strip_prefix('-') {
            found.push(unquote(item.trim()));
        }
    }
    (!found.is_empty()).then(|| Patterns::from_npm(found))
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'').to_owned()
}

/// `package.json`: `workspaces` as a list, or as `{ "packages": [...] }`
/// (yarn's older form).
pub fn package_json(text: &str) -> Option<Patterns> {
    let json: Value = serde_json::from_str(text).ok()?;
    let ws = json.get("workspaces")?;
    let list = match ws {
        Value::Array(_) => strings(Some(ws)),
        _ => strings(ws.get("packages")),
    };
    (!list.is_empty()).then(|| Patterns::from_npm(list))
}

/// `lerna.json`: its `packages`, by default `packages/*`.
pub fn lerna_json(text: &str) -> Option<Patterns> {
    let json: Value = serde_json::from_str(text).ok()?;
    let list = strings(json.get("packages"));
    let list = if list.is_empty() {
        vec!["packages/*".to_owned()]
    } else {
        list
    };
    Some(Patterns::from_npm(list))
}

/// `nx.json`: the apps and libs directories of its `workspaceLayout`
/// (by default `apps` and `libs`), and `packages`, at any depth; only
/// those with a manifest count.
pub fn nx_json(text: &str) -> Option<Patterns> {
    let json: Value = serde_json::from_str(text).ok()?;
    let layout = json.get("workspaceLayout");
    let dir = |key: &str, default: &str| {
        layout
            .and_then(|l| l.get(key))
            .and_then(Value::as_str)
            .map_or_else(|| default.to_owned(), clean)
    };
    let include = vec![
        format!("{}/**", dir("appsDir", "apps")),
        format!("{}/**", dir("libsDir", "libs")),
        "packages/**".to_owned(),
    ];
    Some(Patterns {
        include,
        exclude: Vec::new(),
    })
}

/// A `tsconfig.json` (JSON with comments) whose `references` name the
/// projects of a solution: each reference's directory.
pub fn tsconfig_references(text: &str) -> Option<Patterns> {
    let json: Value = jsonc_parser::parse_to_serde_value(text, &Default::default()).ok()?;
    let refs = json.get("references")?.as_array()?;
    let include: Vec<String> = refs
        .iter()
        .filter_map(|r| r.get("path").and_then(Value::as_str))
        .map(|p| {
            let p = clean(p);
            // A reference may name the config file itself.
            match p.rsplit_once('/') {
                Some((dir, file)) if file.ends_with(".json") => dir.to_owned(),
                None if p.ends_with(".json") => ".".to_owned(),
                _ => p,
            }
        })
        .collect();
    (!include.is_empty()).then_some(Patterns {
        include,
        exclude: Vec::new(),
    })
}

/// `sightline.json`: `"workspace": { "packages": [...], "exclude": [...] }`.
pub fn sightline_json(text: &str) -> Option<Patterns> {
    let json: Value = jsonc_parser::parse_to_serde_value(text, &Default::default()).ok()?;
    let ws = json.get("workspace")?;
    let include: Vec<String> = strings(ws.get("packages"))
        .iter()
        .map(|p| clean(p))
        .collect();
    let exclude = strings(ws.get("exclude"))
        .iter()
        .map(|p| clean(p))
        .collect();
    (!include.is_empty()).then_some(Patterns { include, exclude })
}

/// `pyproject.toml`: the `members` and `exclude` of `[tool.uv.workspace]`.
pub fn uv_workspace(text: &str) -> Option<Patterns> {
    let table = toml_table(text, "tool.uv.workspace")?;
    let include: Vec<String> = toml_strings(&table, "members")
        .iter()
        .map(|p| clean(p))
        .collect();
    let exclude = toml_strings(&table, "exclude")
        .iter()
        .map(|p| clean(p))
        .collect();
    Some(Patterns { include, exclude })
}

/// The body of the TOML table `[name]`, up to the next table header.
fn toml_table(text: &str, name: &str) -> Option<String> {
    let header = format!("[{name}]");
    let mut body = None::<String>;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && !trimmed.starts_with("[[") && trimmed.ends_with(']') {
            if body.is_some() {
                break;
            }
            if trimmed.replace(' ', "") == header {
                body = Some(String::new());
            }
            continue;
        }
        if let Some(b) = body.as_mut() {
            b.push_str(line.split('#').next().unwrap_or_default());
            b.push('\n');
        }
    }
    body
}

/// The strings of the array `key = [ ... ]` in a table's body.
fn toml_strings(table: &str, key: &str) -> Vec<String> {
    let Some(at) = table.lines().position(|l| {
        l.trim_start()
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    }) else {
        return Vec::new();
    };
    let rest: String = table.lines().skip(at).collect::<Vec<_>>().join("\n");
    let Some(open) = rest.find('[') else {
        return Vec::new();
    };
    let close = rest[open..].find(']').map_or(rest.len(), |c| open + c);
    let mut found = Vec::new();
    let mut chars = rest[open + 1..close].chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let s: String = chars.by_ref().take_while(|&d| d != c).collect();
            found.push(s);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    fn inc(p: &Patterns) -> Vec<&str> {
        p.include.iter().map(String::as_str).collect()
    }

    #[test]
    fn pnpm_lists_its_packages_and_exclusions() {
        let text = "# the workspace\npackages:\n  - 'packages/*'\n  - \"apps/**\" # apps\n  - '!**/test/**'\ncatalog:\n  react: ^18\n";
        let p = pnpm_workspace(text).unwrap();
        assert_eq!(inc(&p), ["packages/*", "apps/**"]);
        assert_eq!(p.exclude, ["**/test/**"]);
        assert_eq!(pnpm_workspace("catalog:\n  - x\n"), None);
    }

    #[test]
    fn package_json_in_both_forms() {
        let p = package_json(r#"{"workspaces": ["packages/*", "!packages/old"]}"#).unwrap();
        assert_eq!(inc(&p), ["packages/*"]);
        assert_eq!(p.exclude, ["packages/old"]);
        let p = package_json(r#"{"workspaces": {"packages": ["./libs/*/"]}}"#).unwrap();
        assert_eq!(inc(&p), ["libs/*"]);
        assert_eq!(package_json(r#"{"name": "x"}"#), None);
    }

    #[test]
    fn lerna_nx_and_tsconfig() {
        assert_eq!(inc(&lerna_json("{}").unwrap()), ["packages/*"]);
        let nx = nx_json(r#"{"workspaceLayout": {"appsDir": "projects"}}"#).unwrap();
        assert_eq!(inc(&nx), ["projects/**", "libs/**", "packages/**"]);
        let ts = tsconfig_references(
            "{ // a solution\n \"files\": [], \"references\": [{\"path\": \"./core\"}, {\"path\": \"web/tsconfig.app.json\"},]}",
        )
        .unwrap();
        assert_eq!(inc(&ts), ["core", "web"]);
        assert_eq!(tsconfig_references(r#"{"compilerOptions": {}}"#), None);
    }

    #[test]
    fn uv_members_and_exclude_over_several_lines() {
        let text = "[project]\nname = \"root\"\n\n[tool.uv.workspace]\nmembers = [\n  \"packages/*\", # all\n  'libs/core',\n]\nexclude = [\"packages/legacy\"]\n\n[tool.uv.sources]\nx = { workspace = true }\n";
        let p = uv_workspace(text).unwrap();
        assert_eq!(inc(&p), ["packages/*", "libs/core"]);
        assert_eq!(p.exclude, ["packages/legacy"]);
        assert_eq!(uv_workspace("[tool.uv]\ndev = []\n"), None);
    }

    #[test]
    fn sightline_json_names_packages_by_hand() {
        let p = sightline_json("{ \"workspace\": { \"packages\": [\"services/*\"] } // by hand\n}")
            .unwrap();
        assert_eq!(inc(&p), ["services/*"]);
        assert_eq!(sightline_json("{}"), None);
    }

    proptest! {
        // The readers take any text a cloned repository may hold: they
        // answer or decline, and never panic.
        #[test]
        fn readers_never_panic(text in "\\PC{0,200}") {
            let _ = pnpm_workspace(&text);
            let _ = package_json(&text);
            let _ = lerna_json(&text);
            let _ = nx_json(&text);
            let _ = tsconfig_references(&text);
            let _ = sightline_json(&text);
            let _ = uv_workspace(&text);
        }

        #[test]
        fn uv_reads_back_what_it_is_given(members in proptest::collection::vec("[a-z][a-z0-9_/*-]{0,12}", 1..5)) {
            let list = members.iter().map(|m| format!("\"{m}\"")).collect::<Vec<_>>().join(",\n  ");
            let text = format!("[tool.uv.workspace]\nmembers = [\n  {list}\n]\n");
            let got = uv_workspace(&text).unwrap();
            let want: Vec<String> = members.iter().map(|m| clean(m)).collect();
            prop_assert_eq!(got.include, want);
        }
    }
}
