//! The Python servers: pyright (the primary), and the alternatives ty and
//! basedpyright.

use super::{PYRIGHT_QUIRKS, PYTHON_PROJECT};
use crate::catalog::quirks::{ImportAliases, LaunchQuirks, Quirks, ReferencesQuirks};
use crate::catalog::spec::{BASE, Install, NpmPackage, Role, RootRule, ServerSpec};
use crate::sandbox::Cache;
use crate::workspaces::Ecosystem;

/// pyright and basedpyright serve a uv workspace from its root: they
/// analyse every package under it, and find the workspace's `.venv` there.
const PYTHON_WORKSPACE: RootRule = RootRule::Workspace {
    ecosystem: Ecosystem::Python,
    markers: PYTHON_PROJECT,
    exclude: &[],
};

/// Python: `ty server`, an alternative server.
pub static TY: ServerSpec = ServerSpec {
    id: "ty",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "ty",
    args: &["server"],
    root: RootRule::Nearest {
        markers: &[
            "pyproject.toml",
            "ty.toml",
            "setup.py",
            "setup.cfg",
            "requirements.txt",
            "Pipfile",
            "pyrightconfig.json",
        ],
        exclude: &[],
    },
    install: Install::Pypi {
        package: "ty",
        version: "0.0.108",
    },
    role: Role::Alternative,
    // ty, like pyright, lists `from m import f as g` among the references
    // of `f` but not the uses of `g`.
    quirks: Quirks {
        references: ReferencesQuirks {
            import_aliases: ImportAliases::AskAlias,
            ..ReferencesQuirks::NONE
        },
        launch: LaunchQuirks {
            caches: &[Cache::User("ty")],
            ..LaunchQuirks::NONE
        },
        ..Quirks::NONE
    },
    ..BASE
};

/// Python: `pyright-langserver --stdio`.
pub static PYRIGHT: ServerSpec = ServerSpec {
    id: "pyright",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "pyright-langserver",
    args: &["--stdio"],
    root: PYTHON_WORKSPACE,
    install: Install::Npm(&[NpmPackage {
        name: "pyright",
        version: "1.1.414",
    }]),
    quirks: PYRIGHT_QUIRKS,
    ..BASE
};

/// Python: `basedpyright-langserver --stdio`, an alternative server.
pub static BASEDPYRIGHT: ServerSpec = ServerSpec {
    id: "basedpyright",
    language: "Python",
    extensions: &[".py", ".pyi"],
    command: "basedpyright-langserver",
    args: &["--stdio"],
    root: PYTHON_WORKSPACE,
    install: Install::Npm(&[NpmPackage {
        name: "basedpyright",
        version: "1.40.1",
    }]),
    role: Role::Alternative,
    quirks: PYRIGHT_QUIRKS,
    ..BASE
};
