//! What the site shows, worked out once from the loaded corpus: which records and prose pages
//! get a page and where, what each reference field points at, which records each collection
//! and each enum value lists. Every page is then rendered from this alone, so pages can be
//! rendered in any order, in parallel, and still agree with each other.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use petgraph::graph::NodeIndex;
use serde_json::Value;

use crate::config::{Config, SiteConfig};
use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;
use crate::graph::{CorpusGraph, Node, NodeKind};
use crate::index::{IdIndex, Resolved, Source, Target};
use crate::rules;
use crate::schema::Schemas;
use crate::schema::enum_fields;
use crate::suggest;

use super::kept::{FieldValue, Kept};
use super::linked::Linked;
use super::statics::Statics;

/// The enum fields that get value pages when the config does not list them.
const DEFAULT_ENUM_PAGES: &[&str] = &["severity", "status"];

/// A record that has a page. Records that repeat another's id have none: the first one in
/// path order is the one every reference resolves to, and `check` reports the others.
#[derive(Debug)]
pub struct Published {
    /// Index in [`Corpus::records`].
    pub record: usize,
    /// Its node in the corpus graph.
    pub node: NodeIndex,
    /// Its page's folder: `engines/vllm/`.
    pub page: String,
    /// Where the references in its fields are in [`Content::field_refs`] (see
    /// [`Content::reference`]).
    refs: Range<usize>,
}

/// A prose page.
#[derive(Debug)]
pub struct PublishedDoc {
    /// Index in [`Corpus::docs`].
    pub doc: usize,
    /// Its node in the corpus graph.
    pub node: NodeIndex,
    /// Its page's folder: `docs/05-known-traps/`.
    pub page: String,
    /// Its first heading, else its file name.
    pub title: String,
}

/// A collection's page.
#[derive(Debug)]
pub struct CollectionPage {
    /// Index in [`Schemas::collections`].
    pub collection: usize,
    /// Its page's folder: `engines/`.
    pub page: String,
    /// Its published records, by id.
    pub records: Vec<usize>,
    /// Its enum fields, in schema order: the table's columns.
    pub enum_fields: Vec<String>,
    /// Whether the table has an `updated` column: the schema has the field, or a record
    /// does. Worked out once for every page of the table.
    pub has_updated: bool,
}

/// The pages of one enum field (`severity/`) and of each of its values (`severity/major/`).
#[derive(Debug)]
pub struct EnumPage {
    /// The field.
    pub field: String,
    /// Its page's folder.
    pub page: String,
    /// Each value some record has, in the schemas' order, with its published records.
    pub values: Vec<EnumValue>,
}

/// One value of an enum field.
#[derive(Debug)]
pub struct EnumValue {
    /// The value.
    pub value: String,
    /// Its page's folder.
    pub page: String,
    /// The published records that have it, by collection then id.
    pub records: Vec<usize>,
}

/// Everything the pages are rendered from.
pub struct Content<'c> {
    /// The loaded corpus.
    pub corpus: &'c Corpus<Kept>,
    /// Its collections.
    pub schemas: &'c Schemas,
    /// Site settings, with the base URL the build was asked for.
    pub site: SiteConfig,
    /// The resolver `check` uses, for the links of prose.
    pub index: IdIndex<'c, Kept>,
    /// Every reference and link, resolved.
    pub resolved: Resolved,
    /// The corpus graph.
    pub graph: CorpusGraph,
    /// Every collection index: a wiki-link may name any.
    pub all_collections: Vec<usize>,
    /// Records with a page, in corpus order.
    pub records: Vec<Published>,
    /// Every reference in the published records' fields: the JSON pointer it is written at
    /// (the resolved reference's own, interned) and the published record it points at, or
    /// `None` when it resolves to nothing; sorted by published record, then by pointer.
    /// One table for every record, where a map for each was an allocation and a few hundred
    /// bytes a record, built on one core.
    field_refs: Vec<(&'static str, Option<usize>)>,
    /// For each corpus record, its index in `records`.
    pub published: Vec<Option<usize>>,
    /// Prose pages.
    pub docs: Vec<PublishedDoc>,
    /// For each corpus doc, its index in `docs`.
    pub published_docs: Vec<Option<usize>>,
    /// Collection pages, in collection order.
    pub collections: Vec<CollectionPage>,
    /// Enum field pages, in the configured order.
    pub enums: Vec<EnumPage>,
    /// The files prose links to that the site copies.
    pub linked: Linked,
    /// The files of the static folder, which the site copies whether linked or not.
    pub statics: Statics,
}

// The published vectors have one entry per corpus record or doc; indices come from them.
#[allow(clippy::indexing_slicing)]
impl<'c> Content<'c> {
    /// Works out the site of a loaded corpus. Fails only on configuration the site cannot
    /// honour: an `enum_pages` entry that names no enum field, or a file of the static
    /// folder that may not be published ([`Statics::find`]).
    pub fn new(
        root: &Path,
        config: &Config,
        schemas: &'c Schemas,
        corpus: &'c Corpus<Kept>,
        site: SiteConfig,
    ) -> Result<Content<'c>, Vec<Diagnostic>> {
        let index = IdIndex::new(corpus, schemas);
        let resolved = index.resolve_all();
        let graph = CorpusGraph::build(corpus, schemas, &resolved);
        let enum_names = enum_page_fields(root, config, schemas)?;
        let statics = Statics::find(root)?;
        let mut published = vec![None; corpus.records.len()];
        let mut published_docs = vec![None; corpus.docs.len()];
        let mut records = Vec::with_capacity(graph.graph.node_count());
        let mut docs = Vec::new();
        for node in graph.graph.node_indices() {
            let weight = &graph.graph[node];
            match weight.kind {
                NodeKind::Record(record) => {
                    published[record] = Some(records.len());
                    records.push(Published {
                        record,
                        node,
                        page: folder_of(&weight.id),
                        refs: 0..0,
                    });
                }
                NodeKind::Page(doc) => {
                    published_docs[doc] = Some(docs.len());
                    docs.push(PublishedDoc {
                        doc,
                        node,
                        page: folder_of(&weight.id),
                        title: weight.name.clone(),
                    });
                }
            }
        }
        let field_refs = resolved
            .edges
            .iter()
            .map(|edge| {
                let to = match edge.target {
                    Target::Record(to) => published[to],
                    Target::Doc(_) | Target::File => None,
                };
                (&edge.source, to)
            })
            .chain(resolved.unresolved.iter().map(|u| (&u.source, None)));
        let mut field_refs: Vec<(usize, &'static str, Option<usize>)> = field_refs
            .filter_map(|(source, to)| match source {
                Source::Field {
                    record, pointer, ..
                } => Some((published[*record]?, *pointer, to)),
                Source::FieldLink { .. } | Source::Link { .. } => None,
            })
            .collect();
        // A reference has one place, so no two share a record and a pointer. Stable: the
        // resolved references come in runs of their records' order, which a stable sort
        // merges.
        field_refs.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut start = 0;
        for run in field_refs.chunk_by(|a, b| a.0 == b.0) {
            if let Some(&(from, _, _)) = run.first() {
                records[from].refs = start..start + run.len();
            }
            start += run.len();
        }
        let field_refs = field_refs
            .into_iter()
            .map(|(_, pointer, to)| (pointer, to))
            .collect();
        let linked = Linked::find(root, config, schemas, corpus, &index, &resolved);
        let mut content = Content {
            corpus,
            schemas,
            site,
            index,
            resolved,
            graph,
            all_collections: (0..schemas.collections.len()).collect(),
            records,
            field_refs,
            published,
            docs,
            published_docs,
            collections: Vec::new(),
            enums: Vec::new(),
            linked,
            statics,
        };
        content.collections = content.collection_pages();
        content.enums = enum_names
            .iter()
            .map(|field| content.enum_page(field))
            .collect();
        Ok(content)
    }

    /// The page of a graph node: a record's or a prose page's.
    pub fn page_of(&self, node: &Node) -> &str {
        let page = match node.kind {
            NodeKind::Record(record) => self.published[record].map(|p| &self.records[p].page),
            NodeKind::Page(doc) => self.published_docs[doc].map(|d| &self.docs[d].page),
        };
        page.map_or("", String::as_str)
    }

    /// Where a published record's JSON file is: beside its page's folder
    /// (`engines/vllm.json`).
    pub fn json_of(&self, published: usize) -> String {
        let page = &self.records[published].page;
        format!("{}.json", page.strip_suffix('/').unwrap_or(page))
    }

    /// Where the reference written at `pointer` in a published record's fields points: the
    /// published record, or `None` when it resolves to nothing; `None` as a whole when no
    /// reference is written there.
    pub fn reference(&self, published: usize, pointer: &str) -> Option<Option<usize>> {
        let refs = self
            .records
            .get(published)
            .and_then(|record| self.field_refs.get(record.refs.clone()))
            .unwrap_or_default();
        let at = refs.binary_search_by(|(at, _)| (*at).cmp(pointer)).ok()?;
        refs.get(at).map(|&(_, to)| to)
    }

    /// A published record's qualified id (`engines/vllm`): its graph node's, which the
    /// record's page, links and data files show as the graph does.
    pub fn qid(&self, published: usize) -> &str {
        &self.graph.graph[self.records[published].node].id
    }

    /// A published record's `name`, else its id: its graph node's.
    pub fn name(&self, published: usize) -> &str {
        &self.graph.graph[self.records[published].node].name
    }

    /// A published record's fields.
    pub fn value(&self, published: usize) -> &'c FieldValue {
        &self.corpus.records[self.records[published].record]
            .value
            .fields
    }

    /// A published record's collection index.
    pub fn collection_of(&self, published: usize) -> usize {
        self.corpus.records[self.records[published].record].collection
    }

    /// A published record's string field.
    pub fn text(&self, published: usize, field: &str) -> Option<&'c str> {
        self.value(published)
            .get(field)
            .and_then(FieldValue::as_str)
    }

    fn enum_page(&self, field: &str) -> EnumPage {
        let mut order: Vec<String> = Vec::new();
        for collection in &self.schemas.collections {
            for value in enum_values(&collection.schema, field) {
                if !order.contains(&value) {
                    order.push(value);
                }
            }
        }
        let mut by_value: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for published in 0..self.records.len() {
            if let Some(value) = self.text(published, field).filter(|v| is_folder_name(v)) {
                by_value.entry(value).or_default().push(published);
            }
        }
        let rank = |value: &str| order.iter().position(|v| v == value).unwrap_or(order.len());
        let mut values: Vec<(&str, Vec<usize>)> = by_value.into_iter().collect();
        values.sort_by(|a, b| rank(a.0).cmp(&rank(b.0)).then(a.0.cmp(b.0)));
        EnumPage {
            field: field.to_string(),
            page: format!("{field}/"),
            values: values
                .into_iter()
                .map(|(value, mut records)| {
                    records.sort_by(|&a, &b| self.qid(a).cmp(self.qid(b)));
                    EnumValue {
                        value: value.to_string(),
                        page: format!("{field}/{value}/"),
                        records,
                    }
                })
                .collect(),
        }
    }

    fn collection_pages(&self) -> Vec<CollectionPage> {
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); self.schemas.collections.len()];
        for (published, record) in self.records.iter().enumerate() {
            members[self.corpus.records[record.record].collection].push(published);
        }
        members
            .into_iter()
            .enumerate()
            .map(|(collection, mut records)| {
                records.sort_by(|&a, &b| self.qid(a).cmp(self.qid(b)));
                let schema = &self.schemas.collections[collection];
                let has_updated = schema.properties.iter().any(|p| p == "updated")
                    || records.iter().any(|&p| self.text(p, "updated").is_some());
                CollectionPage {
                    collection,
                    page: format!("{}/", schema.folder),
                    records,
                    enum_fields: enum_fields(&schema.schema),
                    has_updated,
                }
            })
            .collect()
    }

    /// The enum page of `field` and the page of one of its values, when the site has them.
    pub fn value_page(&self, field: &str, value: &str) -> Option<&str> {
        self.enums
            .iter()
            .find(|e| e.field == field)?
            .values
            .iter()
            .find(|v| v.value == value)
            .map(|v| v.page.as_str())
    }

    /// The published records with an `updated` date, most recent first (then by id).
    pub fn recently_updated(&self) -> Vec<usize> {
        // By the moment each names, latest first (text that names none after every one
        // that does), then by the text itself, then by id, so the order is total.
        let mut dated: Vec<(Option<super::feed::Moment>, &str, usize)> = (0..self.records.len())
            .filter_map(|p| {
                let updated = self.text(p, "updated")?;
                Some((super::feed::instant(updated), updated, p))
            })
            .collect();
        dated.sort_by(|a, b| {
            (b.0.cmp(&a.0))
                .then(b.1.cmp(a.1))
                .then_with(|| self.qid(a.2).cmp(self.qid(b.2)))
        });
        dated.into_iter().map(|(_, _, p)| p).collect()
    }
}

/// The folder of a node's page: its id (`engines/vllm/`), each segment made one the site
/// can hold ([`page_segment`]), since an `id` field is free text until `check` has judged
/// it. Two pages that end up at one path are caught when the site is planned.
fn folder_of(id: &str) -> String {
    // Sized for the id and its closing slash: a `_` in place of an empty segment may grow
    // it by a byte, a `.` or `..` never.
    let mut folder = String::with_capacity(id.len() + 1);
    for (n, segment) in id.split(['/', '\\']).enumerate() {
        if n > 0 {
            folder.push('/');
        }
        folder.push_str(&page_segment(segment));
    }
    folder.push('/');
    folder
}

/// The longest page folder name written whole, in bytes: file systems refuse a name past
/// 255, and a longer one is cut and told apart by a hash of the whole.
const LONGEST_SEGMENT: usize = 200;

/// A segment of a page's folder that a file system holds and that names no other file of
/// the site: `..`, `.` and an empty one would leave the site or name nothing (`_` instead);
/// a control character (NUL) is no file name (written `%00`); a name past
/// [`LONGEST_SEGMENT`] is cut; and a folder named like a file the site writes beside it
/// (`x.json`, the data of record `x`; `index.html`, the list page of the folder above) gets
/// a `_` after it. Content must not fail a build, so a record with any id gets a page.
fn page_segment(segment: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let mut named: Cow<'_, str> = match segment {
        "" | "." | ".." => Cow::Borrowed("_"),
        _ if segment.contains(char::is_control) => Cow::Owned(
            segment
                .chars()
                .map(|c| {
                    if c.is_control() {
                        format!("%{:02X}", u32::from(c))
                    } else {
                        c.to_string()
                    }
                })
                .collect(),
        ),
        _ => Cow::Borrowed(segment),
    };
    if named.len() > LONGEST_SEGMENT {
        let hash = crate::cache::stable_hash(named.as_bytes());
        let cut = crate::source::floor_char_boundary(&named, LONGEST_SEGMENT - 17);
        named = Cow::Owned(format!(
            "{}-{hash:016x}",
            named.get(..cut).unwrap_or_default()
        ));
    }
    if named.ends_with(".json") || named == "index.html" {
        named.to_mut().push('_');
    }
    named
}

/// Whether an enum value can name a page folder (`severity/major/`) as it is.
fn is_folder_name(value: &str) -> bool {
    !value.contains(['/', '\\']) && page_segment(value) == value
}

/// The string values of a field's `enum` in a collection schema.
pub fn enum_values(schema: &Value, field: &str) -> Vec<String> {
    schema
        .get("properties")
        .and_then(|p| p.get(field))
        .and_then(|p| p.get("enum"))
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The fields to give value pages: the config's `enum_pages`, each checked against the
/// schemas' enum fields, or the defaults that exist.
fn enum_page_fields(
    root: &Path,
    config: &Config,
    schemas: &Schemas,
) -> Result<Vec<String>, Vec<Diagnostic>> {
    let mut known: Vec<String> = schemas
        .collections
        .iter()
        .flat_map(|c| enum_fields(&c.schema))
        .collect();
    known.sort();
    known.dedup();
    let Some(listed) = &config.site.enum_pages else {
        return Ok(DEFAULT_ENUM_PAGES
            .iter()
            .filter(|field| known.iter().any(|k| k == *field))
            .map(|field| field.to_string())
            .collect());
    };
    let display = config.shown(root);
    let mut errors = Vec::new();
    for (field, span) in listed {
        if known.contains(field) {
            continue;
        }
        let diagnostic = Diagnostic::new(
            rules::INVALID_CONFIG,
            &display,
            format!("`{field}` in `enum_pages` is no enum field of any collection"),
        )
        .at_span(span.clone())
        .with_label("not an enum field");
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        errors.push(suggest::unknown_name(
            diagnostic,
            field,
            "enum fields",
            &names,
        ));
    }
    if errors.is_empty() {
        Ok(listed.iter().map(|(field, _)| field.clone()).collect())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_folder_never_leaves_the_site() {
        assert_eq!(folder_of("engines/vllm"), "engines/vllm/");
        assert_eq!(folder_of("../../etc"), "_/_/etc/");
        assert_eq!(folder_of("a//b\\c"), "a/_/b/c/");
        assert_eq!(folder_of("./x/."), "_/x/_/");
        assert_eq!(folder_of(""), "_/");
        assert_eq!(folder_of("gotchas/x.json"), "gotchas/x.json_/");
        assert_eq!(folder_of("a/index.html/b"), "a/index.html_/b/");
        assert_eq!(folder_of("a\u{0}b"), "a%00b/");
        let long = folder_of(&"é".repeat(300));
        assert!(long.len() <= LONGEST_SEGMENT + 1, "{long}");
        assert_ne!(long, folder_of(&"é".repeat(301)));
        assert!(!is_folder_name("index.html"));
        assert!(is_folder_name("major"));
    }
}
