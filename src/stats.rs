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
        // Counted under borrowed names, and copied once per name at the end: a copy of the
        // collection, field and value per record was most of the counting. Every collection
        // is listed, empty ones too.
        let mut records: BTreeMap<&str, usize> = schemas
            .collections
            .iter()
            .map(|collection| (collection.folder.as_str(), 0))
            .collect();
        let mut values: BTreeMap<&str, BTreeMap<&str, BTreeMap<&str, usize>>> = BTreeMap::new();
        for record in &corpus.records {
            #[allow(clippy::indexing_slicing)]
            // Record, file and collection indices come from the corpus and schemas they index.
            let folder = schemas.collections[record.collection].folder.as_str();
            *records.entry(folder).or_insert(0) += 1;
            for (field, value) in record.value.enum_values() {
                *values
                    .entry(folder)
                    .or_default()
                    .entry(field)
                    .or_default()
                    .entry(value)
                    .or_insert(0) += 1;
            }
        }
        let mut references: BTreeMap<&str, usize> = BTreeMap::new();
        for edge in graph.graph.edge_weights() {
            *references.entry(edge.field()).or_insert(0) += 1;
        }
        // Each node's citing nodes, counted once however many references each writes; the
        // ids of the few listed alone are copied.
        let mut citing = Vec::new();
        let mut cited: Vec<(&str, usize)> = graph
            .graph
            .node_indices()
            .filter_map(|n| {
                citing.clear();
                citing.extend(graph.graph.neighbors_directed(n, Direction::Incoming));
                citing.sort_unstable();
                citing.dedup();
                (!citing.is_empty()).then(|| (graph.graph[n].id.as_str(), citing.len()))
            })
            .collect();
        cited.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        cited.truncate(MOST_REFERENCED);
        let owned = |map: BTreeMap<&str, usize>| {
            map.into_iter()
                .map(|(name, count)| (name.to_string(), count))
                .collect::<BTreeMap<String, usize>>()
        };
        Stats {
            records: owned(records),
            pages: corpus.docs.len(),
            values: values
                .into_iter()
                .map(|(folder, fields)| {
                    let fields = fields
                        .into_iter()
                        .map(|(field, values)| (field.to_string(), owned(values)))
                        .collect();
                    (folder.to_string(), fields)
                })
                .collect(),
            references: owned(references),
            dangling: resolved.unresolved.len(),
            most_referenced: cited
                .into_iter()
                .map(|(id, count)| (id.to_string(), count))
                .collect(),
        }
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
