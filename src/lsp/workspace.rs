//! The server's in-memory workspace: the corpus, loaded once, kept up to date one file at a
//! time.
//!
//! An edit re-parses only the edited file (from the editor's buffer, never from disk) and
//! reruns only its own record rules; every other file's record-rule findings and the
//! references written in it (finding them means parsing Markdown) are kept from before. What
//! crosses files is redone only as far as the edit reaches: while no record id changes, only
//! the edited file's references are resolved again and diagnosed, duplicate ids cannot
//! change, and the graph rules rerun only when the edited file's edges (or whether it has a
//! broken reference) changed. An id change, a new or deleted file redo it all from the kept
//! parts. The result is the same set of diagnostics as `gotchas check` on the files as the
//! editor has them (the tests compare the two after every kind of edit); the files whose
//! diagnostics changed are handed back to be published.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::check;
use crate::corpus::{Corpus, RecordChange};
use crate::diagnostic::Diagnostic;
use crate::discover;
use crate::index::{self, Edge, Edges, IdIndex, Resolved, Source, Target, Unresolved, Written};
use crate::load;
use crate::lsp::convert;
use crate::project::{Project, locate};
use crate::source::Format;
use crate::sourcemap::SourceMap;

/// The corpus and everything kept between edits.
pub struct Workspace {
    /// The corpus root, config and schemas.
    pub project: Project,
    /// Every file, with the open documents' text as the editor has it.
    pub corpus: Corpus,
    /// Per file (parallel to the corpus's files): the record rules' findings.
    own: Vec<Vec<Diagnostic>>,
    /// Per file: the references written in it.
    written: Vec<Vec<Written>>,
    /// Per file: its references, resolved.
    chunks: Vec<Resolved>,
    /// Per file: the diagnostics of its references that did not resolve.
    refs: Vec<Vec<Diagnostic>>,
    /// `duplicate-id` findings.
    duplicates: Vec<Diagnostic>,
    /// `(record, first)` for every record whose id an earlier record has
    /// ([`IdIndex::duplicates`]), which the graph rules leave out of the graph. Kept from the
    /// last refresh where ids changed, as it changes only then.
    repeated_ids: Vec<(usize, usize)>,
    /// The graph rules' findings.
    graph: Vec<Diagnostic>,
    /// `broken-anchor`'s findings, and what finding them again at an edit takes: an edit
    /// of a file that links to no page with a fragment needs no id index for them.
    kept_fragments: check::KeptFragments,
    /// Files edited since the last refresh.
    edited: BTreeSet<usize>,
    /// Whether a record id (or the set of files) changed since the last refresh: then every
    /// reference is resolved again.
    ids_changed: bool,
    by_path: HashMap<PathBuf, usize>,
    by_display: HashMap<String, usize>,
    /// Open documents and their versions.
    versions: HashMap<PathBuf, i32>,
    /// Open documents whose buffer starts with a byte-order mark, which the corpus's text
    /// leaves out and the protocol's positions count (see [`convert::Buffer`]).
    marked: HashSet<PathBuf>,
    /// Per displayed file: the diagnostics last published, located.
    published: BTreeMap<String, Vec<Diagnostic>>,
    /// The same, before locating: compared to tell which files changed.
    unlocated: BTreeMap<String, Vec<Diagnostic>>,
    /// Files whose text changed since the last refresh: positions may have moved even when
    /// the findings did not.
    touched: BTreeSet<String>,
    stale: bool,
    /// Files created or opened after loading that loading the corpus again did not take in
    /// (hidden, ignored by git, or not on disk), and whether each was on disk then: see
    /// [`Workspace::rediscover`].
    passed_over: HashMap<PathBuf, bool>,
}

/// Diagnostics to publish for one file.
pub struct Publish {
    /// The file.
    pub path: PathBuf,
    /// Its diagnostics, located, in position order; empty to clear.
    pub diagnostics: Vec<Diagnostic>,
    /// The open document's version the diagnostics are for.
    pub version: Option<i32>,
}

// The per-file vectors have one entry per corpus file; indices come from the corpus.
#[allow(clippy::indexing_slicing)]
impl Workspace {
    /// Loads the corpus and runs the per-file stages once, in parallel.
    pub fn new(project: Project) -> Workspace {
        let mut workspace = Workspace {
            project,
            corpus: Corpus::default(),
            own: Vec::new(),
            written: Vec::new(),
            chunks: Vec::new(),
            refs: Vec::new(),
            duplicates: Vec::new(),
            repeated_ids: Vec::new(),
            graph: Vec::new(),
            kept_fragments: check::KeptFragments::default(),
            edited: BTreeSet::new(),
            ids_changed: true,
            by_path: HashMap::new(),
            by_display: HashMap::new(),
            versions: HashMap::new(),
            marked: HashSet::new(),
            published: BTreeMap::new(),
            unlocated: BTreeMap::new(),
            touched: BTreeSet::new(),
            stale: true,
            passed_over: HashMap::new(),
        };
        workspace.load();
        workspace
    }

    /// Loads the corpus from disk and runs the per-file stages once, in parallel. What was
    /// kept of an earlier corpus goes; what was published stays, for the next refresh to
    /// compare against, so that a diagnostic the new corpus does away with is cleared.
    fn load(&mut self) {
        let corpus = self.project.load();
        let schemas = &self.project.schemas;
        let mut own: Vec<Vec<Diagnostic>> = vec![Vec::new(); corpus.files.len()];
        let mut written: Vec<Vec<Written>> = vec![Vec::new(); corpus.files.len()];
        let per_record: Vec<(usize, Vec<Diagnostic>, Vec<Written>)> = (0..corpus.records.len())
            .into_par_iter()
            .map(|r| {
                let record = &corpus.records[r];
                (
                    record.file,
                    check::check_record(&corpus, record, schemas),
                    index::written_in_record(&corpus, schemas, r),
                )
            })
            .collect();
        for (file, diagnostics, references) in per_record {
            own[file] = diagnostics;
            written[file] = references;
        }
        for (doc, entry) in corpus.docs.iter().enumerate() {
            written[entry.file] = index::written_in_doc(&corpus, schemas, doc);
        }
        let files = corpus.files.len();
        self.corpus = corpus;
        self.own = own;
        self.written = written;
        self.chunks = vec![Resolved::default(); files];
        self.refs = vec![Vec::new(); files];
        self.duplicates.clear();
        self.repeated_ids.clear();
        self.graph.clear();
        self.edited.clear();
        self.ids_changed = true;
        self.stale = true;
        self.index_paths();
    }

    fn index_paths(&mut self) {
        self.by_path.clear();
        self.by_display.clear();
        for (i, file) in self.corpus.files.iter().enumerate() {
            self.by_path.insert(file.path.clone(), i);
            self.by_display.insert(file.display.clone(), i);
        }
    }

    /// The corpus file at `path`.
    pub fn file(&self, path: &Path) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The version of an open document.
    pub fn version(&self, path: &Path) -> Option<i32> {
        self.versions.get(path).copied()
    }

    /// Whether `path` is one of the files the corpus is read by: the config, or a file of
    /// the schema folder. A change to one changes what every record is checked against.
    pub fn is_setup_file(&self, path: &Path) -> bool {
        let project = &self.project;
        path == project.config.path(&project.root)
            || path.starts_with(project.root.join(&project.config.schemas))
    }

    /// Reads the config and the schemas again, as they are on disk now, and loads the corpus
    /// by them, with the open documents as the editor has them. `Err`, with what is wrong,
    /// leaves the workspace as it was.
    pub fn reopen(&mut self) -> Result<(), Vec<Diagnostic>> {
        let root = &self.project.root;
        let default = root.join(crate::config::FILE_NAME);
        let given = self
            .project
            .config
            .file
            .as_deref()
            .filter(|file| *file != default);
        self.project = Project::open(root, given)?;
        // Where the records and pages are may have changed with the config.
        self.passed_over.clear();
        self.load_again(None);
        Ok(())
    }

    /// Loads the corpus again from disk, with the open documents as the editor has them,
    /// and `opened` (a document opened that the corpus did not hold) with its text if it
    /// is now part of the corpus.
    fn load_again(&mut self, opened: Option<(&Path, String)>) {
        let mut open: Vec<(PathBuf, i32, String)> = self
            .versions
            .iter()
            .filter_map(|(path, &version)| {
                let text = self.file(path).map(|file| self.text(file).to_string())?;
                Some((path.clone(), version, text))
            })
            .collect();
        if let Some((path, text)) = opened
            && let Some(&version) = self.versions.get(path)
        {
            open.push((path.to_path_buf(), version, text));
        }
        self.load();
        for (path, version, text) in open {
            self.edit(&path, text, version);
        }
    }

    /// Whether a fresh discovery looks at `path`: a file under the records folder is a
    /// record or a stray, one the `docs` patterns match a prose page.
    fn in_reach(&self, path: &Path) -> bool {
        let Project { root, config, .. } = &self.project;
        path.starts_with(root.join(&config.records))
            || path
                .strip_prefix(root)
                .is_ok_and(|relative| config.is_docs_path(relative))
    }

    /// A file the corpus does not hold was created, opened or deleted where discovery
    /// looks, and is no record (those join or leave one at a time): a prose page, or a
    /// stray, whose diagnostic is discovery's. The corpus is loaded again, as `check` would
    /// load it; a file that load passes over too (hidden, ignored by git) is remembered, so
    /// that its every change does not load the corpus again.
    fn rediscover(&mut self, path: &Path, text: Option<String>) {
        let on_disk = path.exists();
        if !self.in_reach(path) || self.passed_over.get(path) == Some(&on_disk) {
            return;
        }
        // Remembered before loading, as loading gives the open documents their text again,
        // this one's included, which must not load the corpus once more.
        self.passed_over.insert(path.to_path_buf(), on_disk);
        self.load_again(text.map(|text| (path, text)));
        if self.file(path).is_some() {
            self.passed_over.remove(path);
        }
    }

    /// A document was opened or changed in the editor: its text is now `text`.
    pub fn edit(&mut self, path: &Path, text: String, version: i32) {
        self.versions.insert(path.to_path_buf(), version);
        if text.starts_with('\u{feff}') {
            self.marked.insert(path.to_path_buf());
        } else {
            self.marked.remove(path);
        }
        self.set_text(path, text);
    }

    /// A document was closed: the file on disk is the truth again, so it alone is re-read.
    pub fn close(&mut self, path: &Path) {
        self.versions.remove(path);
        self.marked.remove(path);
        self.reload(path);
    }

    /// A file changed on disk (saved, created, deleted by another program): re-read it
    /// alone, unless the editor holds it open, whose buffer wins.
    pub fn reload(&mut self, path: &Path) {
        if self.versions.contains_key(path) && self.file(path).is_some() {
            return;
        }
        let max = self.project.config.max_file_size;
        let display = crate::source::display_path(&self.project.root, path);
        match load::load_text(path, display, max).file.text {
            Some(text) => self.set_text(path, text),
            None if !path.exists() => self.remove(path),
            None => {}
        }
    }

    fn set_text(&mut self, path: &Path, text: String) {
        let schemas = &self.project.schemas;
        let config = &self.project.config;
        let file = match self.file(path) {
            Some(file) => {
                if self.corpus.files[file].text.as_deref() == Some(text.as_str()) {
                    return;
                }
                let before = self.identity(file);
                let change = self.corpus.set_text(file, text, schemas, config);
                self.ids_changed |= self.identity(file) != before;
                self.follow(file, change);
                file
            }
            None => {
                let root = &self.project.root;
                let Some(candidate) = discover::candidate(root, &config.records, path, schemas)
                else {
                    self.rediscover(path, Some(text));
                    return;
                };
                let (file, change) = self.corpus.insert_file(candidate, text, schemas, config);
                self.own.insert(file, Vec::new());
                self.written.insert(file, Vec::new());
                self.chunks.insert(file, Resolved::default());
                self.refs.insert(file, Vec::new());
                self.edited.clear();
                self.ids_changed = true;
                self.shift_files(file, 1);
                self.index_paths();
                self.follow(file, change);
                file
            }
        };
        self.touched.insert(self.corpus.files[file].display.clone());
        self.stale = true;
    }

    /// What other files' references and the duplicate-id rule see of a file's record: its
    /// collection, its id, and whether the id is written as a string (what `duplicate-id`
    /// points at).
    fn identity(&self, file: usize) -> Option<(usize, String, bool)> {
        let record = &self.corpus.records[self.corpus.record_of_file(file)?];
        let written = record
            .value
            .get("id")
            .is_some_and(serde_json::Value::is_string);
        Some((record.collection, record.id.clone(), written))
    }

    /// Forgets a deleted file, or every file of a deleted folder. One the corpus did not
    /// hold may still be named by discovery's diagnostics (a stray, an unreadable page):
    /// then the corpus is loaded again.
    fn remove(&mut self, path: &Path) {
        self.passed_over.retain(|kept, _| !kept.starts_with(path));
        let gone: Vec<usize> = (0..self.corpus.files.len())
            .rev()
            .filter(|&file| self.corpus.files[file].path.starts_with(path))
            .collect();
        if gone.is_empty() {
            let display = crate::source::display_path(&self.project.root, path);
            let named = |file: &str| {
                file.strip_prefix(display.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            };
            if self.corpus.diagnostics.iter().any(|d| named(&d.file)) {
                self.load_again(None);
            }
            return;
        }
        for file in gone {
            self.remove_file(file);
        }
    }

    fn remove_file(&mut self, file: usize) {
        let display = self.corpus.files[file].display.clone();
        if let Some(record) = self.corpus.remove_file(file) {
            self.shift_records(record, -1);
        }
        self.own.remove(file);
        self.written.remove(file);
        self.chunks.remove(file);
        self.refs.remove(file);
        self.edited.clear();
        self.ids_changed = true;
        self.shift_files(file, -1);
        self.index_paths();
        self.touched.insert(display);
        self.stale = true;
    }

    /// Brings the kept parts of `file` up to date after the corpus re-parsed it. When the
    /// file still writes the same references (the edit was to prose or another field), and
    /// no id changed, their resolution is kept and the file needs nothing more; otherwise it
    /// is resolved again at the next refresh.
    fn follow(&mut self, file: usize, change: RecordChange) {
        match change {
            RecordChange::Inserted(record) => self.shift_records(record, 1),
            RecordChange::Removed(record) => self.shift_records(record, -1),
            RecordChange::Replaced(_) | RecordChange::None => {}
        }
        let schemas = &self.project.schemas;
        let (own, written) = match change {
            RecordChange::Replaced(record) | RecordChange::Inserted(record) => (
                check::check_record(&self.corpus, &self.corpus.records[record], schemas),
                index::written_in_record(&self.corpus, schemas, record),
            ),
            RecordChange::Removed(_) | RecordChange::None => {
                let doc = self.corpus.docs.iter().position(|d| d.file == file);
                let written = doc.map(|doc| index::written_in_doc(&self.corpus, schemas, doc));
                (Vec::new(), written.unwrap_or_default())
            }
        };
        self.own[file] = own;
        let before = std::mem::replace(&mut self.written[file], written);
        let kept = match self.ids_changed {
            true => None,
            false => rebased(&self.chunks[file], &before, &self.written[file]),
        };
        // A broken link is reported at its span, which may have moved.
        match kept {
            Some(chunk) if chunk.unresolved.iter().all(|u| !is_link(&u.source)) => {
                self.chunks[file] = chunk;
            }
            _ => {
                self.edited.insert(file);
            }
        }
    }

    /// Record indices at or after `from` moved by `by`, in every kept reference; an inserted
    /// record's own references are written afterwards, a removed one's were cleared.
    fn shift_records(&mut self, from: usize, by: isize) {
        for reference in self.written.iter_mut().flatten() {
            if let Source::Field { record, .. } | Source::FieldLink { record, .. } =
                &mut reference.source
                && *record >= from
            {
                *record = record.saturating_add_signed(by);
            }
        }
    }

    /// File indices at or after `from` moved by `by`.
    fn shift_files(&mut self, from: usize, by: isize) {
        for reference in self.written.iter_mut().flatten() {
            if let Source::Link { file, .. } = &mut reference.source
                && *file >= from
            {
                *file = file.saturating_add_signed(by);
            }
        }
    }

    /// Reruns what crosses files, as far as the edits since the last call reach, and returns
    /// the files whose diagnostics changed (the first call returns every file that has any).
    /// Nothing is read from disk.
    pub fn refresh(&mut self) -> Vec<Publish> {
        if !self.stale {
            return Vec::new();
        }
        self.stale = false;
        let fragments_changed = self.follow_fragment_files();
        let schemas = &self.project.schemas;
        let again: Vec<usize> = if self.ids_changed {
            (0..self.corpus.files.len()).collect()
        } else {
            self.edited.iter().copied().collect()
        };
        let mut graph_changed = self.ids_changed;
        let mut index = None;
        if !again.is_empty() || self.ids_changed {
            let index = index.insert(IdIndex::new(&self.corpus, schemas));
            for &file in &again {
                let mut chunk = Resolved::default();
                index.resolve_written(&self.written[file], &mut chunk);
                graph_changed |= graph_inputs(&chunk) != graph_inputs(&self.chunks[file]);
                self.chunks[file] = chunk;
            }
            // One call for all of them, so that each unknown id is looked up once.
            let unresolved: Vec<_> = again
                .iter()
                .flat_map(|&file| self.chunks[file].unresolved.iter().cloned())
                .collect();
            let mut diagnostics =
                check::references(&self.corpus, schemas, index, &unresolved, None).into_iter();
            for &file in &again {
                let count = self.chunks[file].unresolved.len();
                self.refs[file] = diagnostics.by_ref().take(count).collect();
            }
            if self.ids_changed {
                self.duplicates = check::duplicate_ids(&self.corpus, schemas, index);
                self.repeated_ids = index.duplicates().to_vec();
            }
        }
        if fragments_changed {
            if self.kept_fragments.unresolved() {
                let index = index.get_or_insert_with(|| IdIndex::new(&self.corpus, schemas));
                self.kept_fragments.resolve(schemas, index);
            }
            let config = &self.project.config;
            self.kept_fragments.check(&self.corpus, schemas, config);
        }
        if graph_changed {
            let unresolved: Vec<_> = self
                .chunks
                .iter()
                .flat_map(|chunk| chunk.unresolved.iter().cloned())
                .collect();
            let config = &self.project.config;
            self.graph = check::graph_rules(
                &self.corpus,
                schemas,
                config,
                self.edges(),
                &unresolved,
                &self.repeated_ids,
            );
        }
        // The index borrows the corpus, which publishing locates diagnostics in.
        drop(index);
        self.ids_changed = false;
        self.edited.clear();
        let mut all = self.corpus.diagnostics.clone();
        all.extend(self.own.iter().flatten().cloned());
        all.extend(self.duplicates.iter().cloned());
        all.extend(self.refs.iter().flatten().cloned());
        all.extend(self.graph.iter().cloned());
        all.extend(self.kept_fragments.found().cloned());
        self.publish(all)
    }

    /// Brings [`Workspace::kept_fragments`] up to date with the files whose text changed
    /// since the last refresh (every file when ids did), and returns whether any did.
    fn follow_fragment_files(&mut self) -> bool {
        if self.ids_changed {
            self.kept_fragments.reread_all(&self.corpus);
            return true;
        }
        let reread: BTreeSet<usize> = (self.touched.iter())
            .filter_map(|display| self.by_display.get(display).copied())
            .collect();
        if reread.is_empty() {
            return false;
        }
        self.kept_fragments.reread(&self.corpus, &reread);
        true
    }

    /// Groups diagnostics by file, compares them with what was last published, and locates
    /// those of the files that changed.
    fn publish(&mut self, all: Vec<Diagnostic>) -> Vec<Publish> {
        let mut by_file: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for diagnostic in self.project.apply_levels(all) {
            by_file
                .entry(diagnostic.file.clone())
                .or_default()
                .push(diagnostic);
        }
        for diagnostics in by_file.values_mut() {
            diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        let files: BTreeSet<String> = by_file
            .keys()
            .chain(self.unlocated.keys())
            .cloned()
            .collect();
        let mut changed: Vec<Diagnostic> = Vec::new();
        let mut cleared: Vec<String> = Vec::new();
        for display in files {
            let now = by_file.remove(&display).unwrap_or_default();
            let before = self.unlocated.get(&display);
            // A diagnostic is placed again when its file's text changed, or the text of a
            // file it points into (a duplicate id's first use), whose positions may have
            // moved though the findings did not.
            let moved = self.touched.contains(&display)
                || now
                    .iter()
                    .flat_map(|d| &d.labels)
                    .any(|label| self.touched.contains(&label.file));
            if before == Some(&now) && !moved {
                continue;
            }
            if before.is_none() && now.is_empty() {
                continue;
            }
            if now.is_empty() {
                self.unlocated.remove(&display);
                cleared.push(display);
            } else {
                changed.extend(now.iter().cloned());
                self.unlocated.insert(display, now);
            }
        }
        self.touched.clear();
        if changed.is_empty() && cleared.is_empty() {
            return Vec::new();
        }
        locate(&mut changed, &self.corpus, &self.project.schemas);
        let mut located: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for diagnostic in changed {
            located
                .entry(diagnostic.file.clone())
                .or_default()
                .push(diagnostic);
        }
        for display in cleared {
            located.insert(display, Vec::new());
        }
        let mut publish = Vec::new();
        for (display, mut diagnostics) in located {
            diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            let path = self.path_of(&display);
            if diagnostics.is_empty() {
                self.published.remove(&display);
            } else {
                self.published.insert(display, diagnostics.clone());
            }
            publish.push(Publish {
                version: self.version(&path),
                path,
                diagnostics,
            });
        }
        publish
    }

    /// Every resolved reference, as of the last refresh, in corpus order.
    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.chunks.iter().flat_map(|chunk| chunk.edges.iter())
    }

    /// The resolved references written in `file`, as of the last refresh.
    pub fn edges_in(&self, file: usize) -> &Edges {
        &self.chunks[file].edges
    }

    /// The diagnostics last published for a file.
    pub fn published(&self, file: usize) -> &[Diagnostic] {
        self.published
            .get(&self.corpus.files[file].display)
            .map_or(&[], Vec::as_slice)
    }

    /// The path of a displayed file: a corpus file's own path, else the display under the
    /// root (a stray, the config).
    pub fn path_of(&self, display: &str) -> PathBuf {
        match self.by_display.get(display) {
            Some(&file) => self.corpus.files[file].path.clone(),
            None => self.project.root.join(display),
        }
    }

    /// The text of a file, as the editor has it.
    pub fn text(&self, file: usize) -> &str {
        self.corpus.files[file].text.as_deref().unwrap_or_default()
    }

    /// The text of a file as the editor's buffer has it, for positions in the protocol.
    pub fn buffer(&self, file: usize) -> convert::Buffer<'_> {
        convert::Buffer {
            text: self.text(file),
            bom: !self.marked.is_empty() && self.marked.contains(&self.corpus.files[file].path),
        }
    }

    /// A file's source map (JSON pointer to span), built on demand.
    pub fn source_map(&self, file: usize) -> SourceMap {
        let path = &self.corpus.files[file].path;
        let format = Format::of_path(path);
        let collection = self.corpus.file_collections[file];
        match (format, collection) {
            (Some(format), Some(collection)) => load::source_map(
                self.text(file),
                format,
                &self.project.schemas.collections[collection].text_fields,
            ),
            _ => SourceMap::default(),
        }
    }
}

/// The resolution of the references `after`, taken over from that of `before`, when they are
/// the same references in the same order (same text, collections, field or link kind and
/// pointer; a link in prose may have moved). `None` when anything else changed.
fn rebased(chunk: &Resolved, before: &[Written], after: &[Written]) -> Option<Resolved> {
    if before.len() != after.len() {
        return None;
    }
    let mut edges = chunk.edges.iter().peekable();
    let mut unresolved = chunk.unresolved.iter().peekable();
    let mut kept = Resolved::default();
    for (old, new) in before.iter().zip(after) {
        if old.text != new.text
            || old.allowed != new.allowed
            || !same_place(&old.source, &new.source)
        {
            return None;
        }
        // Several links of one string value share a source; the text tells them apart.
        if let Some(reference) =
            unresolved.next_if(|u| u.source == old.source && u.text == old.text)
        {
            kept.unresolved.push(Unresolved {
                source: new.source.clone(),
                ..reference.clone()
            });
        } else {
            let edge = edges.next_if(|e| e.source == old.source)?;
            kept.edges.push(Edge {
                source: new.source.clone(),
                target: edge.target,
            });
        }
    }
    (edges.next().is_none() && unresolved.next().is_none()).then_some(kept)
}

/// Whether two references are written at the same place, a link's span aside.
fn same_place(a: &Source, b: &Source) -> bool {
    match (a, b) {
        (
            Source::Link {
                file: a, kind: x, ..
            },
            Source::Link {
                file: b, kind: y, ..
            },
        ) => a == b && x == y,
        _ => a == b,
    }
}

fn is_link(source: &Source) -> bool {
    matches!(source, Source::Link { .. })
}

/// What the graph rules see of one file's references: each edge's field (a link is a link,
/// wherever it is), target and, for a field, the pointer a `cycle` is reported at; and
/// whether any reference is broken (which exempts the record from `orphan`).
type GraphInputs<'r> = (Vec<(Option<(&'r str, &'r str)>, Target)>, bool);

fn graph_inputs(chunk: &Resolved) -> GraphInputs<'_> {
    let edges = chunk
        .edges
        .iter()
        .map(|edge| {
            let field = match &edge.source {
                Source::Field { field, pointer, .. } => Some((&**field, &**pointer)),
                Source::FieldLink { .. } | Source::Link { .. } => None,
            };
            (field, edge.target)
        })
        .collect();
    (edges, !chunk.unresolved.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the bundled corpus.
    fn corpus() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        for folder in ["schema", "records"] {
            for entry in walk(&manifest.join(folder)) {
                let target = dir.path().join(entry.strip_prefix(manifest).unwrap());
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::copy(&entry, target).unwrap();
            }
        }
        dir
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    /// Everything published so far equals a full `check` of the corpus as edited.
    fn assert_same_as_check(workspace: &mut Workspace) {
        workspace.refresh();
        let published: Vec<Diagnostic> = workspace.published.values().flatten().cloned().collect();
        let checked = workspace.project.check(&workspace.corpus);
        assert_eq!(published, checked);
    }

    #[test]
    fn edits_give_the_diagnostics_of_a_full_check_without_reading_other_files() {
        let dir = corpus();
        let root = dir.path().canonicalize().unwrap();
        let mut workspace = Workspace::new(Project::open(&root, None).unwrap());
        assert!(
            workspace.refresh().is_empty(),
            "the bundled corpus is clean"
        );
        let gotcha =
            root.join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
        let nixl = root.join("records/engines/nixl.yaml");
        let text = std::fs::read_to_string(&gotcha).unwrap();
        let nixl_text = std::fs::read_to_string(&nixl).unwrap();

        // Another file broken on disk behind the server's back is not read by an edit.
        std::fs::write(root.join("records/engines/vllm.yaml"), "id: [").unwrap();
        workspace.edit(
            &gotcha,
            text.replace("nixl, mooncake", "nixl, mooncache"),
            1,
        );
        let published = workspace.refresh();
        assert_eq!(published.len(), 1);
        assert_eq!(published[0].path, gotcha);
        assert_eq!(published[0].diagnostics[0].code, "unresolved-ref");
        assert_eq!(published[0].version, Some(1));
        assert_same_as_check(&mut workspace);

        // Prose typed above the diagnostic moves it, though nothing else changes.
        let typo = text.replace("nixl, mooncake", "nixl, mooncache");
        workspace.edit(
            &gotcha,
            typo.replace("status: verified", "status: draft\n"),
            2,
        );
        assert!(workspace.edited.is_empty(), "its references are kept");
        assert_eq!(workspace.refresh().len(), 1);
        assert_same_as_check(&mut workspace);

        // A record that stops parsing leaves the index; citing it becomes an error elsewhere.
        workspace.edit(&nixl, "id: [".into(), 1);
        assert_same_as_check(&mut workspace);
        assert!(
            workspace.unlocated[&workspace.corpus.files[workspace.file(&gotcha).unwrap()].display]
                .iter()
                .any(|d| d.message.contains("`nixl`"))
        );
        workspace.edit(&nixl, nixl_text.replace("id: nixl", "id: nixl-ep"), 2);
        assert_same_as_check(&mut workspace);
        workspace.edit(&nixl, nixl_text.clone(), 3);
        assert_same_as_check(&mut workspace);

        // Links in a string field keep their resolution, one broken, when another field
        // changes; they are resolved again when they change.
        let noted = format!("{nixl_text}notes: See [[nope]] and [[engines/vllm]].\n");
        workspace.edit(&nixl, noted.clone(), 4);
        assert_same_as_check(&mut workspace);
        workspace.edit(
            &nixl,
            noted.replace("confidence:", "confidence: 0.1\nx:"),
            5,
        );
        assert!(workspace.edited.is_empty());
        assert_same_as_check(&mut workspace);
        workspace.edit(&nixl, noted.replace("[[nope]]", "[[nixl]]"), 6);
        assert_same_as_check(&mut workspace);
        workspace.edit(&nixl, nixl_text.clone(), 7);
        assert_same_as_check(&mut workspace);

        // A record created in the editor joins; closing it unsaved forgets it again.
        let created = root.join("records/engines/mooncache.yaml");
        workspace.edit(&created, nixl_text.replace("id: nixl", "id: mooncache"), 1);
        assert_same_as_check(&mut workspace);
        assert!(
            !workspace
                .unlocated
                .contains_key(&workspace.corpus.files[workspace.file(&gotcha).unwrap()].display)
        );
        workspace.close(&created);
        assert!(workspace.file(&created).is_none());
        assert_same_as_check(&mut workspace);

        // Closing a document reverts it to the disk, which is read then, and only then.
        workspace.close(&gotcha);
        workspace.reload(&root.join("records/engines/vllm.yaml"));
        assert_same_as_check(&mut workspace);
        assert!(workspace.published.keys().any(|f| f.ends_with("vllm.yaml")));
    }

    /// A folder deleted on disk is reported as one change, for the folder: every file in it
    /// leaves the corpus, as a fresh load would have it.
    #[test]
    fn a_deleted_folder_takes_its_files_along() {
        let dir = corpus();
        let root = dir.path().canonicalize().unwrap();
        let mut workspace = Workspace::new(Project::open(&root, None).unwrap());
        workspace.refresh();
        let sources = root.join("records/sources");
        std::fs::remove_dir_all(&sources).unwrap();
        workspace.reload(&sources);
        assert_same_as_check(&mut workspace);
        let mut fresh = Workspace::new(Project::open(&root, None).unwrap());
        fresh.refresh();
        assert!(!fresh.published.is_empty(), "the sources are cited");
        assert_eq!(workspace.published, fresh.published);
    }
}
