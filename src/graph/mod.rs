//! The corpus as a graph: a node per record and per prose page, an edge per resolved
//! reference, labelled with its field (`affects`, `sources` ...; `link` for prose links).
//!
//! Built once from the index's resolution with `petgraph`, in corpus order (records by path,
//! then pages), with repeated edges (the same field from the same node to the same node)
//! kept once, so every export and every analysis is deterministic.

pub mod export;
mod linked;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::sync::Arc;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::config::SiteConfig;
use crate::corpus::Corpus;
use crate::index::{Resolved, Source, Target};
use crate::schema::Schemas;

pub use linked::Linked;

/// The field name of edges that come from links in prose.
pub const LINK_FIELD: &str = "link";

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A record, by index in [`Corpus::records`].
    Record(usize),
    /// A prose page, by index in [`Corpus::docs`].
    Page(usize),
}

/// A node: a record or a prose page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// `engines/vllm` for a record, the path without `.md` for a page (`docs/05-known-traps`).
    pub id: String,
    /// The record's collection folder; `None` for a page.
    pub collection: Option<String>,
    /// The record's `name` (or its id); a page's first heading (or its stem).
    pub name: String,
    /// What it stands for.
    pub kind: NodeKind,
}

impl Node {
    /// The node's page on the site, relative to the site root: `engines/vllm/`.
    pub fn page(&self) -> String {
        format!("{}/", self.id)
    }

    /// The node's page URL under the configured base URL, percent-encoded as the site
    /// writes it (`q&a/faq-1/` -> `q%26a/faq-1/`).
    pub fn url(&self, site: &SiteConfig) -> String {
        crate::site::urls::absolute(&site.base_url, &self.page())
    }
}

/// An edge: one reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Where the (first) reference is written.
    pub source: Source,
}

impl Edge {
    /// The field, or [`LINK_FIELD`] for a link: read from where the reference is written.
    pub fn field(&self) -> &str {
        field_of(&self.source)
    }
}

/// The field a reference is written in, or [`LINK_FIELD`] for a link.
pub fn field_of(source: &Source) -> &str {
    match source {
        Source::Field { field, .. } => field,
        Source::FieldLink { .. } | Source::Link { .. } => LINK_FIELD,
    }
}

/// The corpus graph.
#[derive(Clone, Debug, Default)]
pub struct CorpusGraph {
    /// The graph itself.
    pub graph: DiGraph<Node, Edge>,
    by_id: foldhash::HashMap<String, NodeIndex>,
    /// The collections of the corpus's graph, in name order, kept by every part of it
    /// ([`CorpusGraph::neighbourhood`], [`CorpusGraph::filter`]): a picture colours a
    /// collection by its place here, so that it has one colour in every picture of the
    /// corpus, whichever collections the part at hand shows.
    collections: Arc<[String]>,
}

/// What a record keeps that its node's name can be read from.
pub trait Named {
    /// The record's `name` field, if it has a string one.
    fn name(&self) -> Option<&str>;
}

impl Named for serde_json::Value {
    fn name(&self) -> Option<&str> {
        self.get("name").and_then(serde_json::Value::as_str)
    }
}

impl CorpusGraph {
    /// Builds the graph of a loaded corpus from its resolved references.
    // Record, doc, file and collection indices come from the corpus and schemas they index.
    #[allow(clippy::indexing_slicing)]
    pub fn build<F: Named>(
        corpus: &Corpus<F>,
        schemas: &Schemas,
        resolved: &Resolved,
    ) -> CorpusGraph {
        // A site builds this graph on one core before its pages are rendered on all of
        // them: sized once, it is not regrown (and copied) a dozen times at 100k records.
        let mut built = CorpusGraph {
            graph: DiGraph::with_capacity(
                corpus.records.len() + corpus.docs.len(),
                resolved.edges.len(),
            ),
            by_id: foldhash::HashMap::with_capacity_and_hasher(
                corpus.records.len() + corpus.docs.len(),
                foldhash::fast::RandomState::default(),
            ),
            collections: Arc::default(),
        };
        let mut record_nodes: Vec<Option<NodeIndex>> = vec![None; corpus.records.len()];
        let mut page_nodes: Vec<Option<NodeIndex>> = vec![None; corpus.docs.len()];
        let mut file_nodes: Vec<Option<NodeIndex>> = vec![None; corpus.files.len()];
        let place = |nodes: &mut Vec<Option<NodeIndex>>, at: usize, node: NodeIndex| {
            if let Some(slot) = nodes.get_mut(at) {
                *slot = Some(node);
            }
        };
        for (index, record) in corpus.records.iter().enumerate() {
            let folder = &schemas.collections[record.collection].folder;
            let id = format!("{folder}/{}", record.id);
            if built.by_id.contains_key(&id) {
                continue;
            }
            let name = record.value.name().unwrap_or(&record.id).to_string();
            let node = built.add(Node {
                id,
                collection: Some(folder.clone()),
                name,
                kind: NodeKind::Record(index),
            });
            place(&mut record_nodes, index, node);
            place(&mut file_nodes, record.file, node);
        }
        for (index, doc) in corpus.docs.iter().enumerate() {
            let file = &corpus.files[doc.file];
            let id = file
                .display
                .strip_suffix(".md")
                .unwrap_or(&file.display)
                .to_string();
            let name = file
                .text
                .as_deref()
                .and_then(first_heading)
                .unwrap_or_else(|| doc.stem.clone());
            let node = built.add(Node {
                id,
                collection: None,
                name,
                kind: NodeKind::Page(index),
            });
            place(&mut page_nodes, index, node);
            place(&mut file_nodes, doc.file, node);
        }
        let node_at = |nodes: &[Option<NodeIndex>], at: usize| nodes.get(at).copied().flatten();
        // Fields are few: an edge is deduplicated on the field's number, not its name.
        let mut field_numbers: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
        let mut seen: foldhash::HashSet<(NodeIndex, NodeIndex, usize)> =
            foldhash::HashSet::with_capacity_and_hasher(
                resolved.edges.len(),
                foldhash::fast::RandomState::default(),
            );
        for edge in &resolved.edges {
            let from = match &edge.source {
                Source::Field { record, .. } | Source::FieldLink { record, .. } => {
                    node_at(&record_nodes, *record)
                }
                Source::Link { file, .. } => node_at(&file_nodes, *file),
            };
            let to = match edge.target {
                Target::Record(record) => node_at(&record_nodes, record),
                Target::Doc(doc) => node_at(&page_nodes, doc),
                Target::File => None,
            };
            let next_number = field_numbers.len();
            let number = *field_numbers
                .entry(field_of(&edge.source))
                .or_insert(next_number);
            if let (Some(from), Some(to)) = (from, to)
                && seen.insert((from, to, number))
            {
                built.graph.add_edge(
                    from,
                    to,
                    Edge {
                        source: edge.source.clone(),
                    },
                );
            }
        }
        let collections: BTreeSet<&str> = built
            .graph
            .node_weights()
            .filter_map(|node| node.collection.as_deref())
            .collect();
        built.collections = collections.into_iter().map(str::to_string).collect();
        built
    }

    fn add(&mut self, node: Node) -> NodeIndex {
        let id = node.id.clone();
        let index = self.graph.add_node(node);
        self.by_id.insert(id, index);
        index
    }

    /// The node with this id (`engines/vllm`, or a page path without `.md`).
    pub fn find(&self, id: &str) -> Option<NodeIndex> {
        self.by_id.get(id).copied()
    }

    /// Every node id, for did-you-mean.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.graph.node_weights().map(|n| n.id.as_str())
    }

    /// Looks a node up by qualified id, or by bare id when exactly one record has it.
    pub fn lookup(&self, id: &str) -> Result<NodeIndex, Vec<NodeIndex>> {
        if let Some(node) = self.find(id) {
            return Ok(node);
        }
        let matching: Vec<NodeIndex> = self
            .graph
            .node_indices()
            .filter(|&n| self.graph[n].id.rsplit('/').next() == Some(id))
            .collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            _ => Err(matching),
        }
    }

    /// A node and its direct neighbours, both directions, for a page's picture: at most
    /// `limit` nodes in all (the first neighbours in graph order), with every edge between
    /// them. It costs the node's degree and the kept nodes' out-degrees, never the size of
    /// the graph, so a site can draw one for each of many thousand pages.
    pub fn neighbourhood(&self, center: NodeIndex, limit: usize) -> Neighbourhood {
        let neighbours: BTreeSet<NodeIndex> = self
            .graph
            .neighbors_undirected(center)
            .filter(|&n| n != center)
            .collect();
        let mut sub = CorpusGraph {
            collections: Arc::clone(&self.collections),
            ..CorpusGraph::default()
        };
        let mut mapping: foldhash::HashMap<NodeIndex, NodeIndex> = foldhash::HashMap::default();
        for node in std::iter::once(center).chain(neighbours.iter().copied()) {
            if mapping.len() == limit.max(1) {
                break;
            }
            mapping.insert(node, sub.add(self.graph[node].clone()));
        }
        let mut kept: Vec<(NodeIndex, NodeIndex)> = mapping.iter().map(|(&a, &b)| (a, b)).collect();
        kept.sort_by_key(|&(_, new)| new);
        for (old, new) in kept {
            let mut edges: Vec<_> = self
                .graph
                .edges_directed(old, Direction::Outgoing)
                .collect();
            edges.sort_by_key(|edge| edge.id());
            for edge in edges {
                if let Some(&to) = mapping.get(&edge.target()) {
                    sub.graph.add_edge(new, to, edge.weight().clone());
                }
            }
        }
        Neighbourhood {
            // The center is the first node kept: index 0 of the neighbourhood.
            center: mapping.get(&center).copied().unwrap_or_default(),
            graph: sub,
            neighbours: neighbours.len(),
        }
    }

    /// A subgraph: only edges of the given fields (all when empty), only nodes of the given
    /// collections (all when empty), and, with `around`, only nodes within `depth` steps of
    /// that node, following edges both ways. Node and edge order is kept. When nothing
    /// narrows it, the graph itself: a copy of 100,000 nodes' ids and names is most of what
    /// exporting a whole graph would otherwise hold.
    pub fn filter(
        &self,
        around: Option<(NodeIndex, usize)>,
        collections: &[String],
        fields: &[String],
    ) -> Cow<'_, CorpusGraph> {
        if around.is_none() && collections.is_empty() && fields.is_empty() {
            return Cow::Borrowed(self);
        }
        let field_ok = |field: &str| fields.is_empty() || fields.iter().any(|f| f == field);
        let node_ok = |node: NodeIndex| {
            collections.is_empty()
                || self.graph[node]
                    .collection
                    .as_ref()
                    .is_some_and(|c| collections.contains(c))
                || around.is_some_and(|(center, _)| center == node)
        };
        let mut keep: HashSet<NodeIndex> =
            self.graph.node_indices().filter(|&n| node_ok(n)).collect();
        if let Some((center, depth)) = around {
            let mut reached: HashSet<NodeIndex> = HashSet::from([center]);
            let mut queue = VecDeque::from([(center, 0)]);
            while let Some((node, distance)) = queue.pop_front() {
                if distance == depth {
                    continue;
                }
                for direction in [Direction::Outgoing, Direction::Incoming] {
                    for edge in self.graph.edges_directed(node, direction) {
                        let next = if direction == Direction::Outgoing {
                            edge.target()
                        } else {
                            edge.source()
                        };
                        if field_ok(edge.weight().field())
                            && keep.contains(&next)
                            && reached.insert(next)
                        {
                            queue.push_back((next, distance + 1));
                        }
                    }
                }
            }
            keep = reached;
        }
        let mut filtered = CorpusGraph {
            collections: Arc::clone(&self.collections),
            ..CorpusGraph::default()
        };
        let mut mapping: foldhash::HashMap<NodeIndex, NodeIndex> = foldhash::HashMap::default();
        for node in self.graph.node_indices().filter(|n| keep.contains(n)) {
            mapping.insert(node, filtered.add(self.graph[node].clone()));
        }
        for edge in self.graph.edge_references() {
            if let (Some(&from), Some(&to)) =
                (mapping.get(&edge.source()), mapping.get(&edge.target()))
                && field_ok(edge.weight().field())
            {
                filtered.graph.add_edge(from, to, edge.weight().clone());
            }
        }
        Cow::Owned(filtered)
    }
}

/// A node's neighbourhood, cut to a size that can be drawn.
#[derive(Clone, Debug)]
pub struct Neighbourhood {
    /// The node and the neighbours kept, with the edges between them.
    pub graph: CorpusGraph,
    /// The node itself, in `graph`.
    pub center: NodeIndex,
    /// How many neighbours the node has in the whole graph, kept or not.
    pub neighbours: usize,
}

/// The text of a Markdown file's first `# ` heading.
fn first_heading(text: &str) -> Option<String> {
    text.lines()
        .find_map(|line| line.strip_prefix("# "))
        .map(|title| title.trim().to_string())
        .filter(|title| !title.is_empty())
}
