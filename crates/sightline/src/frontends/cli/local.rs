//! The commands that need no engine and no daemon: `schema` (the
//! configuration's JSON Schema), `trust` (the trust list) and `setup` (an
//! agent's configuration files).

use std::path::{Path, PathBuf};

use crate::frontends::cli::terminal::print_out;
use crate::frontends::cli::{EXIT_FAILED, EXIT_OK, absolute};

/// `sightline schema`: prints the JSON Schema of `sightline.json`.
pub(super) fn schema() -> i32 {
    let text = serde_json::to_string_pretty(&crate::config::schema()).unwrap_or_default();
    print_out(&format!("{text}\n"), EXIT_OK)
}

/// `sightline trust [DIR] [--revoke]`: records (or takes back) that the
/// project at `dir` (the working directory by default) may run commands.
pub(super) fn trust(dir: Option<&Path>, revoke: bool, workdir: Option<PathBuf>) -> i32 {
    let dir = dir.map(absolute).or(workdir).unwrap_or_default();
    match crate::config::set_trusted(&dir, !revoke) {
        Ok(d) if revoke => print_out(&format!("{} is no longer trusted\n", d.display()), EXIT_OK),
        Ok(d) => print_out(
            &format!(
                "trusted {}: commands in its sightline.json may run\n",
                d.display()
            ),
            EXIT_OK,
        ),
        Err(e) => print_out(&format!("error: cannot record trust: {e}\n"), EXIT_FAILED),
    }
}

/// `sightline setup AGENT [--project|--user] [--remove]`.
/// Where `setup` writes: `--user`, `--plugin DIR`, or (neither) the
/// project.
pub(super) struct SetupScope<'a> {
    pub user: bool,
    pub plugin: Option<&'a Path>,
}

pub(super) fn setup(
    agent: &str,
    SetupScope { user, plugin }: SetupScope<'_>,
    http: Option<&str>,
    remove: bool,
    workdir: Option<PathBuf>,
) -> i32 {
    use crate::frontends::setup::{Launch, Scope, SetupAgent, http_url, program, run};
    let Some(agent) = SetupAgent::named(agent) else {
        return print_out(&format!("error: no agent `{agent}`\n"), EXIT_FAILED);
    };
    let url = match http.map(http_url).transpose() {
        Ok(u) => u,
        Err(why) => return print_out(&format!("error: {why}\n"), EXIT_FAILED),
    };
    let scope = if let Some(dir) = plugin {
        Scope::Plugin(absolute(dir))
    } else if user {
        match dirs::home_dir() {
            Some(home) => Scope::User {
                home,
                codex_home: std::env::var_os("CODEX_HOME").map(PathBuf::from),
            },
            None => return print_out("error: no home directory\n", EXIT_FAILED),
        }
    } else {
        Scope::Project(workdir.unwrap_or_default())
    };
    // A plugin is installed anywhere: it runs `sightline` from PATH.
    let argv = if plugin.is_some() {
        vec!["sightline".to_owned()]
    } else {
        program()
    };
    let name = crate::frontends::setup::doctor::name_of(agent);
    let launch = Launch {
        argv: &argv,
        url: url.as_deref(),
    };
    match run(agent, &scope, &launch, remove) {
        Ok(lines) if remove || plugin.is_some() => {
            print_out(&format!("{}\n", lines.join("\n")), EXIT_OK)
        }
        // What `sightline doctor` says of this agent now, and what still
        // needs the user.
        Ok(lines) => {
            let home = dirs::home_dir().unwrap_or_default();
            let project = match &scope {
                Scope::Project(p) => p.clone(),
                _ => std::env::current_dir().unwrap_or_default(),
            };
            let codex_home = std::env::var_os("CODEX_HOME").map(PathBuf::from);
            let states: Vec<_> =
                crate::frontends::setup::doctor::agents(&project, &home, codex_home)
                    .into_iter()
                    .filter(|a| a.agent == name)
                    .collect();
            print_out(
                &format!(
                    "{}\nnow (sightline doctor):\n{}",
                    lines.join("\n"),
                    crate::frontends::setup::doctor::text(&states)
                ),
                EXIT_OK,
            )
        }
        Err(e) => print_out(&format!("error: {e}\n"), EXIT_FAILED),
    }
}
