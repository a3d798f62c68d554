//! `gotchas graph`, `gotchas refs` and `gotchas stats`: the corpus as a web.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use clap::ValueEnum;
use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use serde::Serialize;

use super::Cli;
use crate::corpus::Corpus;
use crate::graph::{CorpusGraph, LINK_FIELD, Linked, NodeKind, export, field_of};
use crate::index::{IdIndex, Problem, Resolved};
use crate::project::Project;
use crate::schema::Schemas;
use crate::serialize::to_json;
use crate::stats::Stats;
use crate::suggest;

#[derive(Debug, clap::Args)]
pub(crate) struct GraphArgs {
    /// The export format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    format: GraphFormat,
    /// Only the neighbourhood of this record (`engines/vllm` or `vllm`), both directions.
    #[arg(long, value_name = "ID")]
    around: Option<String>,
    /// How many steps from `--around` to include.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "around")]
    depth: usize,
    /// Only records of this collection folder (repeatable).
    #[arg(long, value_name = "NAME")]
    collection: Vec<String>,
    /// Only edges of this field (repeatable; `link` for prose links).
    #[arg(long, value_name = "NAME")]
    field: Vec<String>,
    /// How long Graphviz `dot` may take to lay out an SVG of more than 60 nodes before it
    /// is stopped: its time grows fast with the edges between distant records.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        env = "GOTCHAS_DOT_TIMEOUT"
    )]
    dot_timeout: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    /// Graphviz DOT.
    Dot,
    /// `{nodes, edges}` JSON.
    Json,
    /// A Mermaid flowchart, for GitHub's Markdown: refused past what Mermaid draws (500
    /// edges, 50,000 characters).
    Mermaid,
    /// An SVG picture.
    Svg,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RefsArgs {
    /// The record (`engines/vllm`, or `vllm` when unambiguous) or page.
    id: String,
    /// The output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Human)]
    format: TextOrJson,
}

#[derive(Debug, clap::Args)]
pub(crate) struct StatsArgs {
    /// The output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Human)]
    format: TextOrJson,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TextOrJson {
    /// Text for people.
    Human,
    /// JSON for scripts.
    Json,
}

/// The loaded corpus and its web.
struct Web {
    project: Project,
    corpus: Corpus<Linked>,
}

impl Web {
    fn load(cli: &Cli) -> Result<Web, ExitCode> {
        Ok(Web::of(cli.open_project()?))
    }

    /// Loads the corpus of an opened project.
    fn of(project: Project) -> Web {
        let corpus = project.load_linked();
        super::note_load_problems(corpus.diagnostics.len());
        Web { project, corpus }
    }

    fn resolve(&self) -> (Resolved, CorpusGraph) {
        let index = IdIndex::new(&self.corpus, &self.project.schemas);
        let resolved = index.resolve_all();
        let graph = CorpusGraph::build(&self.corpus, &self.project.schemas, &resolved);
        (resolved, graph)
    }
}

/// Finds a node or explains, with did-you-mean, why not.
fn find(graph: &CorpusGraph, id: &str) -> Result<NodeIndex, ExitCode> {
    match graph.lookup(id) {
        Ok(node) => Ok(node),
        Err(candidates) if !candidates.is_empty() => Err(super::ambiguous(
            id,
            candidates.iter().map(|&n| graph.graph[n].id.as_str()),
        )),
        Err(_) => {
            // Compare bare ids with bare ids, then name the qualified one.
            let bare_of = |qualified: &'_ str| {
                qualified
                    .rsplit('/')
                    .next()
                    .unwrap_or(qualified)
                    .to_string()
            };
            let ids: Vec<&str> = graph.ids().collect();
            let bare: Vec<String> = ids.iter().map(|q| bare_of(q)).collect();
            let suggestions = suggest::suggest(&bare_of(id), bare.iter().map(String::as_str), 3);
            let qualified: Vec<suggest::Suggestion<'_>> = suggestions
                .iter()
                .filter_map(|s| {
                    let position = bare.iter().position(|b| b == s.name)?;
                    Some(suggest::Suggestion {
                        name: ids.get(position)?,
                        ..s.clone()
                    })
                })
                .collect();
            let help = suggest::did_you_mean(&qualified)
                .map(|h| format!("\nhelp: {h}"))
                .unwrap_or_default();
            say!("error: no record or page has the id `{id}`{help}");
            Err(ExitCode::from(2))
        }
    }
}

/// Refuses a `--collection` or `--field` that names no collection folder or reference
/// field of the schemas: the graph would keep no record, or every record and no edge, and
/// say nothing of the typo.
fn known_filters(schemas: &Schemas, args: &GraphArgs) -> Result<(), String> {
    let folders: Vec<&str> = schemas
        .collections
        .iter()
        .map(|c| c.folder.as_str())
        .collect();
    let mut fields: Vec<&str> = schemas
        .collections
        .iter()
        .flat_map(|c| c.references.iter().map(|r| r.field()))
        .chain([LINK_FIELD])
        .collect();
    fields.sort_unstable();
    fields.dedup();
    let asked = (args
        .collection
        .iter()
        .map(|name| ("--collection", "collection folder", name, &folders)))
    .chain(
        args.field
            .iter()
            .map(|name| ("--field", "reference field", name, &fields)),
    );
    for (flag, what, name, known) in asked {
        if known.contains(&name.as_str()) {
            continue;
        }
        let help = suggest::did_you_mean(&suggest::suggest(name, known.iter().copied(), 3))
            .map(|h| format!("\nhelp: {h}"))
            .unwrap_or_else(|| format!("\nnote: {what}s: {}", known.join(", ")));
        return Err(format!("{flag} `{name}` names no {what}{help}"));
    }
    Ok(())
}

pub(crate) fn graph(cli: &Cli, args: &GraphArgs, out: &mut impl Write) -> ExitCode {
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    // Refused before the corpus is loaded: the filters name what the schemas declare.
    if let Err(message) = known_filters(&project.schemas, args) {
        say!("error: {message}");
        return ExitCode::from(2);
    }
    let web = Web::of(project);
    let (_, full) = web.resolve();
    let around = match &args.around {
        None => None,
        Some(id) => match find(&full, id) {
            Ok(node) => Some((node, args.depth)),
            Err(code) => return code,
        },
    };
    let filtered = full.filter(around, &args.collection, &args.field);
    let graph = &*filtered;
    let site = &web.project.config.site;
    // Streamed: at 100,000 records the JSON document is 64 MB and the DOT 54 MB.
    match args.format {
        GraphFormat::Dot => super::stream(out, |out| export::write_dot(graph, site, out)),
        GraphFormat::Json => super::stream(out, |out| export::write_json(graph, site, out)),
        GraphFormat::Mermaid => picture(out, export::mermaid(graph)),
        GraphFormat::Svg => {
            let center = around.and_then(|(node, _)| graph.find(&full.graph[node].id));
            let limit = std::time::Duration::from_secs(args.dot_timeout);
            picture(out, export::svg(graph, site, center, limit))
        }
    }
}

/// Writes a picture, or refuses (exit code 2) with why it could not be made: it is made
/// whole before anything is written, so a refusal leaves standard output empty.
fn picture(out: &mut impl Write, made: Result<String, export::ExportError>) -> ExitCode {
    match made {
        Ok(text) => super::emit(out, text.as_bytes()),
        Err(err) => {
            say!("error: {}", err.0);
            ExitCode::from(2)
        }
    }
}

#[derive(Serialize)]
struct RefsReport<'a> {
    id: &'a str,
    name: &'a str,
    collection: Option<&'a str>,
    /// Field -> ids it points at.
    references: BTreeMap<&'a str, Vec<&'a str>>,
    /// Citing collection (`pages` for prose) -> field -> citing ids.
    referenced_by: BTreeMap<&'a str, BTreeMap<&'a str, Vec<&'a str>>>,
    /// Field -> references written in it that name no record (`check` reports each).
    unresolved: BTreeMap<&'a str, Vec<Dangling<'a>>>,
}

/// A reference that does not resolve, as written.
#[derive(Serialize)]
struct Dangling<'a> {
    id: &'a str,
    /// What is wrong with it, as `check` says.
    problem: &'static str,
}

pub(crate) fn refs(cli: &Cli, args: &RefsArgs, out: &mut impl Write) -> ExitCode {
    let web = match Web::load(cli) {
        Ok(web) => web,
        Err(code) => return code,
    };
    let (resolved, graph) = web.resolve();
    let node = match find(&graph, &args.id) {
        Ok(node) => node,
        Err(code) => return code,
    };
    let weight = &graph.graph[node];
    let mut report = RefsReport {
        id: &weight.id,
        name: &weight.name,
        collection: weight.collection.as_deref(),
        references: BTreeMap::new(),
        referenced_by: BTreeMap::new(),
        unresolved: BTreeMap::new(),
    };
    let file = match weight.kind {
        NodeKind::Record(record) => web.corpus.records.get(record).map(|r| r.file),
        NodeKind::Page(doc) => web.corpus.docs.get(doc).map(|d| d.file),
    };
    for reference in resolved
        .unresolved
        .iter()
        .filter(|reference| Some(reference.source.file(&web.corpus)) == file)
    {
        let problem = match reference.problem {
            Problem::Unresolved => "names no record",
            Problem::WrongTarget(_) => "names a record of a collection the field does not allow",
            Problem::Ambiguous(_) => "names records in several collections",
            Problem::AmbiguousPage(_) => "names several prose pages",
        };
        report
            .unresolved
            .entry(field_of(&reference.source))
            .or_default()
            .push(Dangling {
                id: &reference.text,
                problem,
            });
    }
    for edge in graph.graph.edges_directed(node, Direction::Outgoing) {
        report
            .references
            .entry(edge.weight().field())
            .or_default()
            .push(&graph.graph[edge.target()].id);
    }
    for edge in graph.graph.edges_directed(node, Direction::Incoming) {
        let from = &graph.graph[edge.source()];
        report
            .referenced_by
            .entry(from.collection.as_deref().unwrap_or("pages"))
            .or_default()
            .entry(edge.weight().field())
            .or_default()
            .push(&from.id);
    }
    for ids in report.references.values_mut() {
        ids.sort_unstable();
    }
    for fields in report.referenced_by.values_mut() {
        for ids in fields.values_mut() {
            ids.sort_unstable();
        }
    }
    let text = match args.format {
        TextOrJson::Json => to_json(&report),
        TextOrJson::Human => render_refs(&report),
    };
    super::emit(out, text.as_bytes())
}

fn render_refs(report: &RefsReport<'_>) -> String {
    let mut out = format!("{}: {}\n\nreferences\n", report.id, report.name);
    if report.references.is_empty() && report.unresolved.is_empty() {
        out.push_str("  (none)\n");
    }
    let fields: std::collections::BTreeSet<&str> = report
        .references
        .keys()
        .chain(report.unresolved.keys())
        .copied()
        .collect();
    for field in fields {
        out.push_str(&format!("  {field}\n"));
        for id in report.references.get(field).into_iter().flatten() {
            out.push_str(&format!("    {id}\n"));
        }
        for dangling in report.unresolved.get(field).into_iter().flatten() {
            out.push_str(&format!("    {} ({})\n", dangling.id, dangling.problem));
        }
    }
    out.push_str("\nreferenced by\n");
    if report.referenced_by.is_empty() {
        out.push_str("  (none)\n");
    }
    for (collection, fields) in &report.referenced_by {
        for (field, ids) in fields {
            out.push_str(&format!("  {collection} ({field})\n"));
            for id in ids {
                out.push_str(&format!("    {id}\n"));
            }
        }
    }
    out
}

pub(crate) fn stats(cli: &Cli, args: &StatsArgs, out: &mut impl Write) -> ExitCode {
    let web = match Web::load(cli) {
        Ok(web) => web,
        Err(code) => return code,
    };
    let (resolved, graph) = web.resolve();
    let stats = Stats::compute(&web.corpus, &web.project.schemas, &resolved, &graph);
    let text = match args.format {
        TextOrJson::Json => to_json(&stats),
        TextOrJson::Human => stats.render(),
    };
    super::emit(out, text.as_bytes())
}
