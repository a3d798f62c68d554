//! The language server's edit-to-diagnostics latency on a generated corpus of 100,000
//! Markdown records.
//!
//! `cargo bench --bench lsp`. One iteration is what a keystroke costs the server: a record's
//! new text arrives, the file is re-parsed, what crosses files is redone as far as the edit
//! reaches, and the changed files' diagnostics come back located, ready to publish. Four
//! edits are measured: a typo toggled in the record's first `affects` id (its reference
//! breaks and mends, so its edges change and the graph rules rerun), a word toggled in its
//! prose, and then, in the corpus with every record naming places in pages
//! (`broken-anchor`'s fragments), the same word and one in a record whose fragment is
//! written with a link.
//! Before measuring, the records folder is moved away: an edit that read any file from disk
//! would find it gone, so the run also shows that no other file is re-read.
//! `GOTCHAS_BENCH_RECORDS` sets another corpus size.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use gotchas::Project;
use gotchas::lsp::Workspace;

/// The binary's allocator (see `src/main.rs`), so that a stage costs here what it costs in
/// `gotchas`: the system allocator is slower at the small allocations of loading.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../examples/synth.rs"]
#[allow(dead_code)]
mod synth;

/// Gives `path` the text `edited` or `clean` in turn and returns the files republished.
fn toggle(workspace: &mut Workspace, path: &Path, version: &mut i32, clean: &str, edited: &str) {
    *version += 1;
    let text = if *version % 2 == 1 { edited } else { clean };
    workspace.edit(path, text.to_string(), *version);
    let published = workspace.refresh();
    assert!(
        published
            .iter()
            .flat_map(|p| &p.diagnostics)
            .all(|d| d.code != "io-error"),
        "no file was read"
    );
    black_box(published);
}

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
    workspace.refresh();
    let files = workspace.corpus.files.len();

    let mut names: Vec<_> = std::fs::read_dir(root.join("records/gotchas"))
        .expect("the gotchas folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    names.sort();
    let path = names[names.len() / 2].clone();
    let clean = std::fs::read_to_string(&path).expect("a gotcha");
    let at = clean.find("affects:\n  - ").expect("an affects list") + "affects:\n  - ".len();
    let end = at + clean[at..].find('\n').expect("a line end");
    let typo = format!("{}x{}", &clean[..end], &clean[end..]);
    let body = clean.rfind("\n\n").expect("a paragraph") + 2;
    let prose = format!("{}Also {}", &clean[..body], &clean[body..]);

    std::fs::rename(root.join("records"), root.join("records-moved")).expect("move the records");
    let mut version = 0;
    let mut group = c.benchmark_group("lsp");
    group.sample_size(10);
    group.bench_function(format!("edit-to-diagnostics/reference/{records}"), |b| {
        b.iter(|| toggle(&mut workspace, &path, &mut version, &clean, &typo))
    });
    group.bench_function(format!("edit-to-diagnostics/prose/{records}"), |b| {
        b.iter(|| toggle(&mut workspace, &path, &mut version, &clean, &prose))
    });
    assert_eq!(workspace.corpus.files.len(), files, "no file was dropped");
    std::fs::rename(root.join("records-moved"), root.join("records")).expect("move back");

    // The same corpus with every record naming two places in its own page, one of them
    // through a wiki-link to itself, which is resolved: each edit checks all 200,000
    // fragments again, and works out the ids of the edited page alone. The record edited
    // above names one place, with no link, and so needs no id index; its neighbour names
    // both, and its edit builds one to resolve the link.
    let linking = names[names.len() / 2 + 1].clone();
    for folder in std::fs::read_dir(root.join("records")).expect("the records folder") {
        let folder = folder.expect("a collection").path();
        for entry in std::fs::read_dir(&folder).expect("a collection folder") {
            let record = entry.expect("a record").path();
            let text = std::fs::read_to_string(&record).expect("a record");
            let id = text.lines().find_map(|line| line.strip_prefix("id: "));
            let id = id.expect("an id line").to_string();
            let named = match record == path {
                true => format!("{text}\nSee [its name](#field-name).\n"),
                false => format!("{text}\nSee [its name](#field-name) and [[{id}#field-id]].\n"),
            };
            std::fs::write(&record, named).expect("a record written");
        }
    }
    let project = Project::open(&root, None).expect("the generated corpus opens");
    let mut workspace = Workspace::new(project);
    workspace.refresh();
    let edits = [
        (&path, "prose-with-fragments"),
        (&linking, "prose-with-linked-fragments"),
    ];
    let edits = edits.map(|(path, name)| {
        let clean = std::fs::read_to_string(path).expect("a gotcha");
        let body = clean.rfind("\n\n").expect("a paragraph") + 2;
        let prose = format!("{}Also {}", &clean[..body], &clean[body..]);
        (path, name, clean, prose)
    });
    std::fs::rename(root.join("records"), root.join("records-moved")).expect("move the records");
    for (path, name, clean, prose) in &edits {
        group.bench_function(format!("edit-to-diagnostics/{name}/{records}"), |b| {
            b.iter(|| toggle(&mut workspace, path, &mut version, clean, prose))
        });
    }
    group.finish();
    assert_eq!(workspace.corpus.files.len(), files, "no file was dropped");
    std::fs::rename(root.join("records-moved"), root.join("records")).expect("move back");
}

criterion_group!(benches, edit_to_diagnostics);
criterion_main!(benches);
