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
use crate::graph::CorpusGraph;
use crate::index::IdIndex;
use crate::rules;
use crate::schema::Schemas;

/// Runs every record rule and returns their diagnostics, in record order.
pub fn check(corpus: &Corpus, schemas: &Schemas, config: &Config) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = corpus
        .records
        .par_iter()
        .flat_map_iter(|record| {
            let collection = &schemas.collections[record.collection];
            let display = &corpus.file_of(record).display;
            let specific = ids::check_record(record, collection, schemas, display);
            let general = schema::validate(record, collection, display);
            supersede(specific, general)
        })
        .collect();
    diagnostics.extend(ids::duplicate_ids(corpus, schemas));
    let index = IdIndex::new(corpus, schemas);
    let resolved = index.resolve_all();
    diagnostics.extend(refs::check(corpus, schemas, &index, &resolved.unresolved));
    let corpus_graph = CorpusGraph::build(corpus, schemas, &resolved);
    diagnostics.extend(graph::check(
        corpus,
        schemas,
        &config.graph,
        &corpus_graph,
        &resolved.unresolved,
    ));
    diagnostics
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
