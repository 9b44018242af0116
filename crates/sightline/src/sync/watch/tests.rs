#![allow(clippy::unwrap_used)]
use super::*;

fn tree(files: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for f in files {
        let p = root.join(f);
        if f.ends_with('/') {
            std::fs::create_dir_all(p).unwrap();
        } else {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "1").unwrap();
        }
    }
    (dir, root)
}

#[test]
fn sees_every_change_made_before_the_drain() {
    let (_d, root) = tree(&["pkg/a.py", "node_modules/x/ignored.js"]);
    let w = DiskWatch::new(&root).unwrap();
    assert!(w.drain().is_empty());
    assert!(w.covers(&root.join("pkg/a.py")));
    assert!(!w.covers(&root.join("node_modules/x/ignored.js")));
    std::fs::write(root.join("pkg/a.py"), "2").unwrap();
    std::fs::write(root.join("b.py"), "new").unwrap();
    std::fs::write(root.join("node_modules/x/ignored.js"), "").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    let got = w.drain();
    assert_eq!(
        got,
        vec![
            (root.join("pkg/a.py"), Change::Changed),
            (root.join("b.py"), Change::Created)
        ]
    );
    // The new directory is watched from the drain that saw it.
    std::fs::write(root.join("sub/c.py"), "").unwrap();
    std::fs::remove_file(root.join("b.py")).unwrap();
    assert_eq!(
        w.drain(),
        vec![
            (root.join("sub/c.py"), Change::Created),
            (root.join("b.py"), Change::Deleted)
        ]
    );
}

#[test]
fn a_gitignored_directory_is_not_watched_and_the_rest_is() {
    let (_d, root) = tree(&["logs/a.log", "out/deep/x.py", "src/a.py", ".github/w.yml"]);
    std::fs::write(root.join(".gitignore"), "logs/\n/out\n").unwrap();
    let w = DiskWatch::new(&root).unwrap();
    assert!(!w.covers(&root.join("logs/a.log")));
    assert!(!w.covers(&root.join("out/deep/x.py")));
    assert!(w.covers(&root.join("src/a.py")));
    assert!(w.covers(&root.join(".github/w.yml")));
}

#[test]
fn a_package_installed_into_a_virtualenv_or_node_modules_is_a_change() {
    let (_d, root) = tree(&[
        "app.py",
        ".venv/lib/python3.11/site-packages/",
        "node_modules/@types/",
    ]);
    let w = DiskWatch::new(&root).unwrap();
    let site = root.join(".venv/lib/python3.11/site-packages");
    std::fs::create_dir(site.join("fancylib")).unwrap();
    std::fs::write(site.join("fancylib/__init__.py"), "").unwrap();
    std::fs::create_dir(root.join("node_modules/@types/node")).unwrap();
    std::fs::create_dir(root.join("node_modules/left-pad")).unwrap();
    assert_eq!(
        w.drain(),
        vec![
            (site.join("fancylib"), Change::Created),
            (root.join("node_modules/@types/node"), Change::Created),
            (root.join("node_modules/left-pad"), Change::Created),
        ]
    );
    // Only the top level: a file inside an installed package is not watched.
    std::fs::write(site.join("fancylib/__init__.py"), "2").unwrap();
    assert!(w.drain().is_empty());
}

#[test]
fn a_virtualenv_made_after_the_start_is_a_change_and_its_installs_are_seen() {
    let (_d, root) = tree(&["app.py"]);
    let w = DiskWatch::new(&root).unwrap();
    std::fs::create_dir(root.join(".venv")).unwrap();
    assert_eq!(w.drain(), vec![(root.join(".venv"), Change::Created)]);
    let site = root.join(".venv/lib/python3.12/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    assert!(w.drain().is_empty());
    std::fs::create_dir(site.join("requests")).unwrap();
    assert_eq!(w.drain(), vec![(site.join("requests"), Change::Created)]);
    std::fs::remove_dir_all(root.join(".venv")).unwrap();
    assert!(w.drain().contains(&(root.join(".venv"), Change::Deleted)));
}

#[test]
fn past_the_limit_directories_are_polled_and_nothing_is_missed() {
    let (_d, root) = tree(&["a/x.py", "b/y.py", "c/z.py"]);
    let w = DiskWatch::with_limit(&root, 2).unwrap();
    assert_eq!(w.polled(), 2);
    for f in ["a/x.py", "b/y.py", "c/z.py"] {
        assert!(w.covers(&root.join(f)), "{f}");
    }
    std::fs::write(root.join("c/z.py"), "changed!").unwrap();
    std::fs::write(root.join("b/new.py"), "").unwrap();
    std::fs::remove_file(root.join("a/x.py")).unwrap();
    let mut got = w.drain();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        vec![
            (root.join("a/x.py"), Change::Deleted),
            (root.join("b/new.py"), Change::Created),
            (root.join("c/z.py"), Change::Changed),
        ]
    );
    // A directory made in a polled one is polled too.
    std::fs::create_dir(root.join("c/d")).unwrap();
    assert!(w.drain().is_empty());
    std::fs::write(root.join("c/d/w.py"), "").unwrap();
    assert_eq!(w.drain(), vec![(root.join("c/d/w.py"), Change::Created)]);
}

#[test]
fn a_directory_a_server_asks_for_is_watched_even_if_skipped() {
    let (_d, root) = tree(&["node_modules/@types/x/index.d.ts"]);
    let w = DiskWatch::new(&root).unwrap();
    let deep = root.join("node_modules/@types/x/index.d.ts");
    assert!(!w.covers(&deep));
    w.add(&root.join("node_modules/@types"));
    assert!(w.covers(&deep));
    std::fs::write(&deep, "changed").unwrap();
    assert_eq!(w.drain(), vec![(deep, Change::Changed)]);
}

#[test]
fn a_directory_deleted_and_made_again_or_moved_away_is_watched_at_its_path() {
    let (_d, root) = tree(&["pkg/a.py", "other/b.py"]);
    let w = DiskWatch::new(&root).unwrap();
    std::fs::remove_dir_all(root.join("pkg")).unwrap();
    w.drain();
    std::fs::create_dir(root.join("pkg")).unwrap();
    w.drain();
    std::fs::write(root.join("pkg/c.py"), "").unwrap();
    assert_eq!(w.drain(), vec![(root.join("pkg/c.py"), Change::Created)]);
    // Moved away, a directory's watch stays on it: its old path is dropped,
    // and its new one watched.
    std::fs::rename(root.join("other"), root.join("moved")).unwrap();
    w.drain();
    std::fs::write(root.join("moved/d.py"), "").unwrap();
    assert_eq!(w.drain(), vec![(root.join("moved/d.py"), Change::Created)]);
    assert!(!w.covers(&root.join("other/b.py")));
}

#[test]
fn a_polled_directory_deleted_reports_its_files_gone() {
    let (_d, root) = tree(&["a/x.py", "b/y.py"]);
    let w = DiskWatch::with_limit(&root, 1).unwrap();
    assert!(w.polled() >= 1);
    std::fs::remove_dir_all(root.join("b")).unwrap();
    assert!(w.drain().contains(&(root.join("b/y.py"), Change::Deleted)));
}
