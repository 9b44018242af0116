//! The `sightline` binary: everything it does is the library's
//! (`sightline::run_binary`), so that the crate's one API list covers it.

fn main() {
    sightline::run_binary();
}
