//! Refactoring through the servers: `rename`, `code_actions`,
//! `apply_code_action` and `organize_imports`. Each gets the server's
//! `WorkspaceEdit` (and the edits of a command it runs), stages it
//! (`edit::workspace`), and previews it or writes it all or nothing, then
//! lists the errors the changed files have.

use crate::edit::editor::Editor;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::answer::Pos;
use crate::edit::kept_aliases::kept_aliases;
use crate::edit::workspace::Plan;
use crate::error::{ErrorKind, ToolError};
use crate::server::LspServer;

/// A refactoring's answer: its text, and whether a changed file now has
/// errors (the CLI exits 1 then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refactored {
    /// The text, as the tools give it.
    pub text: String,
    /// The change brought errors (`EditAnswer::brought_errors`).
    pub errors: bool,
    /// The changed files (and their users) as they were before, when
    /// something was written: the checkpoint the change makes.
    pub before: std::collections::HashMap<PathBuf, crate::edit::delta::State>,
}

impl From<String> for Refactored {
    fn from(text: String) -> Self {
        Refactored {
            text,
            errors: false,
            before: Default::default(),
        }
    }
}

/// The code action kind that drops unused imports
/// (typescript-language-server's `source.removeUnusedImports.ts`).
const REMOVE_UNUSED: &str = "source.removeUnusedImports";

/// What a rename does to a name that a module re-exports
/// (`export { f } from "./util.js"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PublicNames {
    /// Rename it there and in every module importing it through it.
    #[default]
    Rename,
    /// Keep it as an alias of the new name (`export { g as f }`): its
    /// importers are unchanged.
    Keep,
}

/// How a rename is carried out: what becomes of a re-exported name, and
/// whether it is only previewed, and changes the server marks as needing
/// confirmation applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenameOptions {
    /// What becomes of a name a module re-exports.
    pub public_names: PublicNames,
    /// Only the preview: nothing is written.
    pub dry_run: bool,
    /// Apply the changes the server marks as needing confirmation.
    pub confirm: bool,
}

/// Which code action to apply.
#[derive(Debug, Clone)]
pub enum Pick {
    /// Its number in the `code_actions` list, from 1.
    Index(usize),
    /// Its title, exactly.
    Title(String),
}

/// A name a rename may give: no spaces, no punctuation but `_`, `$` and
/// `-`, not starting with a digit.
fn check_name(name: &str) -> Result<(), ToolError> {
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ToolError::bad_input(format!(
            "`{name}` is not a valid name: use letters, digits (not first), `_`, `$` or `-`"
        )))
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

impl Editor<'_> {
    /// Renames the symbol at `line`:`column` of `file` to `new_name`, as
    /// its server computes it; with `dry_run`, only the preview. Changes
    /// the server marks as needing confirmation are applied only with
    /// `confirm`. A name that a module re-exports is renamed everywhere,
    /// importers included, unless `public_names` keeps it as an alias.
    pub async fn rename(
        &self,
        file: &Path,
        line: usize,
        column: usize,
        new_name: &str,
        options: RenameOptions,
    ) -> Result<Refactored, ToolError> {
        let RenameOptions {
            public_names,
            dry_run,
            confirm,
        } = options;
        check_name(new_name)?;
        let (server, checked, pos) = self
            .engine
            .prepare(
                file,
                Pos::new(line, column),
                crate::engine::locations::Wait::Indexed,
            )
            .await?;
        server.prepare_rename(&checked.path, pos).await?;
        let old_name = crate::engine::locations::name_at(&checked, Pos::new(line, column));
        let keep = public_names == PublicNames::Keep;
        // In a monorepo, the server renames only in the packages it holds:
        // the others that mention the name are loaded first.
        let _packages =
            super::whole_rename::load_packages(self.engine, &server, &checked.path, &old_name)?;
        let (could_choose, edit) = server.rename(&checked.path, pos, new_name, keep).await?;
        let edit = super::workspace::read_edit(&server, &edit)?;
        // A kept public name's importers keep it by choice.
        if !keep {
            self.refuse_partial_rename(&server, (file, line, column), &edit, &old_name)
                .await?;
        }
        let plan = Plan::stage_read(&server, &edit)?;
        let staged = plan.staged();
        let files = staged.len();
        let mut what = format!(
            "{old_name} → {new_name}: {} in {}",
            plural(plan.edits, "edit"),
            plural(files, "file")
        );
        let root = self.engine.workspace_root().unwrap_or(&server.root);
        // Only a server that keeps aliases by choice writes them; another's
        // edit naming both (rust-analyzer's `S { f: g }` for a shorthand
        // field) is no public name kept.
        let aliases = if could_choose {
            kept_aliases(&edit, (&old_name, new_name), &staged, root)
        } else {
            Vec::new()
        };
        if !aliases.is_empty() {
            what.push_str(&format!(
                "\nkept the public name `{old_name}` as an alias ({}; public_names: \"rename\" renames it for its importers too):\n{}",
                plural(aliases.len(), "place"),
                aliases.join("\n")
            ));
        } else if keep && !could_choose {
            what.push_str(&format!(
                "\nnote: {} renames every use; it keeps no public name as an alias",
                server.spec.id
            ));
        }
        self.finish_plan(
            &server,
            plan,
            &format!("rename {what}"),
            &format!("renamed {what}"),
            dry_run,
            confirm,
        )
        .await
    }

    /// The code actions the server offers for lines `line..=end_line` of
    /// `file` and the diagnostics on them, numbered, each with its kind.
    pub async fn code_actions(
        &self,
        file: &Path,
        line: usize,
        end_line: Option<usize>,
        kind: Option<&str>,
    ) -> Result<Refactored, ToolError> {
        let (server, path, actions) = self.actions(file, line, end_line, kind).await?;
        let shown = crate::render::shown(&server.root, &path);
        let last = end_line.unwrap_or(line);
        let range = if last == line {
            format!("{line}")
        } else {
            format!("{line}-{last}")
        };
        if actions.is_empty() {
            return Ok(format!("no code actions for {shown}:{range}\n").into());
        }
        let mut out = format!(
            "{} for {shown}:{range}\n",
            plural(actions.len(), "code action")
        );
        for (i, a) in actions.iter().enumerate() {
            let title = a.get("title").and_then(Value::as_str).unwrap_or("?");
            let kind = a.get("kind").and_then(Value::as_str).unwrap_or("command");
            out.push_str(&format!("{}. {title} [{kind}]\n", i + 1));
        }
        Ok(out.into())
    }

    /// Applies one of the code actions of [`Editor::code_actions`]: resolved,
    /// its edit and the edits of its command staged together, then
    /// previewed (`dry_run`) or written all or nothing.
    pub async fn apply_code_action(
        &self,
        file: &Path,
        line: usize,
        end_line: Option<usize>,
        pick: Pick,
        dry_run: bool,
        confirm: bool,
    ) -> Result<Refactored, ToolError> {
        let (server, _, actions) = self.actions(file, line, end_line, None).await?;
        let action = match &pick {
            Pick::Index(i) => actions.get(i.wrapping_sub(1)).cloned(),
            Pick::Title(t) => actions
                .iter()
                .find(|a| a.get("title").and_then(Value::as_str) == Some(t))
                .cloned(),
        };
        let Some(action) = action else {
            let titles: Vec<String> = actions
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{}. {}", i + 1, a["title"].as_str().unwrap_or("?")))
                .collect();
            return Err(ToolError::bad_input(format!(
                "no such code action here ({}); the actions are: {}",
                match pick {
                    Pick::Index(i) => format!("number {i}"),
                    Pick::Title(t) => format!("title `{t}`"),
                },
                if titles.is_empty() {
                    "none".to_owned()
                } else {
                    titles.join("; ")
                }
            )));
        };
        self.apply_action(&server, action, dry_run, confirm).await
    }

    /// Sorts and prunes the imports of `file`: first the server's
    /// `source.removeUnusedImports` where it offers one, then its
    /// `source.organizeImports`. typescript-language-server's organize
    /// action sorts and merges but keeps unused names (`import { b, a }`
    /// with `a` alone used became `import { a, b }`); its
    /// `source.removeUnusedImports.ts` is what drops them. A preview shows
    /// the first step, since the second is asked of the text the first
    /// leaves.
    pub async fn organize_imports(
        &self,
        file: &Path,
        dry_run: bool,
    ) -> Result<Refactored, ToolError> {
        let lines = self.engine.snapshot(file)?.index.line_count().max(1);
        let (server, _, removals) = self
            .actions(file, 1, Some(lines), Some(REMOVE_UNUSED))
            .await?;
        let removal = removals.into_iter().find(|a| {
            a.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(REMOVE_UNUSED))
        });
        let Some(removal) = removal else {
            return self.sort_imports(file, dry_run).await;
        };
        if dry_run {
            let mut first = self.apply_action(&server, removal, true, false).await?;
            first
                .text
                .push_str("then the imports are sorted (source.organizeImports)\n");
            return Ok(first);
        }
        let mut first = self.apply_action(&server, removal, false, false).await?;
        match self.sort_imports(file, false).await {
            Ok(second) => Ok(Refactored {
                text: format!("{}{}", first.text, second.text),
                // Errors the removal brought count, though the sorting
                // found them there.
                errors: first.errors || second.errors,
                // The checkpoint is of the file before either step.
                before: if first.before.is_empty() {
                    second.before
                } else {
                    first.before
                },
            }),
            Err(ToolError {
                kind: ErrorKind::Unsupported,
                ..
            }) => Ok(first),
            // The removal is written already: its answer stands, with why
            // the imports were not sorted.
            Err(e) => {
                first
                    .text
                    .push_str(&format!("note: the imports were not sorted: {e}\n"));
                Ok(first)
            }
        }
    }

    /// The server's `source.organizeImports` for `file`.
    async fn sort_imports(&self, file: &Path, dry_run: bool) -> Result<Refactored, ToolError> {
        let lines = self.engine.snapshot(file)?.index.line_count().max(1);
        let (server, path, actions) = self
            .actions(file, 1, Some(lines), Some("source.organizeImports"))
            .await?;
        let Some(action) = actions.into_iter().next() else {
            return Err(ToolError::unsupported(format!(
                "{} offers no organize-imports action for {}",
                server.spec.id,
                path.display()
            )));
        };
        self.apply_action(&server, action, dry_run, false).await
    }

    async fn apply_action(
        &self,
        server: &LspServer,
        action: Value,
        dry_run: bool,
        confirm: bool,
    ) -> Result<Refactored, ToolError> {
        let action = server.resolve_code_action(action).await?;
        let title = action
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("code action")
            .to_owned();
        let mut edits: Vec<Value> = action.get("edit").cloned().into_iter().collect();
        if !dry_run && let Some(command) = action.get("command") {
            edits.extend(server.run_command(command).await?);
        }
        let mut plan = Plan::default();
        for e in &edits {
            plan.add(server, e)?;
        }
        if dry_run && action.get("command").is_some() && action.get("edit").is_none() {
            return Ok(format!(
                "{title}: the server makes this change by running a command, so it has no preview; apply it to see what it changes\n"
            )
            .into());
        }
        let what = format!(
            "{title}: {} in {}",
            plural(plan.edits, "edit"),
            plural(plan.staged().len(), "file")
        );
        self.finish_plan(
            server,
            plan,
            &what,
            &format!("applied {what}"),
            dry_run,
            confirm,
        )
        .await
    }

    /// The code actions of `kind` for the lines, with the server and the
    /// file as it reads it.
    async fn actions(
        &self,
        file: &Path,
        line: usize,
        end_line: Option<usize>,
        kind: Option<&str>,
    ) -> Result<(std::sync::Arc<LspServer>, PathBuf, Vec<Value>), ToolError> {
        let last = end_line.unwrap_or(line);
        if last < line {
            return Err(ToolError::bad_input(format!(
                "end_line {last} is before line {line}"
            )));
        }
        // The diagnostics of the file are what quick fixes are offered for;
        // they are made current first.
        let _ = self.engine.diagnostics(file).await;
        let checked = self.engine.snapshot(file)?;
        let count = checked.index.line_count().max(1);
        if line == 0 || line > count {
            return Err(ToolError::bad_input(format!(
                "line {line} is out of range: {} has {count} lines",
                file.display()
            )));
        }
        let server = self.engine.server_for(&checked).await?;
        let doc = server.sync(&checked.path, &checked.index, self.engine.files())?;
        server.wait_ready(false).await?;
        let start = server.position_at(&doc.index, line - 1, 0).ok_or_else(|| {
            ToolError::bad_input(format!("line {line} is past the end of {}", file.display()))
        })?;
        let last = last.min(checked.index.line_count().max(1));
        let width = checked
            .index
            .line(last - 1)
            .map_or(0, |l| l.chars().count());
        let end = server
            .position_at(&checked.index, last - 1, width)
            .unwrap_or(start);
        let mut actions = server.code_actions(&checked.path, start, end, kind).await?;
        // rust-analyzer offers an assist for the node under the cursor, not
        // for a selection of the whole line (`match k {}` got no "Fill match
        // arms"): a one-line question also asks at the line's first
        // non-blank character, and the lists are merged by title.
        if end_line.is_none() {
            let text = checked.index.line(line - 1).unwrap_or_default();
            let first = text.chars().take_while(|c| c.is_whitespace()).count();
            if let Some(at) = server.position_at(&doc.index, line - 1, first) {
                for a in server.code_actions(&checked.path, at, at, kind).await? {
                    if !actions.iter().any(|b| b.get("title") == a.get("title")) {
                        actions.push(a);
                    }
                }
            }
        }
        Ok((server, checked.path.to_path_buf(), actions))
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn names() {
        assert!(check_name("plus_two").is_ok());
        assert!(check_name("données").is_ok());
        for bad in ["", "1x", "a b", "a.b", "x;y"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
