//! The check cache (`.gotchas-cache/`), through the binary: a second check recalls the
//! records of unchanged files (without reading those whose stamp settled) and reports
//! exactly what a check without the cache reports, and nothing it was not made from is
//! trusted: an edited file, a changed schema or loading setting, a damaged cache file. Rule
//! levels and graph settings, which act after loading, keep it.

mod common;

use std::path::Path;

use common::{bundled_copy, check_keeping_cache as check};

/// How many records the run says it recalled, and how many it loaded.
fn recalled(run: &common::Run) -> (usize, usize) {
    let (recalled, total, _) = recalled_unread(run);
    (recalled, total)
}

/// How many records the run says it recalled, how many it loaded, and how many of those it
/// recalled without reading their file.
fn recalled_unread(run: &common::Run) -> (usize, usize, usize) {
    let line = run
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("cache: recalled "))
        .unwrap_or_else(|| panic!("no cache line in {}", run.stderr));
    let (counts, unread) = line
        .strip_suffix(" of them without reading their file")
        .and_then(|rest| rest.split_once(" records, "))
        .expect("`N of M records, K of them without reading their file`");
    let (recalled, total) = counts.split_once(" of ").expect("`N of M`");
    let number = |text: &str| text.parse::<usize>().unwrap();
    (number(recalled), number(total), number(unread))
}

fn checked(root: &Path) -> common::Run {
    check(root, &["--format", "json", "--verbose"])
}

fn uncached(root: &Path) -> String {
    check(root, &["--format", "json", "--no-cache"]).stdout
}

/// The bundled gotcha that cites `mooncake` in `affects`.
const GOTCHA: &str = "records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md";

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_second_check_recalls_every_clean_record_and_reports_the_same() {
    let corpus = bundled_copy();
    let first = checked(corpus.path());
    assert_eq!(recalled(&first), (0, 10));
    let ignore = corpus.path().join(".gotchas-cache/.gitignore");
    assert!(std::fs::read_to_string(ignore).unwrap().contains('*'));
    let second = checked(corpus.path());
    assert_eq!(recalled(&second), (10, 10));
    assert_eq!(second.stdout, first.stdout);
    assert_eq!(second.stdout, uncached(corpus.path()));
    assert_eq!(second.code, first.code);
}

#[test]
fn an_edited_file_is_read_again() {
    let corpus = bundled_copy();
    checked(corpus.path());
    let gotcha = corpus.path().join(GOTCHA);
    edit(
        &gotcha,
        "affects: [vllm, nixl, mooncake,",
        "affects: [vllm, nixl, mooncache,",
    );
    let after = checked(corpus.path());
    assert_eq!(recalled(&after), (9, 10));
    assert!(
        after
            .stdout
            .contains("`mooncache` in `affects` names no record")
    );
    assert_eq!(after.stdout, uncached(corpus.path()));
}

#[test]
fn a_file_whose_stamp_settled_is_recalled_unread_until_it_is_written() {
    let corpus = bundled_copy();
    checked(corpus.path());
    // A stamp is kept once its times lie SETTLE before a run's start: until then a write
    // within the same tick of the file system's clock could leave it as it was.
    std::thread::sleep(gotchas::stamp::SETTLE + std::time::Duration::from_millis(50));
    checked(corpus.path());
    let unread = checked(corpus.path());
    assert_eq!(recalled_unread(&unread), (10, 10, 10));
    assert_eq!(unread.stdout, uncached(corpus.path()));
    // The same size, another text: the times tell the file was written.
    let gotcha = corpus.path().join(GOTCHA);
    edit(&gotcha, "mooncake,", "mooncakx,");
    let after = checked(corpus.path());
    assert_eq!(recalled_unread(&after), (9, 10, 9));
    assert!(
        after
            .stdout
            .contains("`mooncakx` in `affects` names no record")
    );
    assert_eq!(after.stdout, uncached(corpus.path()));
}

/// An engine nothing cites and that cites nothing, its root on its second line.
const ORPHAN: &str = "# An engine nothing cites.
id: lonely
type: engine
name: Lonely
repo: example/lonely
languages: [Rust]
license: MIT
first_release_year: 2026
status: verified
confidence: 0.5
updated: 2026-10-03
sources: []
";

#[test]
fn an_orphan_recalled_unread_is_reported_where_its_root_starts() {
    let corpus = bundled_copy();
    std::fs::write(corpus.path().join("records/engines/lonely.yaml"), ORPHAN).unwrap();
    checked(corpus.path());
    std::thread::sleep(gotchas::stamp::SETTLE + std::time::Duration::from_millis(50));
    checked(corpus.path());
    // Its file unread, the line the orphan is reported on comes from the cache, which kept
    // it with the record.
    let unread = checked(corpus.path());
    assert_eq!(recalled_unread(&unread), (11, 11, 11));
    let orphan = "\"code\": \"orphan\",\n      \"severity\": \"warning\",\n      \"message\": \
        \"`engines/lonely` references nothing and nothing references it\",\n      \"path\": \
        \"records/engines/lonely.yaml\",\n      \"line\": 2,\n      \"column\": 1,";
    assert!(unread.stdout.contains(orphan), "{}", unread.stdout);
    assert_eq!(unread.stdout, uncached(corpus.path()));
    let human = check(corpus.path(), &[]).stdout;
    assert!(
        human.contains("2 | id: lonely\n  | ^^^^^^^^^^ an orphan record"),
        "{human}"
    );
    assert_eq!(human, check(corpus.path(), &["--no-cache"]).stdout);
}

#[test]
fn a_record_with_a_problem_is_never_recalled() {
    let corpus = bundled_copy();
    let vllm = corpus.path().join("records/engines/vllm.yaml");
    edit(&vllm, "confidence: 0.93", "confidence: high");
    checked(corpus.path());
    let second = checked(corpus.path());
    assert_eq!(recalled(&second), (9, 10), "vllm.yaml is loaded again");
    assert!(second.stdout.contains("\"schema-violation\""));
    assert_eq!(second.stdout, uncached(corpus.path()));
}

#[test]
fn a_changed_schema_or_config_is_not_trusted() {
    let corpus = bundled_copy();
    checked(corpus.path());
    let schema = corpus.path().join("schema/engine.schema.json");
    edit(&schema, "\"required\": [", "\"required\": [\"homepage\", ");
    let after_schema = checked(corpus.path());
    assert_eq!(recalled(&after_schema), (0, 10));
    assert!(after_schema.stdout.contains("\"missing-field\""));
    assert_eq!(after_schema.stdout, uncached(corpus.path()));
    std::fs::write(
        corpus.path().join("gotchas.toml"),
        "max_file_size = 1000000\n",
    )
    .unwrap();
    assert_eq!(recalled(&checked(corpus.path())), (0, 10));
    assert_eq!(
        recalled(&checked(corpus.path())),
        (6, 10),
        "all but the four engines that lack `homepage`"
    );
}

#[test]
fn tuning_rules_and_graph_settings_keeps_the_cache() {
    let corpus = bundled_copy();
    let before = checked(corpus.path());
    assert!(!before.stdout.contains("\"unreferenced\""));
    std::fs::write(
        corpus.path().join("gotchas.toml"),
        "[rules]\nunreferenced = \"error\"\n\n[graph]\nmust_be_cited = [\"gotcha\"]\n",
    )
    .unwrap();
    let tuned = checked(corpus.path());
    assert_eq!(recalled(&tuned), (10, 10));
    assert!(
        tuned.stdout.contains("\"unreferenced\""),
        "{}",
        tuned.stdout
    );
    assert_eq!(tuned.stdout, uncached(corpus.path()));
    assert_ne!(tuned.code, before.code);
}

#[test]
fn a_damaged_cache_is_ignored_and_replaced() {
    let corpus = bundled_copy();
    let first = checked(corpus.path());
    let folder = corpus.path().join(".gotchas-cache");
    let file = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "bin"))
        .expect("a cache file");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&file, &bytes).unwrap();
    let damaged = checked(corpus.path());
    assert_eq!(recalled(&damaged), (0, 10));
    assert_eq!(damaged.stdout, first.stdout);
    assert_eq!(recalled(&checked(corpus.path())), (10, 10));
}

#[test]
fn no_cache_neither_reads_nor_writes_it() {
    let corpus = bundled_copy();
    let run = check(corpus.path(), &["--no-cache", "--verbose"]);
    assert!(!run.stderr.contains("cache: recalled"), "{}", run.stderr);
    assert!(!corpus.path().join(".gotchas-cache").exists());
}

/// `--cache-dir` and `GOTCHAS_CACHE_DIR` keep the cache elsewhere (a read-only checkout, a
/// CI cache restored to another path): nothing is written under the root, and the next
/// check recalls from there.
#[test]
fn the_cache_can_be_kept_in_another_folder() {
    let corpus = bundled_copy();
    let elsewhere = tempfile::tempdir().unwrap();
    let folder = elsewhere.path().join("gotchas");
    let folder_arg = folder.to_str().unwrap();
    let first = check(corpus.path(), &["--verbose", "--cache-dir", folder_arg]);
    assert_eq!(recalled(&first), (0, 10));
    assert!(!corpus.path().join(".gotchas-cache").exists());
    assert!(folder.join(".gitignore").is_file());
    let second = check(corpus.path(), &["--verbose", "--cache-dir", folder_arg]);
    assert_eq!(recalled(&second), (10, 10));
    assert_eq!(second.stdout, first.stdout);
    let root = corpus.path().to_str().unwrap();
    let by_environment = common::run(
        corpus.path(),
        &["check", "--root", root, "--verbose"],
        Some(&folder),
    );
    assert_eq!(recalled(&by_environment), (10, 10));
    assert!(!corpus.path().join(".gotchas-cache").exists());
}

#[test]
fn a_recalled_record_is_told_of_what_another_file_broke_with_its_position() {
    let corpus = bundled_copy();
    checked(corpus.path());
    std::fs::remove_file(corpus.path().join("records/engines/mooncake.yaml")).unwrap();
    let run = check(corpus.path(), &["--verbose"]);
    assert_eq!(recalled(&run), (9, 9), "the gotcha citing it is unchanged");
    assert!(run.stdout.contains(
        "error[unresolved-ref]: `mooncake` in `affects` names no record\n --> \
         records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md:6:23"
    ));
}

/// The cache is a convenience: a check whose cache cannot be written still passes. Where
/// `--cache-dir` asks for a folder it is said, unless `--quiet`; the default folder only
/// with `--verbose`.
#[test]
fn a_cache_that_cannot_be_written_is_said_where_one_was_asked_for() {
    let corpus = bundled_copy();
    let blocker = corpus.path().join("not-a-folder");
    std::fs::write(&blocker, "").unwrap();
    let asked = check(corpus.path(), &["--cache-dir", blocker.to_str().unwrap()]);
    assert_eq!(asked.code, 0, "{}", asked.stderr);
    assert!(
        asked.stderr.starts_with(&format!(
            "note: the cache was not written to {}: ",
            blocker.display()
        )),
        "{}",
        asked.stderr
    );
    let quiet = check(
        corpus.path(),
        &["--quiet", "--cache-dir", blocker.to_str().unwrap()],
    );
    assert_eq!(quiet.stderr, "", "--quiet says no note");
    std::fs::write(corpus.path().join(".gotchas-cache"), "").unwrap();
    let default = check(corpus.path(), &[]);
    assert_eq!(default.code, 0);
    assert_eq!(default.stderr, "");
    let verbose = check(corpus.path(), &["--verbose"]);
    assert!(
        verbose
            .stderr
            .contains("note: the cache was not written to ")
    );
}

/// The cache marks its folder git-ignored: kept among the records it would hide them all
/// from the next run, and at the root every file of the repository from git.
#[test]
fn a_cache_folder_among_the_corpus_files_is_refused() {
    let corpus = bundled_copy();
    for folder in ["records/gotchas", "schema", ""] {
        let folder = corpus.path().join(folder);
        let run = check(corpus.path(), &["--cache-dir", folder.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{}: {}", folder.display(), run.stderr);
        assert!(
            run.stderr.starts_with(&format!(
                "error: the cache is not kept in {}: ",
                folder.display()
            )),
            "{}",
            run.stderr
        );
    }
    assert!(!corpus.path().join("records/gotchas/.gitignore").exists());
    assert!(!corpus.path().join(".gitignore").exists());
    let after = check(corpus.path(), &["--format", "json"]);
    assert_eq!(after.code, 0, "{}", after.stdout);
}

/// The root may be spelled in any way (`--root kb`, `--root ./kb`, an absolute path, none
/// from inside the corpus or from `records/`): one corpus is one cache, recalled from any.
#[test]
fn the_cache_is_recalled_however_the_root_is_spelled() {
    let corpus = bundled_copy();
    std::fs::write(corpus.path().join("gotchas.toml"), "").unwrap();
    assert_eq!(recalled(&checked(corpus.path())), (0, 10));
    let (parent, name) = (
        corpus.path().parent().unwrap(),
        corpus.path().file_name().unwrap(),
    );
    let name = name.to_str().unwrap();
    let dotted = format!("./{name}");
    let verbose = ["check", "--format", "json", "--verbose"];
    let runs = [
        (
            parent.to_path_buf(),
            [&verbose[..], &["--root", name]].concat(),
        ),
        (
            parent.to_path_buf(),
            [&verbose[..], &["--root", &dotted]].concat(),
        ),
        (corpus.path().to_path_buf(), verbose.to_vec()),
        (corpus.path().join("records"), verbose.to_vec()),
    ];
    for (folder, args) in runs {
        let run = common::run(&folder, &args, None);
        assert_eq!(recalled(&run), (10, 10), "{args:?} in {}", folder.display());
    }
}
