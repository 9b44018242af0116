//! The exact uses of a bare identifier an agent searches for with grep:
//! each symbol of that name the project's servers know, with its
//! references; one symbol's only are headed "the exact uses".

use std::path::Path;

use super::anchors;
use crate::engine::Engine;

/// At most this many uses are listed for a search.
const USES_SHOWN: usize = 30;

/// At most this many declarations of one name are listed with their uses.
const DECLARATIONS_SHOWN: usize = 4;

/// The exact uses of `name`: each workspace symbol of that very name the
/// project's servers know, with its references. Headed "the exact uses"
/// only when one symbol has the name; for several (a method two classes
/// declare), each declaration with its own uses, or, past
/// [`DECLARATIONS_SHOWN`], the candidates.
pub(super) async fn uses(engine: &Engine, name: &str, cwd: &Path) -> Option<String> {
    let mut symbols: Vec<crate::answer::Item> = Vec::new();
    // Not a config or docs file's server: asking one would start (or
    // install) it for a name no code of it declares.
    let code = anchors(engine, cwd)
        .into_iter()
        .filter(|a| !super::session_start::config_or_docs(a));
    for anchor in code {
        let Ok(items) = engine.workspace_symbols(name, Some(&anchor)).await else {
            continue;
        };
        for item in items.items.into_iter().filter(|i| i.name == name) {
            if !symbols.iter().any(|s| s.loc == item.loc) {
                symbols.push(item);
            }
        }
    }
    let root = cwd.to_owned();
    let shown = |l: &crate::answer::Loc| {
        format!(
            "{}:{}:{}",
            crate::render::shown(&root, &l.path),
            l.line,
            l.column
        )
    };
    match symbols.len() {
        0 => None,
        1 => {
            let symbol = &symbols[0];
            let loc = &symbol.loc;
            let refs = engine
                .references(&loc.path, loc.line, loc.column, true)
                .await
                .ok()?;
            let mut out = format!(
                "sightline: the exact uses of `{name}` ({} {}), from the project's language server; comments and strings are left out:\n",
                symbol.kind,
                crate::render::shown(&root, &loc.path)
            );
            list_uses(&mut out, &refs, USES_SHOWN, &shown);
            Some(out)
        }
        n if n > DECLARATIONS_SHOWN => {
            let mut out = format!(
                "sightline: `{name}` is ambiguous: {n} symbols of the project have that name (lsp_references at one of them lists its exact uses):\n"
            );
            for s in &symbols {
                out.push_str(&format!("{} {} {}\n", shown(&s.loc), s.kind, s.loc.text));
            }
            Some(out)
        }
        n => {
            let mut out = format!(
                "sightline: `{name}` names {n} symbols of the project; the uses of each, from the project's language server (comments and strings left out):\n"
            );
            for s in &symbols {
                out.push_str(&format!("{} {} at {}:\n", s.kind, name, shown(&s.loc)));
                match engine
                    .references(&s.loc.path, s.loc.line, s.loc.column, true)
                    .await
                {
                    Ok(refs) => list_uses(&mut out, &refs, USES_SHOWN / n, &shown),
                    Err(e) => out.push_str(&format!("  (its uses could not be had: {e})\n")),
                }
            }
            Some(out)
        }
    }
}

/// At most `most` of the places of `refs`, one a line, then the count of
/// the rest and the notes.
fn list_uses(
    out: &mut String,
    refs: &crate::answer::Locations,
    most: usize,
    shown: &dyn Fn(&crate::answer::Loc) -> String,
) {
    for l in refs.locations.iter().take(most) {
        out.push_str(&format!("{} {}\n", shown(l), l.text));
    }
    if refs.locations.len() > most {
        out.push_str(&format!(
            "... and {} more (lsp_references lists them all)\n",
            refs.locations.len() - most
        ));
    }
    for note in &refs.notes {
        out.push_str(&format!("note: {note}\n"));
    }
}
