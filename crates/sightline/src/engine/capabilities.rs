//! `sightline capabilities`: for each language a project has, the server
//! that answers its questions, whether it is installed, and which tools and
//! `lsp` operations it supports, read from the server's own `initialize`
//! answer (it is started for the report when it is not running), with what
//! it does not support and why.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::engine::Servers;
use crate::server::LspServer;

/// Each question sightline asks, and the capability of the server's
/// `initialize` answer it needs. `lsp_diagnostics` needs none: every
/// server publishes diagnostics or answers a pull.
const NEEDS: &[(&str, Need)] = &[
    ("lsp_diagnostics", Need::Nothing),
    ("lsp_definition", Need::Provider("definitionProvider")),
    ("lsp_references", Need::Provider("referencesProvider")),
    ("hover", Need::Provider("hoverProvider")),
    ("documentSymbol", Need::Provider("documentSymbolProvider")),
    ("workspaceSymbol", Need::Provider("workspaceSymbolProvider")),
    (
        "goToImplementation",
        Need::Provider("implementationProvider"),
    ),
    ("incomingCalls", Need::Provider("callHierarchyProvider")),
    ("outgoingCalls", Need::Provider("callHierarchyProvider")),
    // Without a type hierarchy, sightline answers from what the server
    // has (`engine/type_hierarchy.rs`), and the answer says so.
    (
        "supertypes",
        Need::Either(
            "typeHierarchyProvider",
            &[("definitionProvider", "the bases its declaration names")],
        ),
    ),
    (
        "subtypes",
        Need::Either(
            "typeHierarchyProvider",
            &[
                ("implementationProvider", "its implementations"),
                ("referencesProvider", "the classes naming it as a base"),
            ],
        ),
    ),
    ("rename", Need::Provider("renameProvider")),
    ("move", Need::WillRenameFiles),
    ("code_actions", Need::Provider("codeActionProvider")),
    ("organize_imports", Need::OrganizeImports),
];

/// What a question needs of a server.
#[derive(Clone, Copy)]
enum Need {
    Nothing,
    /// A provider of `initialize`'s capabilities (or one registered later).
    Provider(&'static str),
    /// `workspace.fileOperations.willRename`: the server edits imports
    /// when a file moves.
    WillRenameFiles,
    /// A provider, else the first of others that sightline answers from
    /// instead (with what the answer then is).
    Either(&'static str, &'static [(&'static str, &'static str)]),
    /// Code actions of the kind `source.organizeImports` (any kind, when
    /// the server does not list the kinds it offers).
    OrganizeImports,
}

/// One language's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct LanguageCapabilities {
    /// The language family.
    pub language: String,
    /// The server that answers its questions.
    pub server: String,
    /// A file of the project it was found by (none with `--all`).
    pub file: Option<PathBuf>,
    /// `running`, `started` (for this report), `missing`, `off` or
    /// `not started` (with `--all`).
    pub state: String,
    /// How to install it, when missing; why it is off, when off.
    pub hint: Option<String>,
    /// The tools and `lsp` operations it answers (empty when not known).
    pub supported: Vec<String>,
    /// Those it does not, each with why.
    pub unsupported: Vec<(String, String)>,
}

impl Servers<'_> {
    /// The report for the languages of the project at `root` (one file of
    /// each, within the bounded walk), or with `all` for every built-in
    /// server, none started.
    pub async fn capabilities(&self, root: &Path, all: bool) -> Vec<LanguageCapabilities> {
        if all {
            return self
                .engine
                .all_servers()
                .into_iter()
                .map(|spec| {
                    let (state, hint) = match (self.engine.why_off(spec), self.locate(spec, root)) {
                        (Some(why), _) => ("off", Some(why)),
                        (None, Some(_)) => ("not started", None),
                        (None, None) => ("missing", Some(spec.install_command())),
                    };
                    LanguageCapabilities {
                        language: spec.language.to_owned(),
                        server: spec.id.to_owned(),
                        file: None,
                        state: state.to_owned(),
                        hint,
                        supported: Vec::new(),
                        unsupported: Vec::new(),
                    }
                })
                .collect();
        }
        let mut out = Vec::new();
        for file in self.one_file_per_server(root) {
            let Ok(snapshot) = self.engine.snapshot(&file) else {
                continue;
            };
            let Ok((spec, server_root)) = self.engine.route(&snapshot) else {
                continue;
            };
            let mut line = LanguageCapabilities {
                language: spec.language.to_owned(),
                server: spec.id.to_owned(),
                file: Some(file.clone()),
                state: String::new(),
                hint: None,
                supported: Vec::new(),
                unsupported: Vec::new(),
            };
            let running = self
                .engine
                .running_servers()
                .into_iter()
                .find(|s| s.spec.id == spec.id && s.root == server_root);
            if let Some(why) = self.engine.why_off(spec) {
                line.state = "off".to_owned();
                line.hint = Some(why);
            } else if running.is_none() && self.locate(spec, &server_root).is_none() {
                line.state = "missing".to_owned();
                line.hint = Some(spec.install_command());
            } else {
                let server = match running {
                    Some(s) => {
                        line.state = "running".to_owned();
                        Ok(s)
                    }
                    None => {
                        line.state = "started".to_owned();
                        self.engine.server_for(&snapshot).await
                    }
                };
                match server {
                    Ok(s) => fill(&mut line, &s),
                    Err(e) => {
                        line.state = "broken".to_owned();
                        line.hint = Some(e.message);
                    }
                }
            }
            out.push(line);
        }
        out
    }

    /// One file under `root` for each server that answers a file's
    /// questions, in the order the walk meets them.
    fn one_file_per_server(&self, root: &Path) -> Vec<PathBuf> {
        let mut seen: Vec<&'static str> = Vec::new();
        let mut files = Vec::new();
        for path in crate::sync::walk::files_under(root) {
            if let Some(first) = self.engine.servers_for(&path).first()
                && !seen.contains(&first.id)
            {
                seen.push(first.id);
                files.push(path);
            }
        }
        files
    }
}

/// The supported and unsupported questions of `server`, from its
/// capabilities.
fn fill(line: &mut LanguageCapabilities, server: &LspServer) {
    let id = server.spec.id;
    for (question, need) in NEEDS {
        let why = match need {
            Need::Nothing => None,
            Need::Either(first, others) => {
                if server.offers(first) {
                    None
                } else if let Some((_, what)) = others.iter().find(|(p, _)| server.offers(p)) {
                    line.supported.push(format!("{question} ({what})"));
                    continue;
                } else {
                    Some(format!(
                        "{id} offers neither {first} nor what stands in for it"
                    ))
                }
            }
            Need::OrganizeImports => {
                let kinds = &server.capabilities["codeActionProvider"]["codeActionKinds"];
                match kinds.as_array() {
                    _ if !server.offers("codeActionProvider") => {
                        Some(format!("{id} does not offer codeActionProvider"))
                    }
                    Some(kinds)
                        if !kinds.iter().any(|k| {
                            k.as_str().is_some_and(|k| {
                                k.starts_with("source.organizeImports") || k == "source"
                            })
                        }) =>
                    {
                        Some(format!("{id} offers no source.organizeImports code action"))
                    }
                    _ => None,
                }
            }
            Need::Provider(p) => (!server.offers(p)).then(|| format!("{id} does not offer {p}")),
            Need::WillRenameFiles => {
                let will = &server.capabilities["workspace"]["fileOperations"]["willRename"];
                (will.is_null() || *will == Value::Bool(false)).then(|| {
                    format!(
                        "{id} does not update imports when a file moves (no workspace.fileOperations.willRename): a module something imports is not moved"
                    )
                })
            }
        };
        match why {
            None => line.supported.push((*question).to_owned()),
            Some(why) => line.unsupported.push(((*question).to_owned(), why)),
        }
    }
}

/// The report as text: a line per language, then what it does not answer.
pub fn capabilities_text(lines: &[LanguageCapabilities], root: &Path) -> String {
    if lines.is_empty() {
        return format!(
            "no file under {} is handled by a language server\n",
            root.display()
        );
    }
    let mut out = String::new();
    for l in lines {
        out.push_str(&format!("{}: {} ({})", l.language, l.server, l.state));
        if let Some(file) = &l.file {
            out.push_str(&format!(", for {}", crate::render::shown(root, file)));
        }
        out.push('\n');
        if let Some(hint) = &l.hint {
            out.push_str(&format!("  {hint}\n"));
        }
        if !l.supported.is_empty() {
            out.push_str(&format!("  answers: {}\n", l.supported.join(", ")));
        }
        for (question, why) in &l.unsupported {
            out.push_str(&format!("  not {question}: {why}\n"));
        }
    }
    out
}
