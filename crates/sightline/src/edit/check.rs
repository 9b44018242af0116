//! The errors an edit left: after a change is written, each changed file
//! (and, for `write`, a few other open files of the project) is asked for
//! its diagnostics, and the errors go into the answer.

use std::path::PathBuf;

use crate::answer::{Finding, Severity};
use crate::edit::{EditAnswer, FileErrors, OTHER_FILES};
use crate::engine::Engine;
use crate::error::ToolError;

impl Engine {
    /// Adds the errors of `files` (and, for `write`, of up to five other
    /// files the same server has open) to the answer.
    pub(super) async fn check_errors(
        &self,
        answer: &mut EditAnswer,
        files: &[PathBuf],
        others: bool,
    ) {
        for file in files {
            match self.diagnostics(file).await {
                Ok(d) => {
                    answer.root.get_or_insert(d.root.clone());
                    answer.files.push(FileErrors {
                        path: file.clone(),
                        errors: d
                            .diagnostics
                            .into_iter()
                            .filter(|f| f.severity == Severity::Error)
                            .collect(),
                        notes: d.notes,
                    });
                }
                // No server for this kind of file: nothing to check.
                Err(ToolError::Unsupported(_)) | Err(ToolError::BadInput(_)) => {}
                Err(e) => answer.files.push(FileErrors {
                    path: file.clone(),
                    errors: Vec::new(),
                    notes: vec![format!("errors not checked: {e}")],
                }),
            }
        }
        if !others {
            return;
        }
        let mut extra = 0;
        for other in self.open_files_beside(&files[0]) {
            if extra == OTHER_FILES || files.contains(&other) {
                continue;
            }
            if let Ok(d) = self.diagnostics(&other).await {
                let errors: Vec<Finding> = d
                    .diagnostics
                    .into_iter()
                    .filter(|f| f.severity == Severity::Error)
                    .collect();
                if !errors.is_empty() {
                    extra += 1;
                    answer.files.push(FileErrors {
                        path: other,
                        errors,
                        notes: d.notes,
                    });
                }
            }
        }
    }
}
