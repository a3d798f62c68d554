//! `gotchas stats`: the corpus in numbers, as data (JSON) or a short text report.

use std::collections::BTreeMap;

use petgraph::Direction;
use serde::Serialize;

use crate::corpus::Corpus;
use crate::graph::{CorpusGraph, Linked};
use crate::index::Resolved;
use crate::schema::Schemas;

/// How many records of the corpus cite a given record, at most this many listed.
const MOST_REFERENCED: usize = 10;

/// The numbers.
#[derive(Debug, Default, Serialize)]
pub struct Stats {
    /// Records per collection folder (every collection, empty ones too).
    pub records: BTreeMap<String, usize>,
    /// Prose pages.
    pub pages: usize,
    /// Per collection, per enum field, records per value.
    pub values: BTreeMap<String, BTreeMap<String, BTreeMap<String, usize>>>,
    /// Resolved references per field (`link` for prose links).
    pub references: BTreeMap<String, usize>,
    /// References and links that resolve to nothing, to the wrong collection, or ambiguously.
    pub dangling: usize,
    /// The most cited records and pages, most first: `(id, citing nodes)`.
    pub most_referenced: Vec<(String, usize)>,
}

impl Stats {
    /// Counts a loaded corpus.
    pub fn compute(
        corpus: &Corpus<Linked>,
        schemas: &Schemas,
        resolved: &Resolved,
        graph: &CorpusGraph,
    ) -> Stats {
        let mut stats = Stats {
            pages: corpus.docs.len(),
            dangling: resolved.unresolved.len(),
            ..Stats::default()
        };
        for collection in &schemas.collections {
            stats.records.insert(collection.folder.clone(), 0);
        }
        for record in &corpus.records {
            #[allow(clippy::indexing_slicing)]
            // Record, file and collection indices come from the corpus and schemas they index.
            let collection = &schemas.collections[record.collection];
            *stats.records.entry(collection.folder.clone()).or_insert(0) += 1;
            for (field, value) in record.value.enum_values() {
                *stats
                    .values
                    .entry(collection.folder.clone())
                    .or_default()
                    .entry(field.to_string())
                    .or_default()
                    .entry(value.to_string())
                    .or_insert(0) += 1;
            }
        }
        for edge in graph.graph.edge_weights() {
            // Fields are few and edges many: the name is copied once per field.
            match stats.references.get_mut(edge.field()) {
                Some(count) => *count += 1,
                None => {
                    stats.references.insert(edge.field().to_string(), 1);
                }
            }
        }
        let mut cited: Vec<(String, usize)> = graph
            .graph
            .node_indices()
            .map(|n| {
                let citing: std::collections::BTreeSet<_> = graph
                    .graph
                    .neighbors_directed(n, Direction::Incoming)
                    .collect();
                (graph.graph[n].id.clone(), citing.len())
            })
            .filter(|(_, count)| *count > 0)
            .collect();
        cited.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        cited.truncate(MOST_REFERENCED);
        stats.most_referenced = cited;
        stats
    }

    /// A short text report.
    pub fn render(&self) -> String {
        let mut out = String::from("records\n");
        for (folder, count) in &self.records {
            out.push_str(&format!("  {folder:<24} {count:>7}\n"));
        }
        out.push_str(&format!("  {:<24} {:>7}\n", "(prose pages)", self.pages));
        for (folder, fields) in &self.values {
            for (field, values) in fields {
                out.push_str(&format!("\n{folder} by {field}\n"));
                let mut sorted: Vec<(&String, &usize)> = values.iter().collect();
                sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                for (value, count) in sorted {
                    out.push_str(&format!("  {value:<24} {count:>7}\n"));
                }
            }
        }
        out.push_str("\nreferences by field\n");
        for (field, count) in &self.references {
            out.push_str(&format!("  {field:<24} {count:>7}\n"));
        }
        out.push_str(&format!("  {:<24} {:>7}\n", "(dangling)", self.dangling));
        out.push_str("\nmost referenced\n");
        for (id, count) in &self.most_referenced {
            out.push_str(&format!("  {id:<48} {count:>5}\n"));
        }
        out
    }
}
