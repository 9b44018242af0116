//! How a server's rename treats a name that a module re-exports, as data
//! for the table: a server that keeps it as an alias (`export { g as f }`)
//! by a preference of its own, which sightline sets for the one request.

/// A server whose rename keeps a re-exported name as an alias unless a
/// preference says otherwise. Before a rename whose choice differs from the
/// server's default, sightline runs `command` with `["configure", { file,
/// preferences: { PREFERENCE: VALUE } }]`, and sets the default back after.
#[derive(Debug, Clone, Copy)]
pub struct RenameAliases {
    /// The command that passes a request to the server underneath
    /// (`typescript.tsserverRequest`).
    pub command: &'static str,
    /// The preference (`providePrefixAndSuffixTextForRename`): true keeps
    /// aliases, false renames every use.
    pub preference: &'static str,
    /// Its value when sightline has not set it.
    pub keeps_by_default: bool,
}
