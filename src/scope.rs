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
//! - every file with a reference that does not resolve (names nothing, a record of another
//!   collection, or several) and names what a removed file defined: one the git index
//!   deletes or renames away (`--staged`), or a named file that no longer exists. A record
//!   file is known by the id (and collection) its text at `HEAD` gives, a prose page by its
//!   stem; a file link by the file's stem, whatever the file;
//! - the `orphan` and `unreferenced` diagnostics of every record that a file the git index
//!   changes or removes cited at `HEAD` (`--staged`), by a reference or a link: the change
//!   may leave that record uncited, which those rules report on it, not on the change. Its
//!   other diagnostics are no concern of the commit, which did not touch it.
//!
//! A named folder puts every file under it in scope, and the corpus root everything, as does
//! a change to a file that decides what is reported anywhere: the config, the baseline, or
//! anything in the schema folder, named, changed or removed. Names that are none of
//! these are not part of the corpus: they are ignored, with a note, because a hook passes
//! every file its pattern matches (a `README.md` too).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;
use crate::discover::file_stem;
use crate::git::Staged;
use crate::index::{Cites, IdIndex, Problem, Resolved, Source, Target, Unresolved};
use crate::links::LinkKind;
use crate::load::Record;
use crate::project::Project;
use crate::report::Summary;

/// What a changed-files run is about.
#[derive(Clone, Copy, Debug)]
pub struct Changes<'a> {
    /// The paths named, as given on the command line.
    pub named: &'a [PathBuf],
    /// The git index's changes, with `--staged`.
    pub staged: Option<&'a Staged>,
    /// The baseline file the report goes through, which decides what is reported anywhere.
    pub baseline: &'a Path,
}

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
    /// Displayed paths of the records that a changed or removed file cited at `HEAD`, whose
    /// diagnostics of the [`CITATION_RULES`] are reported.
    cited_before: BTreeSet<String>,
    /// What people should know about the names given: the ones ignored, and removed files
    /// still present in the working tree.
    pub notes: Vec<String>,
}

impl Scope {
    /// The scope of `changes` in a loaded corpus whose references resolved as `resolved`
    /// says, against `index`.
    // Record, file and collection indices come from the corpus and schemas they index.
    #[allow(clippy::indexing_slicing)]
    pub fn new<F: Cites>(
        project: &Project,
        corpus: &Corpus<F>,
        changes: Changes<'_>,
        resolved: &Resolved,
        index: &IdIndex<'_, F>,
    ) -> Scope {
        let Changes {
            named,
            staged,
            baseline,
        } = changes;
        let root = project
            .root
            .canonicalize()
            .unwrap_or_else(|_| project.root.clone());
        let wide = Wide::new(project, baseline);
        let records =
            crate::source::display_path(&project.root, &project.root.join(&project.config.records));
        let mut scope = Scope::default();
        let mut targets: BTreeSet<usize> = BTreeSet::new();
        let mut removed = Gone::default();
        let changed: Vec<&PathBuf> = named
            .iter()
            .chain(staged.into_iter().flat_map(|s| &s.changed))
            .collect();
        let changed_displays: Vec<Option<String>> = changed
            .iter()
            .map(|path| display_name(&root, path))
            .collect();
        let changed_files = files_named(corpus, &changed_displays);
        // Said of the corpus's files only: a README changed twice is no concern of a check.
        let unstaged: BTreeSet<String> = staged
            .into_iter()
            .flat_map(|s| &s.unstaged)
            .filter_map(|path| display_name(&root, path))
            .collect();
        for ((path, display), file) in changed.iter().zip(&changed_displays).zip(changed_files) {
            if wide.covers(path) {
                scope.all = true;
                continue;
            }
            let Some(display) = display.clone() else {
                scope.ignore_outside(path, &root, &project.root);
                continue;
            };
            if let Some(file) = file {
                if unstaged.contains(&display) {
                    scope.notes.push(format!(
                        "{display} has changes that are not staged: the working tree is checked, not what the commit holds"
                    ));
                }
                targets.insert(file);
            } else if display.is_empty() {
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
                    // Said, as a misspelt name would otherwise check nothing in silence.
                    scope.notes.push(format!(
                        "{display} does not exist: reporting the records that cite `{}`",
                        file_stem(&display)
                    ));
                    removed.add(&display, &AtHead::read(project, &display, None));
                }
            } else {
                scope.ignore(path, &project.root);
                continue;
            }
            scope.named.insert(display.clone());
            scope.files.insert(display);
        }
        // A file the index removes is out of the corpus even when still in the work tree:
        // untracked, the load left it out.
        let mut cited = CitedBefore::default();
        let gone = staged
            .into_iter()
            .flat_map(|s| s.removed.iter().zip(&s.removed_at_head));
        for (path, head) in gone {
            if wide.covers(path) {
                scope.all = true;
            } else if let Some(display) = display_name(&root, path) {
                let before = AtHead::read(project, &display, head.as_deref());
                removed.add(&display, &before);
                cited.add(&root, &display, &before, &project.schemas);
            }
        }
        // With everything in scope, what changed files cited need not be parsed.
        let kept = staged
            .filter(|_| !scope.all)
            .into_iter()
            .flat_map(|s| s.changed.iter().zip(&s.changed_at_head));
        for (path, head) in kept {
            // A file new at `HEAD` cited nothing there.
            let Some(head) = head else { continue };
            if let Some(display) = display_name(&root, path) {
                let before = AtHead::read(project, &display, Some(head));
                cited.add(&root, &display, &before, &project.schemas);
            }
        }
        if !corpus.left_out.is_empty() {
            scope.notes.push(left_out_note(&corpus.left_out));
        }
        // A name that is not UTF-8 is no record, but discovery reports one under the
        // records folder, under the name it displays (each such byte replaced, as here).
        let not_utf8 = staged.into_iter().flat_map(|s| &s.not_utf8);
        scope
            .files
            .extend(not_utf8.filter_map(|path| display_name(&root, path)));
        for &file in &targets {
            scope.files.insert(corpus.files[file].display.clone());
        }
        scope.add_referrers(corpus, resolved, &targets, &removed, &project.schemas);
        if !scope.all {
            scope.cited_before = cited
                .records(corpus, index, &project.schemas)
                .into_iter()
                .map(|record| corpus.file_of(&corpus.records[record]).display.clone())
                .collect();
        }
        scope
    }

    /// Whether diagnostics in the file displayed as `display` are reported.
    pub fn contains(&self, display: &str) -> bool {
        self.all || self.files.contains(display)
    }

    /// The diagnostics in scope: in a file in scope, of a rule that reports a citation
    /// lost on a record the change cited at `HEAD`, or pointing into a named file.
    pub fn select(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|d| {
                self.contains(&d.file)
                    || (CITATION_RULES.contains(&d.code) && self.cited_before.contains(&d.file))
                    || d.labels.iter().any(|l| self.named.contains(&l.file))
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

    /// Ignores a name outside the corpus at `root` (resolved); when it is in another corpus
    /// (a folder holding a config, or under one), says how to check that one instead:
    /// `gotchas check ../other-kb` checks the corpus in the current folder, not that one.
    fn ignore_outside(&mut self, path: &Path, root: &Path, given_root: &Path) {
        let folder = if path.is_dir() {
            Some(path)
        } else {
            path.parent()
        };
        // Resolved, `..` and all: `kb/..` is not inside `kb`, whose config a search
        // upwards from it would find.
        let absolute = folder.map(crate::write::resolved);
        match absolute.as_deref().and_then(crate::config::find_root) {
            Some(other) if other != root && path.exists() => self.notes.push(format!(
                "ignoring {}: outside this corpus, in the one at {}, which `--root {}` checks",
                path.display(),
                other.display(),
                other.display()
            )),
            _ => self.ignore(path, given_root),
        }
    }

    /// Ignores a name that is no file of the corpus. One that does not exist is said to,
    /// and when it names a file from the corpus root instead, that one is named: names are
    /// taken from the current folder, as cargo and ruff take them, even with `--root`.
    fn ignore(&mut self, path: &Path, root: &Path) {
        let note = if path.exists() {
            format!(
                "ignoring {}: not a record, prose page, schema or config of the corpus",
                path.display()
            )
        } else if path.is_relative() && root.join(path).exists() {
            format!(
                "ignoring {}: it does not exist here (a name is taken from the current folder, not from `--root`); {} does",
                path.display(),
                root.join(path).display()
            )
        } else {
            format!("ignoring {}: it does not exist", path.display())
        };
        self.notes.push(note);
    }

    /// Adds the files citing a record or page of `targets`, or what a removed file defined.
    // Record, doc, file and collection indices come from the corpus and schemas they index.
    #[allow(clippy::indexing_slicing)]
    fn add_referrers<F>(
        &mut self,
        corpus: &Corpus<F>,
        resolved: &Resolved,
        targets: &BTreeSet<usize>,
        removed: &Gone,
        schemas: &crate::schema::Schemas,
    ) {
        if targets.is_empty() && removed.is_empty() {
            return;
        }
        // Every resolved reference is tested, a million at 100,000 records: against a flag
        // per record and page, read where the reference names it, rather than a search of
        // the targets through the record, which lies elsewhere in memory.
        let mut targeted = vec![false; corpus.files.len()];
        for &file in targets {
            targeted[file] = true;
        }
        let record_targeted: Vec<bool> = corpus.records.iter().map(|r| targeted[r.file]).collect();
        let doc_targeted: Vec<bool> = corpus.docs.iter().map(|d| targeted[d.file]).collect();
        let defined_in_targets = |target: &Target| match *target {
            Target::Record(record) => record_targeted[record],
            Target::Doc(doc) => doc_targeted[doc],
            Target::File => false,
        };
        let mut referrers: Vec<usize> = resolved
            .edges
            .iter()
            .filter(|edge| defined_in_targets(&edge.target))
            .map(|edge| edge.source.file(corpus))
            .collect();
        for reference in &resolved.unresolved {
            let cites = removed.named_by(reference, schemas)
                || match &reference.problem {
                    Problem::Unresolved => false,
                    Problem::WrongTarget(records) | Problem::Ambiguous(records) => {
                        records.iter().any(|&r| record_targeted[r])
                    }
                    Problem::AmbiguousPage(docs) => docs.iter().any(|&d| doc_targeted[d]),
                };
            if cites {
                referrers.push(reference.source.file(corpus));
            }
        }
        for file in referrers {
            self.files.insert(corpus.files[file].display.clone());
        }
    }
}

/// The most untracked files a note names; the rest are counted.
const LEFT_OUT_NAMED: usize = 5;

/// Says which files the check left out as untracked: a commit citing a record whose
/// `git add` was forgotten fails here for a reason the work tree does not show.
fn left_out_note(left_out: &[String]) -> String {
    let mut named = left_out
        .iter()
        .take(LEFT_OUT_NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if left_out.len() > LEFT_OUT_NAMED {
        named.push_str(&format!(" and {} more", left_out.len() - LEFT_OUT_NAMED));
    }
    let (count, them) = match left_out.len() {
        1 => ("a file".to_string(), "it"),
        n => (format!("{n} files"), "them"),
    };
    format!(
        "left out {count} that git does not track, as the commit would not hold {them}: {named} (`git add` what belongs to the commit)"
    )
}

/// The corpus file displayed as each of `displays`, if one is. One pass over the corpus's
/// paths, each looked for among the displays sorted: a commit names a few files and at most
/// thousands, where a map of every path cost 8 ms at 100,000 files however few were named,
/// and a search of every path for each name 34 µs a name.
// File indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
fn files_named<F>(corpus: &Corpus<F>, displays: &[Option<String>]) -> Vec<Option<usize>> {
    let mut sought: Vec<(&str, usize)> = displays
        .iter()
        .enumerate()
        .filter_map(|(at, display)| Some((display.as_deref()?, at)))
        .collect();
    sought.sort_unstable();
    let mut found = vec![None; displays.len()];
    for (file, f) in corpus.files.iter().enumerate() {
        let display = f.display.as_str();
        let first = sought.partition_point(|&(name, _)| name < display);
        for &(_, at) in sought[first..]
            .iter()
            .take_while(|(name, _)| *name == display)
        {
            found[at] = Some(file);
        }
    }
    found
}

/// What removed files defined, for the references that named it to be found.
#[derive(Debug, Default)]
struct Gone {
    /// Removed records: collection and id.
    records: Vec<(usize, String)>,
    /// Removed prose pages' stems, as wiki-links name them.
    pages: BTreeSet<String>,
    /// Every removed file's stem, as a file link names it.
    stems: BTreeSet<String>,
}

impl Gone {
    /// Adds the file displayed as `display`, `before` as it was at `HEAD`. A record's id is
    /// the one its text gave there, else its stem, as loading names it; a file that is
    /// neither record nor page is only a file links may name.
    fn add(&mut self, display: &str, before: &AtHead) {
        let stem = file_stem(display);
        self.stems.insert(stem.to_string());
        match before {
            AtHead::Record { collection, record } => {
                let id = record.as_ref().map_or(stem, |record| record.id.as_str());
                self.records.push((*collection, id.to_string()));
            }
            AtHead::Page(_) => {
                self.pages.insert(stem.to_string());
            }
            AtHead::Other => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.stems.is_empty()
    }

    /// Whether `reference` names what a removed file defined: a file link the file's stem;
    /// an id, bare or qualified (`engines/nixl`), a removed record's; a wiki-link's bare
    /// target a removed page's stem too.
    fn named_by(&self, reference: &Unresolved, schemas: &crate::schema::Schemas) -> bool {
        let text = reference.text.as_str();
        if let Source::Link {
            kind: LinkKind::File,
            ..
        }
        | Source::FieldLink {
            kind: LinkKind::File,
            ..
        } = reference.source
        {
            return self.stems.contains(file_stem(text));
        }
        match text.split_once('/') {
            Some((folder, id)) => {
                let collection = schemas.by_folder(folder);
                self.records
                    .iter()
                    .any(|(c, gone)| Some(*c) == collection && gone == id)
            }
            None => self.pages.contains(text) || self.records.iter().any(|(_, gone)| gone == text),
        }
    }
}

/// The rules that report a record no longer cited: what a change that removes a citation
/// can break in the record it cited. Not `cycle`, as removing a citation closes no loop.
const CITATION_RULES: [&str; 2] = [crate::rules::ORPHAN, crate::rules::UNREFERENCED];

/// A file of the corpus as it was at `HEAD`, read as loading reads it.
enum AtHead {
    /// A record file, of the collection at `collection`, with the record its text held
    /// when that was had and parsed.
    Record {
        collection: usize,
        record: Option<Record>,
    },
    /// A prose page, with its text when that was had and is UTF-8.
    Page(Option<String>),
    /// Neither.
    Other,
}

impl AtHead {
    /// The file displayed as `display`, whose text was `head` at `HEAD` if known.
    // Collection indices come from the schemas.
    #[allow(clippy::indexing_slicing)]
    fn read(project: &Project, display: &str, head: Option<&[u8]>) -> AtHead {
        let path = project.root.join(display);
        let records = &project.config.records;
        if let Some(candidate) =
            crate::discover::candidate(&project.root, records, &path, &project.schemas)
        {
            let context = crate::load::LoadContext {
                text_fields: &project.schemas.collections[candidate.collection].text_fields,
                max_file_size: project.config.max_file_size,
            };
            let record = head.and_then(|bytes| {
                let loaded = crate::load::load_bytes(
                    &path,
                    display.to_string(),
                    bytes.to_vec(),
                    candidate.format,
                    &context,
                );
                // The file index is the corpus's, which a file gone from it has none of;
                // nothing read here looks at it.
                let record =
                    Record::new(loaded.record?, candidate.collection, file_stem(display), 0);
                Some(record)
            });
            AtHead::Record {
                collection: candidate.collection,
                record,
            }
        } else if project.config.is_docs_path(display) {
            let text = head.and_then(|bytes| String::from_utf8(bytes.to_vec()).ok());
            AtHead::Page(text)
        } else {
            AtHead::Other
        }
    }
}

/// What changed and removed files cited at `HEAD`, as written, for the records it names in
/// the corpus now to be found: those a change may have left uncited.
#[derive(Debug, Default)]
struct CitedBefore {
    /// Ids of reference fields, with the collections each field allows.
    ids: Vec<(String, &'static [usize])>,
    /// Wiki-links' targets.
    wiki: Vec<String>,
    /// Displayed paths that file links named; `None` outside the corpus.
    files: Vec<Option<String>>,
}

impl CitedBefore {
    /// Adds what the file displayed as `display` cited, `before` as it was at `HEAD`, in
    /// the corpus at the canonical `root`: a record's references and links, found as a
    /// check finds them, or a page's links.
    fn add(
        &mut self,
        root: &Path,
        display: &str,
        before: &AtHead,
        schemas: &crate::schema::Schemas,
    ) {
        let mut link = |kind: LinkKind, target: String| match kind {
            LinkKind::Wiki => self.wiki.push(target),
            LinkKind::File => {
                let path = crate::index::linked_path(&root.join(display), &target);
                self.files.push(display_name(root, &path));
            }
        };
        match before {
            AtHead::Record {
                record: Some(record),
                ..
            } => {
                for written in Value::written(record, 0, schemas).into_owned() {
                    match written.source {
                        Source::Field { .. } => self.ids.push((written.text, written.allowed)),
                        Source::FieldLink { kind, .. } | Source::Link { kind, .. } => {
                            link(kind, written.text);
                        }
                    }
                }
            }
            AtHead::Page(Some(text)) => {
                for found in crate::links::extract(text, &(0..text.len())) {
                    link(found.kind, found.target);
                }
            }
            AtHead::Record { record: None, .. } | AtHead::Page(None) | AtHead::Other => {}
        }
    }

    /// The records of `corpus` that what was cited names now, resolved as a check resolves
    /// it: a bare wiki-link names a page of its stem before any record.
    fn records<F: Cites>(
        self,
        corpus: &Corpus<F>,
        index: &IdIndex<'_, F>,
        schemas: &crate::schema::Schemas,
    ) -> BTreeSet<usize> {
        let mut records: BTreeSet<usize> = self
            .ids
            .iter()
            .filter_map(|(id, allowed)| index.resolve(id, allowed).ok())
            .collect();
        let all = schemas.every_collection();
        records.extend(self.wiki.iter().filter_map(
            |target| match index.resolve_wiki(target, all) {
                Ok(crate::index::Target::Record(record)) => Some(record),
                _ => None,
            },
        ));
        let files = files_named(corpus, &self.files).into_iter().flatten();
        records.extend(files.filter_map(|file| corpus.record_of_file(file)));
        records
    }
}

/// The files whose change can change what is reported anywhere: the config, the baseline,
/// and everything in the schema folder (a collection schema's change can rename its
/// collection's folder, and a shared document that schemas `$ref` is no collection's).
/// Kept resolved, as any of them may lie outside the corpus root.
struct Wide {
    config: PathBuf,
    baseline: PathBuf,
    schemas: PathBuf,
}

impl Wide {
    fn new(project: &Project, baseline: &Path) -> Wide {
        let resolved = crate::write::resolved;
        Wide {
            config: resolved(&project.config.path(&project.root)),
            baseline: resolved(baseline),
            schemas: resolved(&project.root.join(&project.config.schemas)),
        }
    }

    /// Whether a change to `path`, changed or removed, puts everything in scope.
    fn covers(&self, path: &Path) -> bool {
        let path = crate::write::resolved(path);
        path == self.config || path == self.baseline || path.starts_with(&self.schemas)
    }
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
