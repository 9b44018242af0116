//! Whether a place is in a test, by the conventions of the languages'
//! test runners: a test folder (`tests/`, `__tests__/`, `spec/`), a test
//! file's name (pytest's `test_*.py` and `*_test.py`, Go's `*_test.go`,
//! Jest's and Vitest's `*.test.ts` and `*.spec.ts`, `conftest.py`), or
//! a symbol in a Rust `tests` module or named as a test function.

use std::path::Path;

/// Folders whose files are tests.
const TEST_FOLDERS: &[&str] = &["test", "tests", "__tests__", "spec", "specs", "testing"];

/// Whether the place in `path`, inside the symbol named `symbol` (a name
/// path such as `tests.parses_a_header`), is in a test.
pub(super) fn is_test(path: &Path, symbol: Option<&str>) -> bool {
    let in_folder = path
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .any(|c| TEST_FOLDERS.contains(&c.as_os_str().to_string_lossy().as_ref()));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    let by_name = name == "conftest.py"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || name
            .split('.')
            .skip(1)
            .any(|part| part == "test" || part == "spec");
    let by_symbol = symbol.is_some_and(|s| {
        s.split('.')
            .any(|part| part == "tests" || part == "test" || part.starts_with("test_"))
    });
    in_folder || by_name || by_symbol
}

#[cfg(test)]
mod tests {
    use super::is_test;
    use std::path::Path;

    #[test]
    fn test_files_folders_and_modules_are_tests_and_others_are_not() {
        for (path, symbol) in [
            ("/r/tests/test_client.py", None),
            ("/r/pkg/test_models.py", None),
            ("/r/pkg/models_test.go", None),
            ("/r/src/__tests__/a.ts", None),
            ("/r/src/client.test.ts", None),
            ("/r/src/client.spec.tsx", None),
            ("/r/conftest.py", None),
            ("/r/src/lib.rs", Some("tests.parses_a_header")),
            ("/r/src/models.py", Some("test_roundtrip")),
        ] {
            assert!(is_test(Path::new(path), symbol), "{path} {symbol:?}");
        }
        for (path, symbol) in [
            ("/r/src/client.py", Some("Client.send")),
            ("/r/src/testing_utils_x.py", None),
            ("/r/src/contest.ts", None),
            ("/r/src/latest.rs", Some("attest")),
        ] {
            assert!(!is_test(Path::new(path), symbol), "{path} {symbol:?}");
        }
    }
}
