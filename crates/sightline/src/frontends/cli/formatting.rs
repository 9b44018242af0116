//! `sightline format` and `formatters`: formatting files as the edit tools
//! do, and which formatters handle a file and why.

use std::path::Path;

use serde_json::json;

use crate::engine::Engine;
use crate::frontends::cli::{EXIT_FAILED, EXIT_OK, OtherCommand, abs};

/// Runs one of these commands; returns stdout text and the exit status.
pub(super) async fn run(
    engine: &Engine,
    command: &OtherCommand,
    here: &Path,
    json: bool,
) -> (String, i32) {
    match command {
        OtherCommand::Format { files } => {
            let mut out = String::new();
            let mut status = EXIT_OK;
            for f in files {
                let f = abs(here, f);
                let reports = engine.formatters().format(&f).await;
                if reports.is_empty() {
                    out.push_str(&format!("{}: no formatter is on for it\n", f.display()));
                }
                for r in reports {
                    if matches!(
                        r.outcome,
                        crate::format::Outcome::Failed { .. }
                            | crate::format::Outcome::TimedOut { .. }
                    ) {
                        status = EXIT_FAILED;
                    }
                    out.push_str(&format!("{}: {}\n", f.display(), r.line()));
                }
            }
            (out, status)
        }
        OtherCommand::Formatters { file } => {
            let detections = engine.formatters().detect(&abs(here, file));
            if json {
                return (format!("{}\n", json!(detections)), EXIT_OK);
            }
            if detections.is_empty() {
                return ("no formatter handles this kind of file\n".into(), EXIT_OK);
            }
            let out = detections
                .iter()
                .map(|d| {
                    format!(
                        "{} {}: {}\n",
                        d.name,
                        if d.enabled { "on" } else { "off" },
                        d.why
                    )
                })
                .collect();
            (out, EXIT_OK)
        }
        _ => (String::new(), EXIT_FAILED),
    }
}
