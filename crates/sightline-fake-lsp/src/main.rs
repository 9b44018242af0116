//! A scripted language server for the fault tests, built on sightline's own
//! transport. `serve` speaks LSP on stdio: it keeps documents, reports every
//! line holding `ERR` as an error (and `WARN` as a warning), resolves `def NAME`
//! definitions and whole-word references, and follows the rules of
//! `fake-lsp.json` in its working directory to misbehave on demand. `host FILE`
//! is a minimal sightline process using this server, for signal tests.

#![allow(clippy::print_stderr, clippy::print_stdout)]

mod host;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        // `--stdio` lets the fake stand in for a real server command.
        Some("serve" | "--stdio") | None => sightline_fake_lsp::serve_stdio(),
        Some("host") => host::main(&args[1..]),
        Some(other) => {
            eprintln!("sightline-fake-lsp: unknown mode {other}; use `serve` or `host FILE`");
            2
        }
    };
    std::process::exit(code);
}
