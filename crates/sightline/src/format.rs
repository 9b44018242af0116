//! The formatter runner: which formatters are on for a file and why, and
//! running them. Detection starts at the edited file's directory and stops at
//! the project top (the nearest `.git`); project-local programs come first;
//! only positive detections are cached. Every run has a timeout, explicit
//! stdio and its own process group; a failure or timeout is reported, never
//! hidden, and never undoes the edit.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use crate::config::{Config, FormatterEntry};
use crate::formatter::{Enable, FORMATTERS, FormatterSpec};
use crate::registry::extension_of;

/// How long a formatter may run by default.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Whether a formatter is on for a file.
#[derive(Debug, Clone, Serialize)]
pub struct Detection {
    pub name: String,
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
}

/// What running one formatter did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    Formatted,
    Unchanged,
    Failed {
        message: String,
    },
    TimedOut {
        after_ms: u64,
    },
    /// Nothing could do what was asked (format only some lines).
    Skipped {
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub name: String,
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

fn walk_up<'a>(dir: &'a Path, top: &'a Path) -> impl Iterator<Item = &'a Path> {
    let mut done = false;
    dir.ancestors().take_while(move |d| {
        if done {
            return false;
        }
        done = *d == top;
        true
    })
}

/// The project top for detection: the nearest `.git`, else the file's
/// filesystem root.
fn top_of(file: &Path) -> PathBuf {
    crate::roots::find_root(file, &[".git"]).unwrap_or_else(|| PathBuf::from("/"))
}

impl Formatters {
    pub fn new(
        config: &Config,
        search_path: Vec<PathBuf>,
        sandbox: crate::sandbox::Sandbox,
    ) -> Formatters {
        Formatters {
            enabled: config.formatters_enabled,
            entries: config.formatters.clone(),
            trusted: config.trusted || config.project.is_none(),
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

    /// Whether `ruff` or `uv` is disabled: either one disables both.
    fn ruff_uv_disabled(&self, name: &str) -> bool {
        (name == "ruff" || name == "uv")
            && ["ruff", "uv"]
                .iter()
                .any(|n| self.entries.get(*n).is_some_and(|e| e.disabled))
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
            if crate::formatter::builtin(name).is_none()
                && entry.extensions.as_ref().is_some_and(|e| e.contains(&ext))
            {
                out.push(self.detect_one(name, None, Some(entry), file, &dir, ruff_on));
            }
        }
        out
    }

    fn detect_one(
        &self,
        name: &str,
        spec: Option<&FormatterSpec>,
        entry: Option<&FormatterEntry>,
        file: &Path,
        dir: &Path,
        ruff_on: bool,
    ) -> Detection {
        let off = |why: String| Detection {
            name: name.to_owned(),
            enabled: false,
            why,
            run: None,
        };
        if !self.enabled {
            return off("formatters are turned off by \"formatter\": false".into());
        }
        if entry.is_some_and(|e| e.disabled) || self.ruff_uv_disabled(name) {
            return off("disabled in the configuration".into());
        }
        let key = (name.to_owned(), dir.to_owned());
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return hit;
        }
        let top = top_of(file);
        let timeout = entry
            .and_then(|e| e.timeout_ms)
            .map_or(TIMEOUT, Duration::from_millis);
        let env: Vec<(String, String)> = entry
            .map(|e| {
                e.environment
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let found = match entry.and_then(|e| e.command.clone()) {
            Some(command) => {
                if entry.is_some_and(|e| e.from_project) && !self.trusted {
                    return off(format!(
                        "its command comes from the project configuration, which is not trusted; trust it with `sightline trust {}`",
                        top.display()
                    ));
                }
                let program = if command[0].contains('/') {
                    Some(top.join(&command[0]))
                } else {
                    self.program(&command[0], &[], dir, &top)
                };
                match program {
                    Some(p) => Ok((p, command[1..].to_vec(), "configured command".to_owned())),
                    None => Err(format!("`{}` is not found", command[0])),
                }
            }
            None => match spec {
                Some(spec) => self.enabled_by(spec, dir, &top, ruff_on),
                None => Err("a custom formatter needs a command".into()),
            },
        };
        match found {
            Ok((program, args, why)) => {
                let mut argv = vec![program.display().to_string()];
                argv.extend(args);
                let file_text = file.display().to_string();
                let argv = argv
                    .into_iter()
                    .map(|a| a.replace("$FILE", &file_text))
                    .collect();
                let d = Detection {
                    name: name.to_owned(),
                    enabled: true,
                    why,
                    run: Some(Run {
                        argv,
                        cwd: top.clone(),
                        env,
                        timeout,
                    }),
                };
                if let Ok(mut c) = self.cache.lock() {
                    c.insert(key, d.clone());
                }
                d
            }
            Err(why) => off(why),
        }
    }

    /// Looks for a program: in each ancestor's `local` dirs (nearest
    /// first, up to the top), then the extra search path, then PATH.
    fn program(&self, name: &str, local: &[&str], dir: &Path, top: &Path) -> Option<PathBuf> {
        // A program the project ships runs only once it is trusted.
        for d in walk_up(dir, top).filter(|d| crate::config::trusted_at(d)) {
            for l in local {
                let p = d.join(l).join(name);
                if p.is_file() {
                    return Some(p);
                }
            }
        }
        let on_path = || match &self.path_var {
            Some(p) => which::which_in(name, Some(p), dir).ok(),
            None => which::which(name).ok(),
        };
        self.search_path
            .iter()
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .or_else(on_path)
    }

    /// The built-in enable condition: the program, its arguments, and why.
    fn enabled_by(
        &self,
        spec: &FormatterSpec,
        dir: &Path,
        top: &Path,
        ruff_on: bool,
    ) -> Result<(PathBuf, Vec<String>, String), String> {
        let program = spec.command[0];
        let args: Vec<String> = spec.command[1..].iter().map(|a| a.to_string()).collect();
        let find = || {
            self.program(program, spec.local, dir, top)
                .ok_or_else(|| format!("`{program}` is not found"))
        };
        let found_file = |names: &[&str]| {
            walk_up(dir, top).find_map(|d| names.iter().map(|n| d.join(n)).find(|p| p.is_file()))
        };
        let why = match spec.enable {
            Enable::Binary => "its program is on PATH".to_owned(),
            Enable::Configured => return Err("off unless the configuration turns it on".into()),
            Enable::ConfigFile(names) => match found_file(names) {
                Some(p) => format!("{} is there", p.display()),
                None => return Err(format!("no {} in the project", names.join(" or "))),
            },
            Enable::NpmDependency(pkg) => {
                let listed = walk_up(dir, top).find(|d| {
                    std::fs::read_to_string(d.join("package.json"))
                        .ok()
                        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                        .is_some_and(|v| {
                            ["dependencies", "devDependencies"]
                                .iter()
                                .any(|k| v[k].get(pkg).is_some())
                        })
                });
                match listed {
                    Some(d) => format!("{} lists {pkg}", d.join("package.json").display()),
                    None => return Err(format!("no package.json in the project lists {pkg}")),
                }
            }
            Enable::ComposerDependency(pkg) => {
                let listed = walk_up(dir, top).find(|d| {
                    std::fs::read_to_string(d.join("composer.json"))
                        .is_ok_and(|t| t.contains(&format!("\"{pkg}\"")))
                });
                match listed {
                    Some(d) => format!("{} requires {pkg}", d.join("composer.json").display()),
                    None => return Err(format!("no composer.json in the project requires {pkg}")),
                }
            }
            Enable::Ruff => match ruff_config(dir, top) {
                Some(why) => why,
                None => return Err(
                    "the project does not use ruff (no ruff.toml, [tool.ruff] or ruff dependency)"
                        .into(),
                ),
            },
            Enable::Uv => {
                if ruff_on {
                    return Err("ruff formats this file".into());
                }
                let uv = find()?;
                if !help_says(&self.sandbox, &uv, &["format", "--help"], &[]) {
                    return Err("this uv has no `format` command".into());
                }
                return Ok((uv, args, "uv is on PATH and ruff is not used".into()));
            }
            Enable::Air => {
                let air = find()?;
                if !help_says(
                    &self.sandbox,
                    &air,
                    &["--help"],
                    &["R language", "formatter"],
                ) {
                    return Err("the `air` on PATH is not the R formatter".into());
                }
                return Ok((air, args, "air, the R formatter, is on PATH".into()));
            }
        };
        Ok((find()?, args, why))
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

/// Why ruff is on for files under `dir`, if it is.
fn ruff_config(dir: &Path, top: &Path) -> Option<String> {
    for d in walk_up(dir, top) {
        for name in ["ruff.toml", ".ruff.toml"] {
            if d.join(name).is_file() {
                return Some(format!("{} is there", d.join(name).display()));
            }
        }
        let pyproject = d.join("pyproject.toml");
        if let Ok(t) = std::fs::read_to_string(&pyproject)
            && t.contains("[tool.ruff")
        {
            return Some(format!("{} has [tool.ruff]", pyproject.display()));
        }
        for name in ["pyproject.toml", "requirements.txt", "Pipfile"] {
            let p = d.join(name);
            if std::fs::read_to_string(&p).is_ok_and(|t| t.contains("ruff")) {
                return Some(format!("{} names ruff", p.display()));
            }
        }
    }
    None
}

/// Whether `program args` exits 0 within 5 s and its first output line holds
/// every word of `needles`.
fn help_says(
    sandbox: &crate::sandbox::Sandbox,
    program: &Path,
    args: &[&str],
    needles: &[&str],
) -> bool {
    let tmp = crate::sandbox::private_tmp("probe");
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    // A probe writes nothing: only its TMPDIR.
    let Ok((program, args)) = sandbox.command(program, &args, &[], &tmp, false) else {
        return false;
    };
    let child = std::process::Command::new(program)
        .args(args)
        .env("TMPDIR", &tmp)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(child) = child else {
        let _ = std::fs::remove_dir_all(&tmp);
        return false;
    };
    let answer = wait_for_help(child, needles);
    let _ = std::fs::remove_dir_all(&tmp);
    answer
}

fn wait_for_help(child: std::process::Child, needles: &[&str]) -> bool {
    // Wait for the child's exit (and its output) on a thread, so that the
    // 5 s limit is a timeout on that signal rather than polling.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(Ok(out)) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let first = text.lines().next().unwrap_or("");
            out.status.success() && needles.iter().all(|n| first.contains(n))
        }
        _ => {
            // SAFETY: signalling a child we started; at worst it has exited.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            false
        }
    }
}

impl Formatters {
    /// Runs one formatter in the sandbox: it may write the writable roots
    /// of the file (the ones the edit tools' write of it was judged by), its
    /// cache, and a private TMPDIR.
    async fn run_one(&self, run: &Run, file: &Path) -> Outcome {
        let tmp = crate::sandbox::private_tmp("formatter");
        let mut writable = self.sandbox.writable_for_file(file);
        writable.extend(crate::sandbox::cache_dirs("ruff"));
        let (program, args) = match self.sandbox.command(
            Path::new(&run.argv[0]),
            &run.argv[1..],
            &writable,
            &tmp,
            false,
        ) {
            Ok(x) => x,
            Err(e) => {
                return Outcome::Failed {
                    message: e.to_string(),
                };
            }
        };
        let mut argv = vec![program.display().to_string()];
        argv.extend(args);
        let mut env = run.env.clone();
        env.push(("TMPDIR".into(), tmp.display().to_string()));
        let outcome = run_argv(&Run {
            argv,
            cwd: run.cwd.clone(),
            env,
            timeout: run.timeout,
        })
        .await;
        let _ = std::fs::remove_dir_all(&tmp);
        outcome
    }
}

async fn run_argv(run: &Run) -> Outcome {
    let mut cmd = tokio::process::Command::new(&run.argv[0]);
    cmd.args(&run.argv[1..])
        .current_dir(&run.cwd)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome::Failed {
                message: format!("could not start `{}`: {e}", run.argv[0]),
            };
        }
    };
    let pid = child.id();
    match tokio::time::timeout(run.timeout, child.wait_with_output()).await {
        Ok(Ok(out)) if out.status.success() => Outcome::Formatted,
        Ok(Ok(out)) => {
            let text = String::from_utf8_lossy(&out.stderr).to_string()
                + &String::from_utf8_lossy(&out.stdout);
            let tail: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .rev()
                .take(3)
                .collect();
            let hint = crate::sandbox::explain_denial(&text)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            Outcome::Failed {
                message: format!(
                    "exited with status {}{}{hint}",
                    out.status.code().map_or("?".into(), |c| c.to_string()),
                    if tail.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ": {}",
                            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                        )
                    }
                ),
            }
        }
        Ok(Err(e)) => Outcome::Failed {
            message: e.to_string(),
        },
        Err(_) => {
            // Its helpers live in its group: stop them all.
            if let Some(pid) = pid {
                sightline_lsp::process::kill_group(pid);
            }
            Outcome::TimedOut {
                after_ms: run.timeout.as_millis() as u64,
            }
        }
    }
}
