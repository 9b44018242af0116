//! Soak on real third-party projects, each pinned: click 8.5.1 (Python,
//! pyright; `tools/requirements.txt`), mobx 6.16.1's `src/` (TypeScript,
//! typescript-language-server; `tools/package.json`) and memchr 2.8.3 (Rust,
//! rust-analyzer; a dependency of this workspace, in cargo's registry). One
//! `sightline mcp` session per project asks hundreds of mixed questions at
//! positions scanned from the source (definition, references, hover, outline)
//! and diagnostics around on-disk edits that are then reverted. It fails when
//! an answer is `not ready:` after the first ready one, when a question asked
//! again gets a different answer, when references leave out the position
//! asked, when a reverted edit leaves its error (or anything else) behind, or
//! when sightline's own resident memory grows.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use sightline_test_support::mcp::McpDriver;
use sightline_test_support::{path_with_tools, repo_root, require};

/// Names used more often than this are not asked about: their references
/// could pass the 50 entries an answer shows, and the position asked might be
/// among those cut.
const MAX_USES: usize = 40;
/// Outlines asked per project, spread over its files.
const OUTLINES: usize = 30;
/// Files whose questions are shuffled together.
const WINDOW: usize = 4;
/// Every how many-th answer is asked for again at the end.
const REPEAT_EVERY: usize = 4;
/// Allowed growth of sightline's resident memory from the end of the warm-up
/// to the end: a factor and an absolute slack, in KiB.
const RSS_FACTOR: f64 = 1.5;
const RSS_SLACK_KIB: u64 = 30 * 1024;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Python,
    TypeScript,
    Rust,
}

impl Lang {
    /// Keywords introducing the name after them as a declaration.
    fn declares(self) -> &'static str {
        match self {
            Lang::Python => "def class",
            Lang::TypeScript => "function class interface enum type const let var",
            Lang::Rust => "fn struct enum trait type const static mod let",
        }
    }

    /// Words that are never asked about.
    fn keywords(self) -> &'static str {
        match self {
            Lang::Python => {
                "False None True and as assert async await break class continue def del elif \
                 else except finally for from global if import in is lambda nonlocal not or \
                 pass raise return try while with yield self cls super"
            }
            Lang::TypeScript => {
                "break case catch class const continue debugger default delete do else enum \
                 export extends false finally for function if import in instanceof new null \
                 return super switch this throw true try typeof var void while with let static \
                 yield await async of get set constructor declare readonly public private \
                 protected abstract implements interface type namespace keyof infer is as any \
                 unknown never string number boolean symbol object undefined"
            }
            Lang::Rust => {
                "as break const continue crate else enum extern false fn for if impl in let \
                 loop match mod move mut pub ref return self Self static struct super trait \
                 true type unsafe use where while async await dyn"
            }
        }
    }

    /// Keywords a call may follow (`return f(x)`).
    fn call_after(self) -> &'static str {
        match self {
            Lang::Python => {
                "return yield await if elif while not and or in is assert else raise with"
            }
            Lang::TypeScript => "return new throw await yield typeof void in of case else delete",
            Lang::Rust => "return in match if while break",
        }
    }

    fn line_comment(self) -> &'static str {
        match self {
            Lang::Python => "#",
            _ => "//",
        }
    }

    /// The line that makes a type error, appended to a file.
    fn error_line(self) -> &'static str {
        match self {
            Lang::Python => "__soak: int = \"s\"",
            Lang::TypeScript => "const __soak: number = \"s\";",
            Lang::Rust => "fn __soak() -> u8 { \"s\" }",
        }
    }
}

/// Whether `word` is one of the space-separated `words`.
fn is_one_of(words: &str, word: &str) -> bool {
    words.split_whitespace().any(|w| w == word)
}

/// Punctuation a call may follow: a name followed by `(` after anything else
/// (the start of a line, `{`, `;`) is as likely a method being declared
/// (`area() {` in a TypeScript class, a Rust tuple variant) as a call.
const CALL_AFTER_PUNCT: &str = ".(,=[!?:&|+-*/<>%^~@";

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// A string, number or char literal, with its text.
    Literal(String),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    /// 1-based line and column; the column counts characters.
    line: usize,
    col: usize,
}

struct Cursor {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
}

impl Cursor {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(k, c)| self.peek(k) == Some(c))
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn bump_n(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    fn text_from(&self, start: usize) -> String {
        self.chars[start..self.i].iter().collect()
    }

    /// A quoted string whose opening quote is next; `multiline` says whether
    /// a newline ends it unclosed.
    fn skip_quoted(&mut self, quote: char, multiline: bool) {
        self.bump();
        while let Some(c) = self.peek(0) {
            if c == '\n' && !multiline {
                return;
            }
            self.bump();
            if c == '\\' {
                self.bump();
            } else if c == quote {
                return;
            }
        }
    }

    fn skip_python_string(&mut self, quote: char) {
        let triple: String = [quote; 3].iter().collect();
        if self.starts_with(&triple) {
            self.bump_n(3);
            while self.peek(0).is_some() && !self.starts_with(&triple) {
                if self.bump() == Some('\\') {
                    self.bump();
                }
            }
            self.bump_n(3);
        } else {
            self.skip_quoted(quote, false);
        }
    }

    /// `r"..."`, `r#"..."#`: the `r` (or `br`) is read, `#`s or `"` are next.
    fn skip_raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        let close: String = std::iter::once('"')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        self.bump();
        while self.peek(0).is_some() && !self.starts_with(&close) {
            self.bump();
        }
        self.bump_n(close.chars().count());
    }
}

/// After `r`: `"` or `#`s and `"` (not a raw identifier, `r#type`).
fn raw_string_follows(cur: &Cursor) -> bool {
    let hashes = (0..).take_while(|k| cur.peek(*k) == Some('#')).count();
    cur.peek(hashes) == Some('"')
}

fn ident_start(lang: Lang, c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (lang == Lang::TypeScript && c == '$')
}

fn ident_char(lang: Lang, c: char) -> bool {
    ident_start(lang, c) || c.is_ascii_digit()
}

/// The code of `text` as tokens, without comments; strings are single
/// literal tokens, so that nothing inside them is mistaken for code.
fn tokenize(lang: Lang, text: &str) -> Vec<Token> {
    let mut cur = Cursor {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    while let Some(c) = cur.peek(0) {
        if c.is_whitespace() {
            cur.bump();
            continue;
        }
        if cur.starts_with(lang.line_comment()) {
            while cur.peek(0).is_some_and(|c| c != '\n') {
                cur.bump();
            }
            continue;
        }
        if lang != Lang::Python && cur.starts_with("/*") {
            cur.bump_n(2);
            while cur.peek(0).is_some() && !cur.starts_with("*/") {
                cur.bump();
            }
            cur.bump_n(2);
            continue;
        }
        let (line, col, start) = (cur.line, cur.col, cur.i);
        let tok = if ident_start(lang, c) {
            while cur.peek(0).is_some_and(|c| ident_char(lang, c)) {
                cur.bump();
            }
            let name = cur.text_from(start);
            let next = cur.peek(0);
            let quote = matches!(next, Some('"' | '\''));
            if lang == Lang::Python
                && quote
                && name.len() <= 2
                && name.chars().all(|c| "rbfuRBFU".contains(c))
            {
                cur.skip_python_string(next.unwrap());
                Tok::Literal(cur.text_from(start))
            } else if lang == Lang::Rust
                && matches!(name.as_str(), "r" | "br" | "cr")
                && raw_string_follows(&cur)
            {
                cur.skip_raw_string();
                Tok::Literal(cur.text_from(start))
            } else if lang == Lang::Rust && matches!(name.as_str(), "b" | "c") && quote {
                cur.skip_quoted(next.unwrap(), true);
                Tok::Literal(cur.text_from(start))
            } else {
                Tok::Ident(name)
            }
        } else if c.is_ascii_digit() {
            while cur
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                || (cur.peek(0) == Some('.') && cur.peek(1).is_some_and(|c| c.is_ascii_digit()))
            {
                cur.bump();
            }
            Tok::Literal(cur.text_from(start))
        } else {
            match (lang, c) {
                (Lang::Python, '"' | '\'') => cur.skip_python_string(c),
                (Lang::TypeScript, '"' | '\'') => cur.skip_quoted(c, false),
                (Lang::TypeScript, '`') | (Lang::Rust, '"') => cur.skip_quoted(c, true),
                // A char literal, or else a lifetime's quote.
                (Lang::Rust, '\'') if cur.peek(1) == Some('\\') => cur.skip_quoted('\'', false),
                (Lang::Rust, '\'') if cur.peek(2) == Some('\'') => cur.bump_n(3),
                _ => {
                    cur.bump();
                }
            }
            if cur.i == start + 1 && !matches!(c, '"' | '`') {
                Tok::Punct(c)
            } else {
                Tok::Literal(cur.text_from(start))
            }
        };
        out.push(Token { tok, line, col });
    }
    out
}

fn is_punct(t: Option<&Token>, c: char) -> bool {
    t.is_some_and(|t| t.tok == Tok::Punct(c))
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t.map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The index of the bracket closing the one at `open`.
fn closing(toks: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len() - 1
}

/// One past the end of the Rust item (or statement, field, arm) at `start`.
fn item_end(toks: &[Token], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(start) {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(c @ (')' | ']' | '}')) => {
                if depth == 0 {
                    return k;
                }
                depth -= 1;
                if depth == 0 && c == '}' {
                    return k + 1;
                }
            }
            Tok::Punct(';' | ',') if depth == 0 => return k + 1,
            _ => {}
        }
    }
    toks.len()
}

/// Whether a `cfg` predicate holds where rust-analyzer analyses memchr: this
/// machine's architecture with its baseline features, `std` and `alloc` (the
/// default features), and `test` (set for the workspace's own crates).
fn cfg_holds(toks: &[Token], i: &mut usize) -> bool {
    let Some(name) = ident(toks.get(*i)).map(str::to_owned) else {
        return false;
    };
    *i += 1;
    if is_punct(toks.get(*i), '(') {
        *i += 1;
        let mut values = Vec::new();
        while *i < toks.len() && !is_punct(toks.get(*i), ')') {
            if is_punct(toks.get(*i), ',') {
                *i += 1;
            } else {
                values.push(cfg_holds(toks, i));
            }
        }
        *i += 1;
        return match name.as_str() {
            "all" => values.iter().all(|v| *v),
            "any" => values.iter().any(|v| *v),
            "not" => !values.first().copied().unwrap_or(true),
            _ => false,
        };
    }
    let atom = if is_punct(toks.get(*i), '=') {
        let value = match toks.get(*i + 1).map(|t| &t.tok) {
            Some(Tok::Literal(v)) => v.trim_matches('"').to_owned(),
            _ => String::new(),
        };
        *i += 2;
        format!("{name}={value}")
    } else {
        name
    };
    let arch = std::env::consts::ARCH;
    let features: &[&str] = match arch {
        "x86_64" => &["sse", "sse2", "fxsr"],
        "aarch64" => &["neon"],
        _ => &[],
    };
    matches!(
        atom.as_str(),
        "test"
            | "unix"
            | "feature=std"
            | "feature=alloc"
            | "target_os=linux"
            | "target_pointer_width=64"
            | "target_endian=little"
    ) || atom == format!("target_arch={arch}")
        || atom
            .strip_prefix("target_feature=")
            .is_some_and(|f| features.contains(&f))
}

/// Which tokens are not analysed as code, so not asked about: Rust's
/// attributes, `macro_rules!` bodies and items a `cfg` turns off here;
/// Python's blocks for another platform (pyright sees them unreachable).
fn inactive(lang: Lang, text: &str, toks: &[Token]) -> Vec<bool> {
    let mut skip = vec![false; toks.len()];
    match lang {
        Lang::Rust => {
            let mut i = 0;
            while i < toks.len() {
                if is_punct(toks.get(i), '#') {
                    let inner = is_punct(toks.get(i + 1), '!');
                    let open = i + 1 + usize::from(inner);
                    if is_punct(toks.get(open), '[') {
                        let close = closing(toks, open);
                        skip[i..=close].fill(true);
                        let mut at = open + 3;
                        if !inner
                            && ident(toks.get(open + 1)) == Some("cfg")
                            && !cfg_holds(toks, &mut at)
                        {
                            let end = item_end(toks, close + 1);
                            skip[close + 1..end].fill(true);
                            i = end;
                        } else {
                            i = close + 1;
                        }
                        continue;
                    }
                }
                if ident(toks.get(i)) == Some("macro_rules") && is_punct(toks.get(i + 1), '!') {
                    let open = i + 3;
                    let close = closing(toks, open);
                    skip[i..=close.max(i)].fill(true);
                    i = close + 1;
                    continue;
                }
                i += 1;
            }
        }
        Lang::Python => {
            let lines: Vec<&str> = text.lines().collect();
            let indent = |l: &str| l.len() - l.trim_start().len();
            let mut off = vec![false; lines.len() + 2];
            for (n, l) in lines.iter().enumerate() {
                let t = l.trim_start();
                if t.starts_with("assert sys.platform") {
                    off[n + 1..].fill(true);
                    break;
                }
                let platform = (t.starts_with("if ") || t.starts_with("elif "))
                    && t.contains("sys.platform")
                    && !t.contains("!=")
                    && !t.contains("not ");
                if platform {
                    for (m, body) in lines.iter().enumerate().skip(n + 1) {
                        if !body.trim().is_empty() && indent(body) <= indent(l) {
                            break;
                        }
                        off[m + 1] = true;
                    }
                }
            }
            for (k, t) in toks.iter().enumerate() {
                skip[k] = off[t.line];
            }
        }
        Lang::TypeScript => {}
    }
    skip
}

/// A position the test asks about.
#[derive(Debug, Clone)]
struct Spot {
    file: usize,
    line: usize,
    col: usize,
    name: String,
    /// Declared here, by the scanner's reading (`def name`).
    declared: bool,
    /// The definition answer at this position lists the position itself: it
    /// is a declaration too (a method declared `area() {`).
    self_defined: bool,
    /// The definition answer lists a definition: a name the checker cannot
    /// resolve (a property of an `any`) has no references to list.
    resolved: bool,
    /// The definition answer lists a definition in the project.
    local: bool,
}

/// Declarations and calls of every file, each name used at most `MAX_USES`
/// times in the project.
fn scan(lang: Lang, texts: &[String]) -> (Vec<Spot>, Vec<Spot>) {
    let tokens: Vec<Vec<Token>> = texts.iter().map(|t| tokenize(lang, t)).collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for t in tokens.iter().flatten() {
        if let Tok::Ident(n) = &t.tok {
            *uses.entry(n).or_default() += 1;
        }
    }
    let (mut decls, mut calls) = (Vec::new(), Vec::new());
    for (file, (toks, text)) in tokens.iter().zip(texts).enumerate() {
        let skip = inactive(lang, text, toks);
        for (i, t) in toks.iter().enumerate() {
            let Tok::Ident(name) = &t.tok else { continue };
            if skip[i] || is_one_of(lang.keywords(), name) || uses[name.as_str()] > MAX_USES {
                continue;
            }
            let prev = i.checked_sub(1).map(|p| &toks[p]);
            let before_prev = i.checked_sub(2).map(|p| &toks[p]);
            let next = toks.get(i + 1);
            let spot = |declared| Spot {
                file,
                line: t.line,
                col: t.col,
                name: name.clone(),
                declared,
                self_defined: false,
                resolved: true,
                local: true,
            };
            let after_keyword = ident(prev).is_some_and(|p| is_one_of(lang.declares(), p));
            if after_keyword && !is_punct(before_prev, '.') {
                decls.push(spot(true));
                continue;
            }
            let adjacent_paren = next.is_some_and(|n| {
                n.tok == Tok::Punct('(') && n.line == t.line && n.col == t.col + name.len()
            });
            let call_context = match prev.map(|p| &p.tok) {
                Some(Tok::Punct(c)) => CALL_AFTER_PUNCT.contains(*c),
                Some(Tok::Ident(p)) => is_one_of(lang.call_after(), p),
                _ => false,
            };
            if adjacent_paren && call_context {
                calls.push(spot(false));
            }
        }
    }
    (decls, calls)
}

/// `n` items spread evenly over `items`.
fn spread<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|k| items[k * items.len() / n].clone()).collect()
}

/// xorshift64*, with a fixed seed: the order of questions is the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for k in (1..items.len()).rev() {
            let j = (self.next() % (k as u64 + 1)) as usize;
            items.swap(k, j);
        }
    }
}

/// A question: at a spot (an index into the spots), or about a file (an
/// index into the files).
#[derive(Debug, Clone, Copy)]
enum Question {
    Definition(usize),
    /// With `include_declaration`.
    References(usize, bool),
    Hover(usize),
    Outline(usize),
    Diagnostics(usize),
}

/// A project copied into a temporary directory.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Source files, relative to the root, sorted.
    files: Vec<String>,
}

fn copy_tree(from: &Path, to: &Path, ext: &str, files: &mut Vec<PathBuf>) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_tree(&path, &dest, ext, files);
            }
        } else {
            std::fs::copy(&path, &dest).unwrap();
            if path.extension().is_some_and(|e| e == ext) {
                files.push(dest);
            }
        }
    }
}

impl Tree {
    /// `from` copied to `dir` under the root, listing the files ending in `.ext`.
    fn new(from: &Path, dir: &str, ext: &str) -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let mut found = Vec::new();
        copy_tree(from, &root.join(dir), ext, &mut found);
        let mut files: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        files.sort();
        Tree {
            _dir: tmp,
            root,
            files,
        }
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.root.join(rel), text).unwrap();
    }
}

/// Whether a locations answer lists `rel:line:col`.
fn lists(answer: &str, rel: &str, line: usize, col: usize) -> bool {
    let at = format!("{rel}:{line}:{col}");
    answer
        .lines()
        .any(|l| l == at || l.strip_prefix(&at).is_some_and(|r| r.starts_with(' ')))
}

/// Whether a capped answer (`... and N more`) may have cut `rel:line:col`:
/// entries come by path, line and column, workspace first, so only a place
/// after the last one shown can be among those cut.
fn maybe_cut(answer: &str, rel: &str, line: usize, col: usize) -> bool {
    if !answer.lines().any(|l| l.starts_with("... and ")) {
        return false;
    }
    let Some(last) = answer.lines().rfind(|l| !l.starts_with("... and ")) else {
        return false;
    };
    let place = last.split(' ').next().unwrap_or("");
    let mut parts = place.rsplitn(3, ':');
    let (Some(c), Some(l), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    if path.starts_with('/') {
        return false;
    }
    let last: (&Path, usize, usize) = (
        Path::new(path),
        l.parse().unwrap_or(0),
        c.parse().unwrap_or(0),
    );
    (Path::new(rel), line, col) > last
}

/// The lines only one of two answers has, marked `-` (first) and `+`.
fn line_diff(first: &str, again: &str) -> String {
    let gone = first.lines().filter(|l| !again.lines().any(|a| a == *l));
    let new = again.lines().filter(|l| !first.lines().any(|f| f == *l));
    let lines: Vec<String> = gone
        .map(|l| format!("- {l}"))
        .chain(new.map(|l| format!("+ {l}")))
        .collect();
    format!("difference\n{}\n", lines.join("\n"))
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

/// One project's soak: its session, what it asked and what went wrong.
struct Soak {
    name: &'static str,
    lang: Lang,
    d: McpDriver,
    project: Tree,
    spots: Vec<Spot>,
    pid: u32,
    asked: usize,
    /// `not ready:` answers before the first ready one (a cold start).
    cold: usize,
    ready: bool,
    /// `not ready:` answers after the first ready one.
    late: Vec<String>,
    /// Other error answers.
    errors: Vec<String>,
    /// References that leave out the position asked.
    missing: Vec<String>,
    /// References capped before the position asked (not checkable).
    unchecked: usize,
    /// `no references` at a name without a definition.
    unresolved: usize,
    /// References not asked: the definition is outside the project.
    skipped: usize,
    /// Diagnostics answers with a `note:` (a budget ran out).
    notes: Vec<String>,
    /// Edits whose error did not show, or that left something behind.
    stale: Vec<String>,
    /// Answers to ask again at the end.
    kept: Vec<(Question, String)>,
    answered: usize,
    /// Per kind of question: how many, and their seconds in all.
    times: std::collections::BTreeMap<&'static str, (usize, f64)>,
    /// The slowest questions, in seconds.
    slowest: Vec<(f64, String)>,
}

impl Question {
    fn kind(self) -> &'static str {
        match self {
            Question::Definition(_) => "definition",
            Question::References(..) => "references",
            Question::Hover(_) => "hover",
            Question::Outline(_) => "documentSymbol",
            Question::Diagnostics(_) => "diagnostics",
        }
    }
}

impl Soak {
    fn start(
        name: &'static str,
        lang: Lang,
        project: Tree,
        spots: Vec<Spot>,
        env: &[(&str, &str)],
    ) -> Soak {
        let mut d = McpDriver::start();
        let open = d.open_env("s", &project.root, &path_with_tools(), &["mcp"], env);
        let pid = open["pid"].as_u64().expect("the pid of sightline mcp") as u32;
        Soak {
            name,
            lang,
            d,
            project,
            spots,
            pid,
            asked: 0,
            cold: 0,
            ready: false,
            late: Vec::new(),
            errors: Vec::new(),
            missing: Vec::new(),
            unchecked: 0,
            unresolved: 0,
            skipped: 0,
            notes: Vec::new(),
            stale: Vec::new(),
            kept: Vec::new(),
            answered: 0,
            times: Default::default(),
            slowest: Vec::new(),
        }
    }

    fn file(&self, q: Question) -> &str {
        let file = match q {
            Question::Definition(s) | Question::References(s, _) | Question::Hover(s) => {
                self.spots[s].file
            }
            Question::Outline(f) | Question::Diagnostics(f) => f,
        };
        &self.project.files[file]
    }

    fn describe(&self, q: Question) -> String {
        let at = |s: usize| {
            let s = &self.spots[s];
            format!(
                "{}:{}:{} ({})",
                self.project.files[s.file], s.line, s.col, s.name
            )
        };
        match q {
            Question::Definition(s) => format!("definition at {}", at(s)),
            Question::References(s, inc) => {
                format!("references (include_declaration {inc}) at {}", at(s))
            }
            Question::Hover(s) => format!("hover at {}", at(s)),
            Question::Outline(f) => format!("documentSymbol of {}", self.project.files[f]),
            Question::Diagnostics(f) => format!("diagnostics of {}", self.project.files[f]),
        }
    }

    fn call(&self, q: Question) -> (&'static str, Value) {
        let file = self.project.root.join(self.file(q));
        let pos = |s: usize| (self.spots[s].line, self.spots[s].col);
        match q {
            Question::Definition(s) => {
                let (line, column) = pos(s);
                (
                    "lsp_definition",
                    json!({ "file": file, "line": line, "column": column }),
                )
            }
            Question::References(s, inc) => {
                let (line, column) = pos(s);
                (
                    "lsp_references",
                    json!({ "file": file, "line": line, "column": column, "include_declaration": inc }),
                )
            }
            Question::Hover(s) => {
                let (line, column) = pos(s);
                (
                    "lsp",
                    json!({ "operation": "hover", "file": file, "line": line, "column": column }),
                )
            }
            Question::Outline(_) => (
                "lsp",
                json!({ "operation": "documentSymbol", "file": file }),
            ),
            Question::Diagnostics(_) => ("lsp_diagnostics", json!({ "file": file })),
        }
    }

    /// Asks `q`; the answer, or None when it was an error (recorded).
    fn ask(&mut self, q: Question) -> Option<String> {
        let (tool, args) = self.call(q);
        loop {
            let t = Instant::now();
            let a = self.d.call("s", tool, args.clone());
            let took = t.elapsed().as_secs_f64();
            let kind = self.times.entry(q.kind()).or_default();
            kind.0 += 1;
            kind.1 += took;
            self.slowest.push((took, self.describe(q)));
            self.slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
            self.slowest.truncate(5);
            self.asked += 1;
            if a.text.starts_with("not ready:") {
                if self.ready {
                    self.late
                        .push(format!("{}: {}", self.describe(q), a.text.trim_end()));
                    return None;
                }
                // Each cold answer took the server's whole readiness budget,
                // so asking again is no busy loop; a server that never gets
                // ready fails here.
                self.cold += 1;
                assert!(
                    self.cold <= 6,
                    "{}: {} answered `not ready:` 6 times without a ready answer: {}",
                    self.name,
                    self.describe(q),
                    a.text
                );
                continue;
            }
            self.ready = true;
            if a.is_error {
                self.errors
                    .push(format!("{}: {}", self.describe(q), a.text.trim_end()));
                return None;
            }
            if matches!(q, Question::Diagnostics(_)) && a.text.contains("\nnote: ") {
                self.notes.push(format!("{}: {}", self.describe(q), a.text));
            }
            return Some(a.text);
        }
    }

    /// Asks `q` and keeps every `REPEAT_EVERY`-th answer to ask again.
    fn ask_kept(&mut self, q: Question) -> Option<String> {
        let text = self.ask(q)?;
        self.answered += 1;
        if self.answered.is_multiple_of(REPEAT_EVERY) {
            self.kept.push((q, text.clone()));
        }
        Some(text)
    }

    fn definition(&mut self, s: usize) {
        let Some(text) = self.ask_kept(Question::Definition(s)) else {
            return;
        };
        let spot = &self.spots[s];
        let rel = &self.project.files[spot.file];
        let self_defined = lists(&text, rel, spot.line, spot.col);
        self.spots[s].self_defined = self_defined;
        self.spots[s].resolved = !text.starts_with("no definitions");
        // Places outside the workspace are shown absolute.
        self.spots[s].local = text.lines().skip(1).any(|l| !l.starts_with('/'));
    }

    /// At a use, references without the declaration must list the use; at
    /// a declaration (sightline takes out what the definition at the
    /// position answers), references with it must list it.
    fn references(&mut self, s: usize) {
        let spot = self.spots[s].clone();
        let include = spot.declared || spot.self_defined;
        let q = Question::References(s, include);
        let Some(text) = self.ask_kept(q) else {
            return;
        };
        let rel = &self.project.files[spot.file];
        if lists(&text, rel, spot.line, spot.col) {
            return;
        }
        if !spot.resolved && text == "no references\n" {
            self.unresolved += 1;
            return;
        }
        if maybe_cut(&text, rel, spot.line, spot.col) {
            self.unchecked += 1;
        } else {
            self.missing.push(format!(
                "{}: the answer leaves it out:\n{text}",
                self.describe(q)
            ));
        }
    }

    /// Writes an error at the end of `file`, asks for its diagnostics, writes
    /// the original bytes back and asks again: the error must show, then
    /// go, leaving the answers as they were before (the outline too).
    fn edit_cycle(&mut self, file: usize) {
        let rel = self.project.files[file].clone();
        let path = self.project.root.join(&rel);
        let original = std::fs::read(&path).unwrap();
        let (Some(before), Some(outline)) = (
            self.ask(Question::Diagnostics(file)),
            self.ask(Question::Outline(file)),
        ) else {
            return;
        };
        let mut text = String::from_utf8(original.clone()).unwrap();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let line = text.lines().count() + 1;
        text.push_str(self.lang.error_line());
        text.push('\n');
        self.project.write(&rel, &text);
        let after = self.ask(Question::Diagnostics(file));
        std::fs::write(&path, &original).unwrap();
        let shows = after.as_deref().is_some_and(|a| {
            a.lines()
                .any(|l| l.starts_with(&format!("{line}:")) && l.contains(" error: "))
        });
        if !shows {
            self.stale.push(format!(
                "{rel}: the error written on line {line} is not in the answer: {after:?}"
            ));
        }
        let again = self.ask(Question::Diagnostics(file));
        if again.as_deref() != Some(before.as_str()) {
            self.stale.push(format!(
                "{rel}: after the edit was reverted the diagnostics differ from before it:\n--- before\n{before}--- after\n{}",
                again.unwrap_or_default()
            ));
        }
        let outline_again = self.ask(Question::Outline(file));
        if outline_again.as_deref() != Some(outline.as_str()) {
            self.stale.push(format!(
                "{rel}: after the edit was reverted the outline differs from before it:\n--- before\n{outline}--- after\n{}",
                outline_again.unwrap_or_default()
            ));
        }
    }

    /// Diagnostics of every file when the plan says so; outlines and
    /// definitions file by file; then references and hovers, shuffled, with
    /// edit cycles spread among them; then a quarter of the answers asked
    /// again.
    fn run(mut self, plan: &Plan) {
        let started = Instant::now();
        let spots = self.spots.len();
        if plan.diagnose_first {
            for f in 0..self.project.files.len() {
                self.ask_kept(Question::Diagnostics(f));
            }
        }
        let outlines = spread(&(0..self.project.files.len()).collect::<Vec<_>>(), OUTLINES);
        // File by file: each file's outline, then its definitions (spots are
        // sorted by file).
        let mut first = Vec::new();
        for f in 0..self.project.files.len() {
            if outlines.contains(&f) {
                first.push(Question::Outline(f));
            }
            first.extend(
                (0..spots)
                    .filter(|s| self.spots[*s].file == f)
                    .map(Question::Definition),
            );
        }
        let mut rss_start = None;
        for q in first {
            match q {
                Question::Definition(s) => self.definition(s),
                q => {
                    self.ask_kept(q);
                }
            }
            // The warm-up: the server has loaded the project and sightline
            // has opened a share of its files.
            if rss_start.is_none() && self.answered >= 40 {
                rss_start = Some(rss_kib(self.pid));
            }
        }
        let rss_start = rss_start.unwrap_or_else(|| rss_kib(self.pid));
        let rss_definitions = rss_kib(self.pid);
        // Shuffled within windows of a few files, as an agent works: sightline
        // keeps 8 documents open per server, and reopening one waits for the
        // server to take it in again (tsserver's first publish of it).
        let mut second = Vec::new();
        let mut rng = Rng(0x5eed_50a4_0000_0001);
        let files = self.project.files.len();
        for window in (0..files).collect::<Vec<_>>().chunks(WINDOW) {
            let mut questions: Vec<Question> = (0..spots)
                .filter(|s| window.contains(&self.spots[*s].file))
                .flat_map(|s| [Question::References(s, false), Question::Hover(s)])
                .collect();
            rng.shuffle(&mut questions);
            second.extend(questions);
        }
        let edit_files: Vec<usize> = plan
            .edits
            .iter()
            .map(|e| {
                self.project
                    .files
                    .iter()
                    .position(|f| f == e)
                    .unwrap_or_else(|| panic!("{e} is not among the files"))
            })
            .collect();
        let every = (second.len() / (edit_files.len() + 1)).max(1);
        let mut edits_done = 0;
        for (k, q) in second.into_iter().enumerate() {
            if k > 0 && k % every == 0 && edits_done < edit_files.len() {
                self.edit_cycle(edit_files[edits_done]);
                edits_done += 1;
            }
            match q {
                Question::References(s, _) if plan.local_references && !self.spots[s].local => {
                    self.skipped += 1;
                }
                Question::References(s, _) => self.references(s),
                q => {
                    self.ask_kept(q);
                }
            }
        }
        for f in &edit_files[edits_done..] {
            self.edit_cycle(*f);
        }
        let rss_references = rss_kib(self.pid);
        let repeated = self.kept.len();
        let mut flaky = Vec::new();
        for (q, text) in std::mem::take(&mut self.kept) {
            let Some(again) = self.ask(q) else { continue };
            if again != text {
                flaky.push(format!(
                    "{}:\n--- first\n{text}--- again\n{again}--- {}",
                    self.describe(q),
                    line_diff(&text, &again)
                ));
            }
        }
        let rss_end = rss_kib(self.pid);
        eprintln!(
            "soak {}: {} questions in {:.1} s ({} positions: {} declarations, {} calls; {} edit cycles; {} answers asked again)",
            self.name,
            self.asked,
            started.elapsed().as_secs_f64(),
            spots,
            self.spots.iter().filter(|s| s.declared).count(),
            self.spots.iter().filter(|s| !s.declared).count(),
            edit_files.len(),
            repeated,
        );
        eprintln!(
            "  not ready: {} before the first ready answer, {} after it; flaky: {}; references missing the position: {}; edit failures: {}; diagnostics with a note: {}; error answers: {}",
            self.cold,
            self.late.len(),
            flaky.len(),
            self.missing.len(),
            self.stale.len(),
            self.notes.len(),
            self.errors.len(),
        );
        eprintln!(
            "  references not checked: {} capped before the position, {} `no references` at a name without a definition; not asked: {} defined outside the project",
            self.unchecked, self.unresolved, self.skipped,
        );
        eprintln!(
            "  sightline RSS: {rss_start} KiB after the warm-up, {rss_definitions} KiB after the definitions, {rss_references} KiB after the references, {rss_end} KiB at the end"
        );
        for (kind, (n, secs)) in &self.times {
            eprintln!("  {kind}: {n} in {secs:.1} s");
        }
        for (secs, q) in &self.slowest {
            eprintln!("  slow: {q} took {secs:.1} s");
        }
        let report = |what: &str, items: &[String]| {
            assert!(
                items.is_empty(),
                "{}: {} {what}; the first:\n{}",
                self.name,
                items.len(),
                items
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n\n")
            );
        };
        report("answers were `not ready:` after a ready one", &self.late);
        report("answers changed when asked again", &flaky);
        report(
            "references answers leave out the position asked",
            &self.missing,
        );
        report(
            "edit cycles failed (the error did not show, or the revert left a change)",
            &self.stale,
        );
        report("diagnostics answers carry a note", &self.notes);
        report("questions were answered with an error", &self.errors);
        let limit = (rss_start as f64 * RSS_FACTOR) as u64 + RSS_SLACK_KIB;
        assert!(
            rss_end <= limit,
            "{}: sightline's RSS grew from {rss_start} KiB to {rss_end} KiB (limit {limit} KiB)",
            self.name
        );
        self.d.close("s");
    }
}

/// What one project's soak asks.
struct Plan {
    /// Positions to ask about; each gets a definition, references and a
    /// hover.
    spots: usize,
    /// Files that get an edit cycle.
    edits: &'static [&'static str],
    /// Ask every file's diagnostics first.
    diagnose_first: bool,
    /// Ask references only where the definition is in the project.
    local_references: bool,
}

/// `n` positions to ask about: a third declarations, the rest calls, each
/// spread over the project.
fn spots(lang: Lang, project: &Tree, n: usize, keep: impl Fn(&str) -> bool) -> Vec<Spot> {
    let texts: Vec<String> = project
        .files
        .iter()
        .map(|f| {
            if keep(f) {
                std::fs::read_to_string(project.root.join(f)).unwrap()
            } else {
                String::new()
            }
        })
        .collect();
    let (decls, calls) = scan(lang, &texts);
    let mut out = spread(&decls, n / 3);
    out.extend(spread(&calls, n - out.len()));
    out.sort_by_key(|s| (s.file, s.line, s.col));
    out
}

/// The sessions take turns: each is a real workload, and they measure
/// sightline's own memory, which the others would not disturb but whose
/// servers would slow each other down.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn soak_click_with_pyright() {
    let _turn = turn();
    require("pyright-langserver");
    let lib = std::fs::read_dir(repo_root().join("tools/.venv/lib"))
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|python| python.path().join("site-packages/click"))
        .find(|p| p.join("core.py").is_file());
    let click = lib.expect("click is not installed in tools/.venv; run `tools/install`");
    let project = Tree::new(&click, "click", "py");
    std::fs::write(project.root.join("pyproject.toml"), "").unwrap();
    let plan = Plan {
        spots: 80,
        edits: &["click/utils.py", "click/formatting.py", "click/core.py"],
        // pyright finds a use inside a string type expression
        // (`t.cast("list[CompletionItem]", x)`) only in a file it has
        // checked, and it checks a file only when its diagnostics are asked
        // for: until then, references leave that use out, and asking again
        // after the file was checked gives one more (a known gap in
        // sightline's answers). So every file's diagnostics come first.
        diagnose_first: true,
        local_references: false,
    };
    let spots = spots(Lang::Python, &project, plan.spots, |_| true);
    Soak::start("click", Lang::Python, project, spots, &[]).run(&plan);
}

/// mobx compiles its `src/` with Node's types, which `tools/` does not
/// install: these are the globals it uses.
const MOBX_ENV: &str = "declare var global: typeof globalThis
declare var console: { log(...a: any[]): void; warn(...a: any[]): void; error(...a: any[]): void }
declare function setTimeout(f: () => void, ms?: number): unknown
declare function clearTimeout(handle: unknown): void
";

/// Type-checks clean with TypeScript 5.9 (`tsc -p .`): mobx's own build
/// leaves implicit `any` and `this` on.
const MOBX_TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "esnext",
    "lib": ["esnext"],
    "module": "esnext",
    "moduleResolution": "bundler",
    "strict": true,
    "noImplicitAny": false,
    "noImplicitThis": false,
    "noEmit": true
  },
  "include": ["src", "env.d.ts"]
}
"#;

#[test]
fn soak_mobx_with_typescript() {
    let _turn = turn();
    require("typescript-language-server");
    let src = repo_root().join("tools/node_modules/mobx/src");
    assert!(
        src.join("mobx.ts").is_file(),
        "mobx is not installed at {}; run `tools/install`",
        src.display()
    );
    let project = Tree::new(&src, "src", "ts");
    std::fs::write(project.root.join("tsconfig.json"), MOBX_TSCONFIG).unwrap();
    std::fs::write(project.root.join("env.d.ts"), MOBX_ENV).unwrap();
    let plan = Plan {
        spots: 80,
        edits: &[
            "src/api/autorun.ts",
            "src/core/atom.ts",
            "src/types/observablemap.ts",
        ],
        diagnose_first: false,
        local_references: false,
    };
    let spots = spots(Lang::TypeScript, &project, plan.spots, |f| {
        !f.ends_with(".d.ts")
    });
    Soak::start("mobx", Lang::TypeScript, project, spots, &[]).run(&plan);
}

/// memchr's sources, from cargo's registry: this workspace depends on
/// memchr 2.8.3, so building it (which the test command does first) fetched
/// them.
fn memchr_source() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "memchr" && p["version"] == "2.8.3")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("memchr 2.8.3 is not a dependency of this workspace any more (see Cargo.lock); pin the version it has");
    let dir = Path::new(manifest).parent().unwrap().to_owned();
    assert!(
        dir.join("src/lib.rs").is_file(),
        "memchr 2.8.3's sources are not at {}; run `cargo fetch`",
        dir.display()
    );
    dir
}

/// memchr's own manifest, without its dependencies (optional ones, and the
/// dev-dependency quickcheck), none of which are downloaded: `cargo check`
/// runs offline. Its tests use quickcheck, so rust-analyzer's check (all
/// targets) reports rustc errors in about 15 files: findings every answer
/// must keep, before and after each edit.
const MEMCHR_CARGO_TOML: &str = r#"[package]
name = "memchr"
version = "2.8.3"
edition = "2021"

[lib]
path = "src/lib.rs"

[features]
default = ["std"]
std = ["alloc"]
alloc = []
libc = []
logging = []
use_std = ["std"]

[workspace]
"#;

/// rust-analyzer loads the standard library and runs `cargo check` on each
/// save: slower budgets than the defaults, as in `servers.rs`. The waits end
/// on the server's signals, so roomy budgets cost nothing when it is quick.
const RUST_CONFIG: &str =
    r#"{ "lsp": { "rust": { "diagnostics": { "document_ms": 30000, "ready_ms": 30000 } } } }"#;

#[test]
fn soak_memchr_with_rust_analyzer() {
    let _turn = turn();
    let found = Command::new("rustup")
        .args(["which", "rust-analyzer"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "rust-analyzer is not installed; run `tools/install` (it runs `rustup component add rust-analyzer rust-src`)"
    );
    let project = Tree::new(&memchr_source().join("src"), "src", "rs");
    std::fs::write(project.root.join("Cargo.toml"), MEMCHR_CARGO_TOML).unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("config.json");
    std::fs::write(&config, RUST_CONFIG).unwrap();
    // Code for other architectures is never analysed here.
    let arch = std::env::consts::ARCH;
    let other_arch = |f: &str| {
        ["x86_64", "aarch64", "wasm32"]
            .iter()
            .any(|a| *a != arch && f.contains(&format!("/{a}/")))
    };
    let plan = Plan {
        spots: 100,
        edits: &[
            "src/memchr.rs",
            "src/memmem/mod.rs",
            "src/arch/all/twoway.rs",
        ],
        diagnose_first: false,
        // rust-analyzer searches the standard library for the uses of its
        // items (`From::from`, `as_ptr`): 5 to 12 s each here.
        local_references: true,
    };
    let spots = spots(Lang::Rust, &project, plan.spots, |f| !other_arch(f));
    Soak::start(
        "memchr",
        Lang::Rust,
        project,
        spots,
        &[("SIGHTLINE_CONFIG", config.to_str().unwrap())],
    )
    .run(&plan);
}
