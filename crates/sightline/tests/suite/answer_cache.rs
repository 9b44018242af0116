//! Kept definitions (`server::answer_cache`): a references question right after a
//! definition at the same position takes the kept answer, unless documents
//! came and went in a way that can change it. Played by the fake server
//! under a twin spec with tsserver's project rule.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use sightline::{Engine, Options};
use sightline::{FAKE, OutsideProject, Quirks, ReferencesQuirks, ServerSpec};
use sightline_test_support::{defs, refs, runtime};

use super::fake::{self, ALPHA_DEF, budgets, project};

/// The fake server, with tsserver's rule: a `tsconfig.json` makes a
/// project, whose answers do not depend on the files open.
fn ts_like() -> &'static ServerSpec {
    Box::leak(Box::new(ServerSpec {
        id: "fake-projects",
        quirks: Quirks {
            references: ReferencesQuirks {
                outside_project: Some(OutsideProject {
                    project: &["tsconfig.json"],
                    wait_publish: false,
                    project_ignores_opens: true,
                }),
                ..ReferencesQuirks::NONE
            },
            ..Quirks::NONE
        },
        ..FAKE
    }))
}

#[test]
fn another_project_file_opened_keeps_the_definition_a_loose_one_does_not() {
    for (tsconfig, definitions) in [(true, 1), (false, 2)] {
        let p = project(json!({ "rules": [] }));
        if tsconfig {
            p.write("tsconfig.json", "{}");
        }
        runtime().block_on(async {
            let ws = Engine::new(Options {
                servers: vec![ts_like()],
                search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
                downloads: Some(false),
                budgets: budgets(),
                ..Options::default()
            });
            assert_eq!(defs(&ws, &p.path("a.fake"), 2, 1).await, ALPHA_DEF);
            // Another file of the project is opened before the references.
            ws.hover(&p.path("b.fake"), 1, 1).await.unwrap();
            let _ = refs(&ws, &p.path("a.fake"), 2, 1).await;
            assert_eq!(
                fake::received(&p, "textDocument/definition"),
                definitions,
                "tsconfig: {tsconfig}\n{}",
                fake::log(&p)
            );
            ws.shutdown().await;
        });
    }
}
