//! Per-stage benchmarks on generated corpora of 10,000 records in each format.
//!
//! `cargo bench --bench check`. The corpora come from the `synth` example (included here as
//! a module), generated once per format before measuring, with 1% of records carrying a
//! fault so the report stage has diagnostics to render. Whole-process figures against the
//! cost of merely parsing the files are `bench/run.sh`'s job.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use gotchas::Project;
use gotchas::graph::CorpusGraph;
use gotchas::index::IdIndex;
use gotchas::report::{self, Sources};

#[path = "../examples/synth.rs"]
#[allow(dead_code)]
mod synth;

const RECORDS: usize = 10_000;

fn stages(c: &mut Criterion) {
    let mut group = c.benchmark_group("stages");
    group.sample_size(10);
    for format in ["json", "yaml", "md"] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().join("corpus");
        let records = RECORDS.to_string();
        let out = root.to_string_lossy().into_owned();
        let flags = [
            "--records",
            &records,
            "--format",
            format,
            "--seed",
            "42",
            "--out",
            &out,
            "--error-rate",
            "0.01",
        ];
        let args =
            synth::parse_args(flags.iter().map(|f| f.to_string())).expect("valid synth flags");
        synth::run(args).expect("the corpus is generated");
        let project = Project::open(&root, None).expect("the generated corpus opens");

        group.bench_function(format!("load/{format}"), |b| {
            b.iter(|| black_box(project.load()))
        });
        let corpus = project.load();
        group.bench_function(format!("check/{format}"), |b| {
            b.iter(|| black_box(project.check(&corpus)))
        });
        group.bench_function(format!("resolve/{format}"), |b| {
            b.iter(|| black_box(IdIndex::new(&corpus, &project.schemas).resolve_all()))
        });
        let resolved = IdIndex::new(&corpus, &project.schemas).resolve_all();
        group.bench_function(format!("graph/{format}"), |b| {
            b.iter(|| black_box(CorpusGraph::build(&corpus, &project.schemas, &resolved)))
        });
        let diagnostics = project.check(&corpus);
        group.bench_function(format!("render/{format}"), |b| {
            b.iter(|| {
                let sources = Sources::collect(Path::new(&root), Some(&corpus), &diagnostics);
                black_box(report::human::render(&diagnostics, &sources, false, 0))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
