//! Edits an agent makes with its own tools (Claude Code's `Edit`, Gemini
//! CLI's `replace`, Codex's `apply_patch`), seen by its hooks: before the
//! tool runs, each file's text is recorded (nothing is asked, so the tool
//! never waits for a server); after it ran, the files and the users of what
//! changed are asked twice, first with the text before the edit held in
//! memory (`sync::FileView`, as a dry run holds its text), then as the disk
//! has them, and the answer lists what the edit introduced. Nothing here
//! writes a file.
//!
//! The before and the after come in two hook calls, so the recorded texts
//! ([`EditTexts`]) wait between them in the daemon's pending checks
//! (`frontends::hooks::pending`), which hand them back here. Without a
//! before-edit call (an agent with no such hook, or no daemon),
//! the text before the edit the agent reports is held instead. After the
//! edit, when the disk holds another edit of the same file too (another
//! agent's, at the same time), this edit is checked by itself, its files
//! held in memory as it alone leaves them.
//!
//! A server that checks only what is saved (rust-analyzer's `cargo check`)
//! is asked the text before the edit with its own analysis alone, so its
//! check's old errors are heard only after the edit.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use crate::edit::new_errors::Baseline;
use crate::edit::text::{Text, replace};
use crate::edit::{EditAnswer, patch};

pub use super::agent_edit::AgentEdit;
use crate::error::ToolError;

/// An agent's edit as its before-edit call saw it: each file's text before
/// it (`None`: the edit creates the file), and as the edit alone leaves it.
/// Nothing was asked of a server yet.
#[derive(Debug, Clone)]
pub(crate) struct EditTexts {
    /// The edited files, normalised and sorted: the key the after-edit call
    /// meets it by.
    pub(crate) files: Vec<PathBuf>,
    pub(crate) olds: Vec<(PathBuf, Option<String>)>,
    pub(crate) staged: Vec<(PathBuf, Option<Text>)>,
}

/// `path` as the after-edit call will name it: a file that does not exist
/// yet (the edit creates it) by its normalised directory, so that a path
/// through a symlink (`/tmp` on macOS) is the same before and after.
pub(crate) fn normalized(path: &Path) -> PathBuf {
    if path.exists() {
        return sightline_lsp::normalize(path);
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => sightline_lsp::normalize(dir).join(name),
        _ => path.to_owned(),
    }
}

/// `files` as an [`EditTexts`] is keyed: normalised, sorted, once each.
pub(crate) fn sorted(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> = files.iter().map(|p| normalized(p)).collect();
    f.sort();
    f.dedup();
    f
}

impl Editor<'_> {
    /// Before an agent's tool makes `edits`: each file's text now and as
    /// the edits leave it, for [`Editor::after_agent_edit`]; `None` when no
    /// server handles any of them. No server is asked: the agent's tool
    /// never waits for one (the text before the edit is asked in memory
    /// after it).
    pub(crate) fn before_agent_edit(
        &self,
        edits: &[AgentEdit],
    ) -> Result<Option<EditTexts>, ToolError> {
        let mut staged: Vec<(PathBuf, Option<Text>)> = Vec::new();
        for edit in edits {
            staged.extend(stage(*self, edit, &staged)?);
        }
        let staged: Vec<(PathBuf, Option<Text>)> = staged
            .into_iter()
            .map(|(p, t)| (normalized(&p), t))
            .collect();
        // No server for any of them (a README): nothing to keep.
        if !staged.iter().any(|(p, _)| self.engine.handles(p)) {
            return Ok(None);
        }
        // Each file's text now, or none for a file the edit creates.
        let olds: Vec<(PathBuf, Option<String>)> = staged
            .iter()
            .map(|(p, _)| {
                let text = std::fs::read(p)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                (p.clone(), text)
            })
            .collect();
        let files: Vec<PathBuf> = staged.iter().map(|(p, _)| p.clone()).collect();
        Ok(Some(EditTexts {
            files: sorted(&files),
            olds,
            staged,
        }))
    }

    /// The agent's edit whose texts are `texts`, previewed: written in
    /// memory only (`Editor::preview`), its errors compared with the
    /// files' errors now, every server told the disk's text again after.
    pub(crate) async fn preview_agent_edit(
        &self,
        texts: &EditTexts,
    ) -> Result<EditAnswer, ToolError> {
        // A file several edits change (Claude Code's `MultiEdit`) is
        // staged once per edit: its last text is the edit's.
        let mut staged: Vec<(PathBuf, Option<Text>)> = Vec::new();
        for (path, text) in texts.staged.iter().rev() {
            if !staged.iter().any(|(p, _)| p == path) {
                staged.push((path.clone(), text.clone()));
            }
        }
        staged.reverse();
        let written: Vec<PathBuf> = staged
            .iter()
            .filter(|(_, t)| t.is_some())
            .map(|(p, _)| p.clone())
            .collect();
        self.preview(move |view| {
            Box::pin(async move {
                let mut answer = view.commit(staged).await?;
                view.check_errors(&mut answer, &written).await;
                Ok(answer)
            })
        })
        .await
    }

    /// The baseline of `staged`, asked of `olds` (each file's text before
    /// the edit) held in memory, alone (as a dry run is), every server told
    /// the disk's text again after.
    async fn baseline_held(
        &self,
        olds: &[(PathBuf, Option<String>)],
        staged: &[(PathBuf, Option<Text>)],
    ) -> Result<Baseline, ToolError> {
        let held = self.hold_in_memory(olds.to_vec()).await;
        held.view
            .editor()
            .baseline_within(staged, self.dependents_budget())
            .await
    }

    /// The errors before an edit whose before-edit call was not heard: the
    /// files of `key` whose text before it is known (`originals`), as the
    /// edit left them, asked of that text held in memory (the others have
    /// no before: not compared).
    async fn baseline_of_originals(
        &self,
        key: &[PathBuf],
        originals: &[(PathBuf, Option<String>)],
    ) -> Option<Baseline> {
        let staged: Vec<(PathBuf, Option<Text>)> = key
            .iter()
            .filter(|p| originals.iter().any(|(o, _)| o == *p))
            .map(|p| {
                let now = crate::edit::commit::read_bytes(p)
                    .ok()
                    .flatten()
                    .and_then(|b| Text::decode(&b, p).ok());
                (p.clone(), now)
            })
            .collect();
        match self.baseline_held(originals, &staged).await {
            Ok(b) => Some(b),
            Err(e) => {
                tracing::debug!("agent edit: no baseline from the originals: {e}");
                None
            }
        }
    }

    /// After an agent's tool changed `files`: their errors and those of the
    /// users of what changed, as the edit tools answer them, compared with
    /// a baseline asked now of each file's text before the edit held in
    /// memory: the texts the before-edit call `recorded`, or else
    /// `originals` (where the agent said it or the edit could be undone).
    /// With neither, each file's errors are listed as not compared.
    /// `earlier` holds files' texts before an earlier edit of the same
    /// agent whose check this one takes over (it had not reached the
    /// agent): they are the baseline of those files instead, so the answer
    /// is the delta of both edits.
    pub(crate) async fn after_agent_edit(
        &self,
        recorded: Option<EditTexts>,
        files: &[PathBuf],
        originals: &[(PathBuf, String)],
        earlier: &[(PathBuf, Option<String>)],
    ) -> EditAnswer {
        let key = sorted(files);
        let texts = recorded.map(|r| (r.olds, r.staged));
        let earlier = normalized_texts(earlier);
        let texts = texts.map(|(olds, staged)| (taken_over(olds, &earlier), staged));
        let originals: Vec<(PathBuf, Option<String>)> = taken_over(
            originals
                .iter()
                .map(|(p, t)| (normalized(p), Some(t.clone())))
                .collect(),
            &earlier,
        );
        let baseline = match &texts {
            Some((olds, staged)) => match self.baseline_held(olds, staged).await {
                Ok(b) => Some(b),
                // Said, and the users of what changed looked for after the
                // edit from the texts before it: never a silent "no error".
                Err(e) => Some(Baseline {
                    unfollowed: olds
                        .iter()
                        .filter_map(|(p, t)| Some((p.clone(), t.clone()?)))
                        .collect(),
                    notes: vec![format!("the errors before the edit could not be had: {e}")],
                    ..Baseline::default()
                }),
            },
            None if !originals.is_empty() => self.baseline_of_originals(&key, &originals).await,
            None => None,
        };
        let baseline = baseline.unwrap_or_else(|| Baseline {
            unfollowed: originals
                .iter()
                .filter_map(|(p, t)| Some((p.clone(), t.clone()?)))
                .collect(),
            ..Baseline::default()
        });
        let mut answer = EditAnswer {
            root: self.engine.workspace_root().map(Path::to_owned),
            baseline,
            ..EditAnswer::default()
        };
        let written: Vec<PathBuf> = key.into_iter().filter(|p| p.is_file()).collect();
        // The disk holds this edit alone (the common case): it is checked
        // there, as every question sees it after.
        let alone = texts.as_ref().is_some_and(|(_, staged)| {
            staged
                .iter()
                .all(|(p, new)| std::fs::read(p).ok() == new.as_ref().map(Text::encode))
        });
        match texts.filter(|_| !alone) {
            // This edit by itself: the disk holds another edit of the same
            // file too (another agent's, at the same time), so the files
            // are held in memory as this edit alone leaves them, and the
            // other's errors are not heard as this one's. An edit that did
            // not land brings nothing.
            Some((olds, staged)) => {
                let landed = staged.iter().any(|(p, new)| {
                    let now = std::fs::read(p).ok();
                    let before = olds
                        .iter()
                        .find(|(o, _)| o == p)
                        .and_then(|(_, t)| t.clone());
                    now.as_deref() != before.as_deref().map(str::as_bytes)
                        || now == new.as_ref().map(Text::encode)
                });
                if !landed {
                    return EditAnswer::default();
                }
                let texts = staged
                    .iter()
                    .map(|(path, text)| {
                        let text = text
                            .as_ref()
                            .map(|t| String::from_utf8_lossy(&t.encode()).into_owned());
                        (path.clone(), text)
                    })
                    .collect();
                let held = self.hold_in_memory(texts).await;
                held.view
                    .editor()
                    .check_errors_within(&mut answer, &written, self.dependents_budget())
                    .await;
            }
            None => {
                // After any dry run of another session: its text is not
                // the disk's.
                let _turn = crate::sync::file_view::shared_turn().await;
                self.check_errors_within(&mut answer, &written, self.dependents_budget())
                    .await;
            }
        }
        answer
    }
}

/// Each of `files`' text before the edit the agent's tool just made,
/// as [`Editor::after_agent_edit`] will compare with: the text before
/// an `earlier` edit taken over, the text the before-edit call
/// `recorded`, or else `originals`; a file with none is left out.
pub(crate) fn texts_before(
    recorded: Option<&EditTexts>,
    originals: &[(PathBuf, String)],
    earlier: &[(PathBuf, Option<String>)],
) -> Vec<(PathBuf, Option<String>)> {
    let recorded = match recorded {
        Some(r) => r.olds.clone(),
        None => originals
            .iter()
            .map(|(p, t)| (normalized(p), Some(t.clone())))
            .collect(),
    };
    taken_over(recorded, &normalized_texts(earlier))
}

fn normalized_texts(texts: &[(PathBuf, Option<String>)]) -> Vec<(PathBuf, Option<String>)> {
    texts
        .iter()
        .map(|(p, t)| (normalized(p), t.clone()))
        .collect()
}

/// `olds` with each file `earlier` holds a text for (before an earlier
/// edit whose check is taken over) given that text instead, and added when
/// missing.
fn taken_over(
    mut olds: Vec<(PathBuf, Option<String>)>,
    earlier: &[(PathBuf, Option<String>)],
) -> Vec<(PathBuf, Option<String>)> {
    for (path, text) in earlier {
        match olds.iter_mut().find(|(p, _)| p == path) {
            Some(old) => old.1 = text.clone(),
            None => olds.push((path.clone(), text.clone())),
        }
    }
    olds
}

/// The files one edit leaves, as the disk (or an earlier edit of the same
/// call, in `before`) has them now.
fn stage(
    editor: Editor<'_>,
    edit: &AgentEdit,
    before: &[(PathBuf, Option<Text>)],
) -> Result<Vec<(PathBuf, Option<Text>)>, ToolError> {
    let current = |file: &Path| -> Result<Option<Text>, ToolError> {
        if let Some((_, t)) = before.iter().rev().find(|(p, _)| p == file) {
            return Ok(t.clone());
        }
        match crate::edit::commit::read_bytes(file)? {
            Some(bytes) => Text::decode(&bytes, file).map(Some),
            None => Ok(None),
        }
    };
    match edit {
        AgentEdit::Replace {
            file,
            old,
            new,
            all,
        } => {
            let file = normalized(file);
            let Some(mut text) = current(&file)? else {
                return Ok(vec![(file, None)]);
            };
            // An edit the tool itself will refuse changes nothing.
            if let Ok(r) = replace(&text.body, old, new, *all) {
                text.body = r.body;
            }
            Ok(vec![(file, Some(text))])
        }
        AgentEdit::Write { file, content } => {
            let file = normalized(file);
            Ok(vec![(
                file.clone(),
                Some(Text::decode(content.as_bytes(), &file)?),
            )])
        }
        AgentEdit::Patch { text, base } => {
            let ops = patch::parse(text, base).map_err(|e| ToolError::bad_input(e.to_string()))?;
            Ok(editor.stage_patch(ops, false)?.0)
        }
    }
}
