//! Where the sandbox mode lets writes go. One list serves sightline's own
//! writes (the edit tools) and the children it starts (servers, formatters):
//! the edit tools must not write where a server could not, nor a server
//! where the edit tools could not, so both ask [`Roots`].
//!
//! In `workspace-write` the writable roots are the workspace directory
//! (`--root`, or the directory `sightline mcp` runs in), or without one the
//! project the file belongs to (the root its server would get), plus the
//! user configuration's `writable_roots`. A project outside the workspace
//! directory widens nothing. Paths are judged after `..` and symbolic links
//! are resolved, so neither can lead a write out.

use std::path::{Component, Path, PathBuf};

use crate::error::ToolError;
use crate::sandbox::Mode;

/// More symbolic links than this on one path is a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

/// The directories `workspace-write` opens, resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roots {
    workspace: Option<PathBuf>,
    extra: Vec<PathBuf>,
}

impl Roots {
    /// `workspace` is the workspace directory, if one was given; `extra`
    /// the user configuration's `writable_roots`.
    pub fn new(workspace: Option<&Path>, extra: &[PathBuf]) -> Roots {
        // A root that cannot be resolved (a link loop) opens nothing.
        Roots {
            workspace: workspace.and_then(|w| resolve(w).ok()),
            extra: extra.iter().filter_map(|r| resolve(r).ok()).collect(),
        }
    }

    /// What a child working in `project` (a server's root) may write: the
    /// workspace directory, or without one `project` itself; then the extra
    /// roots.
    pub fn for_project(&self, project: Option<&Path>) -> Vec<PathBuf> {
        let own = match (&self.workspace, project) {
            (Some(ws), _) => Some(ws.clone()),
            (None, Some(p)) => resolve(p).ok(),
            (None, None) => None,
        };
        let mut out: Vec<PathBuf> = own.into_iter().collect();
        for r in &self.extra {
            if !out.contains(r) {
                out.push(r.clone());
            }
        }
        out
    }

    /// What work on `file` may write: [`Roots::for_project`] of the project
    /// `file` belongs to (its nearest project marker).
    pub fn for_file(&self, file: &Path) -> Vec<PathBuf> {
        let project = match &self.workspace {
            Some(_) => None,
            None => resolve(file)
                .ok()
                .and_then(|f| crate::project::root_for(&f, None)),
        };
        self.for_project(project.as_deref())
    }

    /// Refuses a write of `path` that `mode` does not allow, before anything
    /// is written.
    pub fn check(&self, mode: Mode, path: &Path) -> Result<(), ToolError> {
        match mode {
            Mode::DangerFullAccess => Ok(()),
            Mode::ReadOnly => Err(ToolError::refused(format!(
                "the sandbox mode {} allows no writes; write refused",
                mode.as_str()
            ))),
            Mode::WorkspaceWrite => {
                let resolved = resolve(path).map_err(|why| {
                    ToolError::refused(format!(
                        "the sandbox mode {} allows writes only where a path can be resolved; {}: {why}",
                        mode.as_str(),
                        path.display()
                    ))
                })?;
                // Git runs hooks and reads `core.fsmonitor` from `.git`
                // unsandboxed, so a write there would leave the sandbox.
                if resolved.components().any(|c| c.as_os_str() == ".git") {
                    return Err(ToolError::refused(format!(
                        "the sandbox mode {} allows no writes inside .git; {} is inside it",
                        mode.as_str(),
                        path.display()
                    )));
                }
                let roots = self.for_file(&resolved);
                if roots.iter().any(|r| resolved.starts_with(r)) {
                    return Ok(());
                }
                let what = if resolved == path {
                    format!("{} is", path.display())
                } else {
                    format!(
                        "{} resolves to {}, which is",
                        path.display(),
                        resolved.display()
                    )
                };
                let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
                Err(ToolError::refused(match shown.len() {
                    0 => format!(
                        "the sandbox mode {} allows writes only inside a workspace; {what} outside every workspace",
                        mode.as_str()
                    ),
                    1 => format!(
                        "the sandbox mode {} allows writes only inside {}; {what} outside it",
                        mode.as_str(),
                        shown[0]
                    ),
                    _ => format!(
                        "the sandbox mode {} allows writes only inside {}; {what} outside them",
                        mode.as_str(),
                        shown.join(", ")
                    ),
                }))
            }
        }
    }
}

/// Where a write of the absolute `path` would land: `..` and every symbolic
/// link resolved, also through parts that do not exist yet (a write creates
/// them as directories, so their `..` is the directory above). The existing
/// part comes out as `canonicalize` gives it; a link that leads nowhere is
/// followed to where it points, since writing through it would go there.
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    let mut links = 0;
    resolve_from(Path::new("/"), path, &mut links)
}

fn resolve_from(base: &Path, path: &Path, links: &mut usize) -> Result<PathBuf, String> {
    let mut out = base.to_path_buf();
    for c in path.components() {
        match c {
            Component::RootDir => out = PathBuf::from("/"),
            Component::Prefix(_) | Component::CurDir => {}
            // `out` holds no link, so its parent is what `..` reaches.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if let Ok(target) = std::fs::read_link(&out) {
                    *links += 1;
                    if *links > MAX_LINKS {
                        return Err("too many levels of symbolic links".into());
                    }
                    out.pop();
                    // A relative target starts from the link's directory;
                    // an absolute one resets to `/`.
                    out = resolve_from(&out, &target, links)?;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[cfg(unix)]
    #[test]
    fn dot_dot_and_links_are_resolved_even_where_nothing_exists_yet() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let ws = top.join("ws");
        let outside = top.join("outside");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("out")).unwrap();
        std::os::unix::fs::symlink("../outside/gone", ws.join("dangling")).unwrap();
        std::os::unix::fs::symlink("loop", ws.join("loop")).unwrap();
        let r = |p: &Path| resolve(p).unwrap();
        assert_eq!(r(&ws.join("new/x.py")), ws.join("new/x.py"));
        assert_eq!(r(&ws.join("../outside/x.py")), outside.join("x.py"));
        // A directory that does not exist yet, then `..`, then a link.
        assert_eq!(r(&ws.join("new/../out/x.py")), outside.join("x.py"));
        assert_eq!(r(&ws.join("out/a/../b.py")), outside.join("b.py"));
        assert_eq!(r(&ws.join("dangling/x.py")), outside.join("gone/x.py"));
        assert_eq!(
            resolve(&ws.join("loop/x")).unwrap_err(),
            "too many levels of symbolic links"
        );
    }

    #[test]
    fn each_mode_allows_what_it_says() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let ws = top.join("ws");
        let extra = top.join("extra");
        std::fs::create_dir_all(&ws).unwrap();
        let roots = Roots::new(Some(&ws), std::slice::from_ref(&extra));
        let ok = |m: Mode, p: &Path| roots.check(m, p).is_ok();
        assert!(ok(Mode::WorkspaceWrite, &ws.join("a/b.py")));
        assert!(ok(Mode::WorkspaceWrite, &extra.join("c.py")));
        assert!(!ok(Mode::WorkspaceWrite, &top.join("wsx/a.py")));
        assert!(!ok(Mode::ReadOnly, &ws.join("a.py")));
        assert!(ok(Mode::DangerFullAccess, &top.join("x.py")));
        // `.git` is never written: git would run a planted hook unsandboxed.
        assert_eq!(
            roots
                .check(Mode::WorkspaceWrite, &ws.join(".git/hooks/pre-commit"))
                .unwrap_err()
                .to_string(),
            format!(
                "error: the sandbox mode workspace-write allows no writes inside .git; {}/.git/hooks/pre-commit is inside it",
                ws.display()
            )
        );
        assert_eq!(
            roots
                .check(Mode::WorkspaceWrite, &ws.join("../x.py"))
                .unwrap_err()
                .to_string(),
            format!(
                "error: the sandbox mode workspace-write allows writes only inside {}, {}; {}/../x.py resolves to {}/x.py, which is outside them",
                ws.display(),
                extra.display(),
                ws.display(),
                top.display()
            )
        );
        // Without a workspace directory, a file's own project is its root.
        let loose = Roots::new(None, &[]);
        std::fs::create_dir_all(top.join("proj/.git")).unwrap();
        assert!(
            loose
                .check(Mode::WorkspaceWrite, &top.join("proj/a.py"))
                .is_ok()
        );
        assert_eq!(
            loose.for_project(Some(&top.join("proj"))),
            vec![top.join("proj")]
        );
    }
}
