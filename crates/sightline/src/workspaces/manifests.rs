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

/// `pnpm-workspace.yaml`: the list of the top-level `packages` key, in
/// either of YAML's forms (`- 'a/*'` lines, or `['a/*', "b/*"]`).
pub fn pnpm_workspace(text: &str) -> Option<Patterns> {
    let found = crate::syntax::yaml_top_level_strings(text, "packages").ok()??;
    (!found.is_empty()).then(|| Patterns::from_npm(found))
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

/// `sightline.json`: `"workspace": { "packages": [...], "exclude": [...] }`,
/// where a package pattern may also leave one out with a leading `!`.
pub fn sightline_json(text: &str) -> Option<Patterns> {
    let json: Value = jsonc_parser::parse_to_serde_value(text, &Default::default()).ok()?;
    let ws = json.get("workspace")?;
    let mut patterns = Patterns::from_npm(strings(ws.get("packages")));
    patterns
        .exclude
        .extend(strings(ws.get("exclude")).iter().map(|p| clean(p)));
    (!patterns.include.is_empty()).then_some(patterns)
}

/// `pyproject.toml`: the `members` and `exclude` of `[tool.uv.workspace]`
/// (or of `[tool.uv]`'s inline `workspace = { ... }`, the same table to
/// TOML).
pub fn uv_workspace(text: &str) -> Option<Patterns> {
    let document = crate::syntax::toml_table(text).ok()?;
    let workspace = document.get("tool")?.get("uv")?.get("workspace")?;
    let list = |key: &str| -> Vec<String> {
        workspace
            .get(key)
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(toml::Value::as_str)
                    .map(clean)
                    .collect()
            })
            .unwrap_or_default()
    };
    Some(Patterns {
        include: list("members"),
        exclude: list("exclude"),
    })
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
    fn pnpm_flow_lists_and_quoted_keys() {
        let p = pnpm_workspace("packages: ['packages/*', \"apps/*\"] # all\n").unwrap();
        assert_eq!(inc(&p), ["packages/*", "apps/*"]);
        let p = pnpm_workspace("\"packages\":\n  - libs/*\n").unwrap();
        assert_eq!(inc(&p), ["libs/*"]);
        let p = pnpm_workspace("packages: [\n  'a/*',\n  '!a/x'\n]\n").unwrap();
        assert_eq!(
            (inc(&p), p.exclude.clone()),
            (vec!["a/*"], vec!["a/x".to_owned()])
        );
        let p = pnpm_workspace("packages:\n  - 'tools/#1/*'\n").unwrap();
        assert_eq!(inc(&p), ["tools/#1/*"]);
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
        // A header with a comment, a `#` and a `]` inside strings.
        let p = uv_workspace(
            "[tool.uv.workspace] # the members\nmembers = [\"libs/[ab]*\", \"x#y\"]\n",
        )
        .unwrap();
        assert_eq!(inc(&p), ["libs/[ab]*", "x#y"]);
        // The inline table of `[tool.uv]`.
        let p = uv_workspace(
            "[tool.uv]\nworkspace = { members = [\"pkgs/*\"], exclude = [\"pkgs/old\"] }\n",
        )
        .unwrap();
        assert_eq!(
            (inc(&p), p.exclude.clone()),
            (vec!["pkgs/*"], vec!["pkgs/old".to_owned()])
        );
    }

    #[test]
    fn sightline_json_names_packages_by_hand() {
        let p = sightline_json("{ \"workspace\": { \"packages\": [\"services/*\"] } // by hand\n}")
            .unwrap();
        assert_eq!(inc(&p), ["services/*"]);
        assert_eq!(sightline_json("{}"), None);
        let p = sightline_json(
            r#"{"workspace": {"packages": ["libs/*", "!libs/old"], "exclude": ["libs/x"]}}"#,
        )
        .unwrap();
        assert_eq!(
            (inc(&p), p.exclude.clone()),
            (
                vec!["libs/*"],
                vec!["libs/old".to_owned(), "libs/x".to_owned()]
            )
        );
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

        // Arbitrary bytes (as a lossy read gives them), text up to 64 KiB,
        // and nesting thousands deep (a JSON or a TOML array of arrays):
        // each reader answers or declines, without a panic or a stack
        // overflow; what the suite's time takes is the bound.
        #[test]
        fn readers_take_any_bytes_any_size_any_depth(
            bytes in proptest::collection::vec(any::<u8>(), 0..65536),
            depth in 1usize..20000,
            open in prop_oneof![Just("["), Just("{\"a\":"), Just("- ")],
        ) {
            let text = String::from_utf8_lossy(&bytes);
            let deep = format!("{{\"workspaces\": {}", open.repeat(depth));
            let toml = format!("[tool.uv.workspace]\nmembers = {}", "[".repeat(depth));
            for t in [text.as_ref(), deep.as_str(), toml.as_str()] {
                let _ = pnpm_workspace(t);
                let _ = package_json(t);
                let _ = lerna_json(t);
                let _ = nx_json(t);
                let _ = tsconfig_references(t);
                let _ = sightline_json(t);
                let _ = uv_workspace(t);
            }
        }

        /// However many globs a declaration holds, expanding them is
        /// bounded: past the cap nothing is read.
        #[test]
        fn a_declaration_of_many_globs_expands_to_nothing_past_the_cap(n in 1001usize..5000) {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("p0")).unwrap();
            std::fs::write(dir.path().join("p0/package.json"), "{}").unwrap();
            let patterns = Patterns {
                include: (0..n).map(|i| format!("p{i}")).collect(),
                exclude: Vec::new(),
            };
            prop_assert!(super::super::expand(dir.path(), &patterns, &["package.json"]).is_empty());
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
