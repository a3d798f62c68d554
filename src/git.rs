//! What the tool needs to know about the git repository a corpus lives in.
//!
//! Reports for other tools name files relative to the repository root, since that is what
//! GitHub resolves annotation and code-scanning paths against; the corpus root may be a
//! folder inside the repository. A pre-commit run asks which files the index deletes or
//! renames, since a deleted record is passed to no hook, yet breaks every record citing it;
//! what the changed and removed files held at `HEAD`, since a citation they dropped can leave
//! a record uncited; and which files git does not track, since the commit will not hold them.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// What the git index changes against `HEAD`, as absolute paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Staged {
    /// The top of the repository's work tree.
    pub top: PathBuf,
    /// Files the index adds, modifies, copies, or renames to.
    pub changed: Vec<PathBuf>,
    /// Files the index deletes, or renames away.
    pub removed: Vec<PathBuf>,
    /// Of each removed file, its text at `HEAD` (`None` where git could not give it): what
    /// it defined, for the references that named that to be found, and what it cited.
    pub removed_at_head: Vec<Option<Vec<u8>>>,
    /// Of each changed file, its text at `HEAD` (`None` for one `HEAD` lacks: added, or the
    /// new name of a rename, whose old text is the removed name's): what it cited there, as
    /// a record it no longer cites may be left uncited.
    pub changed_at_head: Vec<Option<Vec<u8>>>,
    /// Of the changed files, those the work tree changes again, unstaged: what a check
    /// reads is the work tree, not what the commit will hold. The `pre-commit` tool stashes
    /// such changes before running hooks; a plain git hook does not.
    pub unstaged: Vec<PathBuf>,
    /// Files the index changes whose names are not UTF-8, with each such byte replaced:
    /// no record, page, schema or config, but worth a word when in the corpus.
    pub not_utf8: Vec<PathBuf>,
    /// What the work tree holds that the index does not, so neither will the commit: files,
    /// and folders with nothing tracked in them (ending in `/`), relative to the top. A
    /// record whose `git add` was forgotten, or that git is told to ignore.
    pub untracked: BTreeSet<String>,
}

impl Staged {
    /// Whether the file displayed as `display` in the corpus at `root` is untracked, so not
    /// in the commit. The corpus root's place in the work tree is worked out once.
    pub fn untracked_in(&self, root: &Path) -> impl Fn(&str) -> bool + Sync + '_ {
        let top = crate::write::resolved(&self.top);
        let prefix = crate::write::resolved(root)
            .strip_prefix(&top)
            .map(|inside| crate::source::display_path(Path::new(""), inside))
            .unwrap_or_default();
        let prefix = if prefix.is_empty() {
            prefix
        } else {
            format!("{prefix}/")
        };
        move |display| {
            let path = format!("{prefix}{display}");
            self.untracked.contains(&path)
                || path
                    .match_indices('/')
                    .filter_map(|(at, _)| path.get(..=at))
                    .any(|folder| self.untracked.contains(folder))
        }
    }
}

/// Asks git what the index of the repository around the current folder changes.
///
/// Git runs in the current folder, not in the corpus root: during a commit git hands hooks a
/// `GIT_INDEX_FILE` that may be relative to the work tree's top, which a `git -C <root>`
/// would resolve against the wrong folder. `--no-relative` keeps the listing relative to the
/// top, where it is joined, even with `diff.relative` set and run from a subfolder.
pub fn staged() -> Result<Staged, String> {
    let top = run_git(&["rev-parse", "--show-toplevel"])?;
    let top = String::from_utf8(top)
        .map_err(|_| "the repository's path is not valid UTF-8".to_string())?;
    let top = PathBuf::from(top.trim_end_matches(['\n', '\r']));
    let listing = run_git(&[
        "diff",
        "--cached",
        "--no-relative",
        "--name-status",
        "-M",
        "-z",
    ])?;
    let relative = parse_name_status(&listing);
    let unstaged = run_git(&["diff", "--no-relative", "--name-only", "-z"])?;
    let unstaged: HashSet<&str> = names(&unstaged).filter_map(|p| p.ok()).collect();
    // Ignored files too, as discovery reads files that only `.git/info/exclude` or a global
    // excludes file ignores; `--directory` names an untracked folder once, not its files
    // (a build's thousands). `:/` lists the whole work tree from any subfolder.
    let mut removed_at_head = at_head(relative.removed.iter().chain(&relative.changed))?;
    let changed_at_head = removed_at_head.split_off(relative.removed.len());
    let untracked = run_git(&[
        "ls-files",
        "--others",
        "--directory",
        "--no-empty-directory",
        "--full-name",
        "-z",
        "--",
        ":/",
    ])?;
    Ok(Staged {
        top: top.clone(),
        unstaged: relative
            .changed
            .iter()
            .filter(|p| p.to_str().is_some_and(|p| unstaged.contains(&p)))
            .map(|p| top.join(p))
            .collect(),
        changed: relative.changed.iter().map(|p| top.join(p)).collect(),
        removed: relative.removed.iter().map(|p| top.join(p)).collect(),
        removed_at_head,
        changed_at_head,
        not_utf8: relative.not_utf8.iter().map(|p| top.join(p)).collect(),
        // A name that is not UTF-8 is no record or page, whose names are text.
        untracked: names(&untracked)
            .filter_map(|p| p.ok())
            .map(str::to_string)
            .collect(),
    })
}

/// Runs git in the current folder and returns what it printed, which is bytes: git prints
/// file names as the file system holds them, UTF-8 or not.
fn run_git(args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .args(args)
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// The texts at `HEAD` of `paths`, relative to the top, asked of one `git cat-file --batch`
/// (a process per file would cost a commit changing thousands). A path git does not have,
/// or that holds a line break (the batch's separator), has none.
fn at_head<'p>(paths: impl Iterator<Item = &'p PathBuf>) -> Result<Vec<Option<Vec<u8>>>, String> {
    use std::io::Write;
    use std::process::Stdio;
    let asked: Vec<Option<&str>> = paths
        .map(|p| p.to_str().filter(|p| !p.contains('\n')))
        .collect();
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    let input: String = asked
        .iter()
        .flatten()
        .map(|path| format!("HEAD:{path}\n"))
        .collect();
    let failed = |err: std::io::Error| format!("cannot run git cat-file: {err}");
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(failed)?;
    let mut stdin = child.stdin.take().ok_or("git cat-file took no input")?;
    // Written from another thread: git answers as it reads, and a pipe it cannot write to
    // while this one waits to write would stop both.
    let output = std::thread::scope(|scope| {
        scope.spawn(move || stdin.write_all(input.as_bytes()));
        child.wait_with_output()
    })
    .map_err(failed)?;
    if !output.status.success() {
        return Err(format!(
            "`git cat-file --batch` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let mut answers = parse_batch(&output.stdout).into_iter();
    Ok(asked
        .iter()
        .map(|path| path.as_ref().and_then(|_| answers.next().flatten()))
        .collect())
}

/// Parses `git cat-file --batch`'s answers: `<oid> <type> <size>`, a line break, the
/// contents and a line break, or one line (`<name> missing`) for an object it lacks.
fn parse_batch(mut out: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut answers = Vec::new();
    while let Some(end) = out.iter().position(|&b| b == b'\n') {
        let (header, rest) = out.split_at(end);
        let rest = rest.get(1..).unwrap_or_default();
        let size = std::str::from_utf8(header)
            .ok()
            .map(|h| h.split(' ').collect::<Vec<_>>())
            .filter(|fields| fields.len() == 3 && fields.get(1) == Some(&"blob"))
            .and_then(|fields| fields.get(2)?.parse::<usize>().ok());
        match size.and_then(|size| Some((rest.get(..size)?, rest.get(size + 1..)?))) {
            Some((contents, after)) => {
                answers.push(Some(contents.to_vec()));
                out = after;
            }
            None => {
                answers.push(None);
                out = rest;
            }
        }
    }
    answers
}

/// The NUL-separated fields of a `-z` listing, each as text, or as the bytes it holds when
/// they are not UTF-8.
fn names(listing: &[u8]) -> impl Iterator<Item = Result<&str, &[u8]>> {
    listing
        .split(|&b| b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| std::str::from_utf8(f).map_err(|_| f))
}

/// Parses `git diff --name-status -M -z`: a status, then one path, or two for a rename or
/// copy (`R100 old new`). A path that is not UTF-8 is kept apart: it cannot be a record,
/// prose page, schema or config, whose names are text, yet one in the corpus is said.
fn parse_name_status(listing: &[u8]) -> Staged {
    let mut staged = Staged::default();
    let mut fields = names(listing);
    while let Some(status) = fields.next() {
        let Some(path) = fields.next() else { break };
        match status.unwrap_or_default().as_bytes().first() {
            Some(b'D') => staged.removed.extend(text_path(path, &mut staged.not_utf8)),
            Some(b'R') => {
                staged.removed.extend(text_path(path, &mut staged.not_utf8));
                if let Some(to) = fields.next() {
                    staged.changed.extend(text_path(to, &mut staged.not_utf8));
                }
            }
            Some(b'C') => {
                if let Some(to) = fields.next() {
                    staged.changed.extend(text_path(to, &mut staged.not_utf8));
                }
            }
            _ => staged.changed.extend(text_path(path, &mut staged.not_utf8)),
        }
    }
    staged
}

/// A listed path that is text, or `None` with the path, made text, put in `not_utf8`.
fn text_path(field: Result<&str, &[u8]>, not_utf8: &mut Vec<PathBuf>) -> Option<PathBuf> {
    match field {
        Ok(path) => Some(PathBuf::from(path)),
        Err(bytes) => {
            not_utf8.push(PathBuf::from(String::from_utf8_lossy(bytes).into_owned()));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_status_sorts_deletions_and_renames_from_changes() {
        let listing = b"M\0records/a.yaml\0D\0records/b.yaml\0R097\0records/c.md\0records/d.md\0C100\0x.md\0y.md\0A\0new file.json\0M\0caf\xe9.png\0R100\0caf\xe9.md\0cafe.md\0";
        let staged = parse_name_status(listing);
        let paths = |list: &[PathBuf]| -> Vec<String> {
            list.iter().map(|p| p.display().to_string()).collect()
        };
        assert_eq!(
            paths(&staged.changed),
            [
                "records/a.yaml",
                "records/d.md",
                "y.md",
                "new file.json",
                "cafe.md"
            ]
        );
        assert_eq!(paths(&staged.removed), ["records/b.yaml", "records/c.md"]);
        assert_eq!(
            paths(&staged.not_utf8),
            ["caf\u{FFFD}.png", "caf\u{FFFD}.md"]
        );
    }

    #[test]
    fn untracked_files_and_folders_are_found_from_the_corpus_root() {
        let dir = tempfile::tempdir().unwrap();
        let kb = dir.path().join("kb");
        std::fs::create_dir(&kb).unwrap();
        let staged = Staged {
            top: dir.path().to_path_buf(),
            untracked: ["kb/records/new/".to_string(), "kb/a.yaml".to_string()].into(),
            ..Staged::default()
        };
        let untracked = staged.untracked_in(&kb);
        assert!(untracked("a.yaml"));
        assert!(untracked("records/new/x.yaml"));
        assert!(!untracked("records/newer/x.yaml"));
        assert!(!untracked("b.yaml"));
        let from_top = staged.untracked_in(dir.path());
        assert!(from_top("kb/a.yaml"));
        assert!(!from_top("a.yaml"));
    }

    #[test]
    fn batch_answers_hold_contents_or_nothing() {
        let out = b"abc blob 5\nid: x\nHEAD:gone.yaml missing\nabd blob 0\n\n";
        assert_eq!(
            parse_batch(out),
            [Some(b"id: x".to_vec()), None, Some(Vec::new())]
        );
    }

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
