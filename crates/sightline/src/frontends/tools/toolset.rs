//! Which tools a session lists and serves: a profile (`sightline mcp
//! --tools minimal|default|all`), or the names the user configuration's
//! `mcp.tools` gives, so a client takes exactly the tools it wants and no
//! more of the model's context than they need.

use serde::{Deserialize, Serialize};

use crate::frontends::tools::{Entry, REGISTRY, Served, find};

/// The tools of `--tools minimal`: a file's errors, a definition and
/// references, the three questions an agent asks most.
pub(crate) const MINIMAL: &[&str] = &["lsp_diagnostics", "lsp_definition", "lsp_references"];

/// The profiles `--tools` takes.
pub const PROFILES: &[&str] = &["minimal", "default", "all"];

/// Which tools a session serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Toolset {
    /// The questions, and with `edit_tools` the edit tools too.
    Default {
        /// Whether the edit tools are served as well.
        edit_tools: bool,
    },
    /// Exactly these tools (a profile's, or the configuration's list).
    Named(Vec<String>),
}

impl Toolset {
    /// The questions, and with `edit_tools` the edit tools.
    pub fn with_edit_tools(edit_tools: bool) -> Toolset {
        Toolset::Default { edit_tools }
    }

    /// The set `profile` names (`minimal`, `default`, `all`), the session
    /// asking for the edit tools or not; or why it names none.
    pub fn of_profile(profile: &str, edit_tools: bool) -> Result<Toolset, String> {
        match profile {
            "minimal" => Ok(Toolset::Named(
                MINIMAL.iter().map(|s| (*s).to_owned()).collect(),
            )),
            "default" => Ok(Toolset::Default { edit_tools }),
            "all" => Ok(Toolset::Default { edit_tools: true }),
            other => Err(format!(
                "no tool profile `{other}`; the profiles are {}",
                PROFILES.join(", ")
            )),
        }
    }

    /// Exactly the tools `names` lists, or the first name no tool has.
    pub fn of_names(names: &[String]) -> Result<Toolset, String> {
        match names
            .iter()
            .find(|n| find(n).is_none_or(|t| t.served == Served::Unlisted))
        {
            Some(unknown) => Err(format!(
                "no tool `{unknown}`; the tools are {}",
                listable().collect::<Vec<_>>().join(", ")
            )),
            None => Ok(Toolset::Named(names.to_vec())),
        }
    }

    /// Whether a session of this set serves `tool` (the hooks' own tool is
    /// served to every session, never listed).
    pub(crate) fn serves(&self, tool: &Entry) -> bool {
        match (tool.served, self) {
            (Served::Unlisted, _) => true,
            (_, Toolset::Named(names)) => names.iter().any(|n| n == tool.name),
            (Served::Always, Toolset::Default { .. }) => true,
            (Served::WithEditTools, Toolset::Default { edit_tools }) => *edit_tools,
        }
    }

    /// The tools a session of this set lists, in the registry's order.
    pub(crate) fn listed(&self) -> Vec<&'static Entry> {
        REGISTRY
            .iter()
            .filter(|t| t.served != Served::Unlisted && self.serves(t))
            .collect()
    }

    /// The set a session takes: the profile it asked for (`--tools`),
    /// else the user configuration's `mcp.tools`, else the questions (and
    /// the edit tools with `edit_tools`); or why none.
    pub fn chosen(
        profile: Option<&str>,
        edit_tools: bool,
        configured: Option<&[String]>,
    ) -> Result<Toolset, String> {
        match (profile, configured) {
            (Some(p), _) => Toolset::of_profile(p, edit_tools),
            (None, Some(names)) => {
                Toolset::of_names(names).map_err(|e| format!("mcp.tools in the configuration: {e}"))
            }
            (None, None) => Ok(Toolset::with_edit_tools(edit_tools)),
        }
    }
}

/// Every tool a session can list, by name.
fn listable() -> impl Iterator<Item = &'static str> {
    REGISTRY
        .iter()
        .filter(|t| t.served != Served::Unlisted)
        .map(|t| t.name)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn names(set: &Toolset) -> Vec<&'static str> {
        set.listed().iter().map(|t| t.name).collect()
    }

    #[test]
    fn the_profiles_list_the_minimal_tools_the_questions_and_everything() {
        let minimal = Toolset::of_profile("minimal", true).unwrap();
        assert_eq!(names(&minimal), MINIMAL);
        let default = Toolset::of_profile("default", false).unwrap();
        let questions: Vec<&str> = REGISTRY
            .iter()
            .filter(|t| t.served == Served::Always)
            .map(|t| t.name)
            .collect();
        assert_eq!(names(&default), questions);
        let all = Toolset::of_profile("all", false).unwrap();
        assert_eq!(names(&all), listable().collect::<Vec<_>>());
        assert_eq!(
            Toolset::of_profile("lean", false).unwrap_err(),
            "no tool profile `lean`; the profiles are minimal, default, all"
        );
    }

    #[test]
    fn a_named_set_serves_its_tools_and_the_hook_and_refuses_unknown_names() {
        let set = Toolset::of_names(&["rename".to_owned(), "lsp".to_owned()]).unwrap();
        // Listed in the registry's order, whatever the list's.
        assert_eq!(names(&set), ["lsp", "rename"]);
        assert!(set.serves(find(crate::frontends::tools::HOOK_TOOL).unwrap()));
        assert!(!set.serves(find("lsp_diagnostics").unwrap()));
        let err = Toolset::of_names(&["lsp_hover".to_owned()]).unwrap_err();
        assert!(
            err.starts_with("no tool `lsp_hover`; the tools are lsp_diagnostics, "),
            "{err}"
        );
        assert!(Toolset::of_names(&["hook".to_owned()]).is_err());
    }
}
