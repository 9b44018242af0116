//! The suite is its own world: this test process's runtime, data, config,
//! state and cache directories are private to it (set before any test
//! thread started), never the ones it inherited from the user running it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use sightline_test_support::isolation::{PRIVATE_DIRS, inherited, tree};

#[test]
fn this_process_has_its_own_xdg_and_data_directories() {
    let tree = tree().expect("the constructor in tests/all.rs isolates the process");
    for (var, _) in PRIVATE_DIRS {
        let now = std::env::var_os(var).unwrap_or_else(|| panic!("{var} is unset"));
        assert!(
            Path::new(&now).starts_with(tree) && Path::new(&now).is_dir(),
            "{var} is {now:?}, not under the private tree {}",
            tree.display()
        );
        assert_ne!(Some(now), inherited(var), "{var} is the inherited one");
    }
    for var in [
        "SIGHTLINE_NO_DAEMON",
        "SIGHTLINE_DAEMON",
        "SIGHTLINE_CONFIG",
    ] {
        assert!(std::env::var_os(var).is_none(), "{var} leaked in");
    }
}
