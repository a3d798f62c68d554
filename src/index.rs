//! Index: every record by qualified id (`engines/vllm`) and bare id (`vllm`), every prose page
//! by stem, and the resolution of every reference and link in the corpus against them.
//!
//! One resolver serves reference fields and prose links, so both get the same verdicts, the
//! same suggestions and the same edges. A bare id is resolved among the collections the field
//! allows: ambiguity across collections the field cannot point at is no ambiguity
//! (`affects: [sglang]` is the engine even when a `papers/sglang` record exists).
//! Suggestions for unknown ids come from posting lists ([`crate::candidates`]), so they cost in
//! proportion to the few unresolved ids, never the square of the corpus.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;
use serde_json::Value;

use crate::anchors::KnownIds;
use crate::candidates::NameIndex;
use crate::corpus::Corpus;
use crate::links::{self, Fragment, Link, LinkKind};
use crate::load::Record;
use crate::schema::Schemas;
use crate::source::Span;
use crate::suggest::{self, Suggestion};
use crate::unicode;

/// How many records [`IdIndex::resolve_all`] resolves into one part of its result: enough
/// that the parts are few (a hundred at 100,000 records), few enough that the threads share
/// the work evenly.
const RECORDS_PER_PART: usize = 1024;

/// What a reference or link points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// A record, by index in [`Corpus::records`].
    Record(usize),
    /// A prose page, by index in [`Corpus::docs`].
    Doc(usize),
    /// Another file that exists (a Markdown link to a file outside the docs).
    File,
}

/// Where a reference is written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A record's field, at a JSON pointer.
    Field {
        /// The record's index.
        record: usize,
        /// The field (`affects`, `flops.source_id`), interned by its schema's
        /// [`crate::references::Reference`].
        field: &'static str,
        /// The value's JSON pointer, interned ([`crate::intern::pointer`]).
        pointer: &'static str,
    },
    /// A link in a string field of a record (JSON, YAML, or Markdown front matter), where
    /// prose such as `notes` cites records too.
    FieldLink {
        /// The record's index.
        record: usize,
        /// The string value's JSON pointer, interned ([`crate::intern::pointer`]).
        pointer: &'static str,
        /// Which of the places its target is written as a link target in the value it is
        /// ([`crate::links::target_places`]): the same target may be written before, in
        /// code or as another link.
        place: u32,
        /// Wiki-link or file link.
        kind: LinkKind,
    },
    /// A link in prose: a record's Markdown body or a prose page.
    Link {
        /// The file's index in [`Corpus::files`].
        file: usize,
        /// The target text's span.
        span: Span,
        /// Wiki-link or file link.
        kind: LinkKind,
    },
}

impl Source {
    /// The index in [`Corpus::files`] of the file the reference is written in.
    // Record indices come from the corpus they index.
    #[allow(clippy::indexing_slicing)]
    pub fn file<F>(&self, corpus: &Corpus<F>) -> usize {
        match self {
            Source::Field { record, .. } | Source::FieldLink { record, .. } => {
                corpus.records[*record].file
            }
            Source::Link { file, .. } => *file,
        }
    }
}

/// A resolved reference: an edge of the corpus graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Where it is written. Its strings are shared with the reference it was resolved from,
    /// so a corpus's edges cost no allocation of their own.
    pub source: Source,
    /// What it points at.
    pub target: Target,
}

/// Why a reference did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Names nothing.
    Unresolved,
    /// Names only records of collections the field does not allow.
    WrongTarget(Vec<usize>),
    /// A bare id that names records in several allowed collections.
    Ambiguous(Vec<usize>),
    /// A wiki-link's page name (a stem, a path) that several prose pages have: the pages,
    /// by index in [`Corpus::docs`].
    AmbiguousPage(Vec<usize>),
}

/// A reference that did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    /// Where it is written.
    pub source: Source,
    /// The id or path as written.
    pub text: String,
    /// The collections the field allows (every collection for wiki-links).
    pub allowed: &'static [usize],
    /// What is wrong.
    pub problem: Problem,
}

/// Every reference of the corpus, resolved.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    /// References that resolved, in corpus order.
    pub edges: Edges,
    /// References that did not.
    pub unresolved: Vec<Unresolved>,
}

/// Resolved references, in order, kept in the runs they were resolved in.
///
/// [`IdIndex::resolve_all`] resolves a corpus in parts, in parallel. Concatenated, the
/// parts were copied an edge at a time on one thread (9 of resolving's 35 ms at 100,000
/// records, 74 ms at a million) into memory the kernel first had to zero, while the parts
/// still held every edge; appended as runs, nothing is copied.
#[derive(Clone, Default)]
pub struct Edges {
    /// The runs, in order.
    runs: Vec<Vec<Edge>>,
}

impl Edges {
    /// No edges, with room for `capacity` in one run.
    fn with_capacity(capacity: usize) -> Self {
        Edges {
            runs: vec![Vec::with_capacity(capacity)],
        }
    }

    /// How many edges there are.
    pub fn len(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.runs.iter().all(Vec::is_empty)
    }

    /// The edges, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Edge> + Clone {
        self.runs.iter().flatten()
    }

    /// Adds an edge after the others.
    pub fn push(&mut self, edge: Edge) {
        match self.runs.last_mut() {
            Some(run) => run.push(edge),
            None => self.runs.push(vec![edge]),
        }
    }

    /// Moves `other`'s edges after these, without copying them.
    fn append(&mut self, other: Edges) {
        self.runs
            .extend(other.runs.into_iter().filter(|run| !run.is_empty()));
    }
}

impl<'e> IntoIterator for &'e Edges {
    type Item = &'e Edge;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'e, Vec<Edge>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.runs.iter().flatten()
    }
}

/// Two lists of edges are equal when their edges are, however they are split into runs.
impl PartialEq for Edges {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Edges {}

impl std::fmt::Debug for Edges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Resolved {
    /// Adds a resolved reference, copying of it only what the result keeps: an edge keeps
    /// where it is written, not the text or the allowed collections.
    fn add_copy(&mut self, reference: &Written, outcome: Result<Target, Problem>) {
        match outcome {
            Ok(target) => self.edges.push(Edge {
                source: reference.source.clone(),
                target,
            }),
            Err(_) => self.add(reference.clone(), outcome),
        }
    }

    fn add(&mut self, reference: Written, outcome: Result<Target, Problem>) {
        match outcome {
            Ok(target) => self.edges.push(Edge {
                source: reference.source,
                target,
            }),
            Err(problem) => self.unresolved.push(Unresolved {
                source: reference.source,
                text: reference.text,
                allowed: reference.allowed,
                problem,
            }),
        }
    }
}

/// What a record keeps that the references written in it can be read from: its fields, or
/// the references themselves, found while it was loaded.
pub trait Cites: Sized + Sync {
    /// Every reference written in `record`, the record at `index` of its corpus: see
    /// [`written_in_record`]. Borrowed when the record keeps them.
    fn written<'r>(record: &'r Record<Self>, index: usize, schemas: &Schemas)
    -> Cow<'r, [Written]>;

    /// The fragments of the links in `record`'s string fields (see [`FieldFragment`]), in
    /// the order they are written. Borrowed when the record keeps them.
    fn field_fragments(record: &Record<Self>) -> Cow<'_, [FieldFragment]>;

    /// The ids of `record`'s own page, when it drew them while it was loaded, its fields at
    /// hand, because a fragment of its own names a place in it (see
    /// [`crate::check::draw`]); `None` when it did not, and `broken-anchor` reads its file
    /// again for them.
    fn own_page_ids(_record: &Record<Self>) -> Option<&KnownIds> {
        None
    }
}

/// A record's drawn form that holds the references written in it, drawn while it was
/// loaded: `check`'s, the graph commands' and the site's. Each [`Cites`] them as they are
/// and renumbers them with its record ([`crate::corpus::Renumber`]).
pub trait KeepsWritten: Sync {
    /// The references written in the record.
    fn written(&self) -> &[Written];

    /// The fragments of the links in the record's string fields.
    fn field_fragments(&self) -> &[FieldFragment];

    /// The same, to renumber.
    fn written_mut(&mut self) -> &mut [Written];

    /// The ids of the record's own page, if it drew them (see [`Cites::own_page_ids`]).
    fn own_page_ids(&self) -> Option<&KnownIds> {
        None
    }
}

impl<K: KeepsWritten> Cites for K {
    fn written<'r>(record: &'r Record<Self>, _: usize, _: &Schemas) -> Cow<'r, [Written]> {
        Cow::Borrowed(KeepsWritten::written(&record.value))
    }

    fn field_fragments(record: &Record<Self>) -> Cow<'_, [FieldFragment]> {
        Cow::Borrowed(KeepsWritten::field_fragments(&record.value))
    }

    fn own_page_ids(record: &Record<Self>) -> Option<&KnownIds> {
        KeepsWritten::own_page_ids(&record.value)
    }
}

impl<K: KeepsWritten> crate::corpus::Renumber for K {
    fn renumber(&mut self, index: usize) {
        renumber(self.written_mut(), index);
    }
}

impl Cites for Value {
    fn written<'r>(
        record: &'r Record<Self>,
        index: usize,
        schemas: &Schemas,
    ) -> Cow<'r, [Written]> {
        Cow::Owned(written_in(record, index, schemas, true).references)
    }

    fn field_fragments(record: &Record<Self>) -> Cow<'_, [FieldFragment]> {
        // The walk finds the strings' links too, which are not wanted here, nor the record
        // index they would name.
        let mut walk = LinkWalk::default();
        walk.value(0, &record.value, record.sections());
        Cow::Owned(walk.fragments)
    }
}

/// Records by id and prose pages by stem.
pub struct IdIndex<'c, F = Value> {
    corpus: &'c Corpus<F>,
    schemas: &'c Schemas,
    /// Bare id -> the first record with it of each collection that has one, in collection
    /// order. A qualified id is looked up by its bare id: one map of the corpus's ids, where
    /// a second keyed by `(collection, id)` cost as much again to build and to hold.
    ///
    /// The map is split into shards by bits of an id's hash ([`shard_of`]), a shard per core,
    /// built side by side: filling one map of 100,000 ids on one core took 8.8 ms, most of
    /// it waiting on memory, as each id lands at a random place of a table larger than a
    /// core's cache.
    bare: Vec<hashbrown::HashTable<(&'c str, Owners)>>,
    /// How many bits of a hash pick its shard of `bare` ([`shard_of`]).
    shard_bits: u32,
    /// Prose page name -> the pages it names, in corpus order: each page by its stem, by
    /// its path from the corpus root and by its path below its `docs` folder, without
    /// `.md` ([`page_names`]). A stem or a path that several pages share names them all.
    docs: HashMap<&'c str, Vec<usize>>,
    /// Prose page path, normalized ([`normalize`]: a root of `.` makes `./docs/a.md`, which
    /// a link from `docs/b.md` names as `docs/a.md`) -> page.
    doc_paths: HashMap<std::path::PathBuf, usize>,
    /// `(record, first)` for every record whose id its collection already has, in record
    /// order: `first` is the record that has it.
    duplicates: Vec<(usize, usize)>,
    /// `(record, first)` for every record whose bare id an earlier record has, of its own
    /// collection or another, in record order: the suggestion index takes each id once,
    /// from its first record, without sorting the ids to find the ones given twice.
    repeats: Vec<(usize, usize)>,
    /// Built on first use (see [`IdIndex::names`]): a corpus whose references all resolve
    /// never pays for it, and the language server rebuilds the index on edits.
    suggestions: OnceLock<NameIndex<'c>>,
    /// The fold ([`unicode::fold`]) of every id that is not its own -> those ids, built on
    /// first use (see [`IdIndex::look_alikes`]).
    folds: OnceLock<HashMap<String, Vec<&'c str>>>,
    /// `(collection, file stem)` -> file, for every record file that did not load, built on
    /// first use (see [`IdIndex::unloaded_file`]).
    unloaded: OnceLock<HashMap<(usize, &'c str), usize>>,
    /// Record file path, normalized as `doc_paths`' -> record, built on first use: only a
    /// corpus whose prose links a record's file needs it.
    record_files: OnceLock<HashMap<std::path::PathBuf, usize>>,
}

// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
impl<'c, F: Cites> IdIndex<'c, F> {
    /// Indexes a loaded corpus.
    pub fn new(corpus: &'c Corpus<F>, schemas: &'c Schemas) -> Self {
        let shard_bits = rayon::current_num_threads()
            .next_power_of_two()
            .min(MAX_SHARDS)
            .trailing_zeros();
        // Each shard is filled in corpus order, so the first record of an id is the one
        // kept, and a shard's duplicates are in corpus order; the shards' are merged.
        let (bare, (duplicates, repeats)): (Vec<_>, (Vec<_>, Vec<_>)) = (0..1usize << shard_bits)
            .into_par_iter()
            .map(|shard| {
                let mine = || {
                    corpus
                        .records
                        .iter()
                        .enumerate()
                        .filter(move |(_, record)| shard_of(record.id_hash, shard_bits) == shard)
                };
                // Sized up front: growing a map of a hundred thousand ids rehashes it a
                // dozen times.
                let mut table = hashbrown::HashTable::with_capacity(mine().count());
                let mut duplicates = Vec::new();
                let mut repeats = Vec::new();
                for (i, record) in mine() {
                    let owner = Owner::new(record.collection, i);
                    let entry = table.entry(
                        record.id_hash,
                        |(id, _): &(&str, Owners)| *id == record.id,
                        |(id, _)| id_hash(id),
                    );
                    match entry {
                        hashbrown::hash_table::Entry::Occupied(mut found) => {
                            let owners = &mut found.get_mut().1;
                            let first = owners.as_slice().iter().map(|o| o.record()).min();
                            repeats.push((i, first.unwrap_or(i)));
                            if let Some(first) = owners.add(owner) {
                                duplicates.push((i, first));
                            }
                        }
                        hashbrown::hash_table::Entry::Vacant(slot) => {
                            slot.insert((record.id.as_str(), Owners::One(owner)));
                        }
                    }
                }
                (table, (duplicates, repeats))
            })
            .unzip();
        let mut duplicates: Vec<(usize, usize)> = duplicates.into_iter().flatten().collect();
        duplicates.sort_unstable();
        let mut repeats: Vec<(usize, usize)> = repeats.into_iter().flatten().collect();
        repeats.sort_unstable();
        let mut index = IdIndex {
            corpus,
            schemas,
            bare,
            shard_bits,
            docs: HashMap::new(),
            doc_paths: HashMap::new(),
            duplicates,
            repeats,
            suggestions: OnceLock::new(),
            folds: OnceLock::new(),
            unloaded: OnceLock::new(),
            record_files: OnceLock::new(),
        };
        for (i, doc) in corpus.docs.iter().enumerate() {
            for name in page_names(&corpus.files[doc.file].display, doc) {
                index.docs.entry(name).or_default().push(i);
            }
            index
                .doc_paths
                .insert(normalize(&corpus.files[doc.file].path), i);
        }
        index
    }

    /// `(record, first)` for every record whose id another record of its collection, `first`,
    /// has already: in record order, `first` before `record`.
    pub fn duplicates(&self) -> &[(usize, usize)] {
        &self.duplicates
    }

    /// Resolves an id (`vllm` or `engines/vllm`) for a field that allows `allowed`.
    pub fn resolve(&self, text: &str, allowed: &[usize]) -> Result<usize, Problem> {
        if let Some((folder, id)) = split_qualified(text) {
            let Some(collection) = self.schemas.by_folder(folder) else {
                return Err(Problem::Unresolved);
            };
            let owner = self
                .owners(id)
                .iter()
                .find(|owner| owner.collection() == collection);
            return match owner {
                None => Err(Problem::Unresolved),
                Some(owner) if allowed.contains(&collection) => Ok(owner.record()),
                Some(owner) => Err(Problem::WrongTarget(vec![owner.record()])),
            };
        }
        let owners = self.owners(text);
        if owners.is_empty() {
            return Err(Problem::Unresolved);
        }
        let mut fitting = owners
            .iter()
            .filter(|owner| allowed.contains(&owner.collection()))
            .map(|owner| owner.record());
        // Nearly every reference resolves to one record, so the list of fitting records is
        // gathered only when there are several.
        match (fitting.next(), fitting.next()) {
            (Some(one), None) => Ok(one),
            (None, _) => Err(Problem::WrongTarget(
                owners.iter().map(|owner| owner.record()).collect(),
            )),
            (Some(first), Some(second)) => Err(Problem::Ambiguous(
                [first, second].into_iter().chain(fitting).collect(),
            )),
        }
    }

    /// The records with bare id `id`, one per collection, in collection order.
    fn owners(&self, id: &str) -> &[Owner] {
        let hash = id_hash(id);
        self.bare
            .get(shard_of(hash, self.shard_bits))
            .and_then(|shard| shard.find(hash, |(key, _)| *key == id))
            .map_or(&[], |(_, owners)| owners.as_slice())
    }

    /// The record file that would hold the record `text` (`vllm` or `engines/vllm`) names in
    /// one of `allowed`, if there is one and it did not load: its name is the id, in the
    /// collection's folder. Such a record is not missing, and a did-you-mean would lead
    /// away from it; its file's own error says what to fix. The files that did not load
    /// are looked for on the first call only, as a corpus whose references all resolve
    /// never asks.
    pub fn unloaded_file(&self, text: &str, allowed: &[usize]) -> Option<usize> {
        let unloaded = self.unloaded.get_or_init(|| {
            let corpus = self.corpus;
            (corpus
                .files
                .iter()
                .zip(&corpus.file_collections)
                .enumerate())
            .filter(|&(file, _)| corpus.record_of_file(file).is_none())
            .filter_map(|(file, (source, collection))| {
                let stem = source.path.file_stem()?.to_str()?;
                Some(((collection.as_ref().copied()?, stem), file))
            })
            .collect()
        });
        if unloaded.is_empty() {
            return None;
        }
        match split_qualified(text) {
            Some((folder, id)) => {
                let collection = self.schemas.by_folder(folder)?;
                allowed.contains(&collection).then_some(())?;
                unloaded.get(&(collection, id)).copied()
            }
            None => allowed
                .iter()
                .find_map(|&collection| unloaded.get(&(collection, text)).copied()),
        }
    }

    /// The qualified id of a record: `engines/vllm`.
    pub fn qualified_id(&self, record: usize) -> String {
        self.schemas.qualified_id(&self.corpus.records[record])
    }

    /// The index of every bare id that [`IdIndex::suggest`] searches, built on the first call.
    ///
    /// Building it runs rayon tasks, so a caller that suggests from inside rayon tasks must
    /// call this first, outside them: otherwise the worker building the index may, while it
    /// waits for its own tasks, pick up a task that blocks on this same unfinished
    /// `OnceLock`, and neither ever finishes.
    pub fn names(&self) -> &NameIndex<'c> {
        self.suggestions.get_or_init(|| {
            // Every id once, from its first record, in corpus order, which is nearly the
            // order the ids lie in memory (the id map's order is not), in the groups of
            // the collections that have it: its collection's, but for an id that
            // another collection has too.
            let mut shared: Vec<usize> = self.repeats.iter().map(|&(_, first)| first).collect();
            shared.sort_unstable();
            shared.dedup();
            let names = self
                .corpus
                .records
                .iter()
                .enumerate()
                .filter(|&(record, _)| {
                    self.repeats
                        .binary_search_by_key(&record, |&(repeat, _)| repeat)
                        .is_err()
                })
                .map(|(record, of)| {
                    let groups = if shared.binary_search(&record).is_ok() {
                        self.owners(&of.id).iter().fold(0, |groups, owner| {
                            groups | collection_bit(owner.collection())
                        })
                    } else {
                        collection_bit(of.collection)
                    };
                    (of.id.as_str(), groups)
                })
                .collect();
            NameIndex::with_distinct_groups(names)
        })
    }

    /// Up to three records whose id is close to `unknown`, best first, preferring the allowed
    /// collections: suggestions from other collections are offered only when none fits.
    pub fn suggest(&self, unknown: &str, allowed: &[usize]) -> Vec<(Suggestion<'c>, usize)> {
        let (folder, id) = match split_qualified(unknown) {
            Some((written, id)) => match self.schemas.by_folder(written) {
                Some(folder) => (Some(folder), id),
                // The folder is what is misspelt (`engine/vllm`): the records of that id in
                // the folders nearest to it are what was meant. Scoring the id alone would
                // skip the one of the same id and offer its neighbours.
                None => return self.in_folders_near(written, id, allowed),
            },
            None => (None, unknown),
        };
        let unknown = suggest::Unknown::new(id);
        let budget = unknown.budget();
        let in_folder = |owner: &Owner| folder.is_none_or(|f| f == owner.collection());
        let fits = |owner: &Owner| in_folder(owner) && allowed.contains(&owner.collection());
        // Only names of the allowed collections are candidates: the index keeps each
        // collection's ids apart, so the others are not even counted.
        let wanted = allowed
            .iter()
            .fold(0, |groups, &collection| groups | collection_bit(collection));
        // Candidates are scored before their owners are looked up: scoring turns nearly
        // every one down, and it reads two short strings where the look-up hashes one and
        // probes a map of every id.
        //
        // Typos rank before shared words, nearer typos before further ones, and typos that
        // change a model or version after both ([`suggest::rank`]): once enough of the
        // others are found, a candidate further than the furthest of the nearest ones, or
        // one that only shares words, cannot be among the suggestions, and the search
        // narrows to what can (`reach`), which the cheap bounds turn down sooner. A long
        // name's budget of four or five edits lets hundreds of similar ids through to
        // scoring; the nearest few are usually closer.
        let mut best: Vec<(Suggestion<'c>, usize)> = Vec::new();
        // Ids that read as the one written come first, whatever their distance; those of
        // collections the field may not cite are offered only as close typos would be.
        let look_alikes = self.look_alikes(&unknown);
        let mut alike_elsewhere = Vec::new();
        for name in &look_alikes {
            let Some(found) = unknown.score_same(name) else {
                continue;
            };
            for owner in self.owners(name).iter().filter(|o| in_folder(o)) {
                let place = if fits(owner) {
                    &mut best
                } else {
                    &mut alike_elsewhere
                };
                place.push((found.clone(), owner.record()));
            }
        }
        let mut nearest = Nearest::new();
        for candidate in self.names().candidates(id, budget, wanted) {
            if look_alikes.contains(&candidate.name) {
                continue;
            }
            let reach = nearest.reach().unwrap_or(budget);
            let found = unknown.score_typo(candidate.name, reach).or_else(|| {
                (reach == budget && candidate.may_share_words)
                    .then(|| unknown.score_words(candidate.name))
                    .flatten()
            });
            if let Some(found) = found {
                for owner in self.owners(candidate.name).iter().filter(|o| fits(o)) {
                    if found.kind == suggest::MatchKind::Typo && !found.changes_code {
                        nearest.add(found.distance);
                    }
                    best.push((found.clone(), owner.record()));
                }
            }
        }
        // Outside the allowed collections only close typos are worth showing (a record of the
        // wrong collection, misspelt): at most two edits, and within the name's budget. A
        // shared word with a record the field cannot point at is noise, so no words are
        // looked up. The tighter distance also keeps this fallback cheap.
        if best.is_empty() {
            let close = budget.min(suggest::MAX_CERTAIN_DISTANCE);
            best = alike_elsewhere;
            let typos = self.typos(&unknown, id, close, other_groups(wanted), in_folder);
            best.extend(
                typos
                    .into_iter()
                    .filter(|(typo, _)| !look_alikes.contains(&typo.name)),
            );
        }
        ranked(best)
    }

    /// The known ids that read as `unknown` does ([`unicode::fold`]), but for itself: the id
    /// that is its fold, if there is one, and the ids that are not their own fold and share
    /// it. The latter's folds are worked out on the first call, which looks at every id but
    /// folds only those that are not plain ASCII in lower case ([`unicode::is_plain`]), nearly
    /// none; an id that is its own fold is found by the one look-up of the unknown's.
    fn look_alikes(&self, unknown: &suggest::Unknown<'_>) -> Vec<&'c str> {
        let folded = unknown.folded();
        let folds = self.folds.get_or_init(|| {
            let mut folds: HashMap<String, Vec<&'c str>> = HashMap::new();
            let ids = self.bare.iter().flat_map(|shard| shard.iter());
            for &(id, _) in ids.filter(|(id, _)| !unicode::is_plain(id)) {
                folds
                    .entry(unicode::fold(id).into_owned())
                    .or_default()
                    .push(id);
            }
            folds
        });
        let its_fold = self
            .owners(folded)
            .first()
            .and_then(|owner| self.corpus.records.get(owner.record()))
            .map(|record| record.id.as_str());
        let sharing = folds.get(folded).into_iter().flatten().copied();
        its_fold.into_iter().chain(sharing).collect()
    }

    /// The records with the id `id` in the allowed collections whose folders are at most
    /// [`suggest::MAX_CERTAIN_DISTANCE`] edits from `written`, a folder no collection has,
    /// nearest first, each scored by its folder's distance from `written`.
    fn in_folders_near(
        &self,
        written: &str,
        id: &str,
        allowed: &[usize],
    ) -> Vec<(Suggestion<'c>, usize)> {
        let written: Vec<char> = written.chars().collect();
        let found = self
            .owners(id)
            .iter()
            .filter(|owner| allowed.contains(&owner.collection()))
            .filter_map(|owner| {
                let record = self.corpus.records.get(owner.record())?;
                let folder = &self.schemas.collections.get(owner.collection())?.folder;
                let folder: Vec<char> = folder.chars().collect();
                let distance =
                    suggest::distance_within(&written, &folder, suggest::MAX_CERTAIN_DISTANCE)?;
                let suggestion = Suggestion {
                    name: record.id.as_str(),
                    kind: suggest::MatchKind::Folder,
                    distance,
                    similarity: 1.0,
                    changes_code: false,
                };
                Some((suggestion, owner.record()))
            })
            .collect();
        ranked(found)
    }

    /// The records of `groups` whose id is within `budget` edits of `unknown` (`id`, as
    /// prepared for scoring), each owner that `keep` keeps, unordered.
    fn typos(
        &self,
        unknown: &suggest::Unknown<'_>,
        id: &str,
        budget: usize,
        groups: u64,
        keep: impl Fn(&Owner) -> bool,
    ) -> Vec<(Suggestion<'c>, usize)> {
        let mut found = Vec::new();
        for name in self.names().typo_names(id, budget, groups) {
            if let Some(typo) = unknown.score_typo(name, budget) {
                found.extend(
                    self.owners(name)
                        .iter()
                        .filter(|owner| keep(owner))
                        .map(|owner| (typo.clone(), owner.record())),
                );
            }
        }
        found
    }

    /// "did you mean mooncake (engines/mooncake)?", or "did you mean one of a (..), b (..)?",
    /// for suggestions from [`IdIndex::suggest`]; `None` when there are none.
    pub fn did_you_mean(&self, suggestions: &[(Suggestion<'_>, usize)]) -> Option<String> {
        let named: Vec<String> = suggestions
            .iter()
            .map(|(s, record)| format!("{} ({})", s.name, self.qualified_id(*record)))
            .collect();
        did_you_mean_one_of(&named)
    }

    /// "did you mean the page known-traps (docs/known-traps.md)?": prose pages whose stem
    /// is close to a wiki-link's bare `unknown`, for a link that names no record or page
    /// and no record close to it. Pages are few, so each is scored.
    pub fn did_you_mean_page(&self, unknown: &str) -> Option<String> {
        if unknown.contains('/') {
            return None;
        }
        // Several pages may share a stem: each is named once.
        let stems: std::collections::BTreeSet<&str> = self
            .corpus
            .docs
            .iter()
            .map(|doc| doc.stem.as_str())
            .collect();
        let named: Vec<String> = suggest::suggest(unknown, stems, SUGGESTIONS)
            .iter()
            .flat_map(|s| {
                let docs = self.docs.get(s.name).map(Vec::as_slice).unwrap_or_default();
                docs.iter().map(|&doc| {
                    let file = &self.corpus.files[self.corpus.docs[doc].file];
                    format!("the page {} ({})", s.name, file.display)
                })
            })
            .collect();
        did_you_mean_one_of(&named)
    }

    /// A `help:` line suggesting ids close to `unknown` among `allowed`, or nothing.
    pub fn help_line(&self, unknown: &str, allowed: &[usize]) -> String {
        self.did_you_mean(&self.suggest(unknown, allowed))
            .map(|help| format!("\nhelp: {help}"))
            .unwrap_or_default()
    }

    /// Resolves every reference field of every record and every link in prose.
    pub fn resolve_all(&self) -> Resolved {
        // Finding and resolving the references of one file reads nothing another file's
        // resolution writes, so files are resolved in parallel, a run of records into each
        // part, and the parts concatenated in corpus order, which keeps the result the same
        // for any thread count. A part per record was a vector per record, each allocated,
        // filled, copied out and freed: a million of them at a million records.
        let records = self
            .corpus
            .records
            .par_iter()
            .enumerate()
            .chunks(RECORDS_PER_PART)
            .map(|records| {
                self.resolve_part(
                    records
                        .into_iter()
                        .map(|(index, record)| F::written(record, index, self.schemas))
                        .collect(),
                )
            });
        // A prose page's links are found by parsing its Markdown, far more work than a
        // record's, and pages are few: each is a part of its own, so that they parse in
        // parallel however few there are.
        let docs = (0..self.corpus.docs.len()).into_par_iter().map(|doc| {
            self.resolve_part(vec![Cow::Owned(written_in_doc(
                self.corpus,
                self.schemas,
                doc,
            ))])
        });
        let parts: Vec<Resolved> = records.chain(docs).collect();
        let mut resolved = Resolved::default();
        for part in parts {
            resolved.edges.append(part.edges);
            resolved.unresolved.extend(part.unresolved);
        }
        resolved
    }

    /// Resolves the references of a run of files, moving in those that are the caller's to
    /// give.
    fn resolve_part(&self, files: Vec<Cow<'_, [Written]>>) -> Resolved {
        // Sized for every reference resolving, as nearly all do, so that the part is
        // allocated once rather than grown, and copied, a push at a time.
        let mut part = Resolved {
            edges: Edges::with_capacity(files.iter().map(|written| written.len()).sum()),
            unresolved: Vec::new(),
        };
        for written in files {
            match written {
                Cow::Owned(written) => self.resolve_owned(written, &mut part),
                Cow::Borrowed(written) => self.resolve_written(written, &mut part),
            }
        }
        part
    }

    /// Resolves references found by [`written_in_record`] or [`written_in_doc`], adding them
    /// to `resolved` in order. Finding them is the costly part (Markdown is parsed for
    /// links), so a caller that keeps them per file resolves the corpus again without
    /// parsing it again.
    pub fn resolve_written(&self, written: &[Written], resolved: &mut Resolved) {
        for reference in written {
            resolved.add_copy(reference, self.resolve_one(reference));
        }
    }

    /// [`IdIndex::resolve_written`] for references the caller no longer needs: they move
    /// into the result instead of being copied.
    fn resolve_owned(&self, written: Vec<Written>, resolved: &mut Resolved) {
        for reference in written {
            let outcome = self.resolve_one(&reference);
            resolved.add(reference, outcome);
        }
    }

    fn resolve_one(&self, reference: &Written) -> Result<Target, Problem> {
        match &reference.source {
            Source::Field { .. } => self
                .resolve(&reference.text, reference.allowed)
                .map(Target::Record),
            Source::FieldLink { kind, record, .. } => {
                self.resolve_link(*kind, self.corpus.records[*record].file, reference)
            }
            Source::Link { kind, file, .. } => self.resolve_link(*kind, *file, reference),
        }
    }

    fn resolve_link(
        &self,
        kind: LinkKind,
        file: usize,
        reference: &Written,
    ) -> Result<Target, Problem> {
        match kind {
            LinkKind::Wiki => self.resolve_wiki(&reference.text, reference.allowed),
            LinkKind::File => self.resolve_file(file, &reference.text),
        }
    }

    /// Resolves one link of prose in corpus file `file` the way [`IdIndex::resolve_written`]
    /// resolves a link it found; `all` is every collection. The site renders prose links
    /// through this, so a page links what `check` accepts and marks what it reports.
    pub fn resolve_prose_link(
        &self,
        file: usize,
        link: &Link,
        all: &[usize],
    ) -> Result<Target, Problem> {
        match link.kind {
            LinkKind::Wiki => self.resolve_wiki(&link.target, all),
            LinkKind::File => self.resolve_file(file, &link.target),
        }
    }

    /// A wiki-link names a record (qualified or bare) or a prose page, by its stem or its
    /// path (below its `docs` folder or from the corpus root, `.md` or not). A bare name is
    /// a page's stem before a record's id; a path is a record's qualified id before a
    /// page's path, as `[[engines/vllm]]` is how records are cited, so a page whose path
    /// reads as one is named from the root (`[[docs/engines/vllm]]`). A name several pages
    /// share names none of them ([`Problem::AmbiguousPage`]).
    pub(crate) fn resolve_wiki(&self, target: &str, all: &[usize]) -> Result<Target, Problem> {
        let page = target.strip_suffix(".md").unwrap_or(target);
        if !target.contains('/') {
            return match self.page(page) {
                Some(found) => found,
                None => self.resolve(target, all).map(Target::Record),
            };
        }
        match self.resolve(target, all) {
            Err(Problem::Unresolved) => self.page(page).unwrap_or(Err(Problem::Unresolved)),
            record => record.map(Target::Record),
        }
    }

    /// The page `name` names, or why it names none, when some page has that name.
    fn page(&self, name: &str) -> Option<Result<Target, Problem>> {
        match self.docs.get(name)?.as_slice() {
            [one] => Some(Ok(Target::Doc(*one))),
            several => Some(Err(Problem::AmbiguousPage(several.to_vec()))),
        }
    }

    /// The shortest path a wiki-link may name page `doc` by that names it alone: its path
    /// below its `docs` folder, else from the root (without `.md`); `None` when both name
    /// something else too.
    pub fn page_name(&self, doc: usize) -> Option<&'c str> {
        let of = &self.corpus.docs[doc];
        page_paths(&self.corpus.files[of.file].display, of)
            .into_iter()
            .find(|name| {
                self.resolve_wiki(name, self.schemas.every_collection()) == Ok(Target::Doc(doc))
            })
    }

    /// A Markdown link names a file relative to the linking file: a prose page, a record's
    /// file (`[vLLM](../records/engines/vllm.md)`, which cites the record as a wiki-link
    /// does), or another file or folder of the repository (an image, a PDF).
    fn resolve_file(&self, file: usize, target: &str) -> Result<Target, Problem> {
        let normal = self.file_link(file, target);
        if let Some(&doc) = self.doc_paths.get(normal.as_path()) {
            return Ok(Target::Doc(doc));
        }
        let record_files = self.record_files.get_or_init(|| {
            (self.corpus.records.iter().enumerate())
                .map(|(record, r)| (normalize(&self.corpus.files[r.file].path), record))
                .collect()
        });
        if let Some(&record) = record_files.get(normal.as_path()) {
            return Ok(Target::Record(record));
        }
        if normal.exists() {
            Ok(Target::File)
        } else {
            Err(Problem::Unresolved)
        }
    }

    /// The path a link to `target` in corpus file `file` names, normalized
    /// ([`linked_path`]), its percent escapes decoded as a browser decodes them
    /// (`my%20plot.png` is `my plot.png`).
    pub fn file_link(&self, file: usize, target: &str) -> std::path::PathBuf {
        let decoded = percent_encoding::percent_decode_str(target).decode_utf8();
        let target = decoded.as_deref().unwrap_or(target);
        linked_path(&self.corpus.files[file].path, target)
    }
}

/// The names a wiki-link may give a prose page shown as `display`: its stem and its
/// [`page_paths`], each once (a page at the top of its folder has its stem for its path
/// below it).
fn page_names<'d>(display: &'d str, doc: &'d crate::corpus::Doc) -> Vec<&'d str> {
    let mut names = vec![doc.stem.as_str()];
    for name in page_paths(display, doc) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The paths of a prose page shown as `display`, without `.md`: below its `docs` folder,
/// and from the root.
fn page_paths<'d>(display: &'d str, doc: &crate::corpus::Doc) -> [&'d str; 2] {
    let path = display.strip_suffix(".md").unwrap_or(display);
    [path.get(doc.folder_len..).unwrap_or(path), path]
}

/// "did you mean a?" or "did you mean one of a, b?" of the things `named`; `None` for none.
fn did_you_mean_one_of(named: &[String]) -> Option<String> {
    match named {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        many => Some(format!("did you mean one of {}?", many.join(", "))),
    }
}

/// How many suggestions a did-you-mean offers at most.
const SUGGESTIONS: usize = 3;

/// The distances of the nearest [`SUGGESTIONS`] typos found so far, nearest first; the
/// places not yet filled hold `usize::MAX`.
struct Nearest([usize; SUGGESTIONS]);

impl Nearest {
    fn new() -> Nearest {
        Nearest([usize::MAX; SUGGESTIONS])
    }

    fn add(&mut self, distance: usize) {
        let mut carried = distance;
        for kept in &mut self.0 {
            if carried < *kept {
                std::mem::swap(kept, &mut carried);
            }
        }
    }

    /// How far a typo may be and still be among the suggestions, once enough are found: as
    /// far as the furthest of the nearest, which a tie may still displace.
    fn reach(&self) -> Option<usize> {
        self.0
            .last()
            .copied()
            .filter(|&furthest| furthest != usize::MAX)
    }
}

/// `found`, best first, cut to [`SUGGESTIONS`]; equal suggestions by record order.
fn ranked(mut found: Vec<(Suggestion<'_>, usize)>) -> Vec<(Suggestion<'_>, usize)> {
    found.sort_by(|a, b| suggest::rank(&a.0, &b.0).then(a.1.cmp(&b.1)));
    found.truncate(SUGGESTIONS);
    found
}

/// A collection as a group of [`NameIndex::with_groups`]: one bit each for the first 63,
/// every bit for the rest, which then never tell a candidate apart (wrongly skipping one
/// would lose a suggestion; scoring one more only costs time).
fn collection_bit(collection: usize) -> u64 {
    if collection < 63 {
        1 << collection
    } else {
        u64::MAX
    }
}

/// The groups of the collections outside `wanted` (see [`collection_bit`]): every group when
/// `wanted` holds a collection past the 63rd, whose bit is every bit, as the others past it
/// share it.
fn other_groups(wanted: u64) -> u64 {
    if wanted == u64::MAX {
        u64::MAX
    } else {
        !wanted
    }
}

/// A qualified id (`engines/vllm`) split at its first slash into folder and bare id; `None`
/// for a bare id. The slash is looked for with `memchr`'s vector search: every reference is
/// split, and `str::split_once` took 8% of resolving's time at 100,000 records.
fn split_qualified(text: &str) -> Option<(&str, &str)> {
    let slash = memchr::memchr(b'/', text.as_bytes())?;
    // A slash is one byte, so both sides are on character boundaries.
    Some((text.get(..slash)?, text.get(slash + 1..)?))
}

/// The hash the id index finds an id by, the same in every run: records keep their id's
/// ([`Record::id_hash`]), worked out as they were made.
///
/// A fixed seed ([`crate::cache::stable_hash`]) rather than one drawn per index, which
/// would make every record's hash depend on the index it is put in: ids come from the
/// corpus being checked, and a corpus crafted to collide slows down only its own check.
pub fn id_hash(id: &str) -> u64 {
    crate::cache::stable_hash(id.as_bytes())
}

/// The most shards of [`IdIndex::bare`]: more cores than this share the shards.
const MAX_SHARDS: usize = 16;

/// The shard of [`IdIndex::bare`] an id of hash `hash` is in: `bits` bits from the middle of
/// the hash. Not its top bits: a table tells its entries apart by their top seven bits
/// before comparing ids, and places them by their low bits, so a shard of ids sharing
/// either would compare more ids at each slot it probes.
fn shard_of(hash: u64, bits: u32) -> usize {
    let middle = hash >> SHARD_SHIFT;
    (middle & !(u64::MAX << bits.min(MAX_SHARD_BITS))) as usize
}

/// Where the bits that pick a shard start in an id's hash.
const SHARD_SHIFT: u32 = 32;

/// The most bits that pick a shard: above them lie the seven a table tells entries by.
const MAX_SHARD_BITS: u32 = 24;

/// The records that have one bare id, one per collection, in collection order. Nearly
/// always there is one, kept without a list of its own: a hundred thousand one-item lists
/// were most of the id index's build (40-68 ms of it at 100k records, against 14-21 ms).
enum Owners {
    One(Owner),
    /// Several, in collection order.
    Many(Box<[Owner]>),
}

/// A record that has a bare id, with its collection, which resolving tests against the
/// collections a field allows without reading the record.
///
/// Both are kept in 32 bits, as the suggestion index keeps positions: an entry of the id
/// table is then 32 bytes instead of 40, and the table a fifth smaller, which a look-up
/// finds an entry in at a random place.
#[derive(Clone, Copy)]
struct Owner {
    collection: u32,
    record: u32,
}

impl Owner {
    /// The record at `record` of the corpus, in the collection at `collection`.
    fn new(collection: usize, record: usize) -> Owner {
        let narrow = |index: usize| u32::try_from(index).unwrap_or(u32::MAX);
        Owner {
            collection: narrow(collection),
            record: narrow(record),
        }
    }

    fn collection(self) -> usize {
        self.collection as usize
    }

    fn record(self) -> usize {
        self.record as usize
    }
}

impl Owners {
    fn as_slice(&self) -> &[Owner] {
        match self {
            Owners::One(owner) => std::slice::from_ref(owner),
            Owners::Many(owners) => owners,
        }
    }

    /// Adds `owner`, a record after every one already here, unless its collection has the
    /// id already: then returns the record that has it.
    fn add(&mut self, owner: Owner) -> Option<usize> {
        if let Some(first) = self
            .as_slice()
            .iter()
            .find(|first| first.collection == owner.collection)
        {
            return Some(first.record());
        }
        let mut owners = match std::mem::replace(self, Owners::Many(Box::default())) {
            Owners::One(first) => vec![first],
            Owners::Many(owners) => owners.into_vec(),
        };
        let at = owners.partition_point(|other| other.collection < owner.collection);
        owners.insert(at, owner);
        *self = Owners::Many(owners.into_boxed_slice());
        None
    }
}

/// A reference as written, before it is resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Where it is written.
    pub source: Source,
    /// The id or path as written.
    pub text: String,
    /// The collections it may name: the field's targets, or every collection for a link.
    pub allowed: &'static [usize],
}

/// A link's fragment written in a record's string field (`notes: "see [[vllm#setup]]"`),
/// for `broken-anchor`. Its spans are in the string as parsed, not in its file: a report
/// finds the value by its pointer, and the link's destination in it as it finds a
/// [`Source::FieldLink`]'s target, by its place among the places it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldFragment {
    /// The string value's JSON pointer, interned ([`crate::intern::pointer`]).
    pub pointer: &'static str,
    /// The link's destination as written, up to the fragment's end (`vllm#setup`,
    /// `guide.md#setup`, `#setup`): what a report looks for in the value as written in its
    /// file, and what a fix writes again with another id.
    pub destination: String,
    /// Which of the places `destination` is written as a link target in the value
    /// ([`links::target_places`]).
    pub place: u32,
    /// The fragment.
    pub fragment: Fragment,
}

/// What a record writes that checking resolves: its references, and the fragments of the
/// links in its string fields, found in the same walk over its values.
#[derive(Clone, Debug, Default)]
pub struct WrittenIn {
    /// The references, in order: see [`written_in_record`].
    pub references: Vec<Written>,
    /// The fragments of the links in its string fields, in order.
    pub fragments: Vec<FieldFragment>,
}

/// Makes references drawn from a record name it as the record at `index` of its corpus (see
/// [`crate::corpus::Renumber`]).
fn renumber(written: &mut [Written], index: usize) {
    for reference in written {
        match &mut reference.source {
            Source::Field { record, .. } | Source::FieldLink { record, .. } => *record = index,
            Source::Link { .. } => {}
        }
    }
}

/// Every reference written in a record, in order: its reference fields, then the links in its
/// string fields, then the links in its Markdown body.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn written_in_record(corpus: &Corpus, schemas: &Schemas, index: usize) -> Vec<Written> {
    written_in(&corpus.records[index], index, schemas, true).references
}

/// [`written_in_record`] for a record being drawn from `file`, the file it was just read
/// from: a text with no sign of a link in it ([`links::text_may_hold_link`]) spares the
/// walk over the record's strings.
pub fn written_in_read(
    record: &Record,
    index: usize,
    file: &crate::source::SourceFile,
    schemas: &Schemas,
) -> WrittenIn {
    let strings_may_link = file
        .text
        .as_deref()
        .is_none_or(|text| links::text_may_hold_link(text, record.format));
    written_in(record, index, schemas, strings_may_link)
}

/// [`written_in_record`] for `record`, the record at `index` of its corpus; its string
/// fields are searched for links only when they may hold some.
// Collection indices come from the schemas they index.
#[allow(clippy::indexing_slicing)]
fn written_in(
    record: &Record,
    index: usize,
    schemas: &Schemas,
    strings_may_link: bool,
) -> WrittenIn {
    let mut walk = LinkWalk {
        all: schemas.every_collection(),
        ..LinkWalk::default()
    };
    for reference in &schemas.collections[record.collection].references {
        for (pointer, text) in reference.values(&record.value) {
            walk.references.push(Written {
                source: Source::Field {
                    record: index,
                    field: reference.field(),
                    pointer,
                },
                text: text.to_string(),
                allowed: reference.targets,
            });
        }
    }
    if strings_may_link {
        walk.value(index, &record.value, record.sections());
    }
    let LinkWalk {
        all,
        mut references,
        fragments,
        ..
    } = walk;
    references.extend(link_references(record.file, record.links(), all));
    WrittenIn {
        references,
        fragments,
    }
}

/// Every link in a prose page.
// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn written_in_doc<F>(corpus: &Corpus<F>, schemas: &Schemas, doc: usize) -> Vec<Written> {
    let file = corpus.docs[doc].file;
    let mut written = Vec::new();
    if let Some(text) = corpus.files[file].text.as_deref() {
        let links = links::extract(text, &(0..text.len()));
        written.extend(link_references(file, &links, schemas.every_collection()));
    }
    written
}

/// A walk over a record's values for the links in its strings, wherever they are, and their
/// fragments; top-level fields that came from Markdown sections are skipped, their links
/// being found in the body.
#[derive(Default)]
struct LinkWalk<'v> {
    /// Every collection: what a link may name.
    all: &'static [usize],
    /// The way down to the value being walked; a pointer is spelled out only for a string
    /// that holds a link, as most values hold none and a pointer per value was most of this
    /// walk's cost.
    path: Vec<Step<'v>>,
    references: Vec<Written>,
    fragments: Vec<FieldFragment>,
}

impl<'v> LinkWalk<'v> {
    /// Walks `value`, of the record at `index`, but for the members named in `skip`.
    fn value(&mut self, record: usize, value: &'v serde_json::Value, skip: &[String]) {
        match value {
            serde_json::Value::String(text) if links::may_hold_link(text) => {
                self.string(record, text);
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.path.push(Step::Index(i));
                    self.value(record, item, &[]);
                    self.path.pop();
                }
            }
            serde_json::Value::Object(map) => {
                for (key, item) in map {
                    if !skip.contains(key) {
                        self.path.push(Step::Key(key));
                        self.value(record, item, &[]);
                        self.path.pop();
                    }
                }
            }
            _ => {}
        }
    }

    fn string(&mut self, record: usize, text: &str) {
        let (links, fragments) = links::read(text, &(0..text.len()));
        if links.is_empty() && fragments.is_empty() {
            return;
        }
        let pointer = crate::intern::pointer(&pointer_of(&self.path));
        let place = |written: &str, at: usize| {
            links::target_places(text, written)
                .iter()
                .position(|&place| place == at)
                .and_then(|place| u32::try_from(place).ok())
                .unwrap_or(0)
        };
        for link in links {
            self.references.push(Written {
                source: Source::FieldLink {
                    record,
                    pointer,
                    kind: link.kind,
                    place: place(&link.target, link.span.start),
                },
                text: link.target,
                allowed: self.all,
            });
        }
        for fragment in fragments {
            // The destination starts with its page's target, or else with the `#`.
            let start = fragment.page.as_ref().map_or_else(
                || fragment.span.start.saturating_sub(1),
                |page| page.span.start,
            );
            let Some(destination) = text.get(start..fragment.span.end) else {
                continue;
            };
            self.fragments.push(FieldFragment {
                pointer,
                place: place(destination, start),
                destination: destination.to_string(),
                fragment,
            });
        }
    }
}

/// One step down a JSON value: an object's key or an array's index.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The JSON pointer of a path.
fn pointer_of(path: &[Step<'_>]) -> String {
    let mut pointer = String::new();
    for step in path {
        match step {
            Step::Key(key) => crate::diagnostic::push_pointer_segment(&mut pointer, key),
            Step::Index(i) => crate::diagnostic::push_pointer_index(&mut pointer, *i),
        }
    }
    pointer
}

/// The references of links in the prose of corpus file `file`.
fn link_references<'l>(
    file: usize,
    links: &'l [Link],
    all: &'static [usize],
) -> impl Iterator<Item = Written> + 'l {
    links.iter().map(move |link| Written {
        source: Source::Link {
            file,
            span: link.span.clone(),
            kind: link.kind,
        },
        text: link.target.clone(),
        allowed: all,
    })
}

/// The path a Markdown link in the file at `from` to `target` names, normalized
/// ([`normalize`]): relative to the linking file's folder.
pub fn linked_path(from: &Path, target: &str) -> std::path::PathBuf {
    let path = from
        .parent()
        .map(|dir| dir.join(target))
        .unwrap_or_default();
    normalize(&path)
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalize(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            // `..` takes a name off; at the top of a relative path it is kept (`../kb/x.md`
            // names a file of the folder above, not `kb/x.md`), and above `/` there is `/`.
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_searches_every_collection_not_cited() {
        let cited = collection_bit(0) | collection_bit(2);
        let others = other_groups(cited);
        assert_eq!(others & cited, 0);
        assert_ne!(others & collection_bit(1), 0);
        assert_ne!(others & collection_bit(70), 0, "past the 63rd, every bit");
        // A field citing a collection past the 63rd shares its bit with every collection
        // past it, and those are searched too.
        assert_eq!(other_groups(cited | collection_bit(64)), u64::MAX);
    }

    #[test]
    fn an_entry_of_the_id_table_is_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<(&str, Owners)>(), 32);
    }

    #[test]
    fn owners_keep_collection_order_and_the_first_record_of_each() {
        let mut owners = Owners::One(Owner::new(2, 0));
        assert_eq!(owners.add(Owner::new(0, 1)), None);
        assert_eq!(owners.add(Owner::new(1, 2)), None);
        assert_eq!(
            owners.add(Owner::new(2, 3)),
            Some(0),
            "collection 2 has it already"
        );
        assert_eq!(owners.add(Owner::new(0, 4)), Some(1));
        let kept: Vec<(usize, usize)> = owners
            .as_slice()
            .iter()
            .map(|o| (o.collection(), o.record()))
            .collect();
        assert_eq!(kept, [(0, 1), (1, 2), (2, 0)]);
    }

    #[test]
    fn a_qualified_id_splits_at_its_first_slash() {
        assert_eq!(split_qualified("engines/vllm"), Some(("engines", "vllm")));
        assert_eq!(split_qualified("a/b/c"), Some(("a", "b/c")));
        assert_eq!(split_qualified("/vllm"), Some(("", "vllm")));
        assert_eq!(split_qualified("é/ü"), Some(("é", "ü")));
        assert_eq!(split_qualified("vllm"), None);
    }

    #[test]
    fn shards_are_picked_by_the_middle_bits_of_a_hash() {
        assert_eq!(shard_of(u64::MAX, 0), 0, "one shard");
        assert_eq!(shard_of(1 << 32, 1), 1);
        assert_eq!(shard_of(u64::MAX << 33, 1), 0, "not the top bits");
        assert_eq!(shard_of(u64::from(u32::MAX), 4), 0, "nor the low bits");
        assert_eq!(shard_of(0b1011 << 32, 4), 0b1011);
    }

    #[test]
    fn the_index_is_the_same_however_many_shards_it_is_built_in() {
        // Ids shared within a collection (duplicates) and across collections (owners).
        let records: Vec<(String, usize)> = (0..6000)
            .map(|i| (format!("id-{}", i % 1000), i % 3))
            .collect();
        let corpus = corpus_of(&records);
        let schemas = Schemas::default();
        let mut first_of: std::collections::HashMap<(&str, usize), usize> = Default::default();
        let mut duplicates = Vec::new();
        for (record, (id, collection)) in records.iter().enumerate() {
            match first_of.entry((id.as_str(), *collection)) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    duplicates.push((record, *first.get()));
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(record);
                }
            }
        }
        assert!(duplicates.len() > 1000);
        let mut first_of_id: std::collections::HashMap<&str, usize> = Default::default();
        let repeats: Vec<(usize, usize)> = records
            .iter()
            .enumerate()
            .filter_map(|(record, (id, _))| {
                let first = *first_of_id.entry(id.as_str()).or_insert(record);
                (first != record).then_some((record, first))
            })
            .collect();
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let index = pool.install(|| IdIndex::new(&corpus, &schemas));
            assert_eq!(index.duplicates(), duplicates, "{threads} threads");
            assert_eq!(index.repeats, repeats, "{threads} threads");
            for ((id, collection), &first) in &first_of {
                let owner = index
                    .owners(id)
                    .iter()
                    .find(|owner| owner.collection() == *collection)
                    .map(|owner| owner.record());
                assert_eq!(
                    owner,
                    Some(first),
                    "{id} in {collection}, {threads} threads"
                );
            }
            assert!(index.owners("id-1000").is_empty());
        }
    }

    /// A corpus of `records`, each an id and the collection (0, 1 or 2) it is in, as loaded.
    fn corpus_of(records: &[(String, usize)]) -> Corpus {
        let records = records
            .iter()
            .map(|(id, collection)| Record {
                collection: *collection,
                id: id.clone(),
                id_hash: id_hash(id),
                file: 0,
                format: crate::source::Format::Json,
                id_in_fields: false,
                value: Value::Null,
                prose: None,
            })
            .collect();
        Corpus {
            records,
            ..Corpus::default()
        }
    }

    /// [`IdIndex::suggest`] worked out the slow way: every id of the allowed collections
    /// scored in full, and, when none is close, every id within two edits.
    fn suggest_by_hand<'c>(
        corpus: &'c Corpus,
        unknown: &str,
        allowed: &[usize],
    ) -> Vec<(Suggestion<'c>, usize)> {
        let mut owners: std::collections::BTreeMap<&str, Vec<Owner>> = Default::default();
        for (record, loaded) in corpus.records.iter().enumerate() {
            let of_id = owners.entry(&loaded.id).or_default();
            if of_id.iter().all(|o| o.collection() != loaded.collection) {
                of_id.push(Owner::new(loaded.collection, record));
            }
        }
        let scorer = suggest::Unknown::new(unknown);
        let close = scorer.budget().min(suggest::MAX_CERTAIN_DISTANCE);
        let found = |score: &dyn Fn(&'c str) -> Option<Suggestion<'c>>, cited: bool| {
            let mut found = Vec::new();
            for (&name, of_name) in &owners {
                if let Some(suggestion) = score(name) {
                    found.extend(
                        of_name
                            .iter()
                            .filter(|o| !cited || allowed.contains(&o.collection()))
                            .map(|o| (suggestion.clone(), o.record())),
                    );
                }
            }
            found
        };
        let mut best = found(&|name| scorer.score(name), true);
        if best.is_empty() {
            best = found(
                &|name| {
                    scorer
                        .score_same(name)
                        .or_else(|| scorer.score_typo(name, close))
                },
                false,
            );
        }
        ranked(best)
    }

    /// Checks that [`IdIndex::suggest`] over a corpus of `records` suggests for `unknown`
    /// what [`suggest_by_hand`] does.
    fn suggests_as_scoring_every_id(
        records: &[(String, usize)],
        unknown: &str,
        allowed: &[usize],
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let corpus = corpus_of(records);
        let schemas = Schemas::default();
        let index = IdIndex::new(&corpus, &schemas);
        proptest::prop_assert_eq!(
            index.suggest(unknown, allowed),
            suggest_by_hand(&corpus, unknown, allowed)
        );
        Ok(())
    }

    /// Ids from a small vocabulary, so that typos and shared words are common and long ids,
    /// with budgets of three edits or more, often have many near ones.
    fn id() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let word = prop_oneof![
            prop::sample::select(vec![
                "kv", "cache", "nvidia", "h100", "vllm", "moon", "cake"
            ])
            .prop_map(str::to_string),
            "[a-e]{1,5}",
        ];
        prop::collection::vec(word, 1..5).prop_map(|words| words.join("-"))
    }

    /// Ids that are all a few edits from one long id, and an unknown one among them: many
    /// typos within the budget, often several at the same distance.
    fn near_ids() -> impl proptest::strategy::Strategy<Value = (Vec<(String, usize)>, String)> {
        use proptest::prelude::*;
        let edit = (
            0u8..4,
            any::<usize>(),
            prop::sample::select(vec!['a', 'b', 'k', '-']),
        );
        let edits = prop::collection::vec(edit, 0..5);
        (
            "[a-e]{3,6}-[a-e]{3,6}-[a-e]{3,8}",
            prop::collection::vec((edits.clone(), 0usize..3), 1..60),
            edits,
        )
            .prop_map(|(base, records, unknown)| {
                let records = records
                    .into_iter()
                    .map(|(edits, collection)| (suggest::edited(&base, &edits), collection))
                    .collect();
                (records, suggest::edited(&base, &unknown))
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// As below, among ids that are all near one another, where the order of ties
        /// decides which of several equally near ids are offered.
        #[test]
        fn suggestions_among_near_ids_are_those_of_scoring_every_id(
            (records, unknown) in near_ids(),
            allowed in proptest::sample::subsequence(vec![0usize, 1, 2], 1..=3),
        ) {
            suggests_as_scoring_every_id(&records, &unknown, &allowed)?;
        }

        /// The index finds the suggestions that scoring every id finds, though it scores
        /// only candidates and narrows its search once three typos are found.
        #[test]
        fn suggestions_are_those_of_scoring_every_id(
            records in proptest::collection::vec((id(), 0usize..3), 1..80),
            unknown in id(),
            allowed in proptest::sample::subsequence(vec![0usize, 1, 2], 1..=3),
        ) {
            suggests_as_scoring_every_id(&records, &unknown, &allowed)?;
        }
    }

    /// Resolving the corpus in parts, in parallel, gives every reference in corpus order,
    /// as resolving one file after another does: records and prose over several parts,
    /// with a pool of one thread and with one of four.
    #[test]
    fn references_resolve_in_corpus_order_whatever_the_threads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
        let config = format!("schemas = {:?}\ndocs = [\"docs/*.md\"]\n", schemas);
        std::fs::write(root.join("gotchas.toml"), config).unwrap();
        for folder in ["records/engines", "records/gotchas", "docs"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for engine in 0..50 {
            let text = format!(r#"{{"id": "engine-{engine}", "type": "engine"}}"#);
            std::fs::write(
                root.join(format!("records/engines/engine-{engine}.json")),
                text,
            )
            .unwrap();
        }
        // Several parts of records, each citing engines that exist and one that does not.
        for gotcha in 0..RECORDS_PER_PART * 2 + 100 {
            let text = format!(
                r#"{{"id": "trap-{gotcha}", "type": "gotcha", "affects": ["engine-{}", "engine-{}x", "engine-{}"]}}"#,
                gotcha % 50,
                gotcha % 7,
                gotcha % 13,
            );
            std::fs::write(
                root.join(format!("records/gotchas/trap-{gotcha}.json")),
                text,
            )
            .unwrap();
        }
        for page in 0..5 {
            let text = format!(
                "# Page {page}\n\n[[engine-{page}]] and [[trap-{page}]], [[nowhere-{page}]].\n"
            );
            std::fs::write(root.join(format!("docs/page-{page}.md")), text).unwrap();
        }
        let project = crate::Project::open(root, None).unwrap();
        let corpus = project.load();
        let index = IdIndex::new(&corpus, &project.schemas);
        let mut by_hand = Resolved::default();
        for (record, loaded) in corpus.records.iter().enumerate() {
            index.resolve_written(
                &Value::written(loaded, record, &project.schemas),
                &mut by_hand,
            );
        }
        for doc in 0..corpus.docs.len() {
            index.resolve_written(
                &written_in_doc(&corpus, &project.schemas, doc),
                &mut by_hand,
            );
        }
        assert!(
            by_hand.edges.len() > RECORDS_PER_PART * 4,
            "references over several parts"
        );
        assert!(by_hand.unresolved.len() > RECORDS_PER_PART * 2);
        for threads in [1, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let resolved = pool.install(|| index.resolve_all());
            assert_eq!(resolved.edges, by_hand.edges, "{threads} threads");
            assert_eq!(resolved.unresolved, by_hand.unresolved, "{threads} threads");
        }
    }
}
