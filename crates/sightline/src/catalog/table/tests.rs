//! Routing by extension and file name, language ids, and the ids the
//! configuration names, over the whole table.

use std::path::Path;

use super::{BUILTIN, FAKE};
use crate::catalog::{builtin, language_id, servers_for};

#[test]
fn routes_by_extension_and_file_name() {
    assert_eq!(servers_for(Path::new("/a/b.PY"), &[])[0].id, "pyright");
    assert_eq!(servers_for(Path::new("/a/b.pyi"), &[])[0].id, "pyright");
    for ext in ["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"] {
        let ids: Vec<&str> = servers_for(Path::new(&format!("/a/b.{ext}")), &[])
            .iter()
            .map(|s| s.id)
            .collect();
        assert!(ids.contains(&"typescript"), "{ext}: {ids:?}");
    }
    assert!(servers_for(Path::new("/a/b.xyz"), &[]).is_empty());
    assert_eq!(servers_for(Path::new("/a/b.fake"), &[&FAKE])[0].id, "fake");
    assert!(servers_for(Path::new("/a/b.fake"), &[]).is_empty());
    assert!(servers_for(Path::new("/a/Makefile"), &[]).is_empty());
    // A bare `Dockerfile` attaches, and `.objcpp` has its dot.
    assert_eq!(
        servers_for(Path::new("/a/Dockerfile"), &[])[0].id,
        "dockerfile"
    );
    assert_eq!(
        servers_for(Path::new("/a/x.objcpp"), &[])[0].id,
        "sourcekit-lsp"
    );
}

#[test]
fn every_handled_extension_has_a_language_id() {
    for s in BUILTIN {
        for ext in s.extensions {
            let id = language_id(Path::new(&format!("/a/x{ext}")));
            assert_ne!(id, "plaintext", "{} {ext}", s.id);
        }
    }
    assert_eq!(language_id(Path::new("x.pyi")), "python");
    assert_eq!(language_id(Path::new("x.h")), "c");
    assert_eq!(language_id(Path::new("x.hpp")), "cpp");
    assert_eq!(language_id(Path::new("/p/Dockerfile")), "dockerfile");
}

#[test]
fn ids_are_unique_and_every_config_id_is_built_in() {
    let mut ids: Vec<&str> = BUILTIN.iter().map(|s| s.id).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
    for id in super::CONFIG_IDS {
        assert!(builtin(id).is_some(), "{id} is missing");
    }
}
