//! The tools by name: the one list that the MCP tool list (`tools`), the
//! dispatch, the daemon bridge's retry rule and the CLI's commands all read,
//! so that no tool name is spelled twice.

/// One tool of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    /// `lsp_diagnostics`.
    Diagnostics,
    /// `lsp_definition`.
    Definition,
    /// `lsp_references`.
    References,
    /// `lsp`: one question by `operation`.
    Lsp,
    /// `lsp_check`.
    Check,
    /// `checkpoint`.
    Checkpoint,
    /// `lsp_restart`.
    Restart,
    /// `read` (an edit tool).
    Read,
    /// `write` (an edit tool).
    Write,
    /// `edit` (an edit tool).
    Edit,
    /// `apply_patch` (an edit tool).
    ApplyPatch,
    /// `rename` (an edit tool).
    Rename,
    /// `code_actions` (an edit tool).
    CodeActions,
    /// `apply_code_action` (an edit tool).
    ApplyCodeAction,
    /// `organize_imports` (an edit tool).
    OrganizeImports,
    /// `replace_symbol_body` (an edit tool).
    ReplaceSymbolBody,
    /// `insert_before_symbol` (an edit tool).
    InsertBeforeSymbol,
    /// `insert_after_symbol` (an edit tool).
    InsertAfterSymbol,
    /// `safe_delete` (an edit tool).
    SafeDelete,
    /// `sightline_hook`: an agent's tool hook (`sightline hook`), not in
    /// the tool list.
    Hook,
}

impl ToolName {
    /// Every tool, in the order the tool list gives them: the questions,
    /// then the edit tools.
    pub const ALL: &[ToolName] = &[
        ToolName::Diagnostics,
        ToolName::Definition,
        ToolName::References,
        ToolName::Lsp,
        ToolName::Check,
        ToolName::Checkpoint,
        ToolName::Restart,
        ToolName::Read,
        ToolName::Write,
        ToolName::Edit,
        ToolName::ApplyPatch,
        ToolName::Rename,
        ToolName::CodeActions,
        ToolName::ApplyCodeAction,
        ToolName::OrganizeImports,
        ToolName::ReplaceSymbolBody,
        ToolName::InsertBeforeSymbol,
        ToolName::InsertAfterSymbol,
        ToolName::SafeDelete,
    ];

    /// The name a client calls it by.
    pub const fn name(self) -> &'static str {
        match self {
            ToolName::Diagnostics => "lsp_diagnostics",
            ToolName::Definition => "lsp_definition",
            ToolName::References => "lsp_references",
            ToolName::Lsp => "lsp",
            ToolName::Check => "lsp_check",
            ToolName::Checkpoint => "checkpoint",
            ToolName::Restart => "lsp_restart",
            ToolName::Read => "read",
            ToolName::Write => "write",
            ToolName::Edit => "edit",
            ToolName::ApplyPatch => "apply_patch",
            ToolName::Rename => "rename",
            ToolName::CodeActions => "code_actions",
            ToolName::ApplyCodeAction => "apply_code_action",
            ToolName::OrganizeImports => "organize_imports",
            ToolName::ReplaceSymbolBody => "replace_symbol_body",
            ToolName::InsertBeforeSymbol => "insert_before_symbol",
            ToolName::InsertAfterSymbol => "insert_after_symbol",
            ToolName::SafeDelete => "safe_delete",
            ToolName::Hook => "sightline_hook",
        }
    }

    /// Tools a client of sightline's own calls, which the tool list leaves
    /// out: the agent hooks' (`sightline hook`).
    pub const UNLISTED: &[ToolName] = &[ToolName::Hook];

    /// The tool called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<ToolName> {
        ToolName::ALL
            .iter()
            .chain(ToolName::UNLISTED)
            .copied()
            .find(|t| t.name() == name)
    }

    /// Whether it is served only with the edit tools on (`--edit-tools`).
    pub const fn is_edit_tool(self) -> bool {
        matches!(
            self,
            ToolName::Read
                | ToolName::Write
                | ToolName::Edit
                | ToolName::ApplyPatch
                | ToolName::Rename
                | ToolName::CodeActions
                | ToolName::ApplyCodeAction
                | ToolName::OrganizeImports
                | ToolName::ReplaceSymbolBody
                | ToolName::InsertBeforeSymbol
                | ToolName::InsertAfterSymbol
                | ToolName::SafeDelete
        )
    }

    /// Whether a call may be asked again of a new daemon when the one
    /// answering it went away: it changes nothing, and remembers nothing
    /// the client sees (a checkpoint's name would be lost), and it is
    /// quick (a restart or a project check is left to the caller).
    pub const fn retried(self) -> bool {
        matches!(
            self,
            ToolName::Diagnostics
                | ToolName::Definition
                | ToolName::References
                | ToolName::Lsp
                | ToolName::Read
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_found_again_and_unknown_ones_are_not() {
        for t in ToolName::ALL.iter().chain(ToolName::UNLISTED) {
            assert_eq!(ToolName::from_name(t.name()), Some(*t));
        }
        assert_eq!(ToolName::from_name("lsp_hover"), None);
        let questions = ToolName::ALL.iter().filter(|t| !t.is_edit_tool()).count();
        assert_eq!(questions, 7, "the contract's seven tools");
    }
}
