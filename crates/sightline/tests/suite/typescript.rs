//! typescript-language-server (with the pinned TypeScript 5), for real.

#![allow(clippy::unwrap_used)]

use sightline_test_support::{Project, defs, diags, refs, runtime, workspace};

const LIB: &str = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";

const APP: &str = r#"import { add, add as plus } from "./lib";

// add appears in this comment but is not a reference
const label = "add is only a string here";
const total = add(1, 2);
const 名前 = "🙂 données"; const more = add(3, 4);
console.log(plus(5, 6), label, total, 名前, more);
"#;

const TSCONFIG: &str =
    r#"{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }"#;

fn project() -> Project {
    Project::new(&[
        ("package.json", "{}"),
        ("tsconfig.json", TSCONFIG),
        ("src/lib.ts", LIB),
        ("src/app.ts", APP),
    ])
}

const LIB_DEF: &str =
    "1 definition\nsrc/lib.ts:1:17 export function add(a: number, b: number): number {\n";

#[test]
fn definition_crosses_files_even_through_an_alias_on_a_cold_server() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        // Asked first, before the project has loaded: tsserver would answer
        // with the alias itself if sightline did not wait for the load.
        assert_eq!(defs(&ws, &p.path("src/app.ts"), 7, 13).await, LIB_DEF);
        assert_eq!(defs(&ws, &p.path("src/app.ts"), 5, 15).await, LIB_DEF);
        ws.shutdown().await;
    });
}

#[test]
fn references_cross_files_and_skip_comments_and_strings() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        // lib.ts is the file asked about; app.ts is not open yet.
        assert_eq!(
            refs(&ws, &p.path("src/lib.ts"), 1, 17).await,
            "6 references\n\
             src/app.ts:1:10 import { add, add as plus } from \"./lib\";\n\
             src/app.ts:1:15 import { add, add as plus } from \"./lib\";\n\
             src/app.ts:1:22 import { add, add as plus } from \"./lib\";\n\
             src/app.ts:5:15 const total = add(1, 2);\n\
             src/app.ts:6:38 const 名前 = \"🙂 données\"; const more = add(3, 4);\n\
             src/app.ts:7:13 console.log(plus(5, 6), label, total, 名前, more);\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn columns_count_characters_after_emoji_and_cjk() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        assert_eq!(defs(&ws, &p.path("src/app.ts"), 6, 38).await, LIB_DEF);
        assert_eq!(
            refs(&ws, &p.path("src/app.ts"), 6, 7).await,
            "1 reference\nsrc/app.ts:7:39 console.log(plus(5, 6), label, total, 名前, more);\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn diagnostics_are_fresh_after_edits_on_disk() {
    let p = project();
    p.write("src/broken.ts", "import { add } from \"./lib\";\n\nconst count: string = add(1, 2);\nconsole.log(count, missingName);\n");
    runtime().block_on(async {
        let ws = workspace();
        let file = p.path("src/broken.ts");
        assert_eq!(
            diags(&ws, &file).await,
            "src/broken.ts: 2 diagnostics\n\
             3:7 error: Type 'number' is not assignable to type 'string'. [typescript]\n\
             4:20 error: Cannot find name 'missingName'. [typescript]\n"
        );
        p.write("src/broken.ts", "import { add } from \"./lib\";\n\nconst count: number = add(1, 2);\nconsole.log(count);\n");
        assert_eq!(diags(&ws, &file).await, "src/broken.ts: no diagnostics\n");
        p.write("src/broken.ts", "import { add } from \"./lib\";\n\nconsole.log(add(\"x\", 2));\n");
        assert_eq!(
            diags(&ws, &file).await,
            "src/broken.ts: 1 diagnostic\n3:17 error: Argument of type 'string' is not assignable to parameter of type 'number'. [typescript]\n"
        );
        ws.shutdown().await;
    });
}

#[test]
fn more_than_fifty_references_are_capped() {
    let p = project();
    let calls: String = (0..60).map(|i| format!("add({i}, {i});\n")).collect();
    p.write(
        "src/many.ts",
        &format!("import {{ add }} from \"./lib\";\n{calls}"),
    );
    runtime().block_on(async {
        let ws = workspace();
        let text = refs(&ws, &p.path("src/lib.ts"), 1, 17).await;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "67 references", "{text}");
        assert_eq!(lines.len(), 52, "{text}");
        assert_eq!(lines[51], "... and 17 more");
        ws.shutdown().await;
    });
}

#[test]
fn bad_positions_get_one_error_line() {
    let p = project();
    runtime().block_on(async {
        let ws = workspace();
        let app = p.path("src/app.ts");
        assert_eq!(
            defs(&ws, &app, 1, 7).await,
            "error: line 1 column 7 is on whitespace, not a symbol; symbols on this line start at columns 1 (import), 10 (add), 15 (add), 19 (as), 22 (plus), 29 (from), 37 (lib)\n"
        );
        assert_eq!(defs(&ws, &app, 8, 1).await, format!("error: line 8 is past the end of {} (7 lines)\n", app.display()));
        assert!(ws.servers().pids().is_empty());
        ws.shutdown().await;
    });
}

/// A JavaScript project with no `jsconfig.json`: tsserver sees `lib.js` with
/// only the files open around it, so without sightline opening the files
/// that mention `add` (in groups, within the open document limit) the answer
/// was `no references`. Nine importers take more than one group; the file
/// that only says `add` in a comment and a string is not a reference. The
/// same holds for incoming calls.
#[test]
fn references_of_a_file_outside_every_project_cross_files() {
    let mut files = vec![
        (
            "package.json".to_owned(),
            "{\"type\": \"module\"}".to_owned(),
        ),
        (
            "lib.js".to_owned(),
            "export function add(a, b) {\n  return a + b;\n}\n".to_owned(),
        ),
        (
            "notes.js".to_owned(),
            "// add is mentioned here\nexport const label = \"add\";\n".to_owned(),
        ),
    ];
    for i in 1..=9 {
        files.push((
            format!("use{i}.js"),
            format!("import {{ add }} from \"./lib.js\";\nexport const v{i} = add({i}, 1);\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let p = Project::new(&files);
    runtime().block_on(async {
        let ws = workspace();
        let mut expected = String::from("18 references\n");
        for i in 1..=9 {
            expected.push_str(&format!(
                "use{i}.js:1:10 import {{ add }} from \"./lib.js\";\nuse{i}.js:2:19 export const v{i} = add({i}, 1);\n"
            ));
        }
        assert_eq!(refs(&ws, &p.path("lib.js"), 1, 17).await, expected);
        // Callers in other files are found the same way.
        let calls = ws
            .call_hierarchy(
                &p.path("lib.js"),
                1,
                17,
                sightline::ItemsKind::IncomingCalls,
            )
            .await
            .unwrap();
        let mut expected = String::from("9 incoming calls\n");
        for i in 1..=9 {
            expected.push_str(&format!(
                "use{i}.js:2:19 export const v{i} = add({i}, 1); (in module use{i}.js)\n"
            ));
        }
        assert_eq!(sightline::items_text(&calls), expected);
        ws.shutdown().await;
    });
}
