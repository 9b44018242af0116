//! The language servers sightline knows, as data: the spec of each
//! (`spec`), the table of built-ins (`table`), their quirks (`quirks`,
//! `rename_aliases`) and
//! budgets (`budgets`), the root each serves a file from (`roots`), and how a
//! missing one is found or installed (`install`).

use std::path::Path;

pub mod budgets;
pub mod install;
pub mod quirks;
pub mod rename_aliases;
pub mod roots;
pub mod spec;
pub mod table;

pub use budgets::Budgets;
pub use quirks::{
    BackgroundIndex, DiagnosticsQuirks, ImportAliases, LaunchQuirks, LifecycleQuirks, LinterQuirks,
    OnInstall, OutsideProject, Publishes, Quirks, Readiness, ReferencesQuirks, Runtime, SaveCheck,
};
pub use rename_aliases::RenameAliases;
pub use spec::{BASE, Install, Role, ServerSpec};
pub use table::languages::language_id;
pub use table::{BUILTIN, FAKE};

/// A built-in server by id.
pub fn builtin(id: &str) -> Option<&'static ServerSpec> {
    BUILTIN.iter().copied().find(|s| s.id == id)
}

/// The servers that handle a file, in priority order: `extra` ones first,
/// then the built-ins.
pub fn servers_for(path: &Path, extra: &[&'static ServerSpec]) -> Vec<&'static ServerSpec> {
    extra
        .iter()
        .chain(BUILTIN)
        .copied()
        .filter(|s| s.handles(path))
        .collect()
}

/// The list of supported extensions, for the unsupported-file answer.
pub fn supported_summary() -> String {
    let mut langs: Vec<(&str, Vec<&str>)> = Vec::new();
    for s in BUILTIN.iter().filter(|s| s.role != Role::Linter) {
        // An extension a server takes only with a plugin (tsserver's `.vue`)
        // is its own language's, listed there.
        let plugin = s
            .quirks
            .launch
            .plugin_extensions
            .map_or(&[][..], |p| p.extensions);
        let own = s.extensions.iter().filter(|e| !plugin.contains(e));
        match langs.iter_mut().find(|(l, _)| *l == s.language) {
            Some((_, exts)) => {
                for e in own {
                    if !exts.contains(e) {
                        exts.push(e);
                    }
                }
            }
            None => langs.push((s.language, own.copied().collect())),
        }
    }
    langs
        .iter()
        .map(|(l, exts)| format!("{} ({l})", exts.join(" ")))
        .collect::<Vec<_>>()
        .join(", ")
}
