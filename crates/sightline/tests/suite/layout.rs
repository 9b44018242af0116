//! The library's layout rules, checked on its source:
//!
//! - its modules form no cycle, at the top level and among the children of
//!   every module at any depth: every `crate::` and `super::` path in a file
//!   (in `use` lines and in code, grouped `crate::{a, b}` forms too, tests
//!   included) is a dependency on the module it names. Names a module
//!   re-exports (`crate::Engine`, `crate::catalog::Quirks`) count as the
//!   module they come from. Comments do not count. The check fails naming
//!   each cycle, so a new dependency that closes one is caught where it is
//!   written;
//! - a built-in server's id is written as a string only in the table
//!   (`catalog/table/`): code elsewhere reads the spec's fields;
//! - a question's code is on `Engine` under `engine/` and an edit's on
//!   `Editor` under `edit/`, and no engine module names the edits;
//! - every long function clippy allows says why (size is by meaning, the
//!   `too_many_lines` threshold, not a cap on a file's lines).

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to: `engine/route.rs` is `engine`,
/// `render.rs` is `render`. The crate root and the binary are none.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    (!matches!(name.as_str(), "lib" | "main" | "bin")).then_some(name)
}

/// The code of a file without its comments (line comments and doc comments;
/// the crate writes no block comments).
/// `text` with each `#[cfg(test)]` item blanked (its lines kept empty,
/// so that line numbers stay): a `mod x;` line, or a block to its closing
/// brace. Only those: the code after a test module is read too.
fn without_test_items(text: &str) -> String {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push(line);
            continue;
        }
        out.push("");
        let mut depth = 0i64;
        for item in lines.by_ref() {
            out.push("");
            let code = &item[..comment_start(item)];
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            let attribute = item.trim_start().starts_with("#[");
            if !attribute && depth <= 0 && (code.trim_end().ends_with(';') || code.contains('}')) {
                break;
            }
        }
    }
    out.join("\n")
}

#[test]
fn the_test_items_are_left_out_and_the_code_after_them_read() {
    let text = "fn a() {}\n#[cfg(test)]\nmod tests;\nfn b() {}\n#[cfg(test)]\nmod inline {\n    fn t() {}\n}\nfn c() {}\n";
    assert_eq!(
        without_test_items(text),
        "fn a() {}\n\n\nfn b() {}\n\n\n\n\nfn c() {}"
    );
}

fn code(text: &str) -> String {
    text.lines()
        .map(|l| &l[..comment_start(l)])
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the line's comment starts (its length when it has none). A `//`
/// inside a string literal (`"https://..."`) is not a comment.
fn comment_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            // A character literal such as '"' or '\'' holds no quote.
            b'\'' if !in_string && bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if !in_string && bytes.get(i + 1) == Some(&b'\\') => i += 3,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first path segment of every item of a `{...}` group starting at `s`
/// (just after the `{`).
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if c.is_whitespace() => {}
            _ if at_item_start && depth == 0 => {
                heads.push(ident_at(&s[i..]).to_owned());
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// Every name after `crate::` in `code`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `$crate::` or `my_crate::`
        }
        let rest = &code[i + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => out.extend(group_heads(group)),
            None => out.push(ident_at(rest).to_owned()),
        }
    }
    out
}

/// Names the crate root re-exports, with the module they come from:
/// `pub use engine::{Engine, Options};` maps `Engine` and `Options` to `engine`.
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in code(lib).lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = ident_at(path).to_owned();
        let rest = &path[module.len()..];
        let names = match rest.find('{') {
            Some(i) => rest[i + 1..].split(['}', ',']).map(str::trim).collect(),
            None => vec![rest.rsplit("::").next().unwrap_or("").trim_end_matches(';')],
        };
        for n in names {
            let n = n.rsplit(" as ").next().unwrap_or(n).trim();
            if !n.is_empty() {
                out.insert(n.to_owned(), module.clone());
            }
        }
    }
    out
}

/// The dependency graph: module → the modules it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let exports = root_exports(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(f) else { continue };
        let deps = g.entry(m.clone()).or_default();
        for name in crate_paths(&code(&std::fs::read_to_string(f).unwrap())) {
            let target = if modules.contains(&name) {
                Some(name)
            } else {
                exports.get(&name).cloned()
            };
            if let Some(t) = target.filter(|t| *t != m) {
                deps.insert(t);
            }
        }
    }
    g
}

/// Every cycle, as the modules of one strongly connected component in the
/// order a walk along its edges meets them (Tarjan's algorithm).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.reverse();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut walk = Walk {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

/// One cycle through `scc` written out edge by edge, from its first module.
fn a_cycle(g: &BTreeMap<String, BTreeSet<String>>, scc: &[String]) -> String {
    let inside: BTreeSet<&str> = scc.iter().map(String::as_str).collect();
    // Breadth-first from the first module back to itself, inside the component.
    let start = scc[0].as_str();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g[v].iter().map(String::as_str) {
            if !inside.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![start, v];
                let mut at = v;
                while at != start {
                    at = prev[at];
                    path.push(at);
                }
                path.reverse();
                path.pop();
                path.push(start);
                return path.join(" → ");
            }
            if !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    scc.join(", ")
}

/// The module path of a file: `engine/route.rs` is `engine::route`,
/// `frontends/daemon/mod.rs` is `frontends::daemon`, the crate root is "".
fn module_path(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.strip_suffix(".rs").unwrap_or(&last).to_owned();
    if !matches!(stem.as_str(), "mod" | "lib" | "main") {
        parts.push(stem);
    }
    parts.join("::")
}

/// Every module path a file's code names, resolved to the deepest module
/// that exists: `crate::engine::route::X` is `engine::route`,
/// `super::quirks::Quirks` in `catalog/table/mod.rs` is `catalog::quirks`, a
/// name a module re-exports is the module it comes from.
fn named_modules(
    file_module: &str,
    code: &str,
    modules: &BTreeSet<String>,
    exports: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for path in full_paths(code) {
        let mut segs: Vec<String> = Vec::new();
        let mut rest = path.as_str();
        // Where the path starts: the crate root, or the module `super` names.
        let base: Vec<String> = if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            Vec::new()
        } else {
            let mut base: Vec<String> = file_module
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            // `super` in `x.rs` or `x/mod.rs` is the parent of `x`.
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            base
        };
        segs.extend(base);
        segs.extend(rest.split("::").map(str::to_owned));
        // The deepest prefix that is a module, then re-exports followed.
        let mut at = String::new();
        for (i, s) in segs.iter().enumerate() {
            let next = if i == 0 {
                s.clone()
            } else {
                format!("{at}::{s}")
            };
            if modules.contains(&next) {
                at = next;
            } else {
                let key = format!("{at}::{s}");
                if let Some(m) = exports.get(&key) {
                    at = m.clone();
                }
                break;
            }
        }
        if !at.is_empty() {
            out.insert(at);
        }
    }
    out
}

/// Every `crate::a::b::c` and `super::a::b` path in `code`, grouped forms
/// expanded (`crate::{a::X, b}` gives `crate::a::X` and `crate::b`).
fn full_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in code.match_indices(prefix) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue; // `$crate::`, `my_crate::`, or inside `super::super::`
            }
            let mut head = String::from(prefix);
            let mut rest = &code[i + prefix.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                head.push_str("super::");
                rest = r;
            }
            expand(&head, rest, &mut out);
        }
    }
    out
}

/// The paths of `rest` (just after `head`), expanding one `{...}` group.
fn expand(head: &str, rest: &str, out: &mut Vec<String>) {
    let mut path = String::new();
    let mut s = rest;
    loop {
        let id = ident_at(s);
        if id.is_empty() {
            break;
        }
        if !path.is_empty() {
            path.push_str("::");
        }
        path.push_str(id);
        s = &s[id.len()..];
        match s.strip_prefix("::") {
            Some(r) if r.starts_with('{') => {
                for item in group_items(&r[1..]) {
                    expand(&format!("{head}{path}::"), &item, out);
                }
                return;
            }
            Some(r) => s = r,
            None => break,
        }
    }
    if let Some(r) = rest.strip_prefix('{') {
        for item in group_items(r) {
            expand(head, &item, out);
        }
        return;
    }
    if !path.is_empty() {
        out.push(format!("{head}{path}"));
    }
}

/// The items of a `{...}` group starting just after its `{`, each as text.
fn group_items(s: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(s[start..i].trim().to_owned());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(s[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.retain(|i| !i.is_empty() && i != "self");
    items
}

/// Where the file's first inline module (`mod tests {`) begins, if any.
fn inline_module_start(code: &str) -> Option<usize> {
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        if let Some(rest) = t.strip_prefix("mod ")
            && rest.trim_end().ends_with('{')
        {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// `module::Name` → the child module it is re-exported from, for every
/// `pub use child::...` line of every module file (`lib.rs`, `mod.rs`, `x.rs`).
fn nested_exports(files: &[PathBuf], modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for f in files {
        let module = module_path(f);
        for (name, child) in root_exports(&std::fs::read_to_string(f).unwrap()) {
            let child = if module.is_empty() {
                child
            } else {
                format!("{module}::{child}")
            };
            if modules.contains(&child) {
                let key = if module.is_empty() {
                    format!("::{name}")
                } else {
                    format!("{module}::{name}")
                };
                out.insert(key, child);
            }
        }
    }
    out
}

/// For each module with children, the graph among its children: child →
/// the siblings it names (from any file in its subtree).
fn sibling_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.retain(|f| !f.ends_with("main.rs"));
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_path(f))
        .filter(|m| !m.is_empty())
        .collect();
    let exports = nested_exports(&files, &modules);
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in &files {
        let from = module_path(f);
        let code = code(&std::fs::read_to_string(f).unwrap());
        // Code in an inline module (`mod tests { use super::*; }`) is one
        // level down: its `super` is the file's own module.
        let (outer, inner) = match inline_module_start(&code) {
            Some(i) => code.split_at(i),
            None => (code.as_str(), ""),
        };
        let mut named = named_modules(&from, outer, &modules, &exports);
        named.extend(named_modules(
            &format!("{from}::inline"),
            inner,
            &modules,
            &exports,
        ));
        for to in named {
            // The first place the two paths part: siblings under one parent.
            let a: Vec<&str> = from.split("::").filter(|s| !s.is_empty()).collect();
            let b: Vec<&str> = to.split("::").collect();
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            if common < a.len() && common < b.len() {
                let parent = a[..common].join("::");
                let (x, y) = (a[common].to_owned(), b[common].to_owned());
                let g = out.entry(parent).or_default();
                g.entry(y.clone()).or_default();
                g.entry(x).or_default().insert(y);
            }
        }
    }
    out
}

#[test]
fn no_module_imports_a_sibling_that_imports_it_back_at_any_depth() {
    let graphs = sibling_graphs();
    assert!(
        graphs.contains_key("frontends"),
        "no nested modules found under {}",
        src().display()
    );
    let mut report = Vec::new();
    for (parent, g) in &graphs {
        for scc in cycles(g) {
            let at = if parent.is_empty() { "crate" } else { parent };
            report.push(format!(
                "in {at}: {} (modules: {})",
                a_cycle(g, &scc),
                scc.join(", ")
            ));
        }
    }
    assert!(
        report.is_empty(),
        "import cycles between sibling modules:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_nested_check_resolves_super_groups_and_reexports() {
    assert_eq!(
        full_paths(
            "use super::{a::X, b::{c, d}};\nuse crate::e::f;\nlet y = super::super::g::h();"
        ),
        [
            "crate::e::f",
            "super::a::X",
            "super::b::c",
            "super::b::d",
            "super::super::g::h"
        ]
    );
    let modules: BTreeSet<String> = ["a", "a::b", "a::c", "d"]
        .map(String::from)
        .into_iter()
        .collect();
    let exports: BTreeMap<String, String> = [("a::Thing".to_owned(), "a::c".to_owned())].into();
    let named = named_modules(
        "a::b",
        "use super::Thing; use crate::d::X; use super::c::Y;",
        &modules,
        &exports,
    );
    assert_eq!(named, ["a::c", "d"].map(String::from).into_iter().collect());
}

/// The ids of the built-in servers, read from the table's `id: "..."` lines.
fn server_ids() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&src().join("catalog/table"), &mut files);
    let mut ids = BTreeSet::new();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            if let Some(rest) = line.trim().strip_prefix("id: \"")
                && let Some(id) = rest.split('"').next()
            {
                ids.insert(id.to_owned());
            }
        }
    }
    ids
}

#[test]
fn a_server_id_is_written_only_in_the_table() {
    let ids = server_ids();
    assert!(
        ids.contains("pyright") && ids.contains("eslint"),
        "the table's ids were not found: {ids:?}"
    );
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src()).unwrap();
        // The server table; the formatter table, whose program names
        // (`biome`, `dart`, `gleam`, `terraform`) are also server ids; and
        // the JSON Schema of the configuration keys, which are server ids
        // (`"yaml-ls"` is a field's serde name there).
        if rel.starts_with("catalog/table")
            || rel == Path::new("format/table.rs")
            || rel == Path::new("config/schema.rs")
        {
            continue;
        }
        // Tests name servers to build their cases; the rule is about code.
        let name = f.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name == "proptests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code_part = without_test_items(&text);
        for (n, line) in code(&code_part).lines().enumerate() {
            for id in &ids {
                if line.contains(&format!("\"{id}\"")) {
                    found.push(format!("{}:{}: \"{id}\"", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "server ids written outside catalog/table/:\n{}",
        found.join("\n")
    );
}

/// Functions are sized by meaning: clippy's `too_many_lines` (threshold
/// 100, `clippy.toml`) flags a long one, and each allowed stays with the
/// reason it is long beside it.
#[test]
fn every_long_function_allowed_says_why() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(&src().join("../../sightline-fake-lsp/src"), &mut files);
    let mut allowed = 0;
    let mut bare = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (at, _) in text.match_indices("clippy::too_many_lines") {
            allowed += 1;
            let attribute = &text[at..];
            let end = attribute.find(")]").unwrap_or(attribute.len());
            if !attribute[..end].contains("reason = \"") {
                bare.push(f.display().to_string());
            }
        }
    }
    assert!(
        bare.is_empty(),
        "a long function allowed without its reason in:\n{}",
        bare.join("\n")
    );
    let threshold = std::fs::read_to_string(src().join("../../../clippy.toml")).unwrap();
    assert!(
        threshold.contains("too-many-lines-threshold = 100"),
        "{threshold}"
    );
    assert!(
        allowed > 0,
        "no allowance found: is the scan reading the sources?"
    );
}

/// A question's code is on `Engine` under `engine/`, an edit's on `Editor`
/// under `edit/` (docs/ARCHITECTURE.md, "Where a question's code lives"):
/// no edit module adds methods to `Engine` but the one that lends the
/// `Editor`, and no engine module calls an edit.
#[test]
fn questions_are_the_engine_s_and_edits_the_editor_s() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = code(&std::fs::read_to_string(f).unwrap());
        if rel.starts_with("edit/") && rel != "edit/editor.rs" && impls_engine(&text) {
            wrong.push(format!(
                "{rel}: adds methods to Engine (an edit is the Editor's)"
            ));
        }
        if rel.starts_with("engine/") && (text.contains(".editor()") || text.contains("Editor")) {
            wrong.push(format!("{rel}: an engine module reaches the edits"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let editor = std::fs::read_to_string(src().join("edit/editor.rs")).unwrap();
    assert!(
        impls_engine(&editor),
        "the bridge is gone from edit/editor.rs"
    );
    assert!(impls_engine("impl crate::engine::Engine {"));
    assert!(impls_engine("impl super::Engine{"));
    assert!(!impls_engine(
        "impl Editor<'_> {\n    fn engine(&self) -> &Engine"
    ));
}

/// Whether `code` has an `impl` block of `Engine`, by any path to it.
fn impls_engine(code: &str) -> bool {
    code.match_indices("impl ").any(|(at, _)| {
        let ty = code[at + 5..]
            .split(|c: char| c.is_whitespace() || c == '{' || c == '<')
            .next()
            .unwrap_or("");
        ty.rsplit("::").next() == Some("Engine")
    })
}

#[test]
fn the_library_modules_form_no_cycle() {
    let g = graph();
    assert!(g.len() > 5, "no modules found under {}", src().display());
    let found = cycles(&g);
    let report: Vec<String> = found
        .iter()
        .map(|scc| format!("{} (modules: {})", a_cycle(&g, scc), scc.join(", ")))
        .collect();
    assert!(
        report.is_empty(),
        "import cycles between modules of {}:\n{}",
        src().display(),
        report.join("\n")
    );
    // The layers, lowest first, for `--nocapture`.
    for (m, deps) in &g {
        let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
        eprintln!("{m} → {}", deps.join(", "));
    }
}

#[test]
fn the_check_sees_grouped_paths_and_cycles() {
    assert_eq!(
        crate_paths("use crate::{a::X, b, c::{d, e}};\nlet x = crate::f::g();"),
        ["a", "b", "c", "f"]
    );
    assert_eq!(
        code("let u = \"https://x\"; let q = '\"'; // crate::z"),
        "let u = \"https://x\"; let q = '\"'; "
    );
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    }
    let found = cycles(&g);
    assert_eq!(found.len(), 1);
    assert_eq!(a_cycle(&g, &found[0]), "x → y → z → x");
}
