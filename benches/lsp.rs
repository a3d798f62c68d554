//! The language server's edit-to-diagnostics latency on a generated corpus of 100,000
//! Markdown records.
//!
//! `cargo bench --bench lsp`. One iteration is what a keystroke costs the server: a record's
//! new text arrives (its first `affects` id gains or loses a typo, so its diagnostics change
//! every time), the file is re-parsed, the cross-file rules rerun, and the changed files'
//! diagnostics come back located, ready to publish. Before measuring, the records folder is
//! moved away: an edit that read any file from disk would find it gone, so the run also
//! shows that no other file is re-read. `GOTCHAS_BENCH_RECORDS` sets another corpus size.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gotchas::Project;
use gotchas::lsp::Workspace;

#[path = "../examples/synth.rs"]
#[allow(dead_code)]
mod synth;

fn edit_to_diagnostics(c: &mut Criterion) {
    let records = std::env::var("GOTCHAS_BENCH_RECORDS").unwrap_or_else(|_| "100000".into());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path().join("corpus");
    let out = root.to_string_lossy().into_owned();
    let flags = [
        "--records",
        &records,
        "--format",
        "md",
        "--seed",
        "42",
        "--out",
        &out,
    ];
    let args = synth::parse_args(flags.iter().map(|f| f.to_string())).expect("valid synth flags");
    synth::run(args).expect("the corpus is generated");
    let root = root.canonicalize().expect("a canonical root");
    let project = Project::open(&root, None).expect("the generated corpus opens");
    let mut workspace = Workspace::new(project);
    let initial = workspace.refresh();
    let files = workspace.corpus.files.len();

    let folder = root.join("records/gotchas");
    let mut names: Vec<_> = std::fs::read_dir(&folder)
        .expect("the gotchas folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    names.sort();
    let path = names[names.len() / 2].clone();
    let clean = std::fs::read_to_string(&path).expect("a gotcha");
    let at = clean.find("affects:\n  - ").expect("an affects list") + "affects:\n  - ".len();
    let end = at + clean[at..].find('\n').expect("a line end");
    let typo = format!("{}x{}", &clean[..end], &clean[end..]);

    std::fs::rename(root.join("records"), root.join("records-moved")).expect("move the records");
    let mut version = 0;
    let mut edit = |workspace: &mut Workspace| {
        version += 1;
        let text = if version % 2 == 1 { &typo } else { &clean };
        workspace.edit(&path, text.clone(), version);
        let published = workspace.refresh();
        assert!(
            published.iter().any(|p| p.path == path),
            "the edited file is republished"
        );
        published
    };
    let published = edit(&mut workspace);
    assert_eq!(workspace.corpus.files.len(), files, "no file was dropped");
    assert!(
        published
            .iter()
            .flat_map(|p| &p.diagnostics)
            .all(|d| d.code != "io-error"),
        "no file was read"
    );
    eprintln!(
        "lsp bench: {records} records, {} files with diagnostics at start",
        initial.len()
    );

    let mut group = c.benchmark_group("lsp");
    group.sample_size(10);
    group.bench_function(format!("edit-to-diagnostics/{records}"), |b| {
        b.iter(|| black_box(edit(&mut workspace)))
    });
    group.finish();
    std::fs::rename(root.join("records-moved"), root.join("records")).expect("move back");
}

criterion_group!(benches, edit_to_diagnostics);
criterion_main!(benches);
