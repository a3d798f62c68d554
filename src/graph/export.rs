//! Graph exports: DOT for Graphviz, JSON for scripts, Mermaid for GitHub, SVG for pages.
//!
//! Every export walks nodes and edges in graph order, so the same corpus gives the same
//! bytes. Colours are assigned to collections in name order from a fixed palette.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::{Command, Stdio};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use serde::Serialize;

use super::{CorpusGraph, Node};
use crate::config::SiteConfig;
use crate::markup::escaped;

/// Most nodes laid out in-process for SVG; larger graphs go through Graphviz.
pub const MAX_INPROCESS_SVG_NODES: usize = 60;

const PALETTE: &[&str] = &[
    "#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#e0f2fe", "#fee2e2", "#ecfccb",
    "#f3e8ff", "#ffedd5",
];
const PAGE_COLOUR: &str = "#f3f4f6";

/// The fill colour of each collection (by name order in the graph at hand), and of pages.
struct Colours<'g>(Vec<&'g str>);

impl<'g> Colours<'g> {
    fn of(graph: &'g CorpusGraph) -> Self {
        Colours(groups(graph).into_iter().flatten().collect())
    }

    fn get(&self, node: &Node) -> &'static str {
        match &node.collection {
            None => PAGE_COLOUR,
            Some(collection) => {
                let position = self.0.iter().position(|c| c == collection).unwrap_or(0);
                PALETTE
                    .get(position % PALETTE.len())
                    .unwrap_or(&PAGE_COLOUR)
            }
        }
    }
}

/// The node groups of an export, in name order: each collection, and `None` for pages.
fn groups(graph: &CorpusGraph) -> BTreeSet<Option<&str>> {
    graph
        .graph
        .node_weights()
        .map(|n| n.collection.as_deref())
        .collect()
}

fn dot_string(text: &str) -> String {
    format!(
        "\"{}\"",
        text.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// Graphviz DOT: one cluster per collection (pages outside any cluster), nodes labelled with
/// names and linked to their site pages.
pub fn dot(graph: &CorpusGraph, site: &SiteConfig) -> String {
    let colours = Colours::of(graph);
    let mut out = String::from(
        "digraph gotchas {\n  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11];\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9, color=\"#6b7280\"];\n",
    );
    for collection in groups(graph) {
        let indent = if collection.is_some() { "    " } else { "  " };
        if let Some(name) = collection {
            out.push_str(&format!(
                "  subgraph {} {{\n    label={};\n    style=\"rounded\";\n    color=\"#d1d5db\";\n",
                dot_string(&format!("cluster_{name}")),
                dot_string(name)
            ));
        }
        for node in graph
            .graph
            .node_weights()
            .filter(|n| n.collection.as_deref() == collection)
        {
            out.push_str(&format!(
                "{indent}{} [label={}, tooltip={}, URL={}, fillcolor=\"{}\"];\n",
                dot_string(&node.id),
                dot_string(&node.name),
                dot_string(&node.id),
                dot_string(&node.url(site)),
                colours.get(node)
            ));
        }
        if collection.is_some() {
            out.push_str("  }\n");
        }
    }
    for edge in graph.graph.edge_references() {
        out.push_str(&format!(
            "  {} -> {} [label={}];\n",
            dot_string(&graph.graph[edge.source()].id),
            dot_string(&graph.graph[edge.target()].id),
            dot_string(edge.weight().field())
        ));
    }
    out.push_str("}\n");
    out
}

#[derive(Serialize)]
struct JsonGraph<'a> {
    nodes: Vec<JsonNode<'a>>,
    edges: Vec<JsonEdge<'a>>,
}

#[derive(Serialize)]
struct JsonNode<'a> {
    id: &'a str,
    collection: Option<&'a str>,
    name: &'a str,
    url: String,
}

#[derive(Serialize)]
struct JsonEdge<'a> {
    from: &'a str,
    to: &'a str,
    field: &'a str,
}

/// `{nodes: [{id, collection, name, url}], edges: [{from, to, field}]}`.
pub fn json(graph: &CorpusGraph, site: &SiteConfig) -> String {
    let mut text = Vec::new();
    // Writing into memory fails only if serializing does, which these types cannot.
    let _ = write_json(graph, site, &mut text);
    String::from_utf8(text).unwrap_or_default()
}

/// [`json`], written to `out` as it is serialized: for a large corpus the graph is tens of
/// megabytes.
pub fn write_json(graph: &CorpusGraph, site: &SiteConfig, out: &mut dyn Write) -> io::Result<()> {
    let document = JsonGraph {
        nodes: graph
            .graph
            .node_weights()
            .map(|n| JsonNode {
                id: &n.id,
                collection: n.collection.as_deref(),
                name: &n.name,
                url: n.url(site),
            })
            .collect(),
        edges: graph
            .graph
            .edge_references()
            .map(|e| JsonEdge {
                from: &graph.graph[e.source()].id,
                to: &graph.graph[e.target()].id,
                field: e.weight().field(),
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    out.write_all(b"\n")
}

fn mermaid_label(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '"' => "#quot;".to_string(),
            '<' => "#lt;".to_string(),
            '>' => "#gt;".to_string(),
            '\n' => " ".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!("\"{escaped}\"")
}

/// A Mermaid flowchart, which GitHub renders in Markdown: one subgraph per collection.
pub fn mermaid(graph: &CorpusGraph) -> String {
    let mut out = String::from("flowchart LR\n");
    let name = |node: NodeIndex| format!("n{}", node.index());
    for collection in groups(graph) {
        let indent = if collection.is_some() { "    " } else { "  " };
        if let Some(title) = collection {
            out.push_str(&format!(
                "  subgraph {}[{}]\n",
                mermaid_id(title),
                mermaid_label(title)
            ));
        }
        for node in graph
            .graph
            .node_indices()
            .filter(|&n| graph.graph[n].collection.as_deref() == collection)
        {
            out.push_str(&format!(
                "{indent}{}[{}]\n",
                name(node),
                mermaid_label(&graph.graph[node].name)
            ));
        }
        if collection.is_some() {
            out.push_str("  end\n");
        }
    }
    for edge in graph.graph.edge_references() {
        out.push_str(&format!(
            "  {} -->|{}| {}\n",
            name(edge.source()),
            mermaid_label(edge.weight().field()),
            name(edge.target())
        ));
    }
    out
}

fn mermaid_id(collection: &str) -> String {
    let cleaned: String = collection
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("c_{cleaned}")
}

/// Why an SVG could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvgError(pub String);

/// An SVG picture: laid out in-process for up to [`MAX_INPROCESS_SVG_NODES`] nodes (a radial
/// layout around `center`, else columns by collection), through Graphviz `dot` beyond.
pub fn svg(
    graph: &CorpusGraph,
    site: &SiteConfig,
    center: Option<NodeIndex>,
) -> Result<String, SvgError> {
    if graph.graph.node_count() <= MAX_INPROCESS_SVG_NODES {
        return Ok(layout_svg(graph, center, &|node| node.url(site)));
    }
    let spawned = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        return Err(SvgError(format!(
            "the graph has {} nodes, more than the {MAX_INPROCESS_SVG_NODES} laid out in-process, and Graphviz `dot` is not installed; install Graphviz, narrow the graph (--around, --collection, --field), or use --format dot",
            graph.graph.node_count()
        )));
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(dot(graph, site).as_bytes());
    }
    match child.wait_with_output() {
        Ok(output) if output.status.success() => {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        }
        Ok(output) => Err(SvgError(format!(
            "Graphviz `dot` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
        Err(err) => Err(SvgError(format!("Graphviz `dot` failed: {err}"))),
    }
}

const NODE_WIDTH: f64 = 210.0;
const NODE_HEIGHT: f64 = 34.0;

fn short(text: &str) -> String {
    const MAX: usize = 32;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(MAX - 1).collect::<String>())
    }
}

/// Node centres: rings by distance from `center`, or one column per collection.
// `placed` and `distance` have one entry per node, indexed by node index.
#[allow(clippy::indexing_slicing)]
fn positions(graph: &CorpusGraph, center: Option<NodeIndex>) -> Vec<(f64, f64)> {
    let count = graph.graph.node_count();
    let mut placed = vec![(0.0, 0.0); count];
    match center {
        Some(center) => {
            let mut distance: Vec<Option<usize>> = vec![None; count];
            distance[center.index()] = Some(0);
            let mut queue = std::collections::VecDeque::from([center]);
            while let Some(node) = queue.pop_front() {
                let next_distance = distance[node.index()].unwrap_or(0) + 1;
                for neighbour in graph
                    .graph
                    .neighbors_undirected(node)
                    .collect::<BTreeSet<_>>()
                {
                    if distance[neighbour.index()].is_none() {
                        distance[neighbour.index()] = Some(next_distance);
                        queue.push_back(neighbour);
                    }
                }
            }
            let max = distance.iter().flatten().max().copied().unwrap_or(0) + 1;
            for ring in 0..=max {
                let members: Vec<usize> = (0..count)
                    .filter(|&n| distance[n].unwrap_or(max) == ring)
                    .collect();
                let radius = ring as f64 * 230.0;
                for (i, &node) in members.iter().enumerate() {
                    let angle = std::f64::consts::TAU * i as f64 / members.len().max(1) as f64
                        + ring as f64 * 0.4;
                    placed[node] = (radius * angle.cos(), radius * 0.55 * angle.sin());
                }
            }
        }
        None => {
            let collections: Vec<Option<&str>> = groups(graph).into_iter().collect();
            for (column, collection) in collections.iter().enumerate() {
                let members: Vec<NodeIndex> = graph
                    .graph
                    .node_indices()
                    .filter(|&n| graph.graph[n].collection.as_deref() == *collection)
                    .collect();
                for (row, node) in members.iter().enumerate() {
                    placed[node.index()] = (
                        column as f64 * (NODE_WIDTH + 80.0),
                        row as f64 * (NODE_HEIGHT + 20.0),
                    );
                }
            }
        }
    }
    placed
}

/// The in-process layout as SVG, each node linked to `href(node)`: a site links nodes
/// relative to the page that shows the picture. Meant for at most
/// [`MAX_INPROCESS_SVG_NODES`] nodes.
// `placed` has one entry per node, indexed by node index.
#[allow(clippy::indexing_slicing)]
pub fn layout_svg(
    graph: &CorpusGraph,
    center: Option<NodeIndex>,
    href: &dyn Fn(&Node) -> String,
) -> String {
    let placed = positions(graph, center);
    let colours = Colours::of(graph);
    // Boxes are wide and flat: pad each axis by half a box and a little air, not more.
    let (margin_x, margin_y) = (NODE_WIDTH / 2.0 + 20.0, NODE_HEIGHT / 2.0 + 20.0);
    let min_x = placed.iter().map(|p| p.0).fold(0.0_f64, f64::min) - margin_x;
    let min_y = placed.iter().map(|p| p.1).fold(0.0_f64, f64::min) - margin_y;
    let max_x = placed.iter().map(|p| p.0).fold(0.0_f64, f64::max) + margin_x;
    let max_y = placed.iter().map(|p| p.1).fold(0.0_f64, f64::max) + margin_y;
    let (width, height) = (max_x - min_x, max_y - min_y);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{min_x:.0} {min_y:.0} {width:.0} {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#6b7280\"/></marker></defs>\n"
    );
    for edge in graph.graph.edge_references() {
        let (x1, y1) = placed[edge.source().index()];
        let (x2, y2) = placed[edge.target().index()];
        let (x2, y2) = clip(x1, y1, x2, y2);
        let _ = writeln!(
            out,
            "<g class=\"edge\"><title>{} {} {}</title><line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#9ca3af\" marker-end=\"url(#arrow)\"/></g>",
            escaped(&graph.graph[edge.source()].id),
            escaped(edge.weight().field()),
            escaped(&graph.graph[edge.target()].id)
        );
    }
    for node in graph.graph.node_indices() {
        let weight = &graph.graph[node];
        let (x, y) = placed[node.index()];
        let stroke = if Some(node) == center {
            "#111827"
        } else {
            "#9ca3af"
        };
        let _ = writeln!(
            out,
            "<a href=\"{}\"><g class=\"node\"><title>{}: {}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{NODE_WIDTH}\" height=\"{NODE_HEIGHT}\" rx=\"6\" fill=\"{}\" stroke=\"{stroke}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g></a>",
            escaped(&href(weight)),
            escaped(&weight.id),
            escaped(&weight.name),
            x - NODE_WIDTH / 2.0,
            y - NODE_HEIGHT / 2.0,
            colours.get(weight),
            y + 4.0,
            escaped(&short(&weight.name)),
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Moves an edge's end back to the border of the target's box, so the arrow head shows.
fn clip(x1: f64, y1: f64, x2: f64, y2: f64) -> (f64, f64) {
    let (dx, dy) = (x2 - x1, y2 - y1);
    if dx == 0.0 && dy == 0.0 {
        return (x2, y2);
    }
    let scale_x = if dx == 0.0 {
        f64::INFINITY
    } else {
        (NODE_WIDTH / 2.0) / dx.abs()
    };
    let scale_y = if dy == 0.0 {
        f64::INFINITY
    } else {
        (NODE_HEIGHT / 2.0) / dy.abs()
    };
    let t = scale_x.min(scale_y).min(1.0);
    (x2 - dx * t, y2 - dy * t)
}
