//! What the library's own tests share.

/// A temporary folder holding `files`, each a path in it and the text to write there, with
/// the folders they need.
// A test's own setup: a failure to write it is the test failing.
#[allow(clippy::unwrap_used)]
pub fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}
