//! Changed-files mode: `gotchas check FILE...` and `--staged` report on the named files and on
//! every record citing what they define or what was removed, never on the rest.
//!
//! In the `ci` fixture `markup.md` and `typo.yaml` cite `engines/vllm`, `warned.md` cites
//! `engines/mooncake`; each of the three gotchas has a problem of its own.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Run, copy_dir, fixture, gotchas_in, hermetic_git};

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("ci"), dir.path());
    dir
}

/// `gotchas check --format json ARGS` run from the corpus root, as a hook runs it.
fn check_in(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    gotchas_in(root, &all)
}

/// The files with diagnostics, and the codes, of a JSON report.
fn reported(run: &Run) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = common::json_diagnostics(run)
        .into_iter()
        .map(|(code, path, _, _)| (path, code))
        .collect();
    found.dedup();
    found
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(path, code)| (path.to_string(), code.to_string()))
        .collect()
}

#[test]
fn a_named_record_is_reported_alone() {
    let dir = corpus();
    let run = check_in(dir.path(), &["records/gotchas/typo.yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/typo.yaml", "unresolved-ref")])
    );
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        summary["summary"]["records"], 1,
        "the summary counts the scope"
    );
    // The did-you-mean is looked up for what the scope reports.
    assert!(
        run.stdout
            .contains("did you mean mooncake (engines/mooncake)?"),
        "{}",
        run.stdout
    );

    // A file named twice, or by another path, is the same file.
    let again = check_in(
        dir.path(),
        &[
            "./records/gotchas/typo.yaml",
            "records/gotchas/typo.yaml",
            "records/engines/../gotchas/typo.yaml",
        ],
    );
    assert_eq!(again.stdout, run.stdout);
}

#[test]
fn records_citing_a_named_record_are_reported_too() {
    let dir = corpus();
    let run = check_in(dir.path(), &["records/engines/vllm.yaml"]);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/gotchas/markup.md", "invalid-value"),
            ("records/gotchas/markup.md", "broken-link"),
            ("records/gotchas/typo.yaml", "unresolved-ref"),
        ]),
        "warned.md cites mooncake only"
    );
}

#[test]
fn a_deleted_file_named_reports_the_records_that_cited_it() {
    let dir = corpus();
    std::fs::remove_file(dir.path().join("records/engines/mooncake.yaml")).unwrap();
    let run = check_in(dir.path(), &["records/engines/mooncake.yaml"]);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/gotchas/warned.md", "unresolved-ref"),
            ("records/gotchas/warned.md", "broken-link"),
        ])
    );
    assert!(
        run.stdout
            .contains("`mooncake` in `affects` names no record")
    );
    assert!(
        run.stderr.contains(
            "note: records/engines/mooncake.yaml does not exist: reporting the records that cite `mooncake`"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn names_outside_the_corpus_are_ignored_with_a_note() {
    let dir = corpus();
    std::fs::write(dir.path().join("README.md"), "# A corpus\n").unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    let run = check_in(dir.path(), &["README.md", outside.path().to_str().unwrap()]);
    assert_eq!(run.code, 0);
    assert!(reported(&run).is_empty());
    assert!(run.stderr.contains(
        "note: ignoring README.md: not a record, prose page, schema or config of the corpus"
    ));
    assert_eq!(run.stderr.matches("note: ignoring").count(), 2);
    let quiet = check_in(dir.path(), &["--quiet", "README.md"]);
    assert_eq!(quiet.stderr, "");

    // A name in another corpus gets the way to check that one.
    let other = corpus();
    let elsewhere = other.path().join("records/gotchas/typo.yaml");
    let run = check_in(dir.path(), &[elsewhere.to_str().unwrap()]);
    assert_eq!(run.code, 0);
    let other = other.path().canonicalize().unwrap();
    assert!(
        run.stderr.contains(&format!(
            "note: ignoring {}: outside this corpus, in the one at {}, which `--root {}` checks",
            elsewhere.display(),
            other.display(),
            other.display()
        )),
        "{}",
        run.stderr
    );

    // A name reached through `..` is where it leads: here, the corpus's own folder, which
    // is no other corpus.
    let from_records = gotchas_in(&dir.path().join("records"), &["check", "../README.md"]);
    assert!(
        from_records
            .stderr
            .contains("note: ignoring ../README.md: not a record, prose page, schema or config"),
        "{}",
        from_records.stderr
    );
}

#[test]
fn a_name_that_does_not_exist_is_said_not_to() {
    let dir = corpus();
    let run = check_in(dir.path(), &["nope.json"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr
            .contains("note: ignoring nope.json: it does not exist\n"),
        "{}",
        run.stderr
    );

    // Named from the corpus root while the current folder is elsewhere: the file meant is
    // named, as names are taken from the current folder even with `--root`.
    let elsewhere = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let run = gotchas_in(
        elsewhere.path(),
        &["--root", root, "check", "records/gotchas/typo.yaml"],
    );
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains(&format!(
            "note: ignoring records/gotchas/typo.yaml: it does not exist here (a name is taken from the current folder, not from `--root`); {} does",
            dir.path().join("records/gotchas/typo.yaml").display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn a_named_schema_or_folder_covers_its_records() {
    let dir = corpus();
    let by_schema = check_in(dir.path(), &["schema/gotcha.schema.json"]);
    let by_folder = check_in(dir.path(), &["records/gotchas"]);
    let everything = check_in(dir.path(), &[]);
    assert_eq!(reported(&by_schema), reported(&everything));
    assert_eq!(reported(&by_folder), reported(&everything));
}

#[test]
fn fix_applies_only_in_scope() {
    let dir = corpus();
    let run = gotchas_in(dir.path(), &["check", "--fix", "records/gotchas/typo.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let fixed = std::fs::read_to_string(dir.path().join("records/gotchas/typo.yaml")).unwrap();
    assert!(fixed.contains("affects: [vllm, mooncake]"));
    let untouched = std::fs::read_to_string(dir.path().join("records/gotchas/warned.md")).unwrap();
    assert!(untouched.contains("[[engines/vlm]]"), "outside the scope");
}

#[test]
fn a_baseline_cannot_be_written_from_part_of_the_corpus() {
    let dir = corpus();
    let run = gotchas_in(
        dir.path(),
        &["check", "--write-baseline", "records/gotchas/typo.yaml"],
    );
    assert_eq!(run.code, 2);
    assert!(!dir.path().join("gotchas-baseline.json").exists());
}

#[test]
fn the_baseline_applies_and_entries_out_of_scope_are_not_stale() {
    let dir = corpus();
    assert_eq!(
        gotchas_in(dir.path(), &["check", "--write-baseline"]).code,
        0
    );
    let run = gotchas_in(
        dir.path(),
        &["check", "--color", "never", "records/gotchas/typo.yaml"],
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "checked 1 record in 1 file: 0 errors, 0 warnings (1 known problem in the baseline)\n"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = hermetic_git(Command::new("git").args(args).current_dir(dir))
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// The `ci` fixture, committed, with only the record citing the engine that will be removed
/// (so that every diagnostic comes from the change).
fn repository() -> tempfile::TempDir {
    let dir = corpus();
    for file in ["typo.yaml", "markup.md"] {
        std::fs::remove_file(dir.path().join("records/gotchas").join(file)).unwrap();
    }
    std::fs::write(
        dir.path().join("records/gotchas/warned.md"),
        "---\nid: warned\ntype: gotcha\nname: Cites mooncake\nseverity: minor\naffects: [mooncake]\n---\n",
    )
    .unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "corpus"]);
    dir
}

#[test]
fn staged_deletion_reports_the_committed_records_citing_it() {
    let dir = repository();
    assert!(reported(&check_in(dir.path(), &["--staged"])).is_empty());
    git(dir.path(), &["rm", "-q", "records/engines/mooncake.yaml"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
}

#[test]
fn staged_rename_reports_the_records_citing_the_old_id() {
    let dir = repository();
    git(
        dir.path(),
        &[
            "mv",
            "records/engines/mooncake.yaml",
            "records/engines/mooncake-store.yaml",
        ],
    );
    let renamed = dir.path().join("records/engines/mooncake-store.yaml");
    let text = std::fs::read_to_string(&renamed).unwrap();
    std::fs::write(&renamed, text.replace("id: mooncake", "id: mooncake-store")).unwrap();
    git(dir.path(), &["add", "-A"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/mooncake-store.yaml", "orphan"),
            ("records/gotchas/warned.md", "unresolved-ref"),
        ]),
        "the renamed engine is staged, and nothing cites it any more"
    );
    assert!(
        run.stdout
            .contains("`mooncake` in `affects` names no record")
    );
}

/// A plain git hook runs on the working tree as it is: a staged record changed again since
/// is checked as it is on disk, and the run says so, since the commit holds another text.
#[test]
fn a_staged_record_changed_again_since_is_noted() {
    let dir = repository();
    let engine = dir.path().join("records/engines/mooncake.yaml");
    let text = std::fs::read_to_string(&engine).unwrap();
    std::fs::write(
        &engine,
        text.replace("name: Mooncake", "name: Mooncake Store"),
    )
    .unwrap();
    git(dir.path(), &["add", "-A"]);
    std::fs::write(&engine, &text).unwrap();
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "note: records/engines/mooncake.yaml has changes that are not staged: the working \
             tree is checked, not what the commit holds"
        ),
        "{}",
        run.stderr
    );
    git(dir.path(), &["add", "-A"]);
    let staged = check_in(dir.path(), &["--staged"]);
    assert!(!staged.stderr.contains("not staged"), "{}", staged.stderr);
}

/// A record the index removes is out of the commit even though the work tree still holds
/// it: the records citing it are reported, and the note says it was left out.
#[test]
fn staged_removal_still_in_the_working_tree_is_left_out() {
    let dir = repository();
    git(
        dir.path(),
        &["rm", "-q", "--cached", "records/engines/mooncake.yaml"],
    );
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
    assert!(
        run.stderr.contains(
            "note: left out a file that git does not track, as the commit would not hold it: \
             records/engines/mooncake.yaml"
        ),
        "{}",
        run.stderr
    );
}

/// The repository, with the gotcha staged citing `sglang`, an engine in the work tree that
/// is not staged.
fn citing_an_untracked_record() -> tempfile::TempDir {
    let dir = repository();
    std::fs::write(
        dir.path().join("records/engines/sglang.yaml"),
        "id: sglang\ntype: engine\nname: SGLang\n",
    )
    .unwrap();
    edit(
        &dir.path().join("records/gotchas/warned.md"),
        "affects: [mooncake]",
        "affects: [mooncake, sglang]",
    );
    git(dir.path(), &["add", "records/gotchas/warned.md"]);
    dir
}

/// A commit citing a record whose `git add` was forgotten would fail in a fresh clone: the
/// check sees what the commit holds, not the work tree.
#[test]
fn staged_leaves_out_records_git_does_not_track() {
    let dir = citing_an_untracked_record();
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
    assert!(
        run.stderr.contains(
            "note: left out a file that git does not track, as the commit would not hold it: \
             records/engines/sglang.yaml (`git add` what belongs to the commit)"
        ),
        "{}",
        run.stderr
    );
    let plain = check_in(dir.path(), &[]);
    assert_eq!(
        plain.code, 0,
        "a check of the work tree reads it: {}",
        plain.stdout
    );

    git(dir.path(), &["add", "records/engines/sglang.yaml"]);
    let added = check_in(dir.path(), &["--staged"]);
    assert_eq!(added.code, 0, "{}", added.stdout);
    assert!(!added.stderr.contains("left out"), "{}", added.stderr);
}

/// A record only this clone's `.git/info/exclude` ignores is in no commit either, though
/// discovery reads it (what one machine's git excludes is checked all the same).
#[test]
fn staged_leaves_out_records_the_clone_excludes() {
    let dir = citing_an_untracked_record();
    std::fs::write(
        dir.path().join(".git/info/exclude"),
        "records/engines/sglang.yaml\n",
    )
    .unwrap();
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
    assert!(
        run.stderr.contains("records/engines/sglang.yaml"),
        "{}",
        run.stderr
    );
}

#[test]
fn staged_outside_a_repository_cannot_run() {
    let dir = corpus();
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("error: --staged needs the git index"));
}

#[test]
fn staged_from_another_repository_cannot_run() {
    let corpus = repository();
    git(
        corpus.path(),
        &["rm", "-q", "records/engines/mooncake.yaml"],
    );
    let elsewhere = tempfile::tempdir().unwrap();
    git(elsewhere.path(), &["init", "-q"]);
    let root = corpus.path().to_str().unwrap();
    let run = gotchas_in(elsewhere.path(), &["check", "--root", root, "--staged"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("which does not hold the corpus"),
        "{}",
        run.stderr
    );
}

/// With `diff.relative` set, git lists the changes under the current folder only, relative
/// to it; the check asks for the whole index, from wherever it runs.
#[test]
fn staged_from_a_subfolder_sees_the_whole_index_despite_diff_relative() {
    let dir = repository();
    git(dir.path(), &["config", "diff.relative", "true"]);
    git(dir.path(), &["rm", "-q", "records/engines/mooncake.yaml"]);
    let run = check_in(&dir.path().join("records/gotchas"), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
}

/// A file name that is not UTF-8, anywhere in the repository, staged or not, does not stop
/// the check; one staged under the records folder gets discovery's diagnostic.
#[cfg(unix)]
#[test]
fn staged_survives_file_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = repository();
    let asset = dir
        .path()
        .join("assets")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.png"));
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(&asset, "x").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "an asset"]);
    std::fs::write(&asset, "y").unwrap();
    let record = dir
        .path()
        .join("records/engines")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.yaml"));
    std::fs::write(&record, "id: cafe\n").unwrap();
    git(dir.path(), &["add", "records"]);
    git(dir.path(), &["rm", "-q", "records/engines/mooncake.yaml"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/caf\u{FFFD}.yaml", "io-error"),
            ("records/gotchas/warned.md", "unresolved-ref"),
        ])
    );
}

/// Replaces `from` by `to` in the file at `path`, which must hold it.
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// A schema document that collection schemas `$ref` is no collection's schema, yet a change
/// to it changes what every record citing it is checked against.
#[test]
fn a_staged_shared_schema_puts_everything_in_scope() {
    let dir = repository();
    std::fs::write(
        dir.path().join("schema/common.json"),
        r#"{ "$id": "common.json", "$defs": { "severity": { "enum": ["minor", "major"] } } }"#,
    )
    .unwrap();
    edit(
        &dir.path().join("schema/gotcha.schema.json"),
        r#""severity": { "enum": ["minor", "major"] }"#,
        r#""severity": { "$ref": "common.json#/$defs/severity" }"#,
    );
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "a shared schema"]);
    edit(&dir.path().join("schema/common.json"), r#""minor", "#, "");
    git(dir.path(), &["add", "-A"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/vllm.yaml", "orphan"),
            ("records/gotchas/warned.md", "invalid-value"),
        ])
    );
    assert!(!run.stderr.contains("ignoring"), "{}", run.stderr);
}

/// A collection schema's change can move its collection to another folder: its records,
/// and the records citing them, are then checked as they now are.
#[test]
fn a_staged_schema_that_renames_its_folder_puts_everything_in_scope() {
    let dir = repository();
    edit(
        &dir.path().join("schema/engine.schema.json"),
        r#""title": "engine","#,
        r#""title": "engine", "x-collection": "runtimes","#,
    );
    git(dir.path(), &["add", "-A"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/mooncake.yaml", "stray-file"),
            ("records/engines/vllm.yaml", "stray-file"),
            ("records/gotchas/warned.md", "unresolved-ref"),
        ])
    );
}

/// The repository, with the gotcha citing an engine that does not exist.
fn repository_citing_nothing() -> tempfile::TempDir {
    let dir = repository();
    edit(
        &dir.path().join("records/gotchas/warned.md"),
        "affects: [mooncake]",
        "affects: [nope]",
    );
    dir
}

/// Deleting the config changes every rule's level back to its default.
#[test]
fn a_staged_config_removal_puts_everything_in_scope() {
    let dir = repository_citing_nothing();
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "[rules]\nunresolved-ref = \"allow\"\n",
    )
    .unwrap();
    git(dir.path(), &["add", "-A"]);
    git(
        dir.path(),
        &["commit", "-qm", "unresolved references allowed"],
    );
    git(dir.path(), &["rm", "-q", "gotchas.toml"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/mooncake.yaml", "orphan"),
            ("records/engines/vllm.yaml", "orphan"),
            ("records/gotchas/warned.md", "unresolved-ref"),
        ])
    );
}

/// The baseline decides what is reported: a problem it stops accepting is reported wherever
/// it is, whether the baseline is edited or removed.
#[test]
fn a_staged_baseline_change_puts_everything_in_scope() {
    let dir = repository_citing_nothing();
    assert_eq!(
        gotchas_in(dir.path(), &["check", "--write-baseline"]).code,
        0
    );
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "a known problem"]);
    let baseline = dir.path().join("gotchas-baseline.json");
    let accepted = std::fs::read_to_string(&baseline).unwrap();
    assert!(accepted.contains("unresolved-ref"), "{accepted}");
    std::fs::write(&baseline, r#"{"version":1,"entries":[]}"#).unwrap();
    git(dir.path(), &["add", "-A"]);
    let edited = check_in(dir.path(), &["--staged"]);
    assert_eq!(edited.code, 1, "{}", edited.stderr);
    assert_eq!(
        reported(&edited),
        pairs(&[
            ("records/engines/mooncake.yaml", "orphan"),
            ("records/engines/vllm.yaml", "orphan"),
            ("records/gotchas/warned.md", "unresolved-ref"),
        ])
    );
    git(dir.path(), &["rm", "-q", "-f", "gotchas-baseline.json"]);
    let removed = check_in(dir.path(), &["--staged"]);
    assert_eq!(reported(&removed), reported(&edited));
}

/// A removed record whose id another collection still holds leaves its citations naming
/// a record of the wrong collection, not nothing: those are reported too.
#[test]
fn staged_deletion_reports_citations_left_naming_another_collection() {
    let dir = repository();
    std::fs::write(
        dir.path().join("records/gotchas/mooncake.yaml"),
        "id: mooncake\ntype: gotcha\nname: Also mooncake\nseverity: minor\n",
    )
    .unwrap();
    git(dir.path(), &["add", "-A"]);
    git(
        dir.path(),
        &["commit", "-qm", "a gotcha sharing the engine's id"],
    );
    git(dir.path(), &["rm", "-q", "records/engines/mooncake.yaml"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "wrong-target")])
    );
}

/// A record's id is what its text says, not its file name, where `id-mismatch` is allowed.
#[test]
fn staged_deletion_is_known_by_the_id_it_defined() {
    let dir = repository();
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "[rules]\nid-mismatch = \"allow\"\n",
    )
    .unwrap();
    git(
        dir.path(),
        &[
            "mv",
            "records/engines/mooncake.yaml",
            "records/engines/mooncake-2025.yaml",
        ],
    );
    git(dir.path(), &["add", "-A"]);
    git(
        dir.path(),
        &["commit", "-qm", "a file name that is not the id"],
    );
    git(
        dir.path(),
        &["rm", "-q", "records/engines/mooncake-2025.yaml"],
    );
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        reported(&run),
        pairs(&[("records/gotchas/warned.md", "unresolved-ref")])
    );
}

/// Deleting a file that is no record says nothing of the references that were already
/// broken and happen to name its stem: the commit did not break them.
#[test]
fn staged_deletion_of_a_file_that_is_no_record_reports_nothing() {
    let dir = repository();
    edit(
        &dir.path().join("records/gotchas/warned.md"),
        "affects: [mooncake]",
        "affects: [mooncake, build]",
    );
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::write(dir.path().join("scripts/build.py"), "print(1)\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(
        dir.path(),
        &["commit", "-qm", "an old broken reference, and a script"],
    );
    git(dir.path(), &["rm", "-q", "scripts/build.py"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(reported(&run).is_empty(), "{}", run.stdout);
}

/// The repository with every record required to be cited: `mooncake` by the gotcha, `vllm`
/// by a prose page's wiki-link, the gotcha by the page's file link.
fn repository_citing_every_record() -> tempfile::TempDir {
    let dir = repository();
    let config = dir.path().join("gotchas.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.insert_str(0, "docs = [\"docs/*.md\"]\n");
    text.push_str("unreferenced = \"error\"\n[graph]\nmust_be_cited = [\"engine\", \"gotcha\"]\n");
    std::fs::write(&config, text).unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/serving.md"),
        "# Serving\n\nSee [[engines/vllm]] and [its gotcha](../records/gotchas/warned.md).\n",
    )
    .unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "every engine cited"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(reported(&gotchas_in(dir.path(), &["check", "--format", "json"])).is_empty());
    dir
}

/// A record that stops citing another leaves it uncited, which the graph rules report on
/// the record that lost the citation, a file the commit does not touch.
#[test]
fn staged_change_reports_the_record_it_stopped_citing() {
    let dir = repository_citing_every_record();
    edit(
        &dir.path().join("records/gotchas/warned.md"),
        "affects: [mooncake]",
        "affects: [vllm]",
    );
    git(dir.path(), &["add", "-A"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/mooncake.yaml", "orphan"),
            ("records/engines/mooncake.yaml", "unreferenced"),
        ])
    );
    assert_eq!(
        reported(&run),
        reported(&gotchas_in(dir.path(), &["check", "--format", "json"])),
        "the commit fails as the full check after it would"
    );
}

/// Deleting the only record or page citing a record that must be cited is caught.
#[test]
fn staged_deletion_reports_the_records_only_it_cited() {
    let dir = repository_citing_every_record();
    git(dir.path(), &["rm", "-q", "records/gotchas/warned.md"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("docs/serving.md", "broken-link"),
            ("records/engines/mooncake.yaml", "orphan"),
            ("records/engines/mooncake.yaml", "unreferenced"),
        ]),
        "the page links the gotcha"
    );
    git(dir.path(), &["rm", "-q", "docs/serving.md"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/mooncake.yaml", "orphan"),
            ("records/engines/mooncake.yaml", "unreferenced"),
            ("records/engines/vllm.yaml", "orphan"),
            ("records/engines/vllm.yaml", "unreferenced"),
        ]),
        "the page's wiki-link cited vllm; the gotcha it linked is gone too"
    );
}

/// A prose page that stops linking a record leaves it uncited too.
#[test]
fn staged_page_change_reports_the_record_it_stopped_linking() {
    let dir = repository_citing_every_record();
    edit(
        &dir.path().join("docs/serving.md"),
        "[[engines/vllm]] and [its gotcha](../records/gotchas/warned.md)",
        "vLLM",
    );
    git(dir.path(), &["add", "-A"]);
    let run = check_in(dir.path(), &["--staged"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        reported(&run),
        pairs(&[
            ("records/engines/vllm.yaml", "orphan"),
            ("records/engines/vllm.yaml", "unreferenced"),
            ("records/gotchas/warned.md", "unreferenced"),
        ]),
        "a wiki-link and a file link"
    );
}

/// A loop is reported on its first record only; a check of a file that makes one of its
/// other steps reports it too, as the diagnostic points at every step.
#[test]
fn a_loop_through_a_named_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("graph"), dir.path());
    let run = check_in(dir.path(), &["records/gotchas/c.yaml"]);
    let cycles: Vec<(String, String)> = reported(&run)
        .into_iter()
        .filter(|(_, code)| code == "cycle")
        .collect();
    assert_eq!(
        cycles,
        pairs(&[("records/gotchas/a.yaml", "cycle")]),
        "{}",
        run.stdout
    );
}
