//! The edit tools (`read`, `write`, `edit`, `apply_patch`): atomic writes that
//! keep permissions, the byte-order mark and line endings; formatting; and
//! the errors the change left, so that an agent learns in one answer what
//! broke. An edit of a file that changed on disk since it was last read
//! through these tools is refused.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::answer::{Finding, Severity};
use crate::error::ToolError;
use crate::format::{Outcome, Report};
use crate::patch::{self, Op};
use crate::workspace::Workspace;

/// At most this many errors are listed per file.
pub const ERRORS_PER_FILE: usize = 20;
/// `write` also lists up to this many other files that now have errors.
pub const OTHER_FILES: usize = 5;

const BOM: &str = "\u{feff}";

/// The text of a file, split into what the tools keep apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub bom: bool,
    pub crlf: bool,
    /// The content without BOM, with `\n` line endings.
    pub body: String,
}

impl Text {
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Text, ToolError> {
        let s = std::str::from_utf8(bytes)
            .map_err(|_| ToolError::BadInput(format!("{} is not UTF-8 text", path.display())))?;
        let bom = s.starts_with(BOM);
        let s = s.strip_prefix(BOM).unwrap_or(s);
        let crlf = s.contains("\r\n");
        Ok(Text {
            bom,
            crlf,
            body: s.replace("\r\n", "\n"),
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = String::new();
        if self.bom {
            out.push_str(BOM);
        }
        if self.crlf {
            out.push_str(&self.body.replace('\n', "\r\n"));
        } else {
            out.push_str(&self.body);
        }
        out.into_bytes()
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so that readers (and a crash) see the old or the new file,
/// never half of one. An existing file's permissions are kept.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    write_file(path, bytes)
        .map_err(|e| ToolError::BadInput(format!("cannot write {}: {e}", path.display())))
}

/// [`atomic_write`], with the bare I/O error.
fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "it has no directory")
    })?;
    std::fs::create_dir_all(dir)?;
    let perms = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ))
        .suffix(".sightline-tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(p) = perms {
        std::fs::set_permissions(tmp.path(), p)?;
    } else {
        use std::os::unix::fs::PermissionsExt;
        // tempfile creates 0600; a new file gets the usual 0644.
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The directories above `path` that do not exist yet, outermost first:
/// what writing it creates, and what undoing that write removes.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = path
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .map(Path::to_owned)
        .collect();
    out.reverse();
    out
}

/// One step of a commit, with what undoing it needs.
struct Step {
    path: PathBuf,
    /// `None` when the step left the file as it was (it failed); else the
    /// bytes to put back, or `Some(None)` when the file was new.
    original: Option<Option<Vec<u8>>>,
    /// The directories the step's write created, outermost first.
    made: Vec<PathBuf>,
}

/// Undoes the steps of a commit that failed with `failure`: newest first,
/// each file gets its original bytes back (or goes, if it was new), then the
/// directories its write created go. A step that cannot be undone is added
/// to the error and logged, never dropped: the caller must learn that the
/// all-or-nothing promise was broken, and where.
fn roll_back(failure: ToolError, steps: &[Step]) -> ToolError {
    let mut unrestored = Vec::new();
    for step in steps.iter().rev() {
        let undone = match &step.original {
            None => Ok(()),
            Some(Some(bytes)) => write_file(&step.path, bytes),
            Some(None) => match std::fs::remove_file(&step.path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                r => r,
            },
        };
        if let Err(e) = undone {
            unrestored.push(format!("{}: {e}", step.path.display()));
        }
        for dir in step.made.iter().rev() {
            match std::fs::remove_dir(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    unrestored.push(format!("{}: {e}", dir.display()));
                }
                _ => {}
            }
        }
    }
    if unrestored.is_empty() {
        return failure;
    }
    let failure = failure.append(&format!(
        ", and could not restore {}",
        unrestored.join(", nor ")
    ));
    tracing::error!("{failure}");
    failure
}

/// What the tools remember between calls: the content hash of each file as
/// it was last read or written through them.
#[derive(Debug, Default)]
pub struct Seen(Mutex<HashMap<PathBuf, u64>>);

impl Seen {
    fn record(&self, path: &Path, bytes: &[u8]) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(path.to_owned(), hash(bytes));
        }
    }

    fn forget(&self, path: &Path) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(path);
        }
    }

    /// Refuses when the file changed on disk since the tools last saw it.
    fn check(&self, path: &Path, now: Option<&[u8]>) -> Result<(), ToolError> {
        let known = self.0.lock().ok().and_then(|m| m.get(path).copied());
        match (known, now) {
            (Some(h), Some(bytes)) if h != hash(bytes) => Err(ToolError::BadInput(format!(
                "{} changed on disk since it was last read; read it again before editing",
                path.display()
            ))),
            (Some(_), None) => Err(ToolError::BadInput(format!(
                "{} was deleted on disk since it was last read",
                path.display()
            ))),
            _ => Ok(()),
        }
    }
}

/// The errors one file has after a change.
#[derive(Debug, Clone)]
pub struct FileErrors {
    pub path: PathBuf,
    pub errors: Vec<Finding>,
    pub notes: Vec<String>,
}

/// The answer of `write`, `edit` and `apply_patch`.
#[derive(Debug, Clone, Default)]
pub struct EditAnswer {
    pub root: Option<PathBuf>,
    /// What was done, one line each (`wrote a.py`).
    pub changes: Vec<String>,
    pub formatting: Vec<(PathBuf, Report)>,
    pub files: Vec<FileErrors>,
}

impl EditAnswer {
    pub fn text(&self) -> String {
        let root = self.root.clone().unwrap_or_default();
        let show = |p: &Path| crate::render::shown(&root, p);
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(c);
            out.push('\n');
        }
        for (path, r) in &self.formatting {
            if r.outcome != Outcome::Unchanged {
                out.push_str(&format!("{}: {}\n", show(path), r.line()));
            }
        }
        for f in &self.files {
            for n in &f.notes {
                out.push_str(&format!("{}: note: {n}\n", show(&f.path)));
            }
            if f.errors.is_empty() {
                continue;
            }
            let n = f.errors.len();
            out.push_str(&format!(
                "{}: {n} error{}\n",
                show(&f.path),
                if n == 1 { "" } else { "s" }
            ));
            for e in f.errors.iter().take(ERRORS_PER_FILE) {
                out.push_str(&format!(
                    "{}:{} error: {} [{}]\n",
                    e.line, e.column, e.message, e.source
                ));
            }
            if n > ERRORS_PER_FILE {
                out.push_str(&format!("... and {} more\n", n - ERRORS_PER_FILE));
            }
        }
        if self.files.iter().all(|f| f.errors.is_empty()) {
            out.push_str("no errors\n");
        }
        out
    }
}

fn absolute(path: &Path) -> Result<PathBuf, ToolError> {
    Ok(sightline_lsp::uri::normalize(&absolute_unresolved(path)?))
}

/// `path` when it is absolute, as written.
fn absolute_unresolved(path: &Path) -> Result<PathBuf, ToolError> {
    if !path.is_absolute() {
        return Err(ToolError::BadInput(format!(
            "file must be an absolute path, got `{}`",
            path.display()
        )));
    }
    Ok(path.to_owned())
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, ToolError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        // Under a file (`a.txt/b.txt`): there is no such file either.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) if path.is_dir() => Err(ToolError::BadInput(format!(
            "{} is a directory: {e}",
            path.display()
        ))),
        Err(e) => Err(ToolError::BadInput(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Why [`replace`] changed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplaceError {
    EmptyOld,
    NotFound,
    /// `old` is there this many times and `replace_all` was not set.
    Ambiguous(usize),
}

/// What [`replace`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The new text: exactly `str::replace` (or `replacen(.., 1)`).
    pub body: String,
    /// How many spans were replaced.
    pub count: usize,
    /// The lines of the new text (1-based, inclusive) from the start of the
    /// first replacement to the end of the last one, for range formatting.
    pub lines: (usize, usize),
}

/// The text part of the `edit` tool: replaces `old` with `new` in `body`,
/// once (when `old` is there exactly once) or, with `replace_all`, at every
/// non-overlapping match from the left, as `str::replace` does.
pub fn replace(
    body: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, ReplaceError> {
    if old.is_empty() {
        return Err(ReplaceError::EmptyOld);
    }
    // The same matches `str::replace` replaces. (`rfind` may find a last
    // match that overlaps the one before it, which `replace` skips.)
    let at: Vec<usize> = body.match_indices(old).map(|(i, _)| i).collect();
    match at.len() {
        0 => return Err(ReplaceError::NotFound),
        n if n > 1 && !replace_all => return Err(ReplaceError::Ambiguous(n)),
        _ => {}
    }
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    let mut first_at = 0;
    let mut last_end = 0;
    for (k, &i) in at.iter().enumerate() {
        out.push_str(&body[copied..i]);
        if k == 0 {
            first_at = out.len();
        }
        out.push_str(new);
        last_end = out.len();
        copied = i + old.len();
    }
    out.push_str(&body[copied..]);
    // Counted over bytes: a `\n` byte is always a whole character.
    let line_at = |byte: usize| {
        out.as_bytes()[..byte]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    let lines = (line_at(first_at), line_at(last_end));
    Ok(Replaced {
        count: at.len(),
        lines,
        body: out,
    })
}

impl Workspace {
    /// Numbered lines of `file` (1-based, the numbers the LSP tools take).
    pub fn read(
        &self,
        file: &Path,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ToolError> {
        let path = absolute(file)?;
        let bytes = read_bytes(&path)?
            .ok_or_else(|| ToolError::BadInput(format!("file not found: {}", path.display())))?;
        let text = Text::decode(&bytes, &path)?;
        self.seen().record(&path, &bytes);
        let start = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(2000);
        let total = text.body.lines().count();
        let mut out = String::new();
        for (i, line) in text.body.lines().enumerate().skip(start - 1).take(limit) {
            out.push_str(&format!("{:>6}\t{line}\n", i + 1));
        }
        if start - 1 + limit < total {
            out.push_str(&format!(
                "... {} more lines; read on with offset {}\n",
                total - (start - 1 + limit),
                start + limit
            ));
        }
        if total == 0 {
            out.push_str("(empty file)\n");
        }
        Ok(out)
    }

    /// Refuses the write of any of `paths` the sandbox mode does not allow:
    /// all of them are judged before anything is read or written, so a
    /// refused call changes nothing.
    fn confine<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) -> Result<(), ToolError> {
        paths
            .into_iter()
            .try_for_each(|p| self.sandbox().check_write(p))
    }

    /// Replaces (or creates) `file` with `content`.
    pub async fn write(&self, file: &Path, content: &str) -> Result<EditAnswer, ToolError> {
        // Judged as given, before `absolute` follows a link to its target,
        // so that a refusal names the path the caller wrote.
        self.confine([absolute_unresolved(file)?.as_path()])?;
        let path = absolute(file)?;
        let before = read_bytes(&path)?;
        self.seen().check(&path, before.as_deref())?;
        let old = before
            .as_deref()
            .map(|b| Text::decode(b, &path))
            .transpose()?;
        let new = Text::decode(content.as_bytes(), &path)?;
        let text = Text {
            // The BOM state the content should have: the file's or the new text's.
            bom: old.as_ref().is_some_and(|o| o.bom) || new.bom,
            // The file's line endings are kept.
            crlf: old.as_ref().map_or(new.crlf, |o| o.crlf),
            body: new.body,
        };
        let verb = if before.is_some() { "wrote" } else { "created" };
        let mut answer = self.commit(vec![(path.clone(), Some(text))]).await?;
        answer.changes = vec![format!("{verb} {}", path.display())];
        self.check_errors(&mut answer, std::slice::from_ref(&path), true)
            .await;
        Ok(answer)
    }

    /// Replaces `old` with `new` in `file`: once, or everywhere with
    /// `replace_all`.
    pub async fn edit(
        &self,
        file: &Path,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditAnswer, ToolError> {
        let range = self.config().format_range;
        self.edit_with(file, old, new, replace_all, range).await
    }

    /// [`Workspace::edit`], formatting only the lines the edit touched when
    /// `format_range` is set (through the server's range formatting, or a
    /// formatter that takes line ranges).
    pub async fn edit_with(
        &self,
        file: &Path,
        old: &str,
        new: &str,
        replace_all: bool,
        format_range: bool,
    ) -> Result<EditAnswer, ToolError> {
        self.confine([absolute_unresolved(file)?.as_path()])?;
        let path = absolute(file)?;
        let before = read_bytes(&path)?
            .ok_or_else(|| ToolError::BadInput(format!("file not found: {}", path.display())))?;
        self.seen().check(&path, Some(&before))?;
        let mut text = Text::decode(&before, &path)?;
        let (old, new) = (old.replace("\r\n", "\n"), new.replace("\r\n", "\n"));
        let Replaced {
            body,
            count: n,
            lines,
        } = replace(&text.body, &old, &new, replace_all).map_err(|e| {
            ToolError::BadInput(match e {
                ReplaceError::EmptyOld => "`old` must not be empty".into(),
                ReplaceError::NotFound => format!("`old` was not found in {}", path.display()),
                ReplaceError::Ambiguous(n) => format!(
                    "`old` is in {} {n} times; give more context or set replace_all",
                    path.display()
                ),
            })
        })?;
        text.body = body;
        let range = format_range.then_some(lines);
        let mut answer = self
            .commit_with(vec![(path.clone(), Some(text))], range)
            .await?;
        answer.changes = vec![format!(
            "edited {} ({n} replacement{})",
            path.display(),
            if n == 1 { "" } else { "s" }
        )];
        self.check_errors(&mut answer, std::slice::from_ref(&path), false)
            .await;
        Ok(answer)
    }

    /// Applies a `*** Begin Patch` patch: every change, or none.
    pub async fn apply_patch(&self, patch_text: &str) -> Result<EditAnswer, ToolError> {
        let base = self.base_dir()?;
        // `read-only` refuses the tool whatever the patch holds.
        if self.sandbox().mode == crate::sandbox::Mode::ReadOnly {
            self.confine([base.as_path()])?;
        }
        let ops =
            patch::parse(patch_text, &base).map_err(|e| ToolError::BadInput(e.to_string()))?;
        // Every path the patch touches, a move's source and destination
        // too, before the first file is read.
        self.confine(ops.iter().flat_map(|op| {
            match op {
                Op::Add { path, .. } | Op::Delete { path } => vec![path.as_path()],
                Op::Update { path, move_to, .. } => std::iter::once(path.as_path())
                    .chain(move_to.as_deref())
                    .collect(),
            }
        }))?;
        let mut staged: Vec<(PathBuf, Option<Text>)> = Vec::new();
        let mut changes = Vec::new();
        for op in ops {
            match op {
                Op::Add { path, text } => {
                    if path.exists() {
                        return Err(ToolError::BadInput(format!(
                            "cannot add {}: it exists",
                            path.display()
                        )));
                    }
                    changes.push(format!("added {}", path.display()));
                    staged.push((
                        path,
                        Some(Text {
                            bom: false,
                            crlf: false,
                            body: text,
                        }),
                    ));
                }
                Op::Delete { path } => {
                    let bytes = read_bytes(&path)?.ok_or_else(|| {
                        ToolError::BadInput(format!("cannot delete {}: not found", path.display()))
                    })?;
                    self.seen().check(&path, Some(&bytes))?;
                    changes.push(format!("deleted {}", path.display()));
                    staged.push((path, None));
                }
                Op::Update {
                    path,
                    move_to,
                    hunks,
                } => {
                    let bytes = read_bytes(&path)?.ok_or_else(|| {
                        ToolError::BadInput(format!("cannot update {}: not found", path.display()))
                    })?;
                    self.seen().check(&path, Some(&bytes))?;
                    let mut text = Text::decode(&bytes, &path)?;
                    let lines: Vec<String> = text.body.lines().map(str::to_owned).collect();
                    let had_newline = text.body.ends_with('\n') || text.body.is_empty();
                    let new_lines = patch::apply(&path, &lines, &hunks)
                        .map_err(|e| ToolError::BadInput(e.to_string()))?;
                    text.body = new_lines.join("\n");
                    if had_newline && !text.body.is_empty() {
                        text.body.push('\n');
                    }
                    match move_to {
                        Some(to) => {
                            if to.exists() && to != path {
                                return Err(ToolError::BadInput(format!(
                                    "cannot move {} to {}: it exists",
                                    path.display(),
                                    to.display()
                                )));
                            }
                            changes.push(format!("moved {} to {}", path.display(), to.display()));
                            staged.push((to, Some(text)));
                            staged.push((path, None));
                        }
                        None => {
                            changes.push(format!("updated {}", path.display()));
                            staged.push((path, Some(text)));
                        }
                    }
                }
            }
        }
        let written: Vec<PathBuf> = staged
            .iter()
            .filter(|(_, t)| t.is_some())
            .map(|(p, _)| p.clone())
            .collect();
        let mut answer = self.commit(staged).await?;
        answer.changes = changes;
        self.check_errors(&mut answer, &written, false).await;
        Ok(answer)
    }

    /// The directory relative patch paths start from.
    fn base_dir(&self) -> Result<PathBuf, ToolError> {
        match self.workspace_root() {
            Some(r) => Ok(r.to_owned()),
            None => std::env::current_dir()
                .map_err(|e| ToolError::BadInput(format!("no workspace directory: {e}"))),
        }
    }

    /// Writes every staged file (or deletes it), all or nothing, then
    /// formats the written ones and restores their BOM state.
    async fn commit(&self, staged: Vec<(PathBuf, Option<Text>)>) -> Result<EditAnswer, ToolError> {
        self.commit_with(staged, None).await
    }

    /// [`Workspace::commit`]; with `range`, only those lines of the (single)
    /// file are formatted.
    async fn commit_with(
        &self,
        staged: Vec<(PathBuf, Option<Text>)>,
        range: Option<(usize, usize)>,
    ) -> Result<EditAnswer, ToolError> {
        // The one place files are written: every staged path is judged
        // again here (as resolved for writing), before the first write.
        self.confine(staged.iter().map(|(p, _)| p.as_path()))?;
        let originals: Vec<Option<Vec<u8>>> = staged
            .iter()
            .map(|(p, _)| read_bytes(p))
            .collect::<Result<_, _>>()?;
        // Each step taken so far, with what undoing it needs: the file's
        // original bytes and the directories its write created.
        let mut steps = Vec::new();
        for ((path, text), original) in staged.iter().zip(originals) {
            let made = if text.is_some() {
                missing_dirs(path)
            } else {
                Vec::new()
            };
            let r = match text {
                Some(t) => atomic_write(path, &t.encode()),
                None => std::fs::remove_file(path).map_err(|e| {
                    ToolError::BadInput(format!("cannot delete {}: {e}", path.display()))
                }),
            };
            let failed = r.is_err();
            steps.push(Step {
                path: path.clone(),
                // A failed write or delete left the file as it was, though
                // it may have created directories.
                original: (!failed).then_some(original),
                made,
            });
            if let Err(e) = r {
                return Err(roll_back(e, &steps));
            }
        }
        let mut answer = EditAnswer {
            root: self.workspace_root().map(Path::to_owned),
            ..EditAnswer::default()
        };
        for (path, text) in &staged {
            let Some(t) = text else {
                self.seen().forget(path);
                continue;
            };
            match range {
                Some((first, last)) => {
                    let report = self.format_lines(path, first, last).await;
                    answer.formatting.push((path.clone(), report));
                }
                None => {
                    for report in self.formatters().format(path).await {
                        answer.formatting.push((path.clone(), report));
                    }
                }
            }
            // A formatter may add or drop the BOM; the content decides.
            if let Ok(bytes) = std::fs::read(path) {
                if let Ok(after) = Text::decode(&bytes, path)
                    && after.bom != t.bom
                {
                    let fixed = Text {
                        bom: t.bom,
                        ..after
                    };
                    let _ = atomic_write(path, &fixed.encode());
                }
                if let Ok(bytes) = std::fs::read(path) {
                    self.seen().record(path, &bytes);
                }
            }
        }
        Ok(answer)
    }

    /// Adds the errors of `files` (and, for `write`, of up to five other
    /// files the same server has open) to the answer.
    async fn check_errors(&self, answer: &mut EditAnswer, files: &[PathBuf], others: bool) {
        for file in files {
            match self.diagnostics(file).await {
                Ok(d) => {
                    answer.root.get_or_insert(d.root.clone());
                    answer.files.push(FileErrors {
                        path: file.clone(),
                        errors: d
                            .diagnostics
                            .into_iter()
                            .filter(|f| f.severity == Severity::Error)
                            .collect(),
                        notes: d.notes,
                    });
                }
                // No server for this kind of file: nothing to check.
                Err(ToolError::Unsupported(_)) | Err(ToolError::BadInput(_)) => {}
                Err(e) => answer.files.push(FileErrors {
                    path: file.clone(),
                    errors: Vec::new(),
                    notes: vec![format!("errors not checked: {e}")],
                }),
            }
        }
        if !others {
            return;
        }
        let mut extra = 0;
        for other in self.open_files_beside(&files[0]) {
            if extra == OTHER_FILES || files.contains(&other) {
                continue;
            }
            if let Ok(d) = self.diagnostics(&other).await {
                let errors: Vec<Finding> = d
                    .diagnostics
                    .into_iter()
                    .filter(|f| f.severity == Severity::Error)
                    .collect();
                if !errors.is_empty() {
                    extra += 1;
                    answer.files.push(FileErrors {
                        path: other,
                        errors,
                        notes: d.notes,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn replace_all_over_overlapping_multibyte_matches() {
        // `rfind` finds a last `──` at byte 8 that overlaps the first match;
        // `replace` replaces only the first, and byte 8 of the new text is
        // inside a `─`.
        let r = replace("s = \"───\"", "──", "-", true).unwrap();
        assert_eq!(
            r,
            Replaced {
                body: "s = \"-─\"".into(),
                count: 1,
                lines: (1, 1),
            }
        );
    }

    #[test]
    fn the_lines_span_from_the_first_replacement_to_the_end_of_the_last() {
        let r = replace("a\nx\nb\nx\nc\n", "x", "y\nz", true).unwrap();
        assert_eq!(r.body, "a\ny\nz\nb\ny\nz\nc\n");
        assert_eq!((r.count, r.lines), (2, (2, 6)));
        assert_eq!(
            replace("x x", "x", "y", false),
            Err(ReplaceError::Ambiguous(2))
        );
        assert_eq!(replace("x", "", "y", true), Err(ReplaceError::EmptyOld));
        assert_eq!(replace("x", "z", "y", true), Err(ReplaceError::NotFound));
    }

    #[test]
    fn a_step_that_cannot_be_undone_is_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Someone put a directory where `a.txt` was rewritten, and a file in
        // a directory the commit created: neither can be undone.
        let blocked = root.join("a.txt");
        std::fs::create_dir(&blocked).unwrap();
        let made = root.join("new");
        std::fs::create_dir(&made).unwrap();
        std::fs::write(made.join("theirs.txt"), "").unwrap();
        let b = root.join("b.txt");
        std::fs::write(&b, "new b\n").unwrap();
        let steps = [
            Step {
                path: blocked.clone(),
                original: Some(Some(b"old a\n".to_vec())),
                made: Vec::new(),
            },
            Step {
                path: made.join("c.txt"),
                original: Some(None),
                made: vec![made.clone()],
            },
            Step {
                path: b.clone(),
                original: Some(Some(b"old b\n".to_vec())),
                made: Vec::new(),
            },
            Step {
                path: root.join("d.txt"),
                original: None,
                made: Vec::new(),
            },
        ];
        let e = roll_back(
            ToolError::BadInput("cannot write d.txt: boom".into()),
            &steps,
        );
        assert_eq!(
            e.to_string(),
            format!(
                "error: cannot write d.txt: boom, and could not restore {}: Directory not empty (os error 39), nor {}: Is a directory (os error 21)",
                made.display(),
                blocked.display()
            )
        );
        // What could be undone was.
        assert_eq!(std::fs::read(&b).unwrap(), b"old b\n");
        assert!(!root.join("d.txt").exists());
    }
}

#[cfg(test)]
mod proptests {
    //! `replace` against a model that scans the text one character at a time.

    use super::*;
    use proptest::prelude::*;

    /// Few characters, so that matches (and overlapping ones) are common:
    /// one to four bytes each, and newlines.
    const CHARS: &[char] = &['a', 'b', '─', 'é', '🙂', '\n', ' '];

    fn text(len: std::ops::Range<usize>) -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::collection::vec(prop::sample::select(CHARS), len.clone())
                .prop_map(String::from_iter),
            1 => prop::collection::vec(any::<char>(), len).prop_map(String::from_iter),
        ]
    }

    /// A text of runs of one character (so that matches overlap), and an
    /// `old` that is mostly a piece of it.
    fn body_and_old() -> impl Strategy<Value = (String, String)> {
        let runs = prop::collection::vec((prop::sample::select(CHARS), 1..5usize), 0..10).prop_map(
            |runs| {
                runs.into_iter()
                    .flat_map(|(c, n)| std::iter::repeat_n(c, n))
                    .collect::<String>()
            },
        );
        let body = prop_oneof![3 => runs, 1 => text(0..40)];
        (body, any::<prop::sample::Index>(), 1..4usize, text(0..4)).prop_map(
            |(body, at, len, other)| {
                let chars: Vec<char> = body.chars().collect();
                // One time in four (and in an empty text) `old` is anything.
                if chars.is_empty() || at.index(4) == 0 {
                    return (body, other);
                }
                let from = at.index(chars.len());
                let old = chars[from..(from + len).min(chars.len())].iter().collect();
                (body, old)
            },
        )
    }

    /// Replaces at every position where `old` starts (then skips past it),
    /// else copies one character; the lines run from the start of the first
    /// replacement to the end of the last one in the new text.
    fn model(
        body: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<Replaced, ReplaceError> {
        if old.is_empty() {
            return Err(ReplaceError::EmptyOld);
        }
        let mut count = 0;
        let mut rest = body;
        while !rest.is_empty() {
            if rest.starts_with(old) {
                count += 1;
                rest = &rest[old.len()..];
            } else {
                let c = rest.chars().next().unwrap_or_default();
                rest = &rest[c.len_utf8()..];
            }
        }
        match count {
            0 => return Err(ReplaceError::NotFound),
            n if n > 1 && !replace_all => return Err(ReplaceError::Ambiguous(n)),
            _ => {}
        }
        let mut out = String::new();
        let mut spans = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            if rest.starts_with(old) && (replace_all || spans.is_empty()) {
                let start = out.len();
                out.push_str(new);
                spans.push((start, out.len()));
                rest = &rest[old.len()..];
            } else {
                let c = rest.chars().next().unwrap_or_default();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        let line = |at: usize| out[..at].chars().filter(|&c| c == '\n').count() + 1;
        let lines = (line(spans[0].0), line(spans[spans.len() - 1].1));
        Ok(Replaced {
            body: out,
            count: spans.len(),
            lines,
        })
    }

    proptest! {
        #![proptest_config(crate::proptest_config())]

        #[test]
        fn replace_matches_the_model_and_str_replace(
            (body, old) in body_and_old(),
            new in text(0..4),
            replace_all: bool,
        ) {
            let got = replace(&body, &old, &new, replace_all);
            prop_assert_eq!(&got, &model(&body, &old, &new, replace_all));
            if let Ok(r) = got {
                let want = if replace_all {
                    body.replace(&old, &new)
                } else {
                    body.replacen(&old, &new, 1)
                };
                prop_assert_eq!(r.body, want);
            }
        }
    }
}
