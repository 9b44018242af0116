//! The formatters: the table of built-ins (`table`), which are on for a
//! file and why (`detect`), and running them (`run`). Detection starts at
//! the edited file's directory and stops at the project top (the nearest
//! `.git`); project-local programs come first; only positive detections are
//! cached. Every run has a timeout, explicit stdio and its own process group;
//! a failure or timeout is reported, never hidden, and never undoes the edit.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use crate::files::extension_of;
use crate::format::table::FORMATTERS;

mod detect;
mod run;
pub mod table;

/// How long a formatter may run by default.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// One `formatter` entry of the configuration: an override of a built-in
/// formatter, or a custom one.
#[derive(Debug, Clone, Default)]
pub struct FormatterEntry {
    /// Turned off.
    pub disabled: bool,
    /// The program and its arguments (`$FILE` stands for the file).
    pub command: Option<Vec<String>>,
    /// Variables set for its runs.
    pub environment: BTreeMap<String, String>,
    /// The extensions it formats, replacing the built-in ones.
    pub extensions: Option<Vec<String>>,
    /// Its timeout in milliseconds, replacing [`TIMEOUT`].
    pub timeout_ms: Option<u64>,
    /// Whether it came from a project file (its command needs trust).
    pub from_project: bool,
}

/// What the configuration says about formatting, as the runner needs it.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `false` (`"formatter": false`) turns every formatter off.
    pub enabled: bool,
    /// The `formatter` entries, by key.
    pub entries: BTreeMap<String, FormatterEntry>,
    /// Commands that came from a project file may run.
    pub trusted: bool,
}

/// Whether a formatter is on for a file.
#[derive(Debug, Clone, Serialize)]
pub struct Detection {
    /// The formatter's key.
    pub name: String,
    /// Whether it runs for the file.
    pub enabled: bool,
    /// Why it is on or off, in words.
    pub why: String,
    #[serde(skip)]
    run: Option<Run>,
}

#[derive(Debug, Clone)]
struct Run {
    argv: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
    timeout: Duration,
    /// The cache directories it may write besides the workspace.
    caches: &'static [crate::sandbox::Cache],
}

/// What running one formatter did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// It ran and changed the file.
    Formatted,
    /// It ran and left the file as it was.
    Unchanged,
    /// It failed; the file is as it left it.
    Failed {
        /// Its exit status and the last lines of its output.
        message: String,
    },
    /// It ran past its timeout and was stopped.
    TimedOut {
        /// The timeout.
        after_ms: u64,
    },
    /// Nothing could do what was asked (format only some lines).
    Skipped {
        /// Why.
        message: String,
    },
}

/// What one formatter did to a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The formatter's key (with the lines, for range formatting).
    pub name: String,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl Report {
    /// One line for a tool answer, such as `formatted with ruff`.
    pub fn line(&self) -> String {
        match &self.outcome {
            Outcome::Formatted => format!("formatted with {}", self.name),
            Outcome::Unchanged => format!("{} left it unchanged", self.name),
            Outcome::Failed { message } => format!("{} failed: {message}", self.name),
            Outcome::Skipped { message } => message.clone(),
            Outcome::TimedOut { after_ms } => {
                format!(
                    "{} timed out after {:.1} s and was stopped",
                    self.name,
                    *after_ms as f64 / 1000.0
                )
            }
        }
    }
}

/// The formatters of an engine: detection (cached) and runs.
pub struct Formatters {
    enabled: bool,
    entries: BTreeMap<String, FormatterEntry>,
    trusted: bool,
    search_path: Vec<PathBuf>,
    /// Replaces `$PATH` for finding programs (tests).
    path_var: Option<std::ffi::OsString>,
    sandbox: crate::sandbox::Sandbox,
    /// Positive detections by (formatter, directory of the file).
    cache: Mutex<HashMap<(String, PathBuf), Detection>>,
}

impl Formatters {
    /// Formatters as `settings` (`Config::formatting`) configure them,
    /// looking for programs in `search_path` before PATH and running them in
    /// `sandbox`.
    pub fn new(
        settings: Settings,
        search_path: Vec<PathBuf>,
        sandbox: crate::sandbox::Sandbox,
    ) -> Formatters {
        Formatters {
            enabled: settings.enabled,
            entries: settings.entries,
            trusted: settings.trusted,
            search_path,
            path_var: None,
            sandbox,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Finds programs in `path` instead of `$PATH`.
    pub fn with_path(mut self, path: &str) -> Formatters {
        self.path_var = Some(path.into());
        self
    }

    /// Every formatter that handles `file`, with whether it is on and why.
    pub fn detect(&self, file: &Path) -> Vec<Detection> {
        let ext = extension_of(file).unwrap_or_default();
        let dir = file.parent().unwrap_or(Path::new("/")).to_owned();
        let mut out = Vec::new();
        let mut ruff_on = false;
        for spec in FORMATTERS {
            let entry = self.entries.get(spec.name);
            let exts: Vec<String> = match entry.and_then(|e| e.extensions.clone()) {
                Some(e) => e,
                None => spec.extensions.iter().map(|e| e.to_string()).collect(),
            };
            if !exts.contains(&ext) {
                continue;
            }
            let d = self.detect_one(spec.name, Some(spec), entry, file, &dir, ruff_on);
            ruff_on |= spec.name == "ruff" && d.enabled;
            out.push(d);
        }
        for (name, entry) in &self.entries {
            if crate::format::table::builtin(name).is_none()
                && entry.extensions.as_ref().is_some_and(|e| e.contains(&ext))
            {
                out.push(self.detect_one(name, None, Some(entry), file, &dir, ruff_on));
            }
        }
        out
    }

    /// Formats lines `first..=last` (1-based) of `file` with a formatter that
    /// can format part of a file (clang-format's `--lines`), if one is on.
    pub async fn format_lines(&self, file: &Path, first: usize, last: usize) -> Option<Report> {
        let d = self
            .detect(file)
            .into_iter()
            .find(|d| d.enabled && d.name == "clang-format")?;
        let mut run = d.run?;
        let at = run.argv.len() - 1;
        run.argv.insert(at, format!("--lines={first}:{last}"));
        let before = std::fs::read(file).ok();
        let outcome = match self.run_one(&run, file).await {
            Outcome::Formatted if std::fs::read(file).ok() == before => Outcome::Unchanged,
            other => other,
        };
        Some(Report {
            name: format!("{} (lines {first}-{last})", d.name),
            outcome,
        })
    }

    /// Runs every formatter on for `file`, in order.
    pub async fn format(&self, file: &Path) -> Vec<Report> {
        let mut out = Vec::new();
        for d in self.detect(file) {
            let Some(run) = d.run else { continue };
            let before = std::fs::read(file).ok();
            let outcome = self.run_one(&run, file).await;
            let outcome = match outcome {
                Outcome::Unchanged | Outcome::Formatted => {
                    if std::fs::read(file).ok() == before {
                        Outcome::Unchanged
                    } else {
                        Outcome::Formatted
                    }
                }
                other => other,
            };
            out.push(Report {
                name: d.name,
                outcome,
            });
        }
        out
    }
}
