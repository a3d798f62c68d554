//! Changed-files mode: which diagnostics a run about some files reports.
//!
//! A pre-commit hook passes the files a commit changes, and must be quick, but checking only
//! those files would miss what the change breaks elsewhere: a record whose reference named an
//! id the change renamed or deleted. So the whole corpus is still loaded and checked (loading
//! is what references resolve against), and the report is narrowed afterwards to:
//!
//! - the named files themselves;
//! - every file whose references or links resolve to a record or page defined in a named file
//!   (or would, but for an ambiguity or a wrong collection);
//! - every file with a reference that no longer resolves because it names the stem of a
//!   removed file: one the git index deletes or renames away (`--staged`), or a named file
//!   that no longer exists. Ids are file stems (`id-mismatch` enforces it), so the stem is
//!   the id that went away.
//!
//! A named folder puts every file under it in scope, a named schema every record of its
//! collection, and the corpus root or the config file everything. Names that are none of
//! these are not part of the corpus: they are ignored, with a note, because a hook passes
//! every file its pattern matches (a `README.md` too).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;
use crate::discover::file_stem;
use crate::git::Staged;
use crate::index::{Cites, IdIndex, Problem, Source, Target, Unresolved};
use crate::links::LinkKind;
use crate::project::Project;
use crate::report::Summary;

/// The files a changed-files run reports on.
#[derive(Debug, Default)]
pub struct Scope {
    /// Everything is in scope (the config file was named).
    all: bool,
    /// Displayed paths whose diagnostics are reported.
    files: BTreeSet<String>,
    /// Displayed paths named (or staged): a diagnostic elsewhere that points into one of
    /// them (`duplicate-id`'s "first used here") is reported too.
    named: BTreeSet<String>,
    /// What people should know about the names given: the ones ignored, and removed files
    /// still present in the working tree.
    pub notes: Vec<String>,
}

impl Scope {
    /// The scope of `named` paths (as given on the command line) and, with `--staged`, of the
    /// git index's changes, in a loaded corpus.
    // Record, file and collection indices come from the corpus and schemas they index.
    #[allow(clippy::indexing_slicing)]
    pub fn new<F: Cites>(
        project: &Project,
        corpus: &Corpus<F>,
        named: &[PathBuf],
        staged: Option<&Staged>,
    ) -> Scope {
        let root = project
            .root
            .canonicalize()
            .unwrap_or_else(|_| project.root.clone());
        let records =
            crate::source::display_path(&project.root, &project.root.join(&project.config.records));
        let mut scope = Scope::default();
        let mut targets: BTreeSet<usize> = BTreeSet::new();
        let mut removed: BTreeSet<String> = BTreeSet::new();
        let changed = named
            .iter()
            .chain(staged.into_iter().flat_map(|s| &s.changed));
        for path in changed {
            let Some(display) = display_name(&root, path) else {
                scope.ignore(path);
                continue;
            };
            if let Some(file) = corpus.files.iter().position(|f| f.display == display) {
                targets.insert(file);
            } else if let Some(collection) = project
                .schemas
                .collections
                .iter()
                .position(|c| c.schema_display == display)
            {
                let members = corpus.file_collections.iter().enumerate();
                targets.extend(
                    members
                        .filter(|(_, c)| **c == Some(collection))
                        .map(|(file, _)| file),
                );
            } else if display.is_empty() || is_config(project, &root, &display) {
                scope.all = true;
            } else if root.join(&display).is_dir() {
                let inside = format!("{display}/");
                let members = corpus.files.iter().enumerate();
                targets.extend(
                    members
                        .filter(|(_, f)| f.display.starts_with(&inside))
                        .map(|(file, _)| file),
                );
            } else if display.starts_with(&format!("{records}/")) {
                if !root.join(&display).exists() {
                    removed.insert(display.clone());
                }
            } else {
                scope.ignore(path);
                continue;
            }
            scope.named.insert(display.clone());
            scope.files.insert(display);
        }
        for path in staged.into_iter().flat_map(|s| &s.removed) {
            let Some(display) = display_name(&root, path) else {
                continue;
            };
            match corpus.files.iter().position(|f| f.display == display) {
                Some(file) => {
                    scope.notes.push(format!(
                        "{display} is removed from the git index but still in the working tree: records citing it are checked against the working tree"
                    ));
                    targets.insert(file);
                }
                None => {
                    removed.insert(display);
                }
            }
        }
        for &file in &targets {
            scope.files.insert(corpus.files[file].display.clone());
        }
        scope.add_referrers(project, corpus, &targets, &removed);
        scope
    }

    /// Whether diagnostics in the file displayed as `display` are reported.
    pub fn contains(&self, display: &str) -> bool {
        self.all || self.files.contains(display)
    }

    /// The diagnostics in scope: in a file in scope, or pointing into a named file.
    pub fn select(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|d| {
                self.contains(&d.file) || d.labels.iter().any(|l| self.named.contains(&l.file))
            })
            .collect()
    }

    /// A summary that counts the files and records in scope, not the whole corpus.
    pub fn narrow<F>(&self, summary: Summary, corpus: &Corpus<F>) -> Summary {
        Summary {
            files: corpus
                .files
                .iter()
                .filter(|f| self.contains(&f.display))
                .count(),
            records: corpus
                .records
                .iter()
                .filter(|r| self.contains(&corpus.file_of(r).display))
                .count(),
            ..summary
        }
    }

    fn ignore(&mut self, path: &Path) {
        self.notes.push(format!(
            "ignoring {}: not a record, prose page, schema or config of the corpus",
            path.display()
        ));
    }

    /// Adds the files citing a record or page of `targets`, or a removed file's stem.
    // Record, doc, file and collection indices come from the corpus and schemas they index.
    #[allow(clippy::indexing_slicing)]
    fn add_referrers<F: Cites>(
        &mut self,
        project: &Project,
        corpus: &Corpus<F>,
        targets: &BTreeSet<usize>,
        removed: &BTreeSet<String>,
    ) {
        if targets.is_empty() && removed.is_empty() {
            return;
        }
        let removed_stems: BTreeSet<&str> = removed.iter().map(|d| file_stem(d)).collect();
        let index = IdIndex::new(corpus, &project.schemas);
        let resolved = index.resolve_all();
        let defined_in_targets = |target: &Target| match *target {
            Target::Record(record) => targets.contains(&corpus.records[record].file),
            Target::Doc(doc) => targets.contains(&corpus.docs[doc].file),
            Target::File => false,
        };
        let mut referrers: Vec<usize> = resolved
            .edges
            .iter()
            .filter(|edge| defined_in_targets(&edge.target))
            .map(|edge| source_file(corpus, &edge.source))
            .collect();
        for reference in &resolved.unresolved {
            let cites = match &reference.problem {
                Problem::Unresolved => removed_stems.contains(cited_stem(reference)),
                Problem::WrongTarget(records) | Problem::Ambiguous(records) => records
                    .iter()
                    .any(|&r| targets.contains(&corpus.records[r].file)),
            };
            if cites {
                referrers.push(source_file(corpus, &reference.source));
            }
        }
        for file in referrers {
            self.files.insert(corpus.files[file].display.clone());
        }
    }
}

/// The file a reference is written in.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn source_file<F>(corpus: &Corpus<F>, source: &Source) -> usize {
    match source {
        Source::Field { record, .. } | Source::FieldLink { record, .. } => {
            corpus.records[*record].file
        }
        Source::Link { file, .. } => *file,
    }
}

/// The file stem a reference names: the id of `engines/nixl` or `nixl`, the file stem of a
/// Markdown link to `../docs/guide.md`.
fn cited_stem(reference: &Unresolved) -> &str {
    let text = reference.text.as_str();
    match reference.source {
        Source::Link {
            kind: LinkKind::File,
            ..
        }
        | Source::FieldLink {
            kind: LinkKind::File,
            ..
        } => file_stem(text),
        _ => text.rsplit('/').next().unwrap_or(text),
    }
}

fn is_config(project: &Project, root: &Path, display: &str) -> bool {
    let config = project
        .config
        .file
        .clone()
        .unwrap_or_else(|| project.root.join(crate::config::FILE_NAME));
    display_name(root, &config).is_some_and(|c| c == display)
}

/// A path as the corpus displays it (relative to the canonical `root`, `/`-separated; empty
/// for the root itself), or `None` outside the root. Symbolic links are resolved as far as
/// the path exists, so a deleted file is still found under a root reached through a link.
fn display_name(root: &Path, path: &Path) -> Option<String> {
    let absolute = std::path::absolute(path).ok()?;
    let mut existing = absolute.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let resolved = loop {
        if let Ok(real) = existing.canonicalize() {
            break rest.iter().rev().fold(real, |path, part| path.join(part));
        }
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    };
    let relative = resolved.strip_prefix(root).ok()?;
    Some(crate::source::display_path(Path::new(""), relative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_resolve_links_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("kb");
        std::fs::create_dir_all(root.join("records/engines")).unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(
            display_name(&root, &root.join("records/engines/gone.yaml")),
            Some("records/engines/gone.yaml".to_string())
        );
        assert_eq!(
            display_name(&root, &root.join("records/removed-folder/gone.yaml")),
            Some("records/removed-folder/gone.yaml".to_string())
        );
        assert_eq!(display_name(&root, &root), Some(String::new()));
        assert_eq!(display_name(&root, dir.path()), None);
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&root, &link).unwrap();
            assert_eq!(
                display_name(&root, &link.join("records/engines/gone.yaml")),
                Some("records/engines/gone.yaml".to_string())
            );
        }
    }
}
