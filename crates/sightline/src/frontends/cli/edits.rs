//! The edit tools on the command line: `read`, `write`, `edit`,
//! `apply-patch`, `rename`, `code-actions`, `apply-code-action`,
//! `organize-imports` and the symbol edits (`replace-symbol-body`,
//! `insert-before-symbol`, `insert-after-symbol`, `safe-delete`), each
//! answered with the errors the change left.

use std::path::Path;

use crate::edit::SymbolEdit;
use crate::engine::Engine;
use crate::frontends::cli::questions::position_args;
use crate::frontends::cli::{Command, EXIT_FAILED, EXIT_OK, abs};
use crate::render;

/// Runs one of these commands; returns stdout text and the exit status.
pub(super) async fn run(engine: &Engine, command: &Command, here: &Path) -> (String, i32) {
    match command {
        Command::Read {
            file,
            offset,
            limit,
            symbol,
            kind,
        } => {
            let read = match symbol {
                Some(name_path) => {
                    engine
                        .read_symbol(&abs(here, file), name_path, kind.as_deref())
                        .await
                }
                None => engine.read(&abs(here, file), *offset, *limit),
            };
            match read {
                Ok(t) => (t, EXIT_OK),
                Err(e) => (render::error_text(&e), EXIT_FAILED),
            }
        }
        Command::ReplaceSymbolBody {
            file,
            symbol,
            kind,
            dry_run,
        }
        | Command::InsertBeforeSymbol {
            file,
            symbol,
            kind,
            dry_run,
        }
        | Command::InsertAfterSymbol {
            file,
            symbol,
            kind,
            dry_run,
        } => {
            let mut text = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
                return (format!("error: cannot read stdin: {e}\n"), EXIT_FAILED);
            }
            let how = match command {
                Command::ReplaceSymbolBody { .. } => SymbolEdit::Replace,
                Command::InsertBeforeSymbol { .. } => SymbolEdit::Before,
                _ => SymbolEdit::After,
            };
            let file = abs(here, file);
            let edit = engine.edit_symbol(&file, symbol, kind.as_deref(), how, &text);
            edited(engine.edit_or_preview(*dry_run, Box::pin(edit)).await)
        }
        Command::SafeDelete {
            file,
            symbol,
            kind,
            force,
            dry_run,
        } => {
            let file = abs(here, file);
            let delete = engine.safe_delete(&file, symbol, kind.as_deref(), *force);
            edited(engine.edit_or_preview(*dry_run, Box::pin(delete)).await)
        }
        Command::Write { file, dry_run } => {
            let mut content = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut content) {
                return (format!("error: cannot read stdin: {e}\n"), EXIT_FAILED);
            }
            let file = abs(here, file);
            edited(
                engine
                    .edit_or_preview(*dry_run, Box::pin(engine.write(&file, &content)))
                    .await,
            )
        }
        Command::Edit {
            file,
            old,
            new,
            replace_all,
            format_range,
            dry_run,
        } => {
            let range = *format_range || engine.config().format_range;
            let file = abs(here, file);
            let edit = engine.edit_with(&file, old, new, *replace_all, range);
            edited(engine.edit_or_preview(*dry_run, Box::pin(edit)).await)
        }
        Command::ApplyPatch { dry_run } => {
            let mut patch = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut patch) {
                return (format!("error: cannot read stdin: {e}\n"), EXIT_FAILED);
            }
            edited(
                engine
                    .edit_or_preview(*dry_run, Box::pin(engine.apply_patch(&patch)))
                    .await,
            )
        }
        Command::Rename {
            position,
            new_name,
            symbol,
            kind,
            keep_public_names,
            dry_run,
            confirm,
        } => {
            let public_names = if *keep_public_names {
                crate::edit::refactor::PublicNames::Keep
            } else {
                crate::edit::refactor::PublicNames::Rename
            };
            let r = async {
                let a = position_args(position, symbol.as_ref(), kind.as_ref())?;
                let file = std::path::PathBuf::from(a["file"].as_str().unwrap_or_default());
                let name = symbol.as_deref().unwrap_or_default();
                let (line, column) = match (
                    a.get("line").and_then(serde_json::Value::as_u64),
                    a.get("column").and_then(serde_json::Value::as_u64),
                ) {
                    (Some(l), Some(c)) => (l as usize, c as usize),
                    (Some(l), None) => (l as usize, engine.symbol_column(&file, l as usize, name)?),
                    (None, _) => {
                        let found = engine.find_symbol(&file, name, kind.as_deref()).await?;
                        (found.item.loc.line, found.item.loc.column)
                    }
                };
                engine
                    .rename(
                        &file,
                        line,
                        column,
                        new_name,
                        public_names,
                        *dry_run,
                        *confirm,
                    )
                    .await
            };
            refactored(r.await)
        }
        Command::CodeActions { lines, kind } => match parse_lines(here, lines) {
            Ok((file, line, end)) => {
                refactored(engine.code_actions(&file, line, end, kind.as_deref()).await)
            }
            Err(e) => (render::error_text(&e), EXIT_FAILED),
        },
        Command::ApplyCodeAction {
            lines,
            index,
            title,
            dry_run,
            confirm,
        } => match parse_lines(here, lines) {
            Ok((file, line, end)) => {
                let pick = match (index, title) {
                    (Some(i), _) => crate::edit::refactor::Pick::Index(*i),
                    (None, Some(t)) => crate::edit::refactor::Pick::Title(t.clone()),
                    (None, None) => crate::edit::refactor::Pick::Index(0),
                };
                refactored(
                    engine
                        .apply_code_action(&file, line, end, pick, *dry_run, *confirm)
                        .await,
                )
            }
            Err(e) => (render::error_text(&e), EXIT_FAILED),
        },
        Command::OrganizeImports { file, dry_run } => {
            refactored(engine.organize_imports(&abs(here, file), *dry_run).await)
        }
        _ => (String::new(), EXIT_FAILED),
    }
}

/// `FILE:LINE` or `FILE:LINE-END`.
fn parse_lines(
    here: &Path,
    spec: &str,
) -> Result<(std::path::PathBuf, usize, Option<usize>), crate::error::ToolError> {
    let bad = || {
        crate::error::ToolError::bad_input(format!(
            "expected FILE:LINE or FILE:LINE-END, got `{spec}`"
        ))
    };
    let (file, lines) = spec.rsplit_once(':').ok_or_else(bad)?;
    if file.is_empty() {
        return Err(bad());
    }
    let (first, last) = match lines.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (lines, None),
    };
    let first: usize = first.trim().parse().map_err(|_| bad())?;
    let last = last
        .map(|l| l.trim().parse::<usize>().map_err(|_| bad()))
        .transpose()?;
    Ok((abs(here, Path::new(file)), first, last))
}

/// A refactoring's text and status: 1 when the change brought errors.
fn refactored(
    r: Result<crate::edit::refactor::Refactored, crate::error::ToolError>,
) -> (String, i32) {
    match r {
        Ok(a) => (
            a.text,
            if a.errors {
                crate::frontends::cli::EXIT_FINDINGS
            } else {
                EXIT_OK
            },
        ),
        Err(e) => (render::error_text(&e), EXIT_FAILED),
    }
}

/// An edit's text and status: 1 when the change brought errors.
fn edited(r: Result<crate::edit::EditAnswer, crate::error::ToolError>) -> (String, i32) {
    match r {
        Ok(a) => {
            let status = if a.brought_errors() {
                crate::frontends::cli::EXIT_FINDINGS
            } else {
                EXIT_OK
            };
            (a.text(), status)
        }
        Err(e) => (render::error_text(&e), EXIT_FAILED),
    }
}
