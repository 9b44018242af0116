//! `host FILE`: a minimal sightline process that serves `.fake` files with the
//! fake server, answers diagnostics for FILE, prints `ready`, and then waits
//! for stdin to close or a signal. Signal tests kill it in every way.

use std::io::Write;
use std::path::{Path, PathBuf};

use sightline::{Engine, Options};
use tokio::io::AsyncReadExt;

pub fn main(args: &[String]) -> i32 {
    let Some(file) = args.first() else {
        eprintln!("sightline-fake-lsp host: expected FILE");
        return 2;
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sightline-fake-lsp host: {e}");
            return 1;
        }
    };
    rt.block_on(async {
        let here: Option<PathBuf> = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf));
        let ws = Engine::new(Options {
            servers: vec![&sightline::FAKE],
            search_path: here.into_iter().collect(),
            downloads: Some(false),
            ..Options::default()
        });
        let text = match ws.diagnostics(Path::new(file)).await {
            Ok(d) => sightline::diagnostics_text(&d),
            Err(e) => format!("{e}\n"),
        };
        // Handlers first: the signal tests send theirs as soon as they read
        // `ready`.
        let interrupted = sightline::interrupted();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}ready").and_then(|()| out.flush());
        drop(out);
        let stdin_closed = async {
            let mut stdin = tokio::io::stdin();
            let mut buf = [0u8; 256];
            while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
        };
        tokio::select! {
            _ = stdin_closed => {}
            _ = interrupted => {}
        }
        ws.shutdown().await;
        0
    })
}
