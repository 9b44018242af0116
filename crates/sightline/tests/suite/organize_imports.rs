//! `organize_imports` does what its description says on TypeScript: the
//! unused import goes (typescript-language-server's
//! `source.removeUnusedImports.ts`), and the rest are sorted.

#![allow(clippy::unwrap_used)]

use sightline_test_support::{Project, require, run_cli};

#[test]
fn typescript_organize_imports_removes_an_unused_import_and_sorts_the_rest() {
    require("typescript-language-server");
    let p = Project::new(&[
        ("package.json", "{\"name\": \"oi\", \"private\": true}"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}"),
        (
            "u.ts",
            "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n",
        ),
        (
            "m.ts",
            "import { c, b, a } from \"./u\";\n\nexport const total = a + c;\n",
        ),
    ]);
    let m = p.path("m.ts").display().to_string();

    let (preview, code) = run_cli(&["organize-imports", &m, "--dry-run"], &[]);
    assert_eq!(code, 0, "{preview}");
    assert!(
        preview.contains("+ import { a, c } from \"./u\";")
            || preview.contains("+ import { c, a } from \"./u\";"),
        "{preview}"
    );
    assert_eq!(
        std::fs::read_to_string(p.path("m.ts")).unwrap(),
        "import { c, b, a } from \"./u\";\n\nexport const total = a + c;\n",
        "a preview changes nothing"
    );

    let (applied, code) = run_cli(&["organize-imports", &m], &[]);
    assert_eq!(code, 0, "{applied}");
    assert_eq!(
        std::fs::read_to_string(p.path("m.ts")).unwrap(),
        "import { a, c } from \"./u\";\n\nexport const total = a + c;\n",
        "{applied}"
    );
}
