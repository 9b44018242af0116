//! Razor's launch arguments: Roslyn serves `.razor` and `.cshtml` files
//! only with the Razor compiler, its design-time targets and the Razor
//! extension, which ship in the VS Code C# extension
//! (`ms-dotnettools.csharp-*/.razorExtension`), not with the server.

use std::path::{Path, PathBuf};

/// The client's environment, as `pool::env` carries it.
type ServerEnv = [(String, Option<String>)];

/// The extension directories looked in, in order: `$VSCODE_EXTENSIONS`,
/// then VS Code's, Insiders', and the remote server's under the home.
fn extension_dirs(env: &ServerEnv) -> Vec<PathBuf> {
    let var = |k: &str| {
        env.iter()
            .find(|(name, _)| name == k)
            .and_then(|(_, v)| v.clone())
    };
    let mut dirs: Vec<PathBuf> = var("VSCODE_EXTENSIONS")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Some(home) = dirs::home_dir() {
        for d in [
            ".vscode/extensions",
            ".vscode-insiders/extensions",
            ".vscode-server/extensions",
            ".vscode-server-insiders/extensions",
        ] {
            dirs.push(home.join(d));
        }
    }
    dirs
}

/// The arguments that load Razor into Roslyn, from the newest C# extension
/// (by modification time) in `dirs` that has all three files; `Err` says
/// where it looked.
pub fn razor_args_in(dirs: &[PathBuf]) -> Result<Vec<String>, String> {
    let newest = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("ms-dotnettools.csharp-")
        })
        .filter_map(|e| {
            let razor = e.path().join(".razorExtension");
            let files = razor_files(&razor)?;
            let modified = e.metadata().and_then(|m| m.modified()).ok()?;
            Some((modified, files))
        })
        .max_by_key(|(modified, _)| *modified);
    match newest {
        Some((_, [compiler, targets, extension])) => Ok(vec![
            format!("--razorSourceGenerator={}", compiler.display()),
            format!("--razorDesignTimePath={}", targets.display()),
            "--extension".to_owned(),
            extension.display().to_string(),
        ]),
        None => Err(format!(
            "razor needs the Razor files of the VS Code C# extension (ms-dotnettools.csharp-*/.razorExtension); none found in {}; install the extension, or point VSCODE_EXTENSIONS at its directory",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The compiler, the design-time targets and the extension, when all are there.
fn razor_files(razor: &Path) -> Option<[PathBuf; 3]> {
    let files = [
        razor.join("Microsoft.CodeAnalysis.Razor.Compiler.dll"),
        razor
            .join("Targets")
            .join("Microsoft.NET.Sdk.Razor.DesignTime.targets"),
        razor.join("Microsoft.VisualStudioCode.RazorExtension.dll"),
    ];
    files.iter().all(|f| f.is_file()).then_some(files)
}

/// `LaunchQuirks::extra_args` of Razor, for the client's environment.
pub fn razor_args(env: &ServerEnv) -> Result<Vec<String>, String> {
    razor_args_in(&extension_dirs(env))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn extension(dir: &Path, version: &str) -> PathBuf {
        let razor = dir.join(format!(
            "ms-dotnettools.csharp-{version}-linux-x64/.razorExtension"
        ));
        std::fs::create_dir_all(razor.join("Targets")).unwrap();
        for f in [
            "Microsoft.CodeAnalysis.Razor.Compiler.dll",
            "Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets",
            "Microsoft.VisualStudioCode.RazorExtension.dll",
        ] {
            std::fs::write(razor.join(f), "").unwrap();
        }
        razor
    }

    #[test]
    fn the_newest_complete_extension_gives_the_arguments() {
        let t = tempfile::tempdir().unwrap();
        // The newest by time wins, not the highest version: VS Code may
        // keep a higher one after a downgrade.
        let old = extension(t.path(), "2.95.0");
        let new = extension(t.path(), "2.90.0");
        // A newer extension missing a file is passed over.
        let broken = extension(t.path(), "2.99.0");
        std::fs::remove_file(broken.join("Microsoft.VisualStudioCode.RazorExtension.dll")).unwrap();
        let now = std::time::SystemTime::now();
        let set = |p: &Path, t| {
            std::fs::File::open(p.parent().unwrap())
                .unwrap()
                .set_modified(t)
                .unwrap()
        };
        set(&old, now - std::time::Duration::from_secs(3600));
        set(&new, now - std::time::Duration::from_secs(60));
        set(&broken, now);
        let args = razor_args_in(&[t.path().to_owned()]).unwrap();
        assert_eq!(
            args,
            vec![
                format!(
                    "--razorSourceGenerator={}",
                    new.join("Microsoft.CodeAnalysis.Razor.Compiler.dll")
                        .display()
                ),
                format!(
                    "--razorDesignTimePath={}",
                    new.join("Targets/Microsoft.NET.Sdk.Razor.DesignTime.targets")
                        .display()
                ),
                "--extension".to_owned(),
                new.join("Microsoft.VisualStudioCode.RazorExtension.dll")
                    .display()
                    .to_string(),
            ]
        );
    }

    #[test]
    fn without_the_extension_the_error_says_where_it_looked() {
        let t = tempfile::tempdir().unwrap();
        let e = razor_args_in(&[t.path().to_owned()]).unwrap_err();
        assert!(e.contains("VS Code C# extension"), "{e}");
        assert!(e.contains(&t.path().display().to_string()), "{e}");
    }

    #[test]
    fn vscode_extensions_is_looked_in_first() {
        let env = [("VSCODE_EXTENSIONS".to_owned(), Some("/opt/ext".to_owned()))];
        assert_eq!(extension_dirs(&env)[0], PathBuf::from("/opt/ext"));
    }
}
