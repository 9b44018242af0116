//! The `workspace` section: a monorepo's packages named by hand, how many
//! packages a question may load, and the user's other folders.

use jsonc_parser::ast;
use serde_json::json;

use crate::config::entries::{File, absolute_dirs_of, root_range, strings_of};
use crate::config::{Config, ConfigError, folder_refused};

impl Config {
    /// `workspace`: the packages of a monorepo named by hand (read by
    /// `crate::workspaces` straight from the file), and how many packages
    /// a question may load at once.
    pub(super) fn merge_workspace(
        &mut self,
        file: &File,
        value: &ast::Value,
        project: bool,
    ) -> Result<(), ConfigError> {
        let message = "\"workspace\" must be an object with \"packages\", \"exclude\", \"max_packages\" and \"folders\"";
        let ast::Value::Object(obj) = value else {
            return Err(file.error(root_range(value), message));
        };
        for prop in &obj.properties {
            match prop.name.as_str() {
                "packages" | "exclude" => {
                    let key = prop.name.as_str();
                    // The packages are a project's: the user file has none.
                    if !project {
                        return Err(file.error(
                            prop.range,
                            &format!(
                                "\"workspace.{key}\" may only be set in a project's sightline.json"
                            ),
                        ));
                    }
                    let list = strings_of(
                        file,
                        &prop.value,
                        &format!("\"workspace.{key}\" must be a list of globs"),
                    )?;
                    self.record(
                        &format!("workspace.{key}"),
                        json!(list),
                        file.origin(prop.range),
                    );
                }
                "max_packages" => {
                    let v = match &prop.value {
                        ast::Value::NumberLit(n)
                            if n.value.parse::<usize>().is_ok_and(|v| v > 0) =>
                        {
                            n.value.parse::<usize>().unwrap_or(1)
                        }
                        other => {
                            return Err(file.error(
                                root_range(other),
                                "\"workspace.max_packages\" must be a whole number above 0",
                            ));
                        }
                    };
                    self.max_packages = v;
                    self.record("workspace.max_packages", json!(v), file.origin(prop.range));
                }
                "folders" => {
                    // A cloned repository must not point questions (and
                    // the edits of a rename) at other directories.
                    if project {
                        return Err(file.error(
                            prop.range,
                            "\"workspace.folders\" may only be set in the user configuration",
                        ));
                    }
                    let folders = absolute_dirs_of(file, &prop.value, "workspace.folders")?;
                    if let Some(why) = folders.iter().find_map(|f| folder_refused(f, None)) {
                        return Err(
                            file.error(prop.range, &format!("\"workspace.folders\": {why}"))
                        );
                    }
                    self.record("workspace.folders", json!(folders), file.origin(prop.range));
                    self.folders = folders;
                }
                other => {
                    return Err(file.error(
                        prop.range,
                        &format!("unknown key \"{other}\" in \"workspace\"; expected one of packages, exclude, max_packages, folders"),
                    ));
                }
            }
        }
        Ok(())
    }
}
