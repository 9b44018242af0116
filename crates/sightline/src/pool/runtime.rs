//! Checking the runtime a server needs before starting it (jdtls: Java 21
//! or newer), so that a machine without it gets one line naming what to
//! install, not a server that dies at start with a Java stack trace.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::catalog::Runtime;
use crate::error::ToolError;

/// How long `java -version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Fails unless `runtime` is found (in `search_path`, then PATH) at
/// `runtime.min_major` or newer.
pub(super) async fn check(
    id: &str,
    runtime: &Runtime,
    search_path: &[PathBuf],
) -> Result<(), ToolError> {
    let needs = format!("{id} needs {} {} or newer", runtime.name, runtime.min_major);
    let Some(program) = find(runtime.program, search_path) else {
        return Err(ToolError::unavailable(format!(
            "{needs}; `{}` is not found",
            runtime.program
        )));
    };
    let output = tokio::time::timeout(
        VERSION_TIMEOUT,
        tokio::process::Command::new(&program)
            .args(runtime.version_args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await;
    let text = match output {
        Ok(Ok(o)) => format!(
            "{}{}",
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&o.stdout)
        ),
        _ => String::new(),
    };
    match major_version(&text) {
        Some(major) if major >= runtime.min_major => Ok(()),
        Some(major) => Err(ToolError::unavailable(format!(
            "{needs}; {} is {} {major}",
            program.display(),
            runtime.name
        ))),
        None => Err(ToolError::unavailable(format!(
            "{needs}; `{} {}` did not say its version",
            program.display(),
            runtime.version_args.join(" ")
        ))),
    }
}

/// `program` where sightline looks for servers (`search_path`), else in
/// `JAVA_HOME`'s `bin` (which the jdtls launcher prefers), else on PATH.
fn find(program: &str, search_path: &[PathBuf]) -> Option<PathBuf> {
    let java_home = std::env::var_os("JAVA_HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join("bin"));
    search_path
        .iter()
        .chain(java_home.iter())
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
        .or_else(|| which::which(program).ok())
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    // On Windows a program is a file with its extension (`java.exe`).
    #[cfg(windows)]
    {
        p.parent()
            .zip(p.file_name().and_then(|n| n.to_str()))
            .and_then(|(dir, name)| sightline_lsp::find_in(dir, name))
            .is_some()
    }
}

/// The major version in `java -version` output: `openjdk version
/// "21.0.2"` is 21, `java version "1.8.0_292"` is 8.
fn major_version(text: &str) -> Option<u32> {
    let quoted = text.split("version \"").nth(1)?;
    let version = quoted.split('"').next()?;
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        return parts.next()?.parse().ok();
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::major_version;

    #[test]
    fn java_versions_old_and_new() {
        assert_eq!(
            major_version("openjdk version \"21.0.2\" 2024-01-16\nOpenJDK Runtime Environment"),
            Some(21)
        );
        assert_eq!(major_version("java version \"1.8.0_292\""), Some(8));
        assert_eq!(major_version("openjdk version \"17\" 2021-09-14"), Some(17));
        assert_eq!(major_version("openjdk version \"25-ea\""), Some(25));
        assert_eq!(major_version("command not found"), None);
    }
}
