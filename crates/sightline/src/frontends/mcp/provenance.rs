//! Where a structured answer came from: the servers that answer for the
//! files it read (the name and version each gave in `initialize`), and the
//! SHA-256 of each of those files as it is on disk when the answer is
//! given, so that a client can tell whether a file it holds is the one the
//! answer speaks of.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::engine::Engine;

/// At most this many files are named (and hashed) for one answer.
const MOST_FILES: usize = 100;
/// A file larger than this is named without a hash.
const LARGEST: u64 = 16 << 20;
/// At most this many bytes are hashed for one answer; the files past it
/// are named without a hash.
const MOST_BYTES: u64 = 64 << 20;

/// The files an answer read: the one asked about, then every absolute
/// path the answer's values name under `file`, in order, at most
/// [`MOST_FILES`].
fn files_read(asked: Option<&Path>, answer: Option<&Value>) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut add = |p: &Path| {
        if p.is_absolute() && out.len() < MOST_FILES && seen.insert(p.to_owned()) {
            out.push(p.to_owned());
        }
    };
    if let Some(a) = asked {
        add(a);
    }
    let mut stack: Vec<&Value> = answer.into_iter().collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(f)) = o.get("file") {
                    add(Path::new(f));
                }
                // In the order they are listed: the stack takes them last
                // first.
                stack.extend(o.values().rev());
            }
            Value::Array(a) => stack.extend(a.iter().rev()),
            _ => {}
        }
    }
    out
}

/// The SHA-256 of `path`'s bytes now, in hex; `None` for a file that is
/// gone, not a regular file, or larger than [`LARGEST`].
fn sha256(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > LARGEST {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(LARGEST)
        .read_to_end(&mut bytes)
        .ok()?;
    let digest = Sha256::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// `servers` and `files` of a structured answer about `asked` whose values
/// are `answer`. The files are read and hashed on the blocking pool: the
/// daemon's runtime serves every session.
pub(super) async fn provenance(
    engine: &Engine,
    asked: Option<&Path>,
    answer: Option<&Value>,
) -> (Value, Value) {
    let files = files_read(asked, answer);
    let mut servers: Vec<Value> = Vec::new();
    for f in &files {
        for s in engine.servers_of(f) {
            let entry = json!({
                "id": s.spec.id,
                "name": s.info.name,
                "version": s.info.version,
                "root": s.root,
            });
            if !servers.contains(&entry) {
                servers.push(entry);
            }
        }
    }
    let hashed = tokio::task::spawn_blocking(move || {
        let mut budget = MOST_BYTES;
        files
            .iter()
            .map(|f| {
                let size = std::fs::metadata(f).map_or(0, |m| m.len());
                let hash = (size <= budget).then(|| sha256(f)).flatten();
                budget = budget.saturating_sub(size);
                json!({ "file": f, "sha256": hash })
            })
            .collect()
    })
    .await
    .unwrap_or_default();
    (Value::Array(servers), Value::Array(hashed))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_files_read_are_the_asked_one_then_each_place_once_in_order() {
        let answer = json!({ "locations": [
            { "file": "/p/b.py", "line": 1 },
            { "file": "/p/a.py", "line": 2 },
            { "file": "/p/b.py", "line": 3 },
            { "file": "relative.py" },
        ], "file": "/p/c.py" });
        let files = files_read(Some(Path::new("/p/a.py")), Some(&answer));
        let names: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
        assert_eq!(names, ["/p/a.py", "/p/c.py", "/p/b.py"]);
    }

    #[test]
    fn a_hash_is_of_the_bytes_on_disk_and_none_for_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.py");
        std::fs::write(&f, "abc").unwrap();
        assert_eq!(
            sha256(&f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256(dir.path()), None);
        assert_eq!(sha256(&dir.path().join("gone")), None);
    }
}
