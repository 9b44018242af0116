//! Whether a formatter is on for a file, and why: its configuration entry,
//! then its enable condition from the table, looked for from the file's
//! directory up to the project top (the nearest `.git`), with
//! project-local programs first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::format::run::help_says;
use crate::format::table::{Enable, FormatterSpec};
use crate::format::{Detection, FormatterEntry, Formatters, Run, TIMEOUT};

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
    crate::project::find_root(file, &[".git"]).unwrap_or_else(|| PathBuf::from("/"))
}

impl Formatters {
    /// Whether `ruff` or `uv` is disabled: either one disables both.
    pub(super) fn ruff_uv_disabled(&self, name: &str) -> bool {
        (name == "ruff" || name == "uv")
            && ["ruff", "uv"]
                .iter()
                .any(|n| self.entries.get(*n).is_some_and(|e| e.disabled))
    }

    pub(super) fn detect_one(
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
        // A built-in's caches go with its own command, not with a
        // configured one in its place.
        let caches = match spec {
            Some(spec) if entry.and_then(|e| e.command.as_ref()).is_none() => spec.caches,
            _ => &[],
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
                        caches,
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
        for d in walk_up(dir, top).filter(|d| crate::project::trusted_at(d)) {
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
                    crate::files::read_project_file(&d.join("package.json"))
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
                    crate::files::read_project_file(&d.join("composer.json"))
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
        if let Ok(t) = crate::files::read_project_file(&pyproject)
            && t.contains("[tool.ruff")
        {
            return Some(format!("{} has [tool.ruff]", pyproject.display()));
        }
        for name in ["pyproject.toml", "requirements.txt", "Pipfile"] {
            let p = d.join(name);
            if crate::files::read_project_file(&p).is_ok_and(|t| t.contains("ruff")) {
                return Some(format!("{} names ruff", p.display()));
            }
        }
    }
    None
}
