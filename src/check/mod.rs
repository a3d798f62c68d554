//! Check: the rules that run on loaded records. Each rule is a function from the corpus to
//! diagnostics; none prints, none depends on another's output.

mod graph;
mod ids;
pub mod refs;
mod schema;

use std::collections::HashSet;

use rayon::prelude::*;

use crate::config::Config;
use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Diagnostic};
use crate::index::{Edge, IdIndex, Unresolved};
use crate::load::Record;
use crate::rules;
use crate::schema::Schemas;

/// Runs every record rule and returns their diagnostics, in record order.
pub fn check(corpus: &Corpus, schemas: &Schemas, config: &Config) -> Vec<Diagnostic> {
    check_observed(corpus, schemas, config, &mut |_| {})
}

/// [`check`], calling `stage_done` with each stage's name as it ends, for `--verbose`'s
/// timings (the library measures nothing itself, nor prints).
pub fn check_observed(
    corpus: &Corpus,
    schemas: &Schemas,
    config: &Config,
    stage_done: &mut dyn FnMut(&'static str),
) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = corpus
        .records
        .par_iter()
        .flat_map_iter(|record| check_record(corpus, record, schemas))
        .collect();
    stage_done("records");
    let index = IdIndex::new(corpus, schemas);
    stage_done("index");
    let resolved = index.resolve_all();
    stage_done("resolve");
    diagnostics.extend(duplicate_ids(corpus, schemas));
    stage_done("duplicate ids");
    diagnostics.extend(references(corpus, schemas, &index, &resolved.unresolved));
    stage_done("references");
    diagnostics.extend(graph_rules(
        corpus,
        schemas,
        config,
        &resolved.edges,
        &resolved.unresolved,
    ));
    stage_done("graph");
    diagnostics
}

/// The rules that look at one record alone (ids, type, schema). Their findings change only
/// when the record does, so the language server keeps them per file between edits.
pub fn check_record(corpus: &Corpus, record: &Record, schemas: &Schemas) -> Vec<Diagnostic> {
    #[allow(clippy::indexing_slicing)]
    // Record, file and collection indices come from the corpus and schemas they index.
    let collection = &schemas.collections[record.collection];
    let display = &corpus.file_of(record).display;
    let specific = ids::check_record(record, collection, schemas, display);
    let general = schema::validate(record, collection, display);
    supersede(specific, general)
}

/// `duplicate-id`: it changes only when an id does.
pub fn duplicate_ids(corpus: &Corpus, schemas: &Schemas) -> Vec<Diagnostic> {
    ids::duplicate_ids(corpus, schemas)
}

/// The diagnostics of references that did not resolve, one per reference, in order. While no
/// id changes, each depends only on its own reference, so a caller may keep them per file.
pub fn references(
    corpus: &Corpus,
    schemas: &Schemas,
    index: &IdIndex<'_>,
    unresolved: &[Unresolved],
) -> Vec<Diagnostic> {
    refs::check(corpus, schemas, index, unresolved)
}

/// The graph rules (`orphan`, `cycle`, `unreferenced`) on the resolved references.
pub fn graph_rules<'e>(
    corpus: &Corpus,
    schemas: &Schemas,
    config: &Config,
    edges: impl IntoIterator<Item = &'e Edge>,
    unresolved: &[Unresolved],
) -> Vec<Diagnostic> {
    graph::check(corpus, schemas, &config.graph, edges, unresolved)
}

/// Keeps the record rules' diagnostics and drops the generic schema diagnostics about the same
/// value: `id-format` says more about `/id` than the schema's `pattern` error does.
fn supersede(specific: Vec<Diagnostic>, general: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let covered: HashSet<Anchor> = specific.iter().map(|d| d.anchor.clone()).collect();
    let general: Vec<Diagnostic> = general
        .into_iter()
        .filter(|d| {
            !(matches!(d.code, rules::SCHEMA_VIOLATION | rules::INVALID_VALUE)
                && covered.contains(&d.anchor))
        })
        .collect();
    specific.into_iter().chain(general).collect()
}
