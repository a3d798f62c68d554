//! The whole pipeline on a small corpus of arbitrary files: open, load, check, every report
//! format, the graph in every text format and the site in memory. Each stage takes what the
//! one before it gave, so a file that loads but trips a later stage (a field the site renders
//! oddly, a position a report cannot place, a schema the checks misread) is found here, which
//! the per-stage targets cannot reach.
//!
//! The input is split at NUL bytes into up to four parts. The first byte of each picks where
//! the rest goes: a record of one of the bundled collections under one of a few names (so
//! that records cite each other), in one of the three formats, a prose page, the config, or
//! one of the bundled schemas, replaced. Everything else is the bundled corpus's schemas.
#![no_main]

use std::path::Path;

use gotchas::graph::{CorpusGraph, export};
use gotchas::index::IdIndex;
use gotchas::project::Project;
use gotchas::report::{self, Sources, Summary};
use gotchas::site::{Memory, Site};
use libfuzzer_sys::fuzz_target;

const COLLECTIONS: [&str; 3] = ["engines", "gotchas", "sources"];
const SCHEMAS: [&str; 3] = ["engine", "gotcha", "source"];
const NAMES: [&str; 4] = ["vllm", "mooncake", "pd-trap", "engine-vllm-github"];
const EXTENSIONS: [&str; 3] = ["json", "yaml", "md"];

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    for schema in SCHEMAS {
        let name = format!("{schema}.schema.json");
        let Ok(text) = std::fs::read(bundled.join(&name)) else {
            return;
        };
        if write(&root.join("schema").join(name), &text).is_err() {
            return;
        }
    }
    for part in data.split(|&byte| byte == 0).take(4) {
        let Some((&selector, bytes)) = part.split_first() else {
            continue;
        };
        let choice = usize::from(selector);
        let path = match choice % 8 {
            0..=5 => root
                .join("records")
                .join(COLLECTIONS[choice % 3])
                .join(format!(
                    "{}.{}",
                    NAMES[choice / 8 % 4],
                    EXTENSIONS[choice / 32 % 3]
                )),
            6 => root.join("docs").join("notes.md"),
            _ if choice / 8 % 2 == 0 => root.join("gotchas.toml"),
            _ => root
                .join("schema")
                .join(format!("{}.schema.json", SCHEMAS[choice / 16 % 3])),
        };
        if write(&path, bytes).is_err() {
            return;
        }
    }
    run(root);
});

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    std::fs::write(path, bytes)
}

fn run(root: &Path) {
    let Ok(project) = Project::open(root, None) else {
        return;
    };
    let corpus = project.load_for_check();
    let diagnostics = project.apply_levels(project.check(&corpus));
    let sources = Sources::collect(&project.root, Some(&corpus), &diagnostics);
    for diagnostic in &diagnostics {
        let _ = sources.range(&diagnostic.file, &diagnostic.anchor);
        let _ = sources.fix_edits(diagnostic);
    }
    report::human::render(&diagnostics, &sources, true, 3);
    // The JSON documents are written as they are serialized: whatever the diagnostics hold,
    // what comes out is one JSON document.
    let summary = Summary::new(&corpus, &diagnostics);
    let mut json = Vec::new();
    report::json::write(&mut json, &diagnostics, &sources, summary).expect("written to memory");
    serde_json::from_slice::<serde_json::Value>(&json).expect("the JSON report is JSON");
    let mut sarif = Vec::new();
    report::sarif::write(&mut sarif, &diagnostics, &sources, "kb/").expect("written to memory");
    serde_json::from_slice::<serde_json::Value>(&sarif).expect("the SARIF log is JSON");
    report::github::write(&mut std::io::sink(), &diagnostics, &sources, "kb/")
        .expect("written to a sink");

    let linked = project.load_linked();
    let index = IdIndex::new(&linked, &project.schemas);
    let resolved = index.resolve_all();
    let graph = CorpusGraph::build(&linked, &project.schemas, &resolved);
    let sink = &mut std::io::sink();
    export::write_dot(&graph, &project.config.site, sink).expect("written to a sink");
    export::write_mermaid(&graph, sink).expect("written to a sink");
    export::write_json(&graph, &project.config.site, sink).expect("written to a sink");

    let kept = project.load_for_site();
    if let Ok(site) = Site::new(&project, &kept, Some("https://example.org/kb/")) {
        let _ = site.write(&Memory::default(), &|| {});
    }
}
