//! A document-scoped request is sent only about a document the server was
//! told of (`didOpen`): clangd answers a `declaration` asked in a header it
//! never opened with an error ("trying to get AST for non-added document"),
//! and a references answer that asks declarations at each definition must
//! open the definition's file first. Played by the fake server with
//! clangd's rule (`only_open`) and its declaration quirk.

#![allow(clippy::unwrap_used)]

use serde_json::json;
use sightline::{Engine, FAKE, Options, Quirks, ReferencesQuirks, ServerSpec};
use sightline_test_support::{refs, runtime};

use super::fake::{self, budgets, project};

/// The fake server, asking declarations at definitions as for clangd.
fn clangd_like() -> &'static ServerSpec {
    Box::leak(Box::new(ServerSpec {
        id: "fake-clangd",
        quirks: Quirks {
            references: ReferencesQuirks {
                declaration_of_definition: true,
                ..ReferencesQuirks::NONE
            },
            ..Quirks::NONE
        },
        ..FAKE
    }))
}

#[test]
fn references_open_the_definition_s_file_before_asking_its_declaration() {
    let p = project(json!({
        "only_open": true,
        "capabilities": { "declarationProvider": true },
        "rules": [],
    }));
    runtime().block_on(async {
        let ws = Engine::new(Options {
            servers: vec![clangd_like()],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: budgets(),
            ..Options::default()
        });
        // Asked at the use in b.fake; alpha is defined in a.fake, never opened.
        let text = refs(&ws, &p.path("b.fake"), 1, 1).await;
        assert!(!text.contains("error"), "{text}\n{}", fake::log(&p));
        assert!(text.contains("b.fake:1:1"), "{text}");
        let log = fake::log(&p);
        let opened_a = log
            .lines()
            .position(|l| l.starts_with("<- textDocument/didOpen") && l.contains("a.fake"));
        let asked_a = log
            .lines()
            .position(|l| l.starts_with("<- textDocument/declaration") && l.contains("a.fake"));
        assert!(
            matches!((opened_a, asked_a), (Some(o), Some(a)) if o < a),
            "a.fake's declaration was asked before its didOpen:\n{log}"
        );
        ws.shutdown().await;
    });
}

/// The open-document limit closes the least recently used document, never
/// one a request waits on: clangd fails a request whose document is closed
/// before it answers. Here `alpha` has four definitions; opening the last
/// for its declaration would close `b.fake`, asked about and not answered
/// yet, under a limit of three.
#[test]
fn the_open_document_limit_never_closes_a_document_being_asked_about() {
    let p = project(json!({
        "only_open": true,
        "capabilities": { "declarationProvider": true },
        "rules": [
            { "method": "textDocument/references", "actions": [{ "delay_ms": 400 }] },
            { "method": "textDocument/declaration", "actions": [{ "delay_ms": 400 }] },
        ],
    }));
    for name in ["c.fake", "d.fake", "e.fake"] {
        p.write(name, "def alpha\n");
    }
    runtime().block_on(async {
        let ws = Engine::new(Options {
            servers: vec![clangd_like()],
            search_path: vec![fake::fake_bin().parent().unwrap().to_path_buf()],
            downloads: Some(false),
            budgets: sightline::Budgets {
                open_documents: Some(3),
                ..budgets()
            },
            ..Options::default()
        });
        let text = refs(&ws, &p.path("b.fake"), 1, 1).await;
        assert_eq!(
            text,
            "2 references\na.fake:2:1 alpha ERR\nb.fake:1:1 alpha again\n",
            "{}",
            fake::log(&p)
        );
        // The limit still holds once the answers are in: the next file
        // opened closes the least recently used ones.
        let text = refs(&ws, &p.path("a.fake"), 2, 1).await;
        assert!(text.contains("a.fake:2:1"), "{text}");
        // A question after those answers: the fake logs its request after
        // every notification sent before it, the closes among them.
        let text = sightline_test_support::defs(&ws, &p.path("b.fake"), 1, 1).await;
        assert!(text.contains("definitions"), "{text}");
        let log = fake::log(&p);
        let before_last = &log[..log.rfind("<- textDocument/definition").unwrap()];
        let opens = before_last.matches("<- textDocument/didOpen").count();
        let closes = before_last.matches("<- textDocument/didClose").count();
        assert!(
            opens - closes <= 3,
            "{opens} opened, {closes} closed:\n{log}"
        );
        ws.shutdown().await;
    });
}
