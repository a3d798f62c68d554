//! The site's data files, for scripts and for other tools: each record as JSON, every record
//! in `records.json`, and the graph the explorer draws.
//!
//! A record's JSON holds its fields as written plus what the site resolved: every reference
//! with the record it names (or `null`), and every record or page that cites it.

use std::io::{self, Write};

use petgraph::Direction;
use petgraph::visit::EdgeRef;
use serde::Serialize;

use super::content::Content;
use super::json::Json;
use super::kept::FieldValue;
use super::urls;
use crate::index::{KeepsWritten, Source};

/// A record as its JSON file holds it (see [`RecordJson::write`]).
struct RecordJson<'a> {
    id: &'a str,
    collection: &'a str,
    /// Written as `type`.
    kind: &'a str,
    file: &'a str,
    page: &'a str,
    fields: &'a FieldValue,
    references: Vec<Reference<'a>>,
    referenced_by: Vec<Backlink<'a>>,
}

struct Reference<'a> {
    field: &'a str,
    pointer: &'a str,
    value: &'a str,
    target: Option<&'a str>,
}

struct Backlink<'a> {
    from: &'a str,
    field: &'a str,
}

// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
fn record<'a>(content: &'a Content<'_>, published: usize) -> RecordJson<'a> {
    let entry = &content.records[published];
    let loaded = &content.corpus.records[entry.record];
    let collection = &content.schemas.collections[loaded.collection];
    // The references written in the record's reference fields, in the schema's order.
    let references = loaded
        .value
        .written()
        .iter()
        .filter_map(|written| match &written.source {
            Source::Field { field, pointer, .. } => Some((field, pointer, &written.text)),
            Source::FieldLink { .. } | Source::Link { .. } => None,
        })
        .map(|(field, pointer, value)| {
            let target = content
                .reference(published, pointer)
                .flatten()
                .map(|to| content.qid(to));
            Reference {
                field,
                pointer,
                value,
                target,
            }
        })
        .collect();
    let graph = &content.graph.graph;
    let mut referenced_by: Vec<Backlink<'a>> = graph
        .edges_directed(entry.node, Direction::Incoming)
        .map(|edge| Backlink {
            from: &graph[edge.source()].id,
            field: edge.weight().field(),
        })
        .collect();
    referenced_by.sort_by(|a, b| a.from.cmp(b.from).then(a.field.cmp(b.field)));
    RecordJson {
        id: content.qid(published),
        collection: &collection.folder,
        kind: &collection.name,
        file: &content.corpus.files[loaded.file].display,
        page: &entry.page,
        fields: &loaded.value.fields,
        references,
        referenced_by,
    }
}

impl RecordJson<'_> {
    /// Writes the record as the object its JSON file and its line of `records.json` hold.
    fn write(&self, json: &mut Json) {
        json.begin_object();
        json.strings(&[
            ("id", self.id),
            ("collection", self.collection),
            ("type", self.kind),
            ("file", self.file),
            ("page", self.page),
        ]);
        json.key("fields");
        json.value(self.fields);
        json.key("references");
        json.begin_array();
        for reference in &self.references {
            json.item();
            json.begin_object();
            json.strings(&[
                ("field", reference.field),
                ("pointer", reference.pointer),
                ("value", reference.value),
            ]);
            json.key("target");
            json.optional(reference.target);
            json.end_object();
        }
        json.end_array();
        json.key("referenced_by");
        json.begin_array();
        for backlink in &self.referenced_by {
            json.item();
            json.begin_object();
            json.strings(&[("from", backlink.from), ("field", backlink.field)]);
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
}

/// What a record's JSON file is given room for at first (see [`record_file`]).
const RECORD_FILE_SIZE: usize = 8 * 1024;

/// One record's JSON file: pretty, with a final newline, as every JSON file the tool
/// writes whole ([`crate::serialize::to_json`]).
pub fn record_file(content: &Content<'_>, published: usize) -> String {
    let mut json = Json::pretty();
    // A generated record's file is 3.4 KB on average, which a text grown from nothing by
    // doubling reaches after about ten copies.
    json.reserve(RECORD_FILE_SIZE);
    record(content, published).write(&mut json);
    let mut text = json.take();
    text.push('\n');
    text
}

/// `records.json`: every record, one per line, so the file diffs and greps well. Streamed
/// a record at a time: for a large corpus this is the biggest file of the site.
pub fn write_records(content: &Content<'_>, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"[")?;
    let mut json = Json::compact();
    for published in 0..content.records.len() {
        out.write_all(if published == 0 { b"\n" } else { b",\n" })?;
        json.clear();
        record(content, published).write(&mut json);
        out.write_all(json.as_str().as_bytes())?;
    }
    out.write_all(if content.records.is_empty() {
        b"]\n"
    } else {
        b"\n]\n"
    })
}

/// `graph/data.js`: the graph for the explorer, as a script so that it also loads from disk,
/// where browsers refuse to fetch files. Nodes are `[id, name, collection index (-1 for a
/// page), link from the site root]`, edges `[from, to]` by node index.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn write_graph_script(content: &Content<'_>, out: &mut dyn Write) -> io::Result<()> {
    #[derive(Serialize)]
    struct GraphData<'a> {
        collections: Vec<&'a str>,
        nodes: Vec<(&'a str, &'a str, i64, String)>,
        edges: Vec<(usize, usize)>,
    }
    let graph = &content.graph.graph;
    // Only the collections that have records get a colour, so that colours stay distinct.
    let collections: Vec<&str> = content
        .collections
        .iter()
        .filter(|c| !c.records.is_empty())
        .map(|c| content.schemas.collections[c.collection].folder.as_str())
        .collect();
    let data = GraphData {
        nodes: graph
            .node_weights()
            .map(|node| {
                let collection = node
                    .collection
                    .as_deref()
                    .and_then(|c| collections.iter().position(|f| *f == c))
                    .map_or(-1, |i| i as i64);
                (
                    node.id.as_str(),
                    node.name.as_str(),
                    collection,
                    urls::encode(content.page_of(node)),
                )
            })
            .collect(),
        edges: graph
            .edge_references()
            .map(|e| (e.source().index(), e.target().index()))
            .collect(),
        collections,
    };
    out.write_all(b"window.gotchasGraph = ")?;
    serde_json::to_writer(&mut *out, &data)?;
    out.write_all(b";\n")
}
