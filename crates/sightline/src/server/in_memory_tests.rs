//! The `server` layer against the scripted server in this process
//! (`sightline_fake_lsp::in_memory`): document sync, pushed and pulled
//! diagnostics, and the wait for a server that says when it has loaded,
//! each without spawning a process.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use sightline_lsp::LineIndex;

use crate::answer::{Finding, Severity};
use crate::catalog::{Budgets, FAKE, Quirks, Readiness, ServerSpec};
use crate::server::LspServer;

/// A fake server on a root of its own, and the files written there.
struct InMemory {
    server: Arc<LspServer>,
    dir: tempfile::TempDir,
}

impl InMemory {
    async fn start(spec: &'static ServerSpec, script: Value) -> InMemory {
        let dir = tempfile::tempdir().unwrap();
        let root = sightline_lsp::normalize(dir.path());
        let budgets = Budgets {
            document: Duration::from_secs(5),
            ..Budgets::default()
        };
        let server = LspServer::start_in_memory(spec, root, script, budgets)
            .await
            .unwrap();
        InMemory { server, dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        sightline_lsp::normalize(&self.dir.path().join(name))
    }

    /// Writes `name` and returns its path and text as sightline reads it.
    fn write(&self, name: &str, text: &str) -> (PathBuf, Arc<LineIndex>) {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        (path, Arc::new(LineIndex::new(text)))
    }

    /// The messages the fake received, by method (`<- METHOD PARAMS` lines).
    fn received(&self, method: &str) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.path().join("fake-lsp.log")).unwrap_or_default();
        let start = format!("<- {method} ");
        log.lines()
            .filter(|l| l.starts_with(&start))
            .map(str::to_owned)
            .collect()
    }

    /// The errors of `path` as the server answers them for its text now.
    async fn errors(&self, path: &Path, text: &Arc<LineIndex>) -> Vec<Finding> {
        let disk = crate::sync::FileView::default();
        let doc = self.server.sync(path, text, &disk).unwrap();
        let (findings, note) = self.server.diagnostics(path, &doc, &disk).await.unwrap();
        assert_eq!(note, None, "the answer was not confirmed fresh");
        findings
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .collect()
    }

    /// The text the server holds open for `path`, if any.
    fn held(&self, path: &Path) -> Option<String> {
        let docs = self.server.docs();
        docs.get(path).map(|d| d.index.text().to_owned())
    }

    async fn stop(self) {
        self.server.shutdown().await;
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The server's copy follows the file: opened at version 1, left alone
/// while the text is the same (even as a new snapshot), and changed to the
/// disk's whole new text at version 2; the diagnostics answer is for that
/// text.
#[test]
fn a_document_is_opened_once_and_changed_only_when_its_text_changes() {
    runtime().block_on(async {
        let fake = InMemory::start(&FAKE, json!({})).await;
        let (path, first) = fake.write("a.fake", "one\n");
        assert!(fake.errors(&path, &first).await.is_empty());
        // The same text read again is another snapshot of equal content.
        let again = Arc::new(LineIndex::new("one\n"));
        assert!(fake.errors(&path, &again).await.is_empty());
        let (_, second) = fake.write("a.fake", "two ERR\n");
        let errors = fake.errors(&path, &second).await;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!((errors[0].line, errors[0].column), (1, 5));
        let opens = fake.received("textDocument/didOpen");
        let changes = fake.received("textDocument/didChange");
        assert_eq!(opens.len(), 1, "{opens:?}");
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert!(
            changes[0].contains(r#""version":2"#) && changes[0].contains("two ERR"),
            "{}",
            changes[0]
        );
        fake.stop().await;
    });
}

/// A dry run's text told to the server (`FileView`) stays as told while
/// other files are synced with the disk's view, as a question about a
/// file the server never opened does (`open_if_untold`), though its file
/// changed on disk meanwhile (the watch reports it, and an open document
/// so reported is read again); the disk's text told again after
/// (`restore`) ends that.
#[test]
fn a_dry_run_s_text_stays_as_told_until_the_disk_s_is_told_again() {
    runtime().block_on(async {
        let fake = InMemory::start(&FAKE, json!({})).await;
        let (a, on_disk) = fake.write("a.fake", "one\n");
        let (b, b_text) = fake.write("b.fake", "b\n");
        let files = crate::sync::DryRunFiles::default();
        let view = crate::sync::FileView::dry_run(&files);
        assert!(view.stage(&a, Some("two ERR\n".into())));
        let staged = view.read(&a).unwrap();
        let doc = fake.server.sync(&a, &staged.index, &view).unwrap();
        let (findings, _) = fake.server.diagnostics(&a, &doc, &view).await.unwrap();
        assert_eq!(
            findings.len(),
            1,
            "answered for the staged text: {findings:?}"
        );
        let disk = crate::sync::FileView::default();
        std::fs::write(&a, "four\n").unwrap();
        fake.server.sync(&b, &b_text, &disk).unwrap();
        let held = fake.held(&a);
        assert_eq!(
            held.as_deref(),
            Some("two ERR\n"),
            "the staged text was replaced"
        );
        fake.server.restore(&a, &on_disk).unwrap();
        let held = fake.held(&a);
        assert_eq!(held.as_deref(), Some("one\n"));
        std::fs::write(&a, "three\n").unwrap();
        fake.server.sync(&b, &b_text, &disk).unwrap();
        let held = fake.held(&a);
        assert_eq!(
            held.as_deref(),
            Some("three\n"),
            "read again from disk after"
        );
        fake.stop().await;
    });
}

/// The agent-edit check holds a file's text before the edit while the
/// disk has the edit's: another open file the edit changed, read again
/// because the watch saw it change, reads as the dry run stages it, not as
/// the disk has it, while the check asks about the first.
#[test]
fn an_open_file_a_dry_run_stages_reads_as_staged_when_it_changed_on_disk() {
    runtime().block_on(async {
        let fake = InMemory::start(&FAKE, json!({})).await;
        let (a, a_text) = fake.write("a.fake", "a\n");
        let (b, b_before) = fake.write("b.fake", "b before\n");
        let disk = crate::sync::FileView::default();
        fake.server.sync(&b, &b_before, &disk).unwrap();
        std::fs::write(&b, "b after ERR\n").unwrap();
        let files = crate::sync::DryRunFiles::default();
        let view = crate::sync::FileView::dry_run(&files);
        assert!(view.stage(&b, Some("b before\n".into())));
        fake.server.sync(&a, &a_text, &view).unwrap();
        let held = fake.held(&b);
        assert_eq!(
            held.as_deref(),
            Some("b before\n"),
            "the disk's text was told"
        );
        fake.server
            .restore(&b, &Arc::new(LineIndex::new("b after ERR\n")))
            .unwrap();
        fake.stop().await;
    });
}

/// A publish for the version before the change (computed before the
/// server saw it) arrives first; the answer waits for the current
/// version's publish and shows that, not the stale error.
#[test]
fn a_stale_publish_for_the_previous_version_is_not_the_answer() {
    let script = json!({
        "push": "none",
        "rules": [
            { "method": "textDocument/didOpen", "actions": [
                { "publish": { "which": "current", "versioned": true } },
            ] },
            { "method": "textDocument/didChange", "actions": [
                { "publish": { "which": "previous", "versioned": true } },
                { "later": { "ms": 300, "actions": [
                    { "publish": { "which": "current", "versioned": true } },
                ] } },
            ] },
        ],
    });
    runtime().block_on(async {
        let fake = InMemory::start(&FAKE, script).await;
        let (path, broken) = fake.write("a.fake", "ERR\n");
        assert_eq!(fake.errors(&path, &broken).await.len(), 1);
        let (_, fixed) = fake.write("a.fake", "fine\n");
        let errors = fake.errors(&path, &fixed).await;
        assert!(errors.is_empty(), "the stale publish was taken: {errors:?}");
        fake.stop().await;
    });
}

/// Pulled diagnostics: a pull the server cancels (busy) is asked again, and
/// a pull for the same version answered `unchanged` keeps the findings the
/// last full answer had.
#[test]
fn a_cancelled_pull_is_asked_again_and_an_unchanged_one_keeps_its_findings() {
    let script = json!({
        "push": "none",
        "capabilities": { "diagnosticProvider": { "interFileDependencies": false, "workspaceDiagnostics": false } },
        "rules": [
            { "method": "textDocument/diagnostic", "nth": 1, "actions": [
                { "error": { "code": -32802, "message": "server cancelled" } },
            ] },
        ],
    });
    runtime().block_on(async {
        let fake = InMemory::start(&FAKE, script).await;
        let (path, text) = fake.write("a.fake", "ok\nERR\n");
        let first = fake.errors(&path, &text).await;
        assert_eq!(first.len(), 1, "{first:?}");
        let second = fake.errors(&path, &text).await;
        assert_eq!(second, first);
        let pulls = fake.received("textDocument/diagnostic");
        assert_eq!(pulls.len(), 3, "cancelled, full, then unchanged: {pulls:?}");
        assert!(
            pulls[2].contains(r#""previousResultId":"fake-1""#),
            "{}",
            pulls[2]
        );
        fake.stop().await;
    });
}

/// A server whose quirk says it answers empty until its status says it has
/// loaded (rust-analyzer's quiescent `experimental/serverStatus`) is
/// waited for; a server without the quirk is not.
#[test]
fn a_server_that_says_when_it_has_loaded_is_waited_for() {
    let script = json!({
        "rules": [
            { "method": "initialized", "actions": [
                { "later": { "ms": 400, "actions": [
                    { "notify": { "method": "experimental/serverStatus", "params": { "health": "ok", "quiescent": true } } },
                ] } },
            ] },
        ],
    });
    let loading: &'static ServerSpec = Box::leak(Box::new(ServerSpec {
        id: "fake-loading",
        quirks: Quirks {
            readiness: Readiness::AfterQuiescent { answers_while: &[] },
            ..Quirks::NONE
        },
        ..FAKE
    }));
    runtime().block_on(async {
        let fake = InMemory::start(loading, script.clone()).await;
        fake.server.wait_loaded().await.unwrap();
        assert!(
            fake.server.state.with(|s| s.load.loaded),
            "wait_loaded returned before the server said it had loaded"
        );
        fake.stop().await;
        let plain = InMemory::start(&FAKE, script).await;
        plain.server.wait_loaded().await.unwrap();
        assert!(
            !plain.server.state.with(|s| s.load.loaded),
            "a server without the quirk was waited for"
        );
        plain.stop().await;
    });
}
