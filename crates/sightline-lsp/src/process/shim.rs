//! Finding a program in a directory. On Windows a command is a file with one
//! of `PATHEXT`'s extensions: npm installs `pyright-langserver` as
//! `pyright-langserver.cmd`, a batch shim, which a plain `CreateProcess` of
//! the bare name never finds. Rust's standard library runs a program whose
//! name ends in `.cmd` or `.bat` through `cmd.exe`, escaping its arguments
//! (or refusing ones it cannot escape safely), so the resolved path is all a
//! caller needs. The rules are pure functions, tested on every platform.

use std::path::{Path, PathBuf};

/// `PATHEXT` when it is unset.
pub const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The file names `name` may have, in the order they are tried: on Windows
/// the name with each of `pathext`'s extensions (the name as it is first
/// when it already has one of them); elsewhere the name alone.
pub fn candidates(name: &str, windows: bool, pathext: &str) -> Vec<String> {
    if !windows {
        return vec![name.to_owned()];
    }
    let exts: Vec<&str> = pathext
        .split(';')
        .map(str::trim)
        .filter(|e| e.starts_with('.') && e.len() > 1)
        .collect();
    let lower = name.to_ascii_lowercase();
    let mut out = Vec::new();
    if exts
        .iter()
        .any(|e| lower.ends_with(&e.to_ascii_lowercase()))
    {
        out.push(name.to_owned());
    }
    out.extend(
        exts.iter()
            .map(|e| format!("{name}{}", e.to_ascii_lowercase())),
    );
    out
}

/// The program `name` in `dir`, by this platform's rules.
pub fn find_in(dir: &Path, name: &str) -> Option<PathBuf> {
    let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| DEFAULT_PATHEXT.to_owned());
    find_by(dir, name, cfg!(windows), &pathext)
}

/// The program `name` in `dir`, by Windows's rules (with `pathext`) or
/// Unix's.
pub fn find_by(dir: &Path, name: &str, windows: bool, pathext: &str) -> Option<PathBuf> {
    candidates(name, windows, pathext)
        .into_iter()
        .map(|c| dir.join(c))
        .find(|p| p.is_file())
}

/// Whether Windows runs `program` through `cmd.exe` (a batch shim).
pub fn is_batch(program: &Path) -> bool {
    program
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cmd") || e.eq_ignore_ascii_case("bat"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn unix_names_are_taken_as_they_are() {
        assert_eq!(
            candidates("pyright-langserver", false, DEFAULT_PATHEXT),
            ["pyright-langserver"]
        );
    }

    #[test]
    fn windows_names_take_pathext_in_order() {
        assert_eq!(
            candidates("pyright-langserver", true, DEFAULT_PATHEXT),
            [
                "pyright-langserver.com",
                "pyright-langserver.exe",
                "pyright-langserver.bat",
                "pyright-langserver.cmd"
            ]
        );
        // A name that has its extension is tried as it is first.
        assert_eq!(candidates("gopls.EXE", true, ".EXE;.CMD")[0], "gopls.EXE");
        // Empty and malformed entries are skipped.
        assert_eq!(
            candidates("x", true, ".EXE;;CMD; .BAT "),
            ["x.exe", "x.bat"]
        );
    }

    #[test]
    fn an_npm_shim_is_found_beside_its_sh_script_and_known_as_batch() {
        let dir = tempfile::tempdir().unwrap();
        let name = "typescript-language-server";
        std::fs::write(dir.path().join(format!("{name}.cmd")), "@ECHO off\n").unwrap();
        std::fs::write(dir.path().join(name), "#!/bin/sh\n").unwrap();
        // npm also writes the extension-less sh script, which Windows cannot
        // run: there the `.cmd` is the one taken; on Unix the script.
        let found = find_by(dir.path(), name, true, DEFAULT_PATHEXT).unwrap();
        assert!(found.ends_with(format!("{name}.cmd")));
        let unix = find_by(dir.path(), name, false, DEFAULT_PATHEXT).unwrap();
        assert!(unix.ends_with(name));
        assert_eq!(find_by(dir.path(), "gopls", true, DEFAULT_PATHEXT), None);
        assert!(is_batch(&found));
        assert!(!is_batch(Path::new("gopls.exe")));
        assert!(is_batch(Path::new("X.BAT")));
        // An `.exe` comes before a `.cmd` in PATHEXT's order.
        std::fs::write(dir.path().join(format!("{name}.exe")), "").unwrap();
        let exe = find_by(dir.path(), name, true, DEFAULT_PATHEXT).unwrap();
        assert!(exe.ends_with(format!("{name}.exe")));
    }
}
