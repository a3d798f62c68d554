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
    /// References written that resolve, per field (`link` for prose links), each writing
    /// counted as [`Stats::dangling`] counts those that do not.
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
        // Every reference written that resolved, as `dangling` counts every one that did
        // not: the graph keeps one edge per cited record and field, however many times a
        // record cites it (`flops.source_id` of each of seven rows).
        let mut references: BTreeMap<&str, usize> = BTreeMap::new();
        for edge in &resolved.edges {
            if edge.target != crate::index::Target::File {
                *references
                    .entry(crate::graph::field_of(&edge.source))
                    .or_insert(0) += 1;
            }
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

    /// A short text report: each section a column of labels, as wide as its longest (at
    /// least 24 characters, so short sections line up), and their counts.
    pub fn render(&self) -> String {
        let mut out = String::from("records\n");
        let records = self
            .records
            .iter()
            .map(|(folder, &count)| (folder.as_str(), count));
        push_rows(&mut out, records.chain([("(prose pages)", self.pages)]));
        for (folder, fields) in &self.values {
            for (field, values) in fields {
                out.push_str(&format!("\n{folder} by {field}\n"));
                let mut sorted: Vec<(&str, usize)> =
                    values.iter().map(|(v, &c)| (v.as_str(), c)).collect();
                sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                push_rows(&mut out, sorted);
            }
        }
        out.push_str("\nreferences by field\n");
        let references = self
            .references
            .iter()
            .map(|(field, &count)| (field.as_str(), count));
        push_rows(&mut out, references.chain([("(dangling)", self.dangling)]));
        out.push_str("\nmost referenced\n");
        let most = self
            .most_referenced
            .iter()
            .map(|(id, count)| (id.as_str(), *count));
        push_rows(&mut out, most);
        out
    }
}

/// Rows of a section of [`Stats::render`].
fn push_rows<'a>(out: &mut String, rows: impl IntoIterator<Item = (&'a str, usize)>) {
    let rows: Vec<(&str, usize)> = rows.into_iter().collect();
    let width = rows
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0)
        .max(24);
    for (label, count) in rows {
        out.push_str(&format!("  {label:<width$} {count:>7}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_longer_than_the_column_widens_it_for_its_section() {
        let mut out = String::new();
        let long = "gotchas/ev-github-open-issues-count-includes-pull-requests";
        push_rows(&mut out, [(long, 71), ("engines/vllm", 59)]);
        let columns: Vec<usize> = out.lines().map(|line| line.len()).collect();
        assert_eq!(columns[0], columns[1], "{out}");
        let mut short = String::new();
        push_rows(&mut short, [("verified", 4)]);
        assert_eq!(short, "  verified                       4\n");
    }
}
