//! Positions to ask about in real source, and real projects copied into
//! temporary directories: a small tokenizer for Python, TypeScript and Rust
//! that finds declarations and calls (skipping comments, strings, Rust code a
//! `cfg` turns off here and Python blocks for another platform), shared by
//! the soak test (`tests/suite/soak.rs`) and the replay benchmark.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Names used more often than this are not asked about: their references
/// could pass the 50 entries an answer shows, and the position asked might be
/// among those cut.
pub const MAX_USES: usize = 40;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lang {
    Python,
    TypeScript,
    Rust,
}

impl Lang {
    /// Keywords introducing the name after them as a declaration.
    pub fn declares(self) -> &'static str {
        match self {
            Lang::Python => "def class",
            Lang::TypeScript => "function class interface enum type const let var",
            Lang::Rust => "fn struct enum trait type const static mod let",
        }
    }

    /// Words that are never asked about.
    pub fn keywords(self) -> &'static str {
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
    pub fn call_after(self) -> &'static str {
        match self {
            Lang::Python => {
                "return yield await if elif while not and or in is assert else raise with"
            }
            Lang::TypeScript => "return new throw await yield typeof void in of case else delete",
            Lang::Rust => "return in match if while break",
        }
    }

    pub fn line_comment(self) -> &'static str {
        match self {
            Lang::Python => "#",
            _ => "//",
        }
    }

    /// The line that makes a type error, appended to a file.
    pub fn error_line(self) -> &'static str {
        match self {
            Lang::Python => "__soak: int = \"s\"",
            Lang::TypeScript => "const __soak: number = \"s\";",
            Lang::Rust => "fn __soak() -> u8 { \"s\" }",
        }
    }
}

/// Whether `word` is one of the space-separated `words`.
pub fn is_one_of(words: &str, word: &str) -> bool {
    words.split_whitespace().any(|w| w == word)
}

/// Punctuation a call may follow: a name followed by `(` after anything else
/// (the start of a line, `{`, `;`) is as likely a method being declared
/// (`area() {` in a TypeScript class, a Rust tuple variant) as a call.
pub const CALL_AFTER_PUNCT: &str = ".(,=[!?:&|+-*/<>%^~@";

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Punct(char),
    /// A string, number or char literal, with its text.
    Literal(String),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    /// 1-based line and column; the column counts characters.
    pub line: usize,
    pub col: usize,
}

pub struct Cursor {
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
pub fn raw_string_follows(cur: &Cursor) -> bool {
    let hashes = (0..).take_while(|k| cur.peek(*k) == Some('#')).count();
    cur.peek(hashes) == Some('"')
}

pub fn ident_start(lang: Lang, c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (lang == Lang::TypeScript && c == '$')
}

pub fn ident_char(lang: Lang, c: char) -> bool {
    ident_start(lang, c) || c.is_ascii_digit()
}

/// The code of `text` as tokens, without comments; strings are single
/// literal tokens, so that nothing inside them is mistaken for code.
pub fn tokenize(lang: Lang, text: &str) -> Vec<Token> {
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

pub fn is_punct(t: Option<&Token>, c: char) -> bool {
    t.is_some_and(|t| t.tok == Tok::Punct(c))
}

pub fn ident(t: Option<&Token>) -> Option<&str> {
    match t.map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The index of the bracket closing the one at `open`.
pub fn closing(toks: &[Token], open: usize) -> usize {
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
pub fn item_end(toks: &[Token], start: usize) -> usize {
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
pub fn cfg_holds(toks: &[Token], i: &mut usize) -> bool {
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
pub fn inactive(lang: Lang, text: &str, toks: &[Token]) -> Vec<bool> {
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
pub struct Spot {
    pub file: usize,
    pub line: usize,
    pub col: usize,
    pub name: String,
    /// Declared here, by the scanner's reading (`def name`).
    pub declared: bool,
    /// The definition answer at this position lists the position itself: it
    /// is a declaration too (a method declared `area() {`).
    pub self_defined: bool,
    /// The definition answer lists a definition: a name the checker cannot
    /// resolve (a property of an `any`) has no references to list.
    pub resolved: bool,
    /// The definition answer lists a definition in the project.
    pub local: bool,
}

/// Declarations and calls of every file, each name used at most `MAX_USES`
/// times in the project.
pub fn scan(lang: Lang, texts: &[String]) -> (Vec<Spot>, Vec<Spot>) {
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
pub fn spread<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|k| items[k * items.len() / n].clone()).collect()
}

/// xorshift64*, with a fixed seed: the order of questions is the same on
/// every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for k in (1..items.len()).rev() {
            let j = (self.next_u64() % (k as u64 + 1)) as usize;
            items.swap(k, j);
        }
    }
}

/// A project copied into a temporary directory.
pub struct Tree {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    /// Source files, relative to the root, sorted.
    pub files: Vec<String>,
}

pub fn copy_tree(from: &Path, to: &Path, ext: &str, files: &mut Vec<PathBuf>) {
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
    pub fn new(from: &Path, dir: &str, ext: &str) -> Tree {
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

    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.root.join(rel), text).unwrap();
    }
}
