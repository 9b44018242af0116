//! macOS's confinement: Seatbelt, the way Codex confines its children there.
//! A child runs under `/usr/bin/sandbox-exec -p PROFILE`; the profile starts
//! closed, lets the child read everything, run and signal its own helpers,
//! and write only its writable directories (the workspace, its caches, its
//! private `TMPDIR`) and the terminal devices. Unix-domain sockets stay open,
//! as on Linux (Biome's daemon, tsserver's pipes); internet sockets only for
//! an entry that asks for the network. The profile text is a pure function,
//! snapshot-tested on every platform.

use std::path::{Path, PathBuf};

/// The one `sandbox-exec` trusted: a fixed path, never one from PATH.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The parts of the profile that never change.
const BASE: &str = r#"(version 1)
; Closed unless allowed below.
(deny default)

; A server runs its helpers (node's workers, cargo, go), which inherit this
; profile, and may signal only them.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Reading is open: a type checker reads the project, its dependencies and
; the toolchain wherever they are.
(allow file-read*)

; What runtimes ask of the system: preferences, CPU and memory facts (Node's
; os.cpus(), Java's), user lookups, POSIX semaphores and shared memory
; (Python's multiprocessing), and pseudo-terminals.
(allow user-preference-read)
(allow sysctl-read)
(allow mach-host*)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control"))
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$"))

; Unix-domain sockets, as on Linux.
(allow system-socket (socket-domain AF_UNIX))
(allow network-bind network-inbound (local unix-socket))
(allow network-outbound (remote unix-socket))
"#;

/// The internet, for an entry that asks for it (installers, servers whose
/// build tool fetches dependencies).
const NETWORK: &str = r#"
; The internet: this entry asks for the network.
(allow system-socket)
(allow network-outbound)
(allow network-inbound)
(allow network-bind)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.trustd.agent"))
"#;

/// `s` as an SBPL string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The profile for a child that may write `writable` (and what is below
/// each), with the internet when `network` is true.
pub fn profile(writable: &[PathBuf], network: bool) -> String {
    let mut out = String::from(BASE);
    if !writable.is_empty() {
        out.push_str(
            "\n; The writable directories: the workspace, the caches, TMPDIR.\n(allow file-write*",
        );
        for dir in writable {
            out.push_str(&format!(
                "\n  (subpath {})",
                quoted(&dir.display().to_string())
            ));
        }
        out.push_str(")\n");
    }
    if network {
        out.push_str(NETWORK);
    }
    out
}

/// The program and arguments that run `program args` under Seatbelt.
/// `writable` is canonicalised first: Seatbelt matches the real path, and
/// macOS's `/tmp` and `/var` are links into `/private`.
pub fn command(
    program: &Path,
    args: &[String],
    writable: &[PathBuf],
    network: bool,
) -> (PathBuf, Vec<String>) {
    let real: Vec<PathBuf> = writable
        .iter()
        .map(|d| {
            let _ = std::fs::create_dir_all(d);
            std::fs::canonicalize(d).unwrap_or_else(|_| d.clone())
        })
        .collect();
    let mut argv = vec!["-p".to_owned(), profile(&real, network), "--".to_owned()];
    argv.push(program.display().to_string());
    argv.extend(args.iter().cloned());
    (PathBuf::from(SANDBOX_EXEC), argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_profile() {
        let writable = [
            PathBuf::from("/Users/me/src/app"),
            PathBuf::from("/Users/me/Library/Caches/typescript"),
            PathBuf::from("/private/var/folders/x/T/sightline-pyright-1"),
        ];
        insta::assert_snapshot!("seatbelt_workspace", profile(&writable, false));
    }

    #[test]
    fn the_network_is_added_only_when_asked_and_paths_are_quoted() {
        let p = profile(&[PathBuf::from(r#"/Users/me/a "quoted" \dir"#)], true);
        assert!(
            p.contains(r#"(subpath "/Users/me/a \"quoted\" \\dir")"#),
            "{p}"
        );
        assert!(p.contains("(allow network-outbound)\n"), "{p}");
        let closed = profile(&[], false);
        assert!(!closed.contains("(allow network-outbound)\n"), "{closed}");
        assert!(!closed.contains("(allow file-write*\n"), "{closed}");
        assert!(
            closed.starts_with("(version 1)\n; Closed unless allowed below.\n(deny default)\n")
        );
    }

    #[test]
    fn the_command_runs_the_program_under_sandbox_exec() {
        let (program, argv) = command(
            Path::new("/opt/node/bin/pyright-langserver"),
            &["--stdio".to_owned()],
            &[],
            false,
        );
        assert_eq!(program, PathBuf::from("/usr/bin/sandbox-exec"));
        assert_eq!(argv[0], "-p");
        assert_eq!(
            argv[2..],
            ["--", "/opt/node/bin/pyright-langserver", "--stdio"]
        );
    }
}
