//! The library's modules form no cycle: each top-level folder or file under
//! `src/` is one module, and every `crate::` path in it (in `use` lines and in
//! code, grouped `crate::{a, b}` forms too, tests included) is a dependency on
//! the module it names. Names the crate root re-exports (`crate::Engine`)
//! count as their module. Comments do not count. The check fails naming each
//! cycle, so a new dependency that closes one is caught where it is written.

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
