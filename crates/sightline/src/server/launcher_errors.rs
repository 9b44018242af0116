//! What a server's launcher said when it could not start the server at
//! all, read from its stderr: the one line that says why, or the command
//! that installs what is missing, instead of the last line of a backtrace.

/// A launcher that names a missing component in its own words, and how to
/// read them.
struct Launcher {
    /// Text only this launcher's refusal holds.
    marker: &'static str,
    /// The component and the toolchain named in the refusal, from its
    /// line.
    named: fn(&str) -> Option<(String, String)>,
    /// The command that installs them.
    install: fn(&str, &str) -> String,
}

/// rustup's proxy (`rust-analyzer`, `rustfmt` on PATH are rustup's) for a
/// toolchain without the component: `error: Unknown binary
/// 'rust-analyzer' in official toolchain 'nightly-x86_64-unknown-linux-gnu'.`,
/// followed, with `RUST_BACKTRACE` set, by anyhow's stack backtrace, whose
/// last line was the whole answer (`6: rustup_init::run_rustup_inner::…`).
const RUSTUP: Launcher = Launcher {
    marker: "Unknown binary '",
    named: |line| {
        let (_, rest) = line.split_once("Unknown binary '")?;
        let (binary, rest) = rest.split_once('\'')?;
        let (_, rest) = rest.split_once("toolchain '")?;
        let (toolchain, _) = rest.split_once('\'')?;
        Some((binary.to_owned(), toolchain.to_owned()))
    },
    install: |binary, toolchain| format!("rustup component add {binary} --toolchain {toolchain}"),
};

/// rustup's newer wording of the same refusal, which names the command.
const RUSTUP_NAMED: Launcher = Launcher {
    marker: "To install, run `",
    named: |line| {
        let (_, rest) = line.split_once("To install, run `")?;
        let (command, _) = rest.split_once('`')?;
        Some((command.to_owned(), String::new()))
    },
    install: |command, _| command.to_owned(),
};

const LAUNCHERS: &[Launcher] = &[RUSTUP, RUSTUP_NAMED];

/// For a server whose launcher refused to start it because a component is
/// not installed: the command that installs it.
pub(super) fn install_command(stderr: &str) -> Option<String> {
    LAUNCHERS.iter().find_map(|l| {
        let line = stderr.lines().find(|line| line.contains(l.marker))?;
        let (what, toolchain) = (l.named)(line)?;
        Some((l.install)(&what, &toolchain))
    })
}

/// The line that says why, for a launcher that printed a backtrace after
/// it (`Stack backtrace:`, numbered frames): its first `error:` line.
pub(super) fn error_before_backtrace(stderr: &str) -> Option<&str> {
    let backtrace = stderr.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("Stack backtrace:")
            || l.starts_with("stack backtrace:")
            || l.split_once(": ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if !backtrace {
        return None;
    }
    stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("error:") || l.starts_with("Error:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rustup 1.29 printed here for `RUST_BACKTRACE=1
    /// RUSTUP_TOOLCHAIN=nightly rust-analyzer` on a nightly without the
    /// component (the frames cut short).
    const RUSTUP_1_29: &str = "error: Unknown binary 'rust-analyzer' in official toolchain 'nightly-x86_64-unknown-linux-gnu'.\n\nStack backtrace:\n   0: anyhow::kind::Adhoc::new\n   1: anyhow::__private::format_err.3718\n   6: rustup_init::run_rustup_inner::{{closure}}\n  14: __libc_start_main_impl\n             at ./csu/../csu/libc-start.c:360:3\n  15: <unknown>\n";

    #[test]
    fn rustup_without_the_component_answers_the_install_command() {
        assert_eq!(
            install_command(RUSTUP_1_29).as_deref(),
            Some("rustup component add rust-analyzer --toolchain nightly-x86_64-unknown-linux-gnu")
        );
        let newer = "error: the 'rust-analyzer' component which provides the command 'rust-analyzer' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'.\nTo install, run `rustup component add --toolchain stable-x86_64-unknown-linux-gnu rust-analyzer`\n";
        assert_eq!(
            install_command(newer).as_deref(),
            Some("rustup component add --toolchain stable-x86_64-unknown-linux-gnu rust-analyzer")
        );
        assert_eq!(install_command("error: something else\n"), None);
    }

    #[test]
    fn a_backtrace_gives_way_to_its_error_line() {
        assert_eq!(
            error_before_backtrace(RUSTUP_1_29),
            Some(
                "error: Unknown binary 'rust-analyzer' in official toolchain 'nightly-x86_64-unknown-linux-gnu'."
            )
        );
        assert_eq!(error_before_backtrace("error: plain\nno frames\n"), None);
    }
}
