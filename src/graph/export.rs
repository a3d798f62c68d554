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
use crate::write::{STREAM_BUFFER, json_document};

/// Most nodes laid out in-process for SVG; larger graphs go through Graphviz.
pub const MAX_INPROCESS_SVG_NODES: usize = 60;

/// Most nodes handed to Graphviz `dot` for SVG. Its layout grows much faster than the graph,
/// and with how far edges reach more than with the nodes: on the development machine (2
/// cores, shared) the `inference-research` sample, 324 records and 955 references, takes
/// 0.3 s, where records of two references each to random others take 0.2 s for 100, 5 s for
/// 300, 14 s for 400, 94 s for 500, and more than 400 s for 1,000. Past this a picture is
/// refused at once, with ways to a smaller one, rather than left to run for an unknown time.
pub const MAX_GRAPHVIZ_NODES: usize = 400;

const PALETTE: &[&str] = &[
    "#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#e0f2fe", "#fee2e2", "#ecfccb",
    "#f3e8ff", "#ffedd5",
];
const PAGE_COLOUR: &str = "#f3f4f6";

/// The fill colour of each collection (by name order among the corpus's collections, so
/// the same in a picture of any part of its graph), and of pages.
struct Colours<'g>(&'g [String]);

impl<'g> Colours<'g> {
    fn of(graph: &'g CorpusGraph) -> Self {
        Colours(&graph.collections)
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

/// `text` as a DOT string: quotes and backslashes escaped, a line break as DOT's `\n`, any
/// other control character as a space, and U+FFFE and U+FFFF as U+FFFD, as
/// [`crate::markup::escape`] writes them: Graphviz refuses a NUL, and copies the other C0
/// controls and the two noncharacters into the SVG as they are, where XML 1.0 allows none
/// of them and readers refuse the picture.
fn dot_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            '\n' => quoted.push_str("\\n"),
            c if c.is_control() => quoted.push(' '),
            '\u{FFFE}' | '\u{FFFF}' => quoted.push('\u{FFFD}'),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Writes Graphviz DOT to `out`, a line at a time: one cluster per collection (pages
/// outside any cluster), nodes labelled with names and linked to their site pages.
pub fn write_dot(graph: &CorpusGraph, site: &SiteConfig, out: &mut dyn Write) -> io::Result<()> {
    dot_with(graph, site, true, out)
}

/// [`write_dot`], with each collection's nodes in a cluster of their own or, without
/// `clusters`, all in one graph.
fn dot_with(
    graph: &CorpusGraph,
    site: &SiteConfig,
    clusters: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let colours = Colours::of(graph);
    // Two settings keep `dot` to seconds on a few hundred densely linked records, where it
    // ran for more than ten minutes on 300 records of two random references each: an edge's
    // `label` is a node of its own in the layout, doubling the ranks each edge crosses and
    // the boxes its spline is routed through (98 s of routing alone), where an `xlabel` is
    // placed once the layout is done; and `nslimit` bounds the network simplex that places
    // nodes across ranks, to a tenth of an iteration a node.
    out.write_all(
        b"digraph gotchas {\n  graph [rankdir=LR, nslimit=0.1, fontname=\"Helvetica\", fontsize=11];\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9, color=\"#6b7280\"];\n",
    )?;
    for collection in groups(graph) {
        let cluster = collection.filter(|_| clusters);
        let indent = if cluster.is_some() { "    " } else { "  " };
        if let Some(name) = cluster {
            write!(
                out,
                "  subgraph {} {{\n    label={};\n    style=\"rounded\";\n    color=\"#d1d5db\";\n",
                dot_string(&format!("cluster_{name}")),
                dot_string(name)
            )?;
        }
        for node in graph
            .graph
            .node_weights()
            .filter(|n| n.collection.as_deref() == collection)
        {
            writeln!(
                out,
                "{indent}{} [label={}, tooltip={}, URL={}, fillcolor=\"{}\"];",
                dot_string(&node.id),
                dot_string(&node.name),
                dot_string(&node.id),
                dot_string(&node.url(site)),
                colours.get(node)
            )?;
        }
        if cluster.is_some() {
            writeln!(out, "  }}")?;
        }
    }
    for edge in graph.graph.edge_references() {
        writeln!(
            out,
            "  {} -> {} [xlabel={}];",
            dot_string(&graph.graph[edge.source()].id),
            dot_string(&graph.graph[edge.target()].id),
            dot_string(edge.weight().field())
        )?;
    }
    writeln!(out, "}}")
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

/// Writes `{nodes: [{id, collection, name, url}], edges: [{from, to, field}]}` to `out` as it
/// is serialized: for a large corpus the graph is tens of megabytes.
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
    json_document(out, &document)
}

/// Most edges Mermaid draws in a flowchart: its `maxEdges`, which a diagram's own
/// directives cannot raise (it is one of Mermaid's secure settings), and GitHub keeps.
pub const MAX_MERMAID_EDGES: usize = 500;

/// Longest diagram Mermaid draws, in UTF-16 code units as JavaScript counts a string: its
/// `maxTextSize`, past which it draws an error message in place of the diagram.
pub const MAX_MERMAID_TEXT: usize = 50_000;

/// `text` as a quoted Mermaid label, or `fallback` when `text` is empty (and a space when
/// that is empty too): Mermaid refuses the whole diagram at an empty `""`.
fn mermaid_label(text: &str, fallback: &str) -> String {
    let text = [text, fallback].into_iter().find(|t| !t.is_empty());
    let escaped: String = text
        .unwrap_or(" ")
        .chars()
        .map(|c| match c {
            '"' => "#quot;".to_string(),
            '<' => "#lt;".to_string(),
            '>' => "#gt;".to_string(),
            // Mermaid reads `#...;` as a character code, so a `#` of the text is one too.
            '#' => "#35;".to_string(),
            // Mermaid writes labels as HTML: `&amp;` in a name would show as `&`.
            '&' => "#amp;".to_string(),
            // Mermaid takes `%%{...}%%` anywhere in the text as a directive that configures
            // the diagram, and drops it from the label.
            '%' => "#37;".to_string(),
            // A label in backquotes is Markdown to Mermaid: `**x**` would show in bold.
            '`' => "#96;".to_string(),
            c if c.is_control() => " ".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!("\"{escaped}\"")
}

/// Writes a Mermaid flowchart, which GitHub renders in Markdown, to `out`, a line at a
/// time: one subgraph per collection. It may be more than Mermaid draws; [`mermaid`] checks.
pub fn write_mermaid(graph: &CorpusGraph, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "flowchart LR")?;
    let name = |node: NodeIndex| format!("n{}", node.index());
    // Subgraphs are numbered: ids made from the folders' names (`q-a`, `q_a`) could meet,
    // and Mermaid merges subgraphs of one id.
    for (number, collection) in groups(graph).into_iter().enumerate() {
        let indent = if collection.is_some() { "    " } else { "  " };
        if let Some(title) = collection {
            writeln!(out, "  subgraph c{number}[{}]", mermaid_label(title, ""))?;
        }
        for node in graph
            .graph
            .node_indices()
            .filter(|&n| graph.graph[n].collection.as_deref() == collection)
        {
            let weight = &graph.graph[node];
            writeln!(
                out,
                "{indent}{}[{}]",
                name(node),
                mermaid_label(&weight.name, &weight.id)
            )?;
        }
        if collection.is_some() {
            writeln!(out, "  end")?;
        }
    }
    for edge in graph.graph.edge_references() {
        writeln!(
            out,
            "  {} -->|{}| {}",
            name(edge.source()),
            mermaid_label(edge.weight().field(), ""),
            name(edge.target())
        )?;
    }
    Ok(())
}

/// Ways to a smaller graph, for a message that refuses a large one.
const NARROW: &str = "narrow the graph (--around with --depth, --collection, --field)";

/// A Mermaid flowchart of the graph, or why Mermaid would not draw it: more than
/// [`MAX_MERMAID_EDGES`] edges, or more than [`MAX_MERMAID_TEXT`] of text.
pub fn mermaid(graph: &CorpusGraph) -> Result<String, ExportError> {
    let edges = graph.graph.edge_count();
    if edges > MAX_MERMAID_EDGES {
        return Err(ExportError(format!(
            "the graph has {edges} edges, and Mermaid (GitHub's included) draws no flowchart of more than {MAX_MERMAID_EDGES}; {NARROW}, or use --format dot, json or svg"
        )));
    }
    let mut text = Vec::new();
    write_mermaid(graph, &mut text).map_err(|err| ExportError(err.to_string()))?;
    let text = String::from_utf8_lossy(&text).into_owned();
    let length = text.encode_utf16().count();
    if length > MAX_MERMAID_TEXT {
        return Err(ExportError(format!(
            "the flowchart is {length} characters long, and Mermaid (GitHub's included) draws none longer than {MAX_MERMAID_TEXT}; {NARROW}, or use --format dot, json or svg"
        )));
    }
    Ok(text)
}

/// Why an SVG or a Mermaid flowchart could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError(pub String);

/// An SVG picture: laid out in-process for up to [`MAX_INPROCESS_SVG_NODES`] nodes (a radial
/// layout around `center`, else columns by collection), through Graphviz `dot` beyond, up to
/// [`MAX_GRAPHVIZ_NODES`].
pub fn svg(
    graph: &CorpusGraph,
    site: &SiteConfig,
    center: Option<NodeIndex>,
    limit: std::time::Duration,
) -> Result<String, ExportError> {
    let nodes = graph.graph.node_count();
    if nodes <= MAX_INPROCESS_SVG_NODES {
        return Ok(layout_svg(graph, center, &|node| node.url(site)));
    }
    if nodes > MAX_GRAPHVIZ_NODES {
        return Err(ExportError(format!(
            "the graph has {nodes} nodes, and Graphviz `dot` takes minutes to hours to lay out more than {MAX_GRAPHVIZ_NODES}; narrow the graph (--around, --collection, --field), or write it with --format dot and lay it out with Graphviz's `sfdp`, which is made for large graphs"
        )));
    }
    // Graphviz (2.43, Debian 12's) fails on some clustered graphs ("trouble in init_rank",
    // the `inference-research` sample among them while edges had `label`s, not `xlabel`s);
    // the same graph without clusters lays out.
    // When `dot` cannot be run at all, there is nothing to try again.
    let laid_out = |clusters| graphviz(&|stdin| dot_with(graph, site, clusters, stdin), limit);
    let failed = match laid_out(true) {
        Ok(svg) => return Ok(svg),
        Err(Graphviz::Failed(failed)) => failed,
        Err(Graphviz::NotRun) => {
            return Err(ExportError(format!(
                "the graph has {nodes} nodes, more than the {MAX_INPROCESS_SVG_NODES} laid out in-process, and Graphviz `dot` is not installed; install Graphviz, narrow the graph (--around, --collection, --field), or use --format dot"
            )));
        }
        Err(Graphviz::TimedOut) => return Err(timed_out(nodes, limit)),
    };
    match laid_out(false) {
        Ok(svg) => Ok(svg),
        Err(Graphviz::TimedOut) => Err(timed_out(nodes, limit)),
        Err(_) => Err(ExportError(format!("Graphviz `dot` failed: {failed}"))),
    }
}

fn timed_out(nodes: usize, limit: std::time::Duration) -> ExportError {
    ExportError(format!(
        "Graphviz `dot` was stopped after {} s laying out {nodes} nodes; {NARROW}, give it longer (--dot-timeout), or write the graph with --format dot and lay it out with Graphviz's `sfdp`",
        limit.as_secs()
    ))
}

/// Why `dot` made no SVG.
enum Graphviz {
    /// It could not be run (not installed).
    NotRun,
    /// It ran past the time it was given, and was stopped.
    TimedOut,
    /// It failed, saying this.
    Failed(String),
}

/// Lines of Graphviz's own error output kept in a message: it can list every node.
const GRAPHVIZ_ERROR_LINES: usize = 4;

/// What `input` writes, laid out by Graphviz `dot` as SVG within `limit`; when it fails, its
/// own output, cut to [`GRAPHVIZ_ERROR_LINES`].
fn graphviz(
    input: &dyn Fn(&mut dyn Write) -> io::Result<()>,
    limit: std::time::Duration,
) -> Result<String, Graphviz> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| Graphviz::NotRun)?;
    let deadline = std::time::Instant::now() + limit;
    if let Some(stdin) = child.stdin.take() {
        let mut stdin = io::BufWriter::with_capacity(STREAM_BUFFER, stdin);
        // A `dot` that stops reading has failed, and what it says on its way out is the
        // error worth showing, not the closed pipe.
        let _ = input(&mut stdin).and_then(|()| stdin.flush());
    }
    // Read as it comes, so that a full pipe never stops `dot` while its time is watched.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Graphviz::TimedOut);
            }
            Err(err) => return Err(Graphviz::Failed(err.to_string())),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if status.success() {
        return Ok(String::from_utf8_lossy(&stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&stderr);
    let lines: Vec<&str> = stderr.trim().lines().collect();
    let mut message = lines
        .iter()
        .take(GRAPHVIZ_ERROR_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > GRAPHVIZ_ERROR_LINES {
        message.push_str(&format!(
            "\n({} more lines)",
            lines.len() - GRAPHVIZ_ERROR_LINES
        ));
    }
    Err(Graphviz::Failed(message))
}

/// Reads all of `pipe` on a thread of its own.
fn drain(pipe: Option<impl io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

const NODE_WIDTH: f64 = 210.0;
const NODE_HEIGHT: f64 = 34.0;

/// A node's label: its name, or the name's first characters and an ellipsis when it is
/// longer than a box holds.
fn short(text: &str) -> (&str, &'static str) {
    const MAX: usize = 32;
    // Where the label's last character would start, and whether one follows it.
    let mut from_last = text.char_indices().skip(MAX - 1).map(|(at, _)| at);
    match (from_last.next(), from_last.next()) {
        (Some(end), Some(_)) => (text.get(..end).unwrap_or(text), "…"),
        _ => (text, ""),
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
    let mut out = String::with_capacity(SVG_BYTES_PER_ITEM * (placed.len() + 1));
    out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"");
    for (value, after) in [
        (min_x, " "),
        (min_y, " "),
        (width, " "),
        (height, "\" width=\""),
        (width, "\" height=\""),
        (
            height,
            "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
        ),
    ] {
        push_fixed(&mut out, value, 0);
        out.push_str(after);
    }
    out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#6b7280\"/></marker></defs>\n");
    // What every edge, and every node's label, draws alike is said once, on a group whose
    // elements inherit it: a site draws a picture on each record's page, and spelt out on
    // each element it was a tenth of the picture.
    out.push_str("<g stroke=\"#9ca3af\" marker-end=\"url(#arrow)\">\n");
    for edge in graph.graph.edge_references() {
        let (x1, y1) = placed[edge.source().index()];
        let (x2, y2) = placed[edge.target().index()];
        let (x2, y2) = clip(x1, y1, x2, y2);
        out.push_str("<g class=\"edge\"><title>");
        out.push_str(&escaped(&graph.graph[edge.source()].id));
        out.push(' ');
        out.push_str(&escaped(edge.weight().field()));
        out.push(' ');
        out.push_str(&escaped(&graph.graph[edge.target()].id));
        out.push_str("</title><line x1=\"");
        push_fixed(&mut out, x1, 1);
        out.push_str("\" y1=\"");
        push_fixed(&mut out, y1, 1);
        out.push_str("\" x2=\"");
        push_fixed(&mut out, x2, 1);
        out.push_str("\" y2=\"");
        push_fixed(&mut out, y2, 1);
        out.push_str("\"/></g>\n");
    }
    out.push_str("</g>\n<g text-anchor=\"middle\">\n");
    for node in graph.graph.node_indices() {
        let weight = &graph.graph[node];
        let (x, y) = placed[node.index()];
        let stroke = if Some(node) == center {
            "#111827"
        } else {
            "#9ca3af"
        };
        out.push_str("<a href=\"");
        out.push_str(&escaped(&href(weight)));
        out.push_str("\"><g class=\"node\"><title>");
        out.push_str(&escaped(&weight.id));
        out.push_str(": ");
        out.push_str(&escaped(&weight.name));
        out.push_str("</title><rect x=\"");
        push_fixed(&mut out, x - NODE_WIDTH / 2.0, 1);
        out.push_str("\" y=\"");
        push_fixed(&mut out, y - NODE_HEIGHT / 2.0, 1);
        out.push_str("\" width=\"");
        push_fixed(&mut out, NODE_WIDTH, 0);
        out.push_str("\" height=\"");
        push_fixed(&mut out, NODE_HEIGHT, 0);
        out.push_str("\" rx=\"6\" fill=\"");
        out.push_str(colours.get(weight));
        out.push_str("\" stroke=\"");
        out.push_str(stroke);
        out.push_str("\"/><text x=\"");
        push_fixed(&mut out, x, 1);
        out.push_str("\" y=\"");
        push_fixed(&mut out, y + 4.0, 1);
        out.push_str("\">");
        let (label, ellipsis) = short(&weight.name);
        out.push_str(&escaped(label));
        out.push_str(ellipsis);
        out.push_str("</text></g></a>\n");
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// About how many bytes of SVG a node and its edges take: the picture's buffer is sized
/// once rather than grown through a dozen copies.
const SVG_BYTES_PER_ITEM: usize = 700;

/// Appends `value` with `decimals` (0 or 1) digits after the point, the same text as
/// `format!("{value:.1}")` (or `.0`): rounded from the value's exact binary expansion, a
/// tie to the even digit, and the sign kept on a negative value that rounds to zero. Every
/// page's picture writes a few dozen coordinates, and the standard library's exact
/// formatting took a twentieth of a site build; this does the same rounding in integers.
fn push_fixed(out: &mut String, value: f64, decimals: usize) {
    /// Above this the value is an integer already, and the integer arithmetic below would
    /// overflow; such coordinates never occur, and go to the standard library.
    const LIMIT: f64 = 4_503_599_627_370_496.0; // 2^52
    let scale: Option<u128> = match decimals {
        0 => Some(1),
        1 => Some(10),
        _ => None,
    };
    let Some(scale) = scale.filter(|_| value.is_finite() && value.abs() < LIMIT) else {
        let _ = write!(out, "{value:.decimals$}");
        return;
    };
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as u32;
    let fraction = bits & ((1 << 52) - 1);
    // |value| = mantissa / 2^shift exactly, with `shift` >= 1 below the limit.
    let (mantissa, shift) = match biased {
        0 => (fraction, 1074),
        _ => (fraction | 1 << 52, 1075 - biased),
    };
    let scaled = u128::from(mantissa) * scale;
    let units = if shift >= 128 {
        // Below 2^-75: rounds to zero at any precision kept here.
        0
    } else {
        let kept = scaled >> shift;
        let rest = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if value.is_sign_negative() {
        out.push('-');
    }
    // Below the limit the units fit a `u64`, and its digits are written by hand: the
    // formatting machinery costs more than the rounding.
    let units = units as u64;
    push_digits(out, units / scale as u64);
    if decimals == 1 {
        out.push('.');
        push_digits(out, units % 10);
    }
}

/// Appends the decimal digits of `number`.
fn push_digits(out: &mut String, number: u64) {
    let mut digits = [b'0'; 20];
    let mut start = digits.len();
    let mut rest = number;
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (rest % 10) as u8;
        start -= 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    // Pushed as characters: validating the digits as UTF-8 cost more than pushing them.
    out.extend(
        digits
            .get(start..)
            .unwrap_or_default()
            .iter()
            .map(|&digit| char::from(digit)),
    );
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fixed(value: f64, decimals: usize) -> String {
        let mut out = String::new();
        push_fixed(&mut out, value, decimals);
        out
    }

    #[test]
    fn fixed_rounds_ties_to_even_and_keeps_the_sign() {
        let cases = [
            (0.25, "0.2", "0"),
            (0.35, "0.3", "0"),
            (2.5, "2.5", "2"),
            (1.5, "1.5", "2"),
            (12.25, "12.2", "12"),
            (-12.25, "-12.2", "-12"),
            (99.95, "100.0", "100"),
            (-0.01, "-0.0", "-0"),
            (-0.0, "-0.0", "-0"),
            (1e-300, "0.0", "0"),
            (f64::NAN, "NaN", "NaN"),
            (f64::NEG_INFINITY, "-inf", "-inf"),
            (1e300, &format!("{:.1}", 1e300), &format!("{:.0}", 1e300)),
        ];
        for (value, one, zero) in cases {
            assert_eq!(fixed(value, 1), one, "{value} to one place");
            assert_eq!(fixed(value, 0), zero, "{value} to no place");
        }
    }

    #[test]
    fn labels_of_more_than_32_characters_are_cut_to_31_and_an_ellipsis() {
        let fits = "é".repeat(32);
        assert_eq!(short(&fits), (fits.as_str(), ""));
        let long = format!("{fits}x");
        assert_eq!(short(&long), ("é".repeat(31).as_str(), "…"));
        assert_eq!(short(""), ("", ""));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn fixed_writes_what_the_standard_library_writes(
            value in prop_oneof![
                -1e6f64..1e6,
                (-40_000i64..40_000).prop_map(|quarter| quarter as f64 / 4.0),
                any::<f64>(),
            ],
            decimals in 0usize..=2,
        ) {
            prop_assert_eq!(fixed(value, decimals), format!("{value:.decimals$}"));
        }
    }
}
