//! Graph rules: records cut off from the web (`orphan`), loops through fields that must not
//! loop (`cycle`), and records nobody cites in collections that must be cited
//! (`unreferenced`).

use std::collections::{BTreeSet, HashSet, VecDeque};

use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use crate::config::GraphConfig;
use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Diagnostic, Label};
use crate::graph::{CorpusGraph, LINK_FIELD, Named, NodeKind};
use crate::index::{Edge, Edges, Resolved, Source, Target, Unresolved};
use crate::rules;
use crate::schema::Schemas;

/// Runs the graph rules on the resolved references. `duplicates` are the records whose
/// qualified id an earlier record has, as [`crate::index::IdIndex::duplicates`] lists them:
/// the graph has a node for the first record of each id only.
///
/// `orphan` and `unreferenced` need only whether each record cites and is cited, which one
/// pass over the edges tells; the graph itself is built for `cycle` alone, from the edges of
/// the acyclic fields. That keeps the rules linear and cheap enough to rerun per edit in the
/// language server.
// The vectors here have one entry per record or file; the indices come from the corpus.
#[allow(clippy::indexing_slicing)]
pub fn check<'e, F: Named>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &GraphConfig,
    edges: impl IntoIterator<Item = &'e Edge>,
    unresolved: &[Unresolved],
    duplicates: &[(usize, usize)],
) -> Vec<Diagnostic> {
    // The graph's nodes: the first record of each qualified id, and every page.
    let mut is_node = vec![true; corpus.records.len()];
    for &(record, _) in duplicates {
        is_node[record] = false;
    }
    // By file: `Some(Some(record))` for a record node, `Some(None)` for a page.
    let mut node_of_file: Vec<Option<Option<usize>>> = vec![None; corpus.files.len()];
    for (record, r) in corpus.records.iter().enumerate() {
        if is_node[record] {
            node_of_file[r.file] = Some(Some(record));
        }
    }
    for doc in &corpus.docs {
        node_of_file[doc.file] = Some(None);
    }
    let mut cites = vec![false; corpus.records.len()];
    let mut cited = vec![false; corpus.records.len()];
    let mut acyclic = Edges::default();
    for edge in edges {
        let from = match &edge.source {
            Source::Field { record, .. } | Source::FieldLink { record, .. } => {
                is_node[*record].then_some(Some(*record))
            }
            Source::Link { file, .. } => node_of_file[*file],
        };
        let to = match edge.target {
            Target::Record(record) => is_node[record].then_some(Some(record)),
            Target::Doc(_) => Some(None),
            Target::File => None,
        };
        let (Some(from), Some(to)) = (from, to) else {
            continue;
        };
        if let Some(record) = from {
            cites[record] = true;
        }
        if let Some(record) = to {
            cited[record] = true;
        }
        if config
            .acyclic_fields
            .iter()
            .any(|(f, _)| *f == field_of(&edge.source))
        {
            acyclic.push(edge.clone());
        }
    }
    // A record whose references are all broken is reported for those; calling it an orphan
    // too would be a cascade, not news.
    let citing_broken: HashSet<usize> = unresolved
        .iter()
        .filter_map(|u| match &u.source {
            Source::Field { record, .. } | Source::FieldLink { record, .. } => Some(*record),
            Source::Link { file, .. } => corpus.record_of_file(*file),
        })
        .collect();
    // A collection is named by its type or its folder, as `query` and `new` take it.
    let folder_of = |names: &[(String, std::ops::Range<usize>)]| -> HashSet<String> {
        schemas
            .collections
            .iter()
            .filter(|c| names.iter().any(|(n, _)| *n == c.name || *n == c.folder))
            .map(|c| c.folder.clone())
            .collect()
    };
    let leaves = folder_of(&config.leaf_collections);
    let must_be_cited = folder_of(&config.must_be_cited);
    let mut diagnostics = Vec::new();
    for (record, r) in corpus.records.iter().enumerate() {
        if !is_node[record] {
            continue;
        }
        let folder = &schemas.collections[r.collection].folder;
        let id = || format!("{folder}/{}", r.id);
        let file = &corpus.files[r.file].display;
        let cited = cited[record];
        if !cited && !cites[record] && !leaves.contains(folder) && !citing_broken.contains(&record)
        {
            diagnostics.push(
                Diagnostic::new(
                    rules::ORPHAN,
                    file,
                    format!("`{}` references nothing and nothing references it", id()),
                )
                .at(Anchor::Value(String::new()))
                .with_label("an orphan record")
                .with_help(
                    "cite it from a related record or page, or give it references of its own",
                ),
            );
        }
        if !cited && must_be_cited.contains(folder) {
            diagnostics.push(
                Diagnostic::new(
                    rules::UNREFERENCED,
                    file,
                    format!("no record cites `{}`", id()),
                )
                .at(Anchor::Value(String::new()))
                .with_label("never cited")
                .with_note(format!(
                    "every record in `{folder}/` must be cited at least once"
                ))
                .with_help("cite it where it is used, or delete it"),
            );
        }
    }
    if !config.acyclic_fields.is_empty() {
        let resolved = Resolved {
            edges: acyclic,
            unresolved: Vec::new(),
        };
        let graph = CorpusGraph::build(corpus, schemas, &resolved);
        diagnostics.extend(cycles(corpus, config, &graph));
    }
    diagnostics
}

/// The field an edge is labelled with in the graph.
fn field_of(source: &Source) -> &str {
    match source {
        Source::Field { field, .. } => field,
        Source::FieldLink { .. } | Source::Link { .. } => LINK_FIELD,
    }
}

/// One diagnostic per strongly connected component of the acyclic fields' edges.
fn cycles<F>(corpus: &Corpus<F>, config: &GraphConfig, graph: &CorpusGraph) -> Vec<Diagnostic> {
    let fields: Vec<String> = config
        .acyclic_fields
        .iter()
        .map(|(f, _)| f.clone())
        .collect();
    let acyclic = graph.filter(None, &[], &fields);
    let mut diagnostics = Vec::new();
    // Kosaraju's search keeps its own stack: Tarjan's, in petgraph, recurses once per node
    // along a path, and a `supersedes` chain of 25,000 records overflowed a thread's stack.
    // The components are sorted below, so the order either gives them in is no matter.
    let mut components: Vec<Vec<NodeIndex>> = petgraph::algo::kosaraju_scc(&acyclic.graph)
        .into_iter()
        .filter(|component| match component.as_slice() {
            [one] => acyclic.graph.contains_edge(*one, *one),
            _ => true,
        })
        .collect();
    for component in &mut components {
        component.sort_by(|a, b| acyclic.graph[*a].id.cmp(&acyclic.graph[*b].id));
    }
    let first_id = |component: &[NodeIndex]| component.first().map(|&n| &acyclic.graph[n].id);
    components.sort_by(|a, b| first_id(a).cmp(&first_id(b)));
    for component in components {
        let members: HashSet<NodeIndex> = component.iter().copied().collect();
        let Some(&start) = component.first() else {
            continue;
        };
        let path = shortest_cycle(&acyclic, start, &members);
        let names: Vec<&str> = path.iter().map(|&n| acyclic.graph[n].id.as_str()).collect();
        let first_edge = path
            .get(1)
            .and_then(|&next| acyclic.graph.edges_connecting(start, next).next());
        let fields: BTreeSet<&str> = component
            .iter()
            .flat_map(|&n| acyclic.graph.edges(n))
            .filter(|e| members.contains(&e.target()))
            .map(|e| e.weight().field())
            .collect();
        let NodeKind::Record(record) = acyclic.graph[start].kind else {
            continue;
        };
        #[allow(clippy::indexing_slicing)]
        // Record, file and collection indices come from the corpus and schemas they index.
        let file = &corpus.files[corpus.records[record].file].display;
        let anchor = match first_edge.map(|e| &e.weight().source) {
            Some(Source::Field { pointer, .. }) => Anchor::Value(pointer.to_string()),
            _ => Anchor::Value(String::new()),
        };
        let mut diagnostic = Diagnostic::new(
            rules::CYCLE,
            file,
            format!(
                "{} {} a cycle: {}",
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(" and "),
                if fields.len() == 1 { "forms" } else { "form" },
                names.join(" -> ")
            ),
        )
        .at(anchor)
        .with_label("the cycle starts here");
        // Each further step of the loop is pointed at where it is written, so that a
        // report shows the whole loop, and a check of changed files reports it when the
        // change made any of its steps (it is reported on the first record only).
        for pair in path.windows(2).skip(1).take(CYCLE_STEPS_SHOWN) {
            let [from, to] = pair else { continue };
            let (NodeKind::Record(record), Some(edge)) = (
                acyclic.graph[*from].kind,
                acyclic.graph.edges_connecting(*from, *to).next(),
            ) else {
                continue;
            };
            let Source::Field { pointer, .. } = &edge.weight().source else {
                continue;
            };
            #[allow(clippy::indexing_slicing)]
            let step_file = &corpus.files[corpus.records[record].file].display;
            diagnostic = diagnostic.with_secondary(Label {
                file: step_file.clone(),
                anchor: Anchor::Value(pointer.to_string()),
                message: format!("the cycle goes on to `{}`", acyclic.graph[*to].id),
            });
        }
        if component.len() + 1 > path.len() {
            diagnostic = diagnostic.with_note(format!(
                "the loop is part of a tangle of {} records: {}",
                component.len(),
                component
                    .iter()
                    .map(|&n| acyclic.graph[n].id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        diagnostics.push(
            diagnostic.with_help("break the loop: one of these references points the wrong way"),
        );
    }
    diagnostics
}

/// The most steps of a loop a `cycle` diagnostic points at past its first: a loop of
/// thousands of records is named whole in the message, but not quoted step by step.
const CYCLE_STEPS_SHOWN: usize = 20;

/// The shortest path from `start` back to itself within `members`, as a node list that ends
/// where it starts.
fn shortest_cycle(
    graph: &CorpusGraph,
    start: NodeIndex,
    members: &HashSet<NodeIndex>,
) -> Vec<NodeIndex> {
    let mut previous: std::collections::HashMap<NodeIndex, NodeIndex> =
        std::collections::HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let mut next: Vec<NodeIndex> = graph
            .graph
            .neighbors_directed(node, Direction::Outgoing)
            .filter(|n| members.contains(n))
            .collect();
        next.sort_by(|a, b| graph.graph[*a].id.cmp(&graph.graph[*b].id));
        for neighbour in next {
            if neighbour == start {
                let mut back = vec![start];
                let mut at = node;
                while at != start {
                    back.push(at);
                    match previous.get(&at) {
                        Some(&before) => at = before,
                        None => break,
                    }
                }
                back.push(start);
                back.reverse();
                return back;
            }
            if let std::collections::hash_map::Entry::Vacant(entry) = previous.entry(neighbour) {
                entry.insert(node);
                queue.push_back(neighbour);
            }
        }
    }
    vec![start, start]
}
