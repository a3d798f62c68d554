//! The loaded corpus: every file that was read and every record that could be parsed.
//!
//! Loading is the expensive stage (reading and parsing), so files are loaded in parallel and
//! then put back in path order, which keeps every later stage deterministic whatever the
//! thread count.
//!
//! A caller that needs only some of what the fields say (`check` needs its file-local
//! findings and the references, not the fields) draws that from each record as it is loaded
//! and lets the fields and the text go ([`Corpus::load_with`]): parsed fields take twice the
//! memory of their text, the texts all together are the corpus's size on disk, and neither
//! is needed again but for the few files a report points into, which are read again.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde_json::Value;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::discover;
use crate::load::{self, LoadContext, Record};
use crate::schema::Schemas;
use crate::source::{Format, Head, SourceFile, Span};
use crate::stamp::Stamp;

/// Everything loaded from disk. `F` is what each record keeps of its fields (see
/// [`Record`]).
#[derive(Debug)]
pub struct Corpus<F = Value> {
    /// Every record file, in path order; records point into this list.
    pub files: Vec<SourceFile>,
    /// The collection of each file in `files`, by index; `None` for prose files.
    pub file_collections: Vec<Option<usize>>,
    /// Prose files (the config's `docs`), whose links are checked too.
    pub docs: Vec<Doc>,
    /// Every record that could be parsed, in path order.
    pub records: Vec<Record<F>>,
    /// Problems found while discovering and loading.
    pub diagnostics: Vec<Diagnostic>,
    /// The record and prose files the load was told to leave out ([`LeaveOut`]), as
    /// displayed, in path order.
    pub left_out: Vec<String>,
}

impl<F> Default for Corpus<F> {
    fn default() -> Self {
        Corpus {
            files: Vec::new(),
            file_collections: Vec::new(),
            docs: Vec::new(),
            records: Vec::new(),
            diagnostics: Vec::new(),
            left_out: Vec::new(),
        }
    }
}

/// Which files, by displayed path, a load leaves out as if they were not there: a
/// pre-commit check's corpus is what the commit will hold, not the files git does not
/// track. Their discovery problems (a stray) go with them.
pub type LeaveOut<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// Which record files keep their text once their records are drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Texts {
    /// All: for commands that edit files or answer questions about positions.
    Kept,
    /// None but those a report will quote, when the loader knows them (see
    /// [`Loader::quoted`]): [`SourceFile::text_again`] reads the few others that a report
    /// points into.
    LetGo,
}

impl Texts {
    /// Whether a file keeps its text, when a report will quote it or not (`quoted`).
    fn keeps(self, quoted: bool) -> bool {
        match self {
            Texts::Kept => true,
            Texts::LetGo => quoted,
        }
    }
}

/// How [`Corpus::load_chunks`] loads each record file.
struct Loader<'l, D, F> {
    config: &'l Config,
    schemas: &'l Schemas,
    draw: D,
    recall: Option<&'l dyn Recall<F>>,
    texts: Texts,
    /// Whether a record, as drawn, has findings that a report will quote its file for: then
    /// the file keeps its text, as does a file with a problem found loading it, which would
    /// otherwise be read again to be quoted (500 of the 3,800 files a report names at
    /// 100,000 generated records). `None` for a loader that keeps no text for a report.
    quoted: Option<fn(&F) -> bool>,
}

// Collection indices come from discovery, which takes them from these schemas.
#[allow(clippy::indexing_slicing)]
impl<D, F> Loader<'_, D, F>
where
    D: Fn(Record, usize, &SourceFile) -> Record<F> + Sync,
{
    /// The record of the file at `path`, recalled without reading the file, and the file as
    /// known unread: when no text is kept and `recall` keeps a stamp for the file that is
    /// still its own.
    fn recall_unread(
        &self,
        path: &Path,
        display: &str,
        place: &Place,
    ) -> Option<(Record<F>, SourceFile)> {
        let recall = self.recall.filter(|_| matches!(self.texts, Texts::LetGo))?;
        // The file's metadata is asked for only when a stamp is kept to compare it with:
        // any other file is read, which tells its metadata anyway.
        let unchanged = |kept: &Stamp| Stamp::read(path).as_ref() == Some(kept);
        let (record, head, text_hash, stamp) = recall.recall_unread(display, place, &unchanged)?;
        let file = SourceFile::unread(
            path.to_path_buf(),
            display.to_string(),
            text_hash,
            stamp,
            head,
        );
        Some((record, file))
    }

    /// Whether the file of `record` (or of none, when it held none) keeps its text: as
    /// [`Texts::keeps`] says, given whether a report will quote the file, for a problem
    /// found loading it (`problems`) or for the record's findings ([`Loader::quoted`]).
    fn keeps_text(&self, record: Option<&Record<F>>, problems: bool) -> bool {
        let quoted = self
            .quoted
            .is_some_and(|quoted| problems || record.is_some_and(|record| quoted(&record.value)));
        self.texts.keeps(quoted)
    }

    /// Loads `candidate`, whose file goes at `file` in the corpus and whose record, if it
    /// holds one, at `index` as far as is known: recalled without reading it when its stamp
    /// is the one `recall` keeps, recalled without parsing it when it reads without a
    /// problem and `recall` has its text, else parsed and drawn from.
    fn file(&self, candidate: discover::Candidate, file: usize, index: usize) -> Unordered<F> {
        let discover::Candidate {
            path,
            display,
            collection,
            format,
        } = candidate;
        let place = Place {
            collection,
            format,
            file,
            index,
        };
        if let Some((record, file)) = self.recall_unread(&path, &display, &place) {
            return Unordered::recalled(collection, file, index, record);
        }
        let read = load::load_text(&path, display, self.config.max_file_size);
        // Worked out once, for the recall and for letting the text go after a miss.
        let text_hash = self.recall.and_then(|_| {
            read.file
                .text
                .as_deref()
                .filter(|_| read.diagnostics.is_empty())
                .map(crate::source::text_hash)
        });
        let recalled = self
            .recall
            .zip(text_hash)
            .and_then(|(recall, text_hash)| recall.recall(&read.file.display, text_hash, &place));
        if let (Some((record, head)), Some(text_hash)) = (recalled, text_hash) {
            let mut file = read.file;
            // Recalled only when it read without a problem.
            if !self.keeps_text(Some(&record), false) {
                // A recalled record was parsed when it was drawn, and the head of this same
                // text was kept with it: where its root lies is known without parsing the
                // text again (a JSON text's is found from its ends when no head was kept).
                let root = head.map(|head| head.root).or_else(|| {
                    file.text
                        .as_deref()
                        .filter(|_| format == Format::Json)
                        .map(load::json::root_span)
                });
                let_go(&mut file, root, Some(text_hash));
            }
            return Unordered::recalled(collection, file, index, record);
        }
        let context = LoadContext {
            text_fields: &self.schemas.collections[collection].text_fields,
            max_file_size: self.config.max_file_size,
        };
        let mut loaded = load::parse_read(read, format, &context);
        let root = loaded.record.as_ref().map(|record| record.root.clone());
        let record = loaded.record.take().map(|record| {
            let stem = discover::file_stem(&loaded.file.display);
            let record = Record::new(record, collection, stem, file);
            (index, (self.draw)(record, index, &loaded.file))
        });
        let problems = !loaded.diagnostics.is_empty();
        if !self.keeps_text(record.as_ref().map(|(_, record)| record), problems) {
            let_go(&mut loaded.file, root, text_hash);
        }
        Unordered {
            collection,
            loaded,
            record,
        }
    }
}

/// Lets the text of a record's file go, keeping its hash (`text_hash`, when it is known
/// already) and, given where its root value lies (`root`, for a text that parsed), its head
/// ([`Head`]).
fn let_go(file: &mut SourceFile, root: Option<Span>, text_hash: Option<u64>) {
    if let Some(root) = root {
        file.keep_head(&root);
    }
    match text_hash {
        Some(text_hash) => file.let_go_hashed(text_hash),
        None => file.let_go(),
    }
}

/// How many files are loaded before they are put in order: enough to keep every thread busy,
/// few enough that the results waiting to be put in order take little memory.
const CHUNK: usize = 1024;

/// What a record keeps of its fields ([`Corpus::load_with`]), which may name the record by
/// its index in [`Corpus::records`]: the index it was drawn with is a guess, made before the
/// files before it were all known to hold records. Most of what is kept (the fields
/// themselves, a card, a match, a conversion) does not name its record, and takes the
/// default, which changes nothing; what holds references written in the record does.
pub trait Renumber {
    /// The record's index is `index`, not the one it was drawn with.
    fn renumber(&mut self, index: usize) {
        let _ = index;
    }
}

impl Renumber for Value {}

/// What an earlier run drew from record files whose text has not changed (see
/// [`crate::cache`]), recalled instead of parsing and drawing from them again, and for a
/// file whose [`Stamp`] has not changed either, instead of reading it.
pub trait Recall<F>: Sync {
    /// The record drawn from the file shown as `display` when its text hashed `text_hash`,
    /// given its place in this corpus, and the head of that text when one was kept; `None`
    /// when nothing is kept for that text.
    fn recall(
        &self,
        display: &str,
        text_hash: u64,
        place: &Place,
    ) -> Option<(Record<F>, Option<Head>)>;

    /// The record drawn from the file shown as `display`, given its place in this corpus,
    /// with the head its text had (see [`Head`]), the hash of that text and the file's stamp
    /// then, when a stamp is kept for it and `unchanged` says the file still has it: the
    /// file need not be read, and with the head, a report that quotes only its root's line
    /// (an orphan) need not read it either.
    fn recall_unread(
        &self,
        display: &str,
        place: &Place,
        unchanged: &dyn Fn(&Stamp) -> bool,
    ) -> Option<(Record<F>, Option<Head>, u64, Stamp)>;
}

/// Where a record file's record goes in the corpus being loaded.
pub struct Place {
    /// Its collection's index.
    pub collection: usize,
    /// Its format.
    pub format: crate::source::Format,
    /// Its file's index in [`Corpus::files`].
    pub file: usize,
    /// Its index in [`Corpus::records`], as far as it is known (see [`Renumber`]).
    pub index: usize,
}

/// A file as a task of [`Corpus::load_chunks`] loaded it, before it is put in order.
struct Unordered<F> {
    collection: usize,
    loaded: load::Loaded,
    /// The record, with the index it was drawn with.
    record: Option<(usize, Record<F>)>,
}

impl<F> Unordered<F> {
    /// A file whose record was recalled with the index `index`: it has no diagnostics, as
    /// only a file read without a problem is offered for recall, and kept.
    fn recalled(collection: usize, file: SourceFile, index: usize, record: Record<F>) -> Self {
        Unordered {
            collection,
            loaded: load::Loaded {
                file,
                record: None,
                diagnostics: Vec::new(),
            },
            record: Some((index, record)),
        }
    }
}

/// The folder part of a glob pattern before its first wildcard, with its final `/`:
/// `docs/` for `docs/**/*.md`, nothing for `**/*.md`.
pub(crate) fn literal_folder(pattern: &str) -> &str {
    let literal = pattern
        .find(['*', '?', '[', '{', '\\'])
        .map_or(pattern, |at| pattern.get(..at).unwrap_or_default());
    literal
        .rfind('/')
        .map_or("", |at| literal.get(..=at).unwrap_or_default())
}

/// Whether files matched by a pattern whose literal folder is `folder` can lie in `path` or
/// below it.
fn reaches(folder: &str, path: &str) -> bool {
    let path = format!("{path}/");
    path.starts_with(folder) || folder.starts_with(&path)
}

/// The prose files matched by the config's `docs` globs, sorted, and the problems met
/// finding them.
struct FoundDocs {
    paths: Vec<std::path::PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

/// Finds the prose files matched by the config's `docs` globs. Done before the records are
/// loaded, so that the list of files is sized for both at once: growing it afterwards
/// copied the whole list of a hundred thousand records' files for a few pages.
fn find_docs(root: &Path, config: &Config) -> FoundDocs {
    let mut diagnostics = Vec::new();
    // A pattern that is no glob stops the run as the config is read.
    let Some(globs) = config.docs_matcher() else {
        return FoundDocs {
            paths: Vec::new(),
            diagnostics,
        };
    };
    // Neither the records nor a built site (marked by its marker file) hold prose, and
    // walking their many folders would cost every run.
    let skip = root.join(&config.records);
    if let Some(file) = discover::special_ignore_file(root) {
        diagnostics.push(discover::unwalked(root, &file));
        return FoundDocs {
            paths: Vec::new(),
            diagnostics,
        };
    }
    let unwalked = Arc::new(Mutex::new(Vec::new()));
    let skip_special = discover::skipping_special_ignore_files(Arc::clone(&unwalked));
    // As the records are found (see `crate::discover`): what one machine's git excludes
    // is checked all the same.
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        .parents(false)
        .require_git(false)
        .git_global(false)
        .git_exclude(false)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir && (entry.path() == skip || entry.path().join(crate::site::MARKER).is_file()))
                && skip_special(entry)
        })
        .build();
    let reached: Vec<&str> = config.docs.iter().map(|p| literal_folder(p)).collect();
    let canonical_root = std::fs::canonicalize(root).ok();
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    for entry in walk {
        match entry {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                let path = entry.into_path();
                if globs.is_match(path.strip_prefix(root).unwrap_or(&path)) {
                    paths.push(path);
                }
            }
            // A page that is a link or no regular file is said, as pages there would go
            // unchecked: a link to a file of the corpus is read like it (as a record's
            // is), one out of the corpus is not followed, a pipe never read.
            Ok(entry)
                if !entry.file_type().is_some_and(|t| t.is_dir())
                    && globs.is_match(entry.path().strip_prefix(root).unwrap_or(entry.path())) =>
            {
                let path = entry.into_path();
                let why = match discover::link_target(&path, canonical_root.as_deref()) {
                    discover::LinkTarget::File => {
                        paths.push(path);
                        continue;
                    }
                    discover::LinkTarget::Folder(_) => "a link to a folder",
                    discover::LinkTarget::Outside(_) => "a link out of the corpus",
                    discover::LinkTarget::Special => "a named pipe, socket or device",
                    discover::LinkTarget::Nothing(_) => "a link to nothing",
                };
                diagnostics.push(
                    Diagnostic::new(
                        crate::rules::IO_ERROR,
                        crate::source::display_path(root, &path),
                        format!("this prose page is {why}, so it is not read"),
                    )
                    .with_help("keep the page itself here, or leave it out of the `docs` patterns"),
                );
            }
            Ok(_) => {}
            // The walk covers the whole root: an unreadable folder is reported only where
            // a docs pattern reaches, since pages there would go unchecked.
            Err(err) => {
                let diagnostic = discover::walk_error(root, &err, root);
                if reached
                    .iter()
                    .any(|folder| reaches(folder, &diagnostic.file))
                {
                    diagnostics.push(diagnostic);
                }
            }
        }
    }
    for file in discover::take_all(&unwalked) {
        let folder = file.parent().unwrap_or(root);
        let folder = crate::source::display_path(root, folder);
        if reached.iter().any(|pattern| reaches(pattern, &folder)) {
            diagnostics.push(discover::unwalked(root, &file));
        }
    }
    paths.sort();
    FoundDocs { paths, diagnostics }
}

/// A prose file.
#[derive(Clone, Debug)]
pub struct Doc {
    /// Index of its file in [`Corpus::files`].
    pub file: usize,
    /// The file name without extension, by which wiki-links name it.
    pub stem: String,
    /// How many bytes at the start of its file's display path are the folder of its `docs`
    /// pattern ([`Config::docs_folder_len`]): a wiki-link may name it by the path after.
    pub folder_len: usize,
}

// File and record indices are the corpus's own: it makes them, and callers get them from it.
#[allow(clippy::indexing_slicing)]
impl Corpus {
    /// Discovers and loads every record under the records root.
    pub fn load(root: &Path, config: &Config, schemas: &Schemas) -> Corpus {
        Corpus::load_fields(root, config, schemas, Texts::Kept)
    }

    /// Loads every record with its fields, keeping the texts `texts` says.
    fn load_fields(root: &Path, config: &Config, schemas: &Schemas, texts: Texts) -> Corpus {
        Corpus::load_chunks(
            root,
            config,
            schemas,
            |record, _, _| record,
            None,
            texts,
            None,
            None,
        )
    }
}

// File and record indices are the corpus's own: it makes them, and callers get them from it.
#[allow(clippy::indexing_slicing)]
impl<F: Send + Renumber> Corpus<F> {
    /// Discovers and loads every record under the records root, keeping of each record what
    /// `draw` makes of it, given the record, its index in [`Corpus::records`] (as far as it
    /// is known then: see [`Renumber`]) and its file (usually [`Record::keeping`] something
    /// drawn from its fields). Record files keep no text ([`SourceFile::let_go`]); prose
    /// files keep theirs, as their links are found later.
    ///
    /// With `recall`, a file that reads without a problem is first offered to it by its
    /// text's hash, and parsed and drawn from only when it has nothing for that text.
    pub fn load_with<D>(
        root: &Path,
        config: &Config,
        schemas: &Schemas,
        draw: D,
        recall: Option<&dyn Recall<F>>,
    ) -> Corpus<F>
    where
        D: Fn(Record, usize, &SourceFile) -> Record<F> + Sync,
    {
        Corpus::load_chunks(
            root,
            config,
            schemas,
            draw,
            recall,
            Texts::LetGo,
            None,
            None,
        )
    }

    /// [`Corpus::load_with`] for a check whose report quotes the files it names: a record
    /// file keeps its text when a problem was found loading it, or when `quoted` says its
    /// record, as drawn, has findings; the others are let go as they are parsed. Files
    /// `leave_out` names are not loaded.
    pub fn load_for_report<D>(
        root: &Path,
        config: &Config,
        schemas: &Schemas,
        draw: D,
        recall: Option<&dyn Recall<F>>,
        quoted: fn(&F) -> bool,
        leave_out: Option<LeaveOut<'_>>,
    ) -> Corpus<F>
    where
        D: Fn(Record, usize, &SourceFile) -> Record<F> + Sync,
    {
        Corpus::load_chunks(
            root,
            config,
            schemas,
            draw,
            recall,
            Texts::LetGo,
            Some(quoted),
            leave_out,
        )
    }

    /// Loads files a chunk at a time, in parallel, and puts them in path order: a record's
    /// fields (and with [`Texts::LetGo`], its file's text) are let go as soon as it is drawn
    /// from.
    // Each loader above passes its own choice of each.
    #[allow(clippy::too_many_arguments)]
    fn load_chunks<D>(
        root: &Path,
        config: &Config,
        schemas: &Schemas,
        draw: D,
        recall: Option<&dyn Recall<F>>,
        texts: Texts,
        quoted: Option<fn(&F) -> bool>,
        leave_out: Option<LeaveOut<'_>>,
    ) -> Corpus<F>
    where
        D: Fn(Record, usize, &SourceFile) -> Record<F> + Sync,
    {
        let mut discovered = discover::discover(root, &config.records, schemas);
        let mut docs = find_docs(root, config);
        let mut left_out = Vec::new();
        if let Some(leave_out) = leave_out {
            discovered.candidates.retain(|c| {
                let kept = !leave_out(&c.display);
                if !kept {
                    left_out.push(c.display.clone());
                }
                kept
            });
            docs.paths.retain(|path| {
                let display = crate::source::relative_display(root, path);
                let kept = !leave_out(&display);
                if !kept {
                    left_out.push(display.into_owned());
                }
                kept
            });
            left_out.sort_unstable();
            discovered.diagnostics.retain(|d| !leave_out(&d.file));
        }
        let mut corpus = Corpus {
            diagnostics: discovered.diagnostics,
            left_out,
            ..Corpus::default()
        };
        // Sized once: growing a vector of a hundred thousand records copies it, each time
        // into memory the kernel must first zero.
        let count = discovered.candidates.len() + docs.paths.len();
        corpus.files.reserve(count);
        corpus.file_collections.reserve(count);
        corpus.records.reserve(count);
        let loader = Loader {
            config,
            schemas,
            draw,
            recall,
            texts,
            quoted,
        };
        let mut candidates = discovered.candidates.into_iter().peekable();
        while candidates.peek().is_some() {
            let chunk: Vec<discover::Candidate> = candidates.by_ref().take(CHUNK).collect();
            let chunk_start = corpus.files.len();
            let records_start = corpus.records.len();
            // Each file is read, parsed, drawn from and let go of by one task, while its
            // fields are still in the cache: drawing from a chunk's records in a pass of its
            // own read every field of every record from memory again. A record's index is
            // known for sure only in the loop below, which puts files in order; it is drawn
            // with the index it has if every file before it in the chunk holds a record,
            // and renumbered there when one did not.
            let loaded: Vec<Unordered<F>> = chunk
                .into_par_iter()
                .enumerate()
                .map(|(offset, candidate)| {
                    loader.file(candidate, chunk_start + offset, records_start + offset)
                })
                .collect();
            for Unordered {
                collection,
                loaded,
                record,
            } in loaded
            {
                corpus.diagnostics.extend(loaded.diagnostics);
                if let Some((guess, mut record)) = record {
                    let index = corpus.records.len();
                    if index != guess {
                        record.value.renumber(index);
                    }
                    corpus.records.push(record);
                }
                corpus.files.push(loaded.file);
                corpus.file_collections.push(Some(collection));
            }
        }
        corpus.load_docs(root, config, docs);
        corpus
    }
}

// File and record indices are the corpus's own: it makes them, and callers get them from it.
#[allow(clippy::indexing_slicing)]
impl<F> Corpus<F> {
    /// Loads the prose files [`find_docs`] found, and adds the problems it met finding them.
    fn load_docs(&mut self, root: &Path, config: &Config, found: FoundDocs) {
        let FoundDocs { paths, diagnostics } = found;
        self.diagnostics.extend(diagnostics);
        let loaded: Vec<load::LoadedText> = paths
            .par_iter()
            .map(|path| {
                load::load_text(
                    path,
                    crate::source::display_path(root, path),
                    config.max_file_size,
                )
            })
            .collect();
        for loaded in loaded {
            self.diagnostics.extend(loaded.diagnostics);
            if loaded.file.text.is_some() {
                let stem = loaded
                    .file
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.docs.push(Doc {
                    file: self.files.len(),
                    stem,
                    folder_len: config.docs_folder_len(&loaded.file.display),
                });
            }
            self.files.push(loaded.file);
            self.file_collections.push(None);
        }
    }

    /// The file a record was read from.
    pub fn file_of(&self, record: &Record<F>) -> &SourceFile {
        &self.files[record.file]
    }

    /// The index in [`Corpus::records`] of the record read from `file`, if it parsed.
    pub fn record_of_file(&self, file: usize) -> Option<usize> {
        let at = self.records.partition_point(|r| r.file < file);
        (self.records.get(at).is_some_and(|r| r.file == file)).then_some(at)
    }
}

// File and record indices are the corpus's own: it makes them, and callers get them from it.
#[allow(clippy::indexing_slicing)]
impl<F: Renumber> Corpus<F> {
    /// Replaces one file's text with `text` (the file with fixes applied) and re-parses that
    /// file alone, keeping of its record what `draw` makes of it (as [`Corpus::load_with`]
    /// does): its load diagnostics and its record are replaced, and no other file is read.
    /// Prose files only take the text; their links are found when references are resolved.
    /// When the file's record appears or goes, the records after it are renumbered.
    pub fn set_text_with<D>(
        &mut self,
        file: usize,
        text: String,
        schemas: &Schemas,
        config: &Config,
        draw: D,
    ) -> RecordChange
    where
        D: Fn(Record, usize, &SourceFile) -> Record<F>,
    {
        // A byte-order mark is left out, as it is when a file is read from disk (an editor
        // may send one at the start of a buffer).
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        let display = self.files[file].display.clone();
        self.diagnostics.retain(|d| d.file != display);
        let Some(collection) = self.file_collections[file] else {
            self.files[file].text = Some(text);
            return RecordChange::None;
        };
        let context = LoadContext {
            text_fields: &schemas.collections[collection].text_fields,
            max_file_size: config.max_file_size,
        };
        let path = &self.files[file].path;
        let format = crate::source::Format::of_path(path);
        let mut diagnostics = Vec::new();
        let parsed = format
            .and_then(|format| load::parse(&text, &display, format, &context, &mut diagnostics));
        self.diagnostics.extend(diagnostics);
        self.files[file].text = Some(text);
        let at = self.records.partition_point(|r| r.file < file);
        let existing = self.records.get(at).is_some_and(|r| r.file == file);
        let record = parsed.map(|parsed| {
            draw(
                Record::new(parsed, collection, discover::file_stem(&display), file),
                at,
                &self.files[file],
            )
        });
        let change = match (record, existing) {
            (Some(record), true) => {
                self.records[at] = record;
                return RecordChange::Replaced(at);
            }
            (Some(record), false) => {
                self.records.insert(at, record);
                RecordChange::Inserted(at)
            }
            (None, true) => {
                self.records.remove(at);
                RecordChange::Removed(at)
            }
            (None, false) => return RecordChange::None,
        };
        for (index, record) in self.records.iter_mut().enumerate().skip(at) {
            record.value.renumber(index);
        }
        change
    }
}

// File and record indices are the corpus's own: it makes them, and callers get them from it.
#[allow(clippy::indexing_slicing)]
impl Corpus {
    /// Replaces one file's text with `text` (an editor's buffer, or the file re-read after a
    /// save) and re-parses that file alone, keeping its record's fields (see
    /// [`Corpus::set_text_with`]).
    pub fn set_text(
        &mut self,
        file: usize,
        text: String,
        schemas: &Schemas,
        config: &Config,
    ) -> RecordChange {
        self.set_text_with(file, text, schemas, config, |record, _, _| record)
    }

    /// Adds a record file that was not there when the corpus was loaded (a record created
    /// in an editor), in path order among the record files, and parses it from `text`. Every
    /// file index at or after the returned one moves up by one; the change says what
    /// happened to the records.
    pub fn insert_file(
        &mut self,
        candidate: discover::Candidate,
        text: String,
        schemas: &Schemas,
        config: &Config,
    ) -> (usize, RecordChange) {
        let records_end = self.file_collections.partition_point(Option::is_some);
        let at = self.files[..records_end].partition_point(|f| f.path < candidate.path);
        self.files.insert(
            at,
            SourceFile::new(candidate.path, candidate.display, None, false),
        );
        self.file_collections.insert(at, Some(candidate.collection));
        for record in &mut self.records {
            if record.file >= at {
                record.file += 1;
            }
        }
        for doc in &mut self.docs {
            if doc.file >= at {
                doc.file += 1;
            }
        }
        let change = self.set_text(at, text, schemas, config);
        (at, change)
    }

    /// Forgets a file that was deleted: its record and load diagnostics go, and every file
    /// index after it moves down by one. Returns the index of the record it held, if any.
    pub fn remove_file(&mut self, file: usize) -> Option<usize> {
        let removed = self.files.remove(file);
        self.file_collections.remove(file);
        self.diagnostics.retain(|d| d.file != removed.display);
        let record = self.record_of_file(file);
        if let Some(record) = record {
            self.records.remove(record);
        }
        for record in &mut self.records {
            if record.file > file {
                record.file -= 1;
            }
        }
        self.docs.retain(|doc| doc.file != file);
        for doc in &mut self.docs {
            if doc.file > file {
                doc.file -= 1;
            }
        }
        record
    }
}

/// What re-parsing one file did to [`Corpus::records`], so that whoever keeps data by
/// record index can follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordChange {
    /// The file is prose, or was and still is unparsable: no record changed.
    None,
    /// The record at this index was replaced; no index moved.
    Replaced(usize),
    /// A record now exists at this index (the file parses again); later records moved up.
    Inserted(usize),
    /// The record at this index is gone (the file no longer parses); later records moved
    /// down.
    Removed(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the file of `corpus` whose displayed path ends with `name` kept its text.
    fn keeps_text<F>(corpus: &Corpus<F>, name: &str) -> bool {
        let file = corpus.files.iter().find(|f| f.display.ends_with(name));
        file.unwrap_or_else(|| panic!("{name} not loaded"))
            .text
            .is_some()
    }

    #[test]
    fn the_site_keeps_the_bodies_of_markdown_records_and_no_record_file_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let project = crate::project::Project::open(root, None).unwrap();
        let corpus = project.load_for_site();
        let name = "pd-batch-invariant-mode-absent-from-kv-namespace.md";
        assert!(!keeps_text(&corpus, name));
        assert!(!keeps_text(&corpus, "engines/mooncake.yaml"));
        let record = corpus
            .records
            .iter()
            .find(|r| corpus.file_of(r).display.ends_with(name))
            .unwrap();
        let text = std::fs::read_to_string(&corpus.file_of(record).path).unwrap();
        let body = record.prose.as_ref().unwrap().body.clone();
        assert!(body.start > 0, "after the front matter");
        assert_eq!(record.value.body().as_deref(), text.get(body));
        assert!(
            project.load().files.iter().all(|f| f.text.is_some()),
            "a plain load keeps every text"
        );
    }

    #[test]
    fn a_check_keeps_only_the_texts_its_report_will_quote() {
        let dir = crate::testing::folder_with(&[
            (
                "schema/things.schema.json",
                r#"{"x-collection": "things", "type": "object", "required": ["id", "title"]}"#,
            ),
            (
                "records/things/good.json",
                r#"{"id": "good", "title": "Good"}"#,
            ),
            ("records/things/untitled.json", r#"{"id": "untitled"}"#),
            ("records/things/broken.json", r#"{"id": "#),
        ]);
        let root = dir.path();
        let project = crate::project::Project::open(root, None).unwrap();
        let corpus = project.load_for_check();
        let kept = |name: &str| keeps_text(&corpus, name);
        assert!(kept("untitled.json"), "a record with a finding");
        assert!(kept("broken.json"), "a file that does not parse");
        assert!(!kept("good.json"), "a record without findings");
        let unquoted = Corpus::load_with(
            root,
            &project.config,
            &project.schemas,
            |record, index, file| crate::check::draw(record, index, file, &project.schemas),
            None,
        );
        assert!(unquoted.files.iter().all(|f| f.text.is_none()));
    }

    /// Recalls every record file as an earlier run left it: the record, its head and its
    /// text's hash, kept from a load that read every file, as if each stamp were unchanged
    /// (`unread`) or its text read and found the same.
    struct Remembered {
        files: Vec<(String, Record, Option<Head>, u64)>,
        unread: bool,
    }

    impl Remembered {
        fn find(&self, display: &str, place: &Place) -> Option<(Record, Option<Head>, u64)> {
            let (_, record, head, hash) = self.files.iter().find(|(d, ..)| d == display)?;
            let mut record = record.clone();
            record.file = place.file;
            Some((record, head.clone(), *hash))
        }
    }

    impl Recall<Value> for Remembered {
        fn recall(
            &self,
            display: &str,
            text_hash: u64,
            place: &Place,
        ) -> Option<(Record, Option<Head>)> {
            let (record, head, hash) = self.find(display, place)?;
            (!self.unread && hash == text_hash).then_some((record, head))
        }

        fn recall_unread(
            &self,
            display: &str,
            place: &Place,
            _: &dyn Fn(&Stamp) -> bool,
        ) -> Option<(Record, Option<Head>, u64, Stamp)> {
            let (record, head, hash) = self.find(display, place)?;
            let stamp = Stamp {
                len: 0,
                device: 0,
                inode: 0,
                modified: 1,
                changed: 1,
            };
            self.unread.then_some((record, head, hash, stamp))
        }
    }

    #[test]
    fn a_recalled_record_has_the_head_kept_of_its_text_read_or_not() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let project = crate::project::Project::open(root, None).unwrap();
        let (config, schemas) = (&project.config, &project.schemas);
        let keep = |record: Record, _: usize, _: &SourceFile| record;
        let first = Corpus::load_with(root, config, schemas, keep, None);
        let remembered = |unread| Remembered {
            files: first
                .records
                .iter()
                .map(|record| {
                    let file = &first.files[record.file];
                    let head = file.head().cloned();
                    (
                        file.display.clone(),
                        record.clone(),
                        head,
                        file.let_go_hash().unwrap(),
                    )
                })
                .collect(),
            unread,
        };
        let heads = |corpus: &Corpus| -> Vec<(String, Option<Head>)> {
            corpus
                .files
                .iter()
                .map(|file| (file.display.clone(), file.head().cloned()))
                .collect()
        };
        let yaml = first.files.iter().find(|f| f.display.ends_with(".yaml"));
        let markdown = first.files.iter().find(|f| f.display.ends_with(".md"));
        for file in [yaml, markdown] {
            assert!(file.unwrap().head().is_some(), "a head to recall");
        }
        for unread in [true, false] {
            let recall = remembered(unread);
            let again = Corpus::load_with(root, config, schemas, keep, Some(&recall));
            assert_eq!(heads(&again), heads(&first), "unread: {unread}");
            let forgetful = Remembered {
                files: recall
                    .files
                    .into_iter()
                    .map(|(display, record, _, hash)| (display, record, None, hash))
                    .collect(),
                unread,
            };
            let headless = Corpus::load_with(root, config, schemas, keep, Some(&forgetful));
            // The bundled records are YAML and Markdown, whose roots only a parse finds.
            assert!(
                headless.files.iter().all(|f| f.head().is_none()),
                "unread: {unread}: without the heads kept, none"
            );
        }
    }

    /// What a record keeps in [`a_record_that_appears_or_goes_renumbers_the_ones_after`]:
    /// the index it was drawn with or renumbered to.
    struct Index(usize);

    impl Renumber for Index {
        fn renumber(&mut self, index: usize) {
            self.0 = index;
        }
    }

    #[test]
    fn a_record_that_appears_or_goes_renumbers_the_ones_after() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let project = crate::project::Project::open(root, None).unwrap();
        let (config, schemas) = (&project.config, &project.schemas);
        let draw = |record: Record, index: usize, _: &SourceFile| record.keeping(Index(index));
        let mut corpus = Corpus::load_with(root, config, schemas, draw, None);
        let numbered = |corpus: &Corpus<Index>| {
            corpus
                .records
                .iter()
                .enumerate()
                .all(|(index, record)| record.value.0 == index)
        };
        assert!(numbered(&corpus));
        let first = corpus.records[0].file;
        let text = std::fs::read_to_string(&corpus.files[first].path).unwrap();
        let count = corpus.records.len();

        let change = corpus.set_text_with(first, "id: [".into(), schemas, config, draw);
        assert_eq!(change, RecordChange::Removed(0));
        assert_eq!(corpus.records.len(), count - 1);
        assert!(
            numbered(&corpus),
            "the records after the one gone move down"
        );

        let change = corpus.set_text_with(first, text, schemas, config, draw);
        assert_eq!(change, RecordChange::Inserted(0));
        assert_eq!(corpus.records.len(), count);
        assert!(numbered(&corpus), "the records after the one back move up");
    }

    #[test]
    fn a_docs_pattern_reaches_its_folder_the_folders_below_and_above() {
        assert_eq!(literal_folder("docs/*.md"), "docs/");
        assert_eq!(literal_folder("docs/guides/**/*.md"), "docs/guides/");
        assert_eq!(literal_folder("**/*.md"), "");
        assert!(reaches("docs/", "docs"));
        assert!(reaches("docs/", "docs/old"));
        assert!(reaches("docs/guides/", "docs"));
        assert!(!reaches("docs/", "build"));
        assert!(!reaches("docs/", "docsite"));
        assert!(reaches("", "build"));
    }
}
