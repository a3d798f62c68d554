//! Check: the rules that run on loaded records. Each rule is a function from the corpus to
//! diagnostics; none prints, none depends on another's output.
//!
//! The rules that look at one record alone need its fields; the others need only ids and
//! references. So a corpus loaded for checking alone runs the first kind as each record is
//! loaded ([`draw`]) and keeps a [`Drawn`] instead of the fields, and every rule runs on
//! either kind of corpus through [`Checkable`].

mod anchors;
mod graph;
mod ids;
pub mod memo;
pub mod refs;
mod schema;

pub use anchors::KeptFragments;

use foldhash::HashSet;
use rayon::prelude::*;
use serde_json::Value;

use crate::anchors::KnownIds;
use crate::config::Config;
use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Diagnostic};
use crate::graph::Named;
use crate::index::{
    self, Cites, Edge, FieldFragment, IdIndex, KeepsWritten, Resolved, Unresolved, Written,
};
use crate::load::{Prose, Record};
use crate::rules;
use crate::schema::Schemas;
use crate::source::SourceFile;

/// What a record keeps that every rule can run on: its fields, or a [`Drawn`].
pub trait Checkable: Cites + Named {
    /// The diagnostics of the rules that look at `record` alone, in file `display`.
    fn findings(record: &Record<Self>, display: &str, schemas: &Schemas) -> Vec<Diagnostic>;
}

impl Checkable for Value {
    fn findings(record: &Record<Self>, display: &str, schemas: &Schemas) -> Vec<Diagnostic> {
        record_findings(record, display, schemas)
    }
}

/// What checking needs of a record's fields, drawn from them while the record was loaded:
/// the findings of the rules that look at it alone, and the references written in it.
///
/// Not its `name`: a diagnostic names a record by its id, and the names, which the graph
/// rules' cycle search gave its nodes without ever showing them, were 10.5 of the 144 MiB
/// a corpus of 100,000 generated records holds once loaded for checking (peak memory of
/// its check 202 MiB with them, 194 without, medians of three).
#[derive(Clone, Debug)]
pub struct Drawn {
    findings: Vec<Diagnostic>,
    /// Exactly as many as there are: the list grows as the references are found, a
    /// doubling at a time, and a record kept as many as eight places for its five
    /// references until the whole corpus was checked (peak memory of a check of 100,000
    /// generated JSON records 196 MiB with the spare places, 191 without; Markdown 246
    /// and 238).
    written: Box<[Written]>,
    /// The fragments of the links in its string fields, for `broken-anchor`: none in most
    /// records.
    field_fragments: Box<[FieldFragment]>,
    /// The ids of the record's own page, drawn when a fragment of its own names a place in
    /// it (`[the fix](#workaround)`), as its fields and body are at hand: `broken-anchor`
    /// read and parsed again the file of every page a fragment named, and at 35,000 records
    /// each linking to a place in its own page that took 0.7 s of a check whose loading
    /// took 1.4.
    own_page_ids: Option<Box<KnownIds>>,
}

/// Draws from `record`, the record at `index` of its corpus, read from `file`, what checking
/// needs, and lets its fields go, and its Markdown body's sections and links, which are
/// among the references drawn. Of the body, only the places in pages its links name by
/// fragment are kept, for `broken-anchor`, and only by the few records that have some.
pub fn draw(
    mut record: Record,
    index: usize,
    file: &SourceFile,
    schemas: &Schemas,
) -> Record<Drawn> {
    let written = index::written_in_read(&record, index, file, schemas);
    let own_page_ids = own_page_ids(&record, &written.fragments, file, schemas);
    let drawn = Drawn {
        findings: record_findings(&record, &file.display, schemas),
        written: written.references.into_boxed_slice(),
        field_fragments: written.fragments.into_boxed_slice(),
        own_page_ids,
    };
    let prose = record.prose.take().and_then(|prose| fragments_only(*prose));
    Record {
        prose,
        ..record.keeping(drawn)
    }
}

/// The ids of `record`'s own page, for `broken-anchor`, when a fragment of its body or of
/// its string fields (`fragments`) names a place in it (`[the fix](#workaround)`); worked
/// out while it is loaded, from its fields and the text of its `file`, which the rule
/// would otherwise read and parse again (see [`Cites::own_page_ids`]).
pub fn own_page_ids(
    record: &Record,
    fragments: &[FieldFragment],
    file: &SourceFile,
    schemas: &Schemas,
) -> Option<Box<KnownIds>> {
    let names_own_page = (record.fragments().iter())
        .chain(fragments.iter().map(|written| &written.fragment))
        .any(|fragment| fragment.page.is_none());
    if !names_own_page {
        return None;
    }
    let collection = schemas.collections.get(record.collection)?;
    let text = file.text.as_deref()?;
    let ids = anchors::loaded_ids(&record.value, record.prose.as_deref(), text, collection)?;
    Some(Box::new(ids))
}

/// A body's fragments, kept as the body's, without its sections and links; `None` when it
/// has none.
fn fragments_only(prose: Prose) -> Option<Box<Prose>> {
    (!prose.fragments.is_empty()).then(|| {
        Box::new(Prose {
            sections: Vec::new(),
            links: Vec::new(),
            ..prose
        })
    })
}

impl Drawn {
    /// Whether the rules that look at the record alone found something in it.
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }
}

impl KeepsWritten for Drawn {
    fn written(&self) -> &[Written] {
        &self.written
    }

    fn field_fragments(&self) -> &[FieldFragment] {
        &self.field_fragments
    }

    fn written_mut(&mut self) -> &mut [Written] {
        &mut self.written
    }

    fn own_page_ids(&self) -> Option<&KnownIds> {
        self.own_page_ids.as_deref()
    }
}

/// The graph a check builds names each record by its id (see [`Drawn`]).
impl Named for Drawn {
    fn name(&self) -> Option<&str> {
        None
    }
}

impl Checkable for Drawn {
    fn findings(record: &Record<Self>, _: &str, _: &Schemas) -> Vec<Diagnostic> {
        record.value.findings.clone()
    }
}

/// Runs every record rule and returns their diagnostics, in record order.
pub fn check<F: Checkable>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
) -> Vec<Diagnostic> {
    check_observed(corpus, schemas, config, &mut |_| {})
}

/// [`check`], calling `stage_done` with each stage's name as it ends, for `--verbose`'s
/// timings (the library measures nothing itself, nor prints).
pub fn check_observed<F: Checkable>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    stage_done: &mut dyn FnMut(&'static str),
) -> Vec<Diagnostic> {
    Resolving::new(corpus, schemas, config, stage_done).finish(None, stage_done)
}

/// A check halfway: the record rules run and every reference resolved, the reference and
/// graph rules still to run. A changed-files check works out from what resolved which
/// files it reports ([`crate::scope`]) in between, so that the costly part of the
/// reference rules, the did-you-mean, is looked up only for references it reports.
pub struct Resolving<'c, F> {
    corpus: &'c Corpus<F>,
    schemas: &'c Schemas,
    config: &'c Config,
    index: IdIndex<'c, F>,
    resolved: Resolved,
    diagnostics: Vec<Diagnostic>,
}

impl<'c, F: Checkable> Resolving<'c, F> {
    /// Runs the record rules, resolves every reference and reports duplicate ids, calling
    /// `stage_done` after each (`records`, `index`, `resolve`, `duplicate ids`).
    pub fn new(
        corpus: &'c Corpus<F>,
        schemas: &'c Schemas,
        config: &'c Config,
        stage_done: &mut dyn FnMut(&'static str),
    ) -> Self {
        let mut diagnostics: Vec<Diagnostic> = corpus
            .records
            .par_iter()
            .flat_map_iter(|record| F::findings(record, &corpus.file_of(record).display, schemas))
            .collect();
        stage_done("records");
        let index = IdIndex::new(corpus, schemas);
        stage_done("index");
        let resolved = index.resolve_all();
        stage_done("resolve");
        diagnostics.extend(duplicate_ids(corpus, schemas, &index));
        stage_done("duplicate ids");
        Resolving {
            corpus,
            schemas,
            config,
            index,
            resolved,
            diagnostics,
        }
    }

    /// What resolving found.
    pub fn resolved(&self) -> &Resolved {
        &self.resolved
    }

    /// The index the references were resolved against.
    pub fn index(&self) -> &IdIndex<'c, F> {
        &self.index
    }

    /// Runs the reference and graph rules (`references and graph`), then `broken-anchor`
    /// (`fragments`), and returns every
    /// diagnostic. `reported`, when given, says by index in [`Corpus::files`] which files'
    /// diagnostics the caller reports: the references written elsewhere are not diagnosed
    /// (see [`references`]).
    pub fn finish(
        self,
        reported: Option<&Reported<'_>>,
        stage_done: &mut dyn FnMut(&'static str),
    ) -> Vec<Diagnostic> {
        let Resolving {
            corpus,
            schemas,
            config,
            index,
            resolved,
            mut diagnostics,
        } = self;
        // The graph rules read only what resolving found, so they run beside the reference
        // rules: they walk the edges on one thread, in the time the reference rules leave a
        // core idle between their parallel steps.
        let (cited, linked) = rayon::join(
            || references(corpus, schemas, &index, &resolved.unresolved, reported),
            || {
                graph_rules(
                    corpus,
                    schemas,
                    config,
                    &resolved.edges,
                    &resolved.unresolved,
                    index.duplicates(),
                )
            },
        );
        diagnostics.extend(cited);
        diagnostics.extend(linked);
        stage_done("references and graph");
        diagnostics.extend(fragments(corpus, schemas, config, &index, reported));
        stage_done("fragments");
        diagnostics
    }
}

/// Which files' diagnostics a caller reports, by index in [`Corpus::files`].
pub type Reported<'r> = dyn Fn(usize) -> bool + Sync + 'r;

/// The rules that look at one record alone (ids, type, schema). Their findings change only
/// when the record does, so the language server keeps them per file between edits.
pub fn check_record(corpus: &Corpus, record: &Record, schemas: &Schemas) -> Vec<Diagnostic> {
    record_findings(record, &corpus.file_of(record).display, schemas)
}

/// [`check_record`] for a record read from file `display`.
fn record_findings(record: &Record, display: &str, schemas: &Schemas) -> Vec<Diagnostic> {
    #[allow(clippy::indexing_slicing)]
    // Record, file and collection indices come from the corpus and schemas they index.
    let collection = &schemas.collections[record.collection];
    let specific = ids::check_record(record, collection, schemas, display);
    let general = schema::validate(record, collection, display);
    supersede(specific, general)
}

/// `duplicate-id`: it changes only when an id does.
pub fn duplicate_ids<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
) -> Vec<Diagnostic> {
    ids::duplicate_ids(corpus, schemas, index)
}

/// The diagnostics of references that did not resolve, one per reference, in order; only of
/// those written in a file `reported` accepts, when it is given. While no id changes, each
/// depends only on its own reference, so a caller may keep them per file.
pub fn references<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
    unresolved: &[Unresolved],
    reported: Option<&Reported<'_>>,
) -> Vec<Diagnostic> {
    refs::check(corpus, schemas, index, unresolved, reported)
}

/// `broken-anchor`: the fragments of links in prose and in records' string fields that
/// name no element of their page; only of those written in a file `reported` accepts,
/// when it is given.
pub fn fragments<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    index: &IdIndex<'_, F>,
    reported: Option<&Reported<'_>>,
) -> Vec<Diagnostic> {
    anchors::check(corpus, schemas, config, index, reported)
}

/// The graph rules (`orphan`, `cycle`, `unreferenced`) on the resolved references.
/// `duplicates` are [`IdIndex::duplicates`]: only the first record of an id is a node.
pub fn graph_rules<'e, F: Named>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    edges: impl IntoIterator<Item = &'e Edge>,
    unresolved: &[Unresolved],
    duplicates: &[(usize, usize)],
) -> Vec<Diagnostic> {
    graph::check(
        corpus,
        schemas,
        &config.graph,
        edges,
        unresolved,
        duplicates,
    )
}

/// Keeps the record rules' diagnostics and drops the generic schema diagnostics about the same
/// value: `id-format` says more about `/id` than the schema's `pattern` error does.
fn supersede(mut specific: Vec<Diagnostic>, general: Vec<Diagnostic>) -> Vec<Diagnostic> {
    // Most records have neither kind, so the set is not built for nothing.
    if specific.is_empty() || general.is_empty() {
        specific.extend(general);
        return specific;
    }
    let covered: HashSet<&Anchor> = specific.iter().map(|d| &d.anchor).collect();
    let general: Vec<Diagnostic> = general
        .into_iter()
        .filter(|d| {
            !(matches!(d.code, rules::SCHEMA_VIOLATION | rules::INVALID_VALUE)
                && covered.contains(&d.anchor))
        })
        .collect();
    specific.extend(general);
    specific
}
