//! What the tool needs to know about the git repository a corpus lives in.
//!
//! Reports for other tools name files relative to the repository root, since that is what
//! GitHub resolves annotation and code-scanning paths against; the corpus root may be a
//! folder inside the repository.

use std::path::Path;

/// The corpus root's folder inside its git work tree, with a trailing `/` (`kb/`), or empty
/// when the root is the work tree's top or is in no work tree.
///
/// Found by looking for `.git` (a folder, or a file in linked work trees and submodules) in
/// the root and its ancestors, so no `git` process is started for every report.
pub fn worktree_prefix(root: &Path) -> String {
    let Ok(root) = root.canonicalize() else {
        return String::new();
    };
    let Some(top) = root.ancestors().find(|dir| dir.join(".git").exists()) else {
        return String::new();
    };
    let relative = crate::source::display_path(top, &root);
    if relative.is_empty() {
        relative
    } else {
        format!("{relative}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_is_the_root_inside_the_work_tree() {
        let dir = tempfile::tempdir().unwrap();
        let kb = dir.path().join("docs/kb");
        std::fs::create_dir_all(&kb).unwrap();
        assert_eq!(worktree_prefix(&kb), "", "no work tree, no prefix");
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(worktree_prefix(&kb), "docs/kb/");
        assert_eq!(worktree_prefix(dir.path()), "");
    }
}
