//! Problems with the tool's own inputs (config, schemas, arguments) stop the run with exit
//! code 2 and a positioned diagnostic; `explain` documents every rule.

mod common;

use common::{check, copy_dir, fixture, gotchas, gotchas_in, named_pipe};

#[test]
fn unknown_config_keys_get_did_you_mean_and_exit_2() {
    let run = check(&fixture("setup/bad-config"), &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    insta::assert_snapshot!("setup-bad-config", run.stderr);
}

#[test]
fn graph_settings_naming_no_collection_or_field_exit_2() {
    let run = check(&fixture("setup/graph-names"), &[]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("setup-graph-names", run.stderr);
}

#[test]
fn a_config_outside_the_root_is_quoted_from_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("kb");
    copy_dir(&fixture("rules/id-mismatch"), &corpus);
    // A file of the same name in the corpus must not be quoted in its place.
    std::fs::write(corpus.join("kb.toml"), "AAAA\nBBBB\nCCCC\nDDDD\n").unwrap();
    std::fs::write(
        dir.path().join("kb.toml"),
        "# the corpus's settings\n\nrecords = \"records\"\nrecrods = \"x\"\n",
    )
    .unwrap();
    let run = gotchas_in(
        dir.path(),
        &["--root", "kb", "check", "--config", "kb.toml"],
    );
    assert_eq!(run.code, 2);
    let shown = dir.path().canonicalize().unwrap().join("kb.toml");
    assert!(
        run.stderr
            .contains(&format!("--> {}:4:1\n", shown.display())),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("4 | recrods = \"x\""), "{}", run.stderr);
    assert!(!run.stderr.contains("DDDD"), "{}", run.stderr);
}

#[test]
fn a_table_opened_twice_in_the_config_is_named_whole() {
    let run = check(&fixture("setup/duplicate-config"), &[]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("setup-duplicate-config", run.stderr);
}

#[test]
fn schema_that_is_not_json_names_file_and_position() {
    // The gotcha schema cites engines: the engine schema is reported once, as not JSON, and
    // not again as a collection the citation names but that does not exist.
    let run = check(&fixture("setup/bad-schema-json"), &[]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("setup-bad-schema-json", run.stderr);
}

#[test]
fn schema_that_is_not_a_schema_names_file_and_position() {
    let run = check(&fixture("setup/bad-schema"), &[]);
    assert_eq!(run.code, 2);
    // Every mistake at once, not one a run.
    for at in ["4:20", "5:27"] {
        assert!(
            run.stderr
                .contains(&format!("--> schema/engine.schema.json:{at}")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn an_x_ref_to_no_collection_is_placed_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::create_dir_all(dir.path().join("records")).unwrap();
    std::fs::write(
        dir.path().join("schema/thing.schema.json"),
        "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"rel\": {\"x-ref\": \"thnig\"}\n  }\n}\n",
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "error[invalid-schema]: the `x-ref` of `rel` in `thing` names an unknown collection: `thnig` is not a collection; did you mean `thing`?\n --> schema/thing.schema.json:4:22"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn ref_between_local_schema_files_resolves() {
    let run = check(&fixture("setup/local-ref"), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("records/engines/bad.yaml:2:11"));
    assert!(!run.stdout.contains("ok.yaml"));
}

#[test]
fn remote_ref_is_never_fetched() {
    let run = check(&fixture("setup/remote-ref"), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("never fetched from the network"),
        "{}",
        run.stderr
    );
}

#[test]
fn config_kept_outside_the_corpus() {
    let config = tempfile::NamedTempFile::new().unwrap();
    let root = fixture("rules/id-mismatch");
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    std::fs::write(
        config.path(),
        format!(
            "schemas = {:?}\n[rules]\nid-mismatch = \"warn\"\norphan = \"allow\"\n",
            schema.to_str().unwrap()
        ),
    )
    .unwrap();
    let run = check(&root, &["--config", config.path().to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("warning[id-mismatch]"));
    assert!(run.stdout.contains("0 errors, 1 warning"));
}

#[test]
fn allow_silences_a_rule() {
    let config = tempfile::NamedTempFile::new().unwrap();
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    std::fs::write(
        config.path(),
        format!(
            "schemas = {:?}\n[rules]\nid-mismatch = \"allow\"\norphan = \"allow\"\n",
            schema.to_str().unwrap()
        ),
    )
    .unwrap();
    let run = check(
        &fixture("rules/id-mismatch"),
        &["--config", config.path().to_str().unwrap()],
    );
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("0 errors, 0 warnings"));
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(gotchas(&["check", "--format", "xml"]).code, 2);
    assert_eq!(gotchas(&["frobnicate"]).code, 2);
}

#[test]
fn missing_records_folder_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    std::fs::write(
        dir.path().join("gotchas.toml"),
        format!("schemas = {:?}\n", schema.to_str().unwrap()),
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("the records folder does not exist"));
}

/// A config or records folder that is something else is named as such: a pipe named
/// gotchas.toml is neither read (it would wait for ever) nor passed over.
#[cfg(unix)]
#[test]
fn a_config_or_records_folder_of_the_wrong_kind_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    copy_dir(&schema, &dir.path().join("schema"));
    std::fs::write(dir.path().join("records"), "").unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("the records folder is a file, not a folder"),
        "{}",
        run.stdout
    );
    if !common::named_pipe(&dir.path().join("gotchas.toml")) {
        return;
    }
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("error[invalid-config]: gotchas.toml is not a regular file"),
        "{}",
        run.stderr
    );
}

#[test]
fn explain_lists_and_documents_rules() {
    let list = gotchas(&["explain"]);
    assert_eq!(list.code, 0);
    for code in [
        "unknown-field",
        "invalid-value",
        "duplicate-key",
        "stray-file",
        "invalid-config",
    ] {
        assert!(list.stdout.contains(code), "{code}");
    }
    let one = gotchas(&["explain", "unknown-field"]);
    assert_eq!(one.code, 0);
    insta::assert_snapshot!("explain-unknown-field", one.stdout);
    let typo = gotchas(&["explain", "unknown-feild"]);
    assert_eq!(typo.code, 2);
    assert!(typo.stderr.contains("did you mean `unknown-field`?"));
    assert_eq!(gotchas(&["explain", "UNKNOWN-FIELD"]).stdout, one.stdout);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let root = fixture("rules/id-mismatch");
    let root = root.to_str().unwrap();
    let plain = gotchas(&["check", "--root", root]);
    assert!(
        !plain.stdout.contains('\u{1b}'),
        "not a terminal: no colour"
    );
    let coloured = gotchas(&["check", "--root", root, "--color", "always"]);
    assert!(coloured.stdout.contains('\u{1b}'));
}

/// What `command` (a shell command line) prints when run on a terminal, which `script`
/// gives it; `None`, said, where there is no `script` to run.
#[cfg(unix)]
fn on_a_terminal(command: &str) -> Option<String> {
    let ran = std::process::Command::new("script")
        .args(["-qc", command, "/dev/null"])
        .env_remove("NO_COLOR")
        .output();
    match ran {
        Ok(output) if output.status.code().is_some() => {
            Some(String::from_utf8_lossy(&output.stdout).into_owned())
        }
        _ => {
            eprintln!("skipped: no `script` here to give the run a terminal");
            None
        }
    }
}

/// Whether stderr is coloured is decided by stderr: with the output on a terminal and the
/// errors sent to a file, the file gets no colour codes.
#[cfg(unix)]
#[test]
fn errors_sent_to_a_file_from_a_terminal_are_not_coloured() {
    let dir = tempfile::tempdir().unwrap();
    let errors = dir.path().join("errors.txt");
    let command = format!(
        "{} --root {} check 2>{}",
        env!("CARGO_BIN_EXE_gotchas"),
        dir.path().join("nowhere").display(),
        errors.display()
    );
    if on_a_terminal(&command).is_none() {
        return;
    }
    let written = std::fs::read_to_string(&errors).unwrap();
    assert!(written.contains("error[invalid-config]"), "{written}");
    assert!(!written.contains('\u{1b}'), "{written:?}");
}

/// `--color never` holds for usage errors too, which are printed before the rest of the
/// command line is read.
#[cfg(unix)]
#[test]
fn a_usage_error_on_a_terminal_takes_color_never() {
    let gotchas = env!("CARGO_BIN_EXE_gotchas");
    let Some(coloured) = on_a_terminal(&format!("{gotchas} chek")) else {
        return;
    };
    assert!(coloured.contains('\u{1b}'), "{coloured:?}");
    for asked in ["--color never", "--color=never"] {
        let plain = on_a_terminal(&format!("{gotchas} {asked} chek")).unwrap();
        assert!(plain.contains("unrecognized subcommand"), "{plain:?}");
        assert!(!plain.contains('\u{1b}'), "{asked}: {plain:?}");
    }
}

#[test]
fn a_folder_that_is_no_corpus_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let run = gotchas_in(dir.path(), &["check"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "error[invalid-config]: no corpus here: `.` holds no gotchas.toml and no schema folder"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`gotchas init`"), "{}", run.stderr);
}

#[test]
fn a_corpus_root_that_is_not_a_folder_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("kb");
    let run = check(&missing, &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(&format!(
            "error[invalid-config]: the corpus root `{}` does not exist",
            missing.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("schema folder"), "{}", run.stderr);

    let file = dir.path().join("gotchas.toml");
    std::fs::write(&file, "").unwrap();
    let run = check(&file, &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("is not a folder"), "{}", run.stderr);
}

/// Without `--root`, a command run anywhere inside a corpus works on the whole corpus, as
/// cargo does from inside a package: the report is the one `--root` gives, paths and all,
/// and a file named from there is found.
#[test]
fn a_command_run_inside_a_corpus_finds_its_root_above() {
    let corpus = tempfile::tempdir().unwrap();
    copy_dir(&fixture("ci"), corpus.path());
    let inside = corpus.path().join("records/gotchas");
    let from_root = check(corpus.path(), &["--format", "json"]);
    assert_eq!(from_root.code, 1, "{}", from_root.stderr);

    let from_inside = gotchas_in(&inside, &["check", "--format", "json"]);
    assert_eq!(from_inside.code, 1, "{}", from_inside.stderr);
    assert_eq!(from_inside.stdout, from_root.stdout);

    let one_file = gotchas_in(&inside, &["check", "--color", "never", "typo.yaml"]);
    assert_eq!(one_file.code, 1, "{}", one_file.stderr);
    assert!(
        one_file
            .stdout
            .contains("--> records/gotchas/typo.yaml:5:17"),
        "{}",
        one_file.stdout
    );
    assert!(
        one_file
            .stdout
            .ends_with("checked 1 record in 1 file: 1 error, 0 warnings\n"),
        "{}",
        one_file.stdout
    );

    // `init` makes a corpus where it is asked for, not in the corpus above.
    let run = gotchas_in(&inside, &["init"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(inside.join("gotchas.toml").is_file());
    let nested = gotchas_in(&inside.join("records"), &["check", "--format", "json"]);
    assert_eq!(
        nested.code, 0,
        "the new corpus checks clean: {}",
        nested.stdout
    );
}

/// A folder with no config in it or above is its own root, as it always was: a corpus
/// without a config is not mistaken for one it sits in.
#[test]
fn without_a_config_above_the_current_folder_is_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().join("records");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    let run = gotchas_in(&inside, &["check", "--color", "never"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("no corpus here: `.` holds no gotchas.toml and no schema folder"),
        "{}",
        run.stderr
    );
}

/// A corpus in a temporary folder made of the given files (paths from its root), with
/// `orphan` off: these corpora test schemas, not the web of records.
fn corpus_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "[rules]\norphan = \"allow\"\n",
    )
    .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A string field declared through a `$ref` (into `$defs`, into another file, under
/// `allOf`) is text, so a Markdown record may write it as a `## Section`; a field whose
/// `$ref` leads to an `enum` is not.
#[test]
fn markdown_sections_fill_string_fields_declared_through_ref() {
    let dir = corpus_of(&[
        (
            "schema/common.json",
            r#"{"$defs": {"prose": {"type": "string"}, "level": {"type": "string", "enum": ["low", "high"]}}}"#,
        ),
        (
            "schema/gotcha.schema.json",
            r##"{"type": "object", "required": ["symptom", "cause", "fix"],
                "$defs": {"text": {"type": "string"}},
                "properties": {"id": {}, "type": {}, "name": {},
                  "symptom": {"$ref": "#/$defs/text"},
                  "cause": {"$ref": "common.json#/$defs/prose"},
                  "fix": {"allOf": [{"$ref": "common.json#/$defs/prose"}]},
                  "level": {"$ref": "common.json#/$defs/level"}},
                "additionalProperties": false}"##,
        ),
        (
            "records/gotchas/g.md",
            "---\nid: g\ntype: gotcha\nname: G\n---\n\n## Symptom\n\nIt breaks.\n\n\
             ## Cause\n\nA bug.\n\n## Fix\n\nUpgrade.\n\n## Level\n\nlow\n",
        ),
    ]);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // `level` is no text field: its section stays prose, and its heading is no typo.
    assert!(
        run.stdout
            .ends_with("checked 1 record in 1 file: 0 errors, 0 warnings\n"),
        "{}",
        run.stdout
    );
}

/// An unknown key of an object declared in another schema file is compared with that
/// object's fields, and the fields a root takes from a `$ref`'d base are its fields too.
#[test]
fn unknown_fields_under_a_ref_to_another_file_get_did_you_mean() {
    let dir = corpus_of(&[
        (
            "schema/common.json",
            r#"{"$defs": {
                "flop": {"type": "object", "properties": {"precision": {}, "source_id": {}}, "additionalProperties": false},
                "base": {"properties": {"id": {}, "type": {}, "name": {}, "severity": {}}}}}"#,
        ),
        (
            "schema/gotcha.schema.json",
            r#"{"type": "object", "$ref": "common.json#/$defs/base",
                "properties": {"flops": {"type": "array", "items": {"$ref": "common.json#/$defs/flop"}}},
                "unevaluatedProperties": false}"#,
        ),
        (
            "records/gotchas/g.json",
            r#"{"id": "g", "type": "gotcha", "name": "g", "severty": "x", "flops": [{"precison": "a"}], "zzzzzz": 1}"#,
        ),
    ]);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for expected in [
        "error[unknown-field]: unknown field `severty`",
        "= help: did you mean `severity`?",
        "error[unknown-field]: unknown field `precison`",
        "= help: did you mean `precision`?",
        "= note: declared fields: `flops`, `id`, `type`, `name`, `severity`",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
}

/// An `x-ref` is found wherever a `$ref` leads the validator: a path with `..`, an anchor,
/// a percent-encoded or `~`-escaped pointer, draft 4's `id`, a draft 7 `$ref` whose sibling
/// `$id` is ignored, a `$dynamicRef`; each field's unknown id is reported.
#[test]
fn x_refs_are_found_through_every_ref_the_validator_follows() {
    let dir = corpus_of(&[
        (
            "schema/engine.schema.json",
            r#"{"type": "object", "properties": {"id": {}, "type": {}, "name": {}}}"#,
        ),
        (
            "schema/common.json",
            r#"{"$defs": {
                "e": {"type": "string", "x-ref": "engine"},
                "my eng": {"type": "string", "x-ref": "engine"},
                "a/b": {"type": "string", "x-ref": "engine"},
                "anchored": {"$anchor": "eng", "type": "string", "x-ref": "engine"},
                "dynamic": {"$dynamicAnchor": "dyn", "type": "string", "x-ref": "engine"}}}"#,
        ),
        (
            "schema/gotcha.schema.json",
            r#"{"type": "object", "properties": {"id": {}, "type": {}, "name": {},
                "dotted": {"type": "array", "items": {"$ref": "../schema/common.json#/$defs/e"}},
                "anchor": {"$ref": "common.json#eng"},
                "encoded": {"$ref": "common.json#/$defs/my%20eng"},
                "escaped": {"$ref": "common.json#/$defs/a~1b"},
                "dynamic": {"$dynamicRef": "common.json#dyn"}}}"#,
        ),
        (
            "schema/paper.schema.json",
            r##"{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                "definitions": {"e": {"id": "#eng", "type": "string", "x-ref": "engine"}},
                "properties": {"id": {}, "type": {}, "name": {}, "old": {"$ref": "#eng"}}}"##,
        ),
        (
            "schema/source.schema.json",
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"id": {}, "type": {}, "name": {},
                  "sibling": {"$id": "sub/x.json", "$ref": "common.json#/$defs/e"}}}"#,
        ),
        (
            "records/gotchas/g.json",
            r#"{"id": "g", "type": "gotcha", "name": "g", "dotted": ["no1"], "anchor": "no2",
                "encoded": "no3", "escaped": "no4", "dynamic": "no5"}"#,
        ),
        (
            "records/papers/p.json",
            r#"{"id": "p", "type": "paper", "name": "p", "old": "no6"}"#,
        ),
        (
            "records/sources/s.json",
            r#"{"id": "s", "type": "source", "name": "s", "sibling": "no7"}"#,
        ),
    ]);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    for (id, field) in [
        ("no1", "dotted"),
        ("no2", "anchor"),
        ("no3", "encoded"),
        ("no4", "escaped"),
        ("no5", "dynamic"),
        ("no6", "old"),
        ("no7", "sibling"),
    ] {
        let expected = format!("error[unresolved-ref]: `{id}` in `{field}` names no record");
        assert!(run.stdout.contains(&expected), "{expected}\n{}", run.stdout);
    }
}

/// Schemas with absolute `$id`s refer to each other by them, as the validator sees the
/// schema folder's files under their `$id`s too; a URL that is no file's `$id` is still
/// never fetched, and is refused at the `$ref` naming it.
#[test]
fn schemas_with_absolute_ids_ref_each_other_by_them() {
    let dir = corpus_of(&[
        (
            "schema/common.json",
            r#"{"$id": "https://ex.org/s/common.json", "$defs": {"n": {"type": "string"}}}"#,
        ),
        (
            "schema/engine.schema.json",
            r#"{"$id": "https://ex.org/s/engine.schema.json", "type": "object",
                "properties": {"id": {}, "type": {}, "name": {"$ref": "common.json#/$defs/n"}}}"#,
        ),
        (
            "records/engines/vllm.json",
            r#"{"id": "vllm", "type": "engine", "name": 5}"#,
        ),
    ]);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("error[schema-violation]: `name` must be string, found a number"),
        "{}",
        run.stdout
    );

    std::fs::write(
        dir.path().join("schema/engine.schema.json"),
        r#"{"$id": "https://ex.org/s/engine.schema.json", "type": "object",
    "properties": {"name": {"$ref": "https://elsewhere.example/n.json"}}}"#,
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("never fetched from the network"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(" --> schema/engine.schema.json:2:37\n"),
        "{}",
        run.stderr
    );
}

/// A `[references]` field path the schema does not declare (through arrays and `$ref`s),
/// or a `*` field no collection declares, is an error at its key with a did-you-mean; an
/// `x-ref` that is neither a name nor a list of names is one at its value.
#[test]
fn reference_fields_the_schemas_do_not_declare_exit_2() {
    let run = check(&fixture("setup/reference-fields"), &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    insta::assert_snapshot!("setup-reference-fields", run.stderr);
}

/// Runs `gotchas ARGS` with a time limit: a run that would block for ever on a named pipe
/// fails the test instead of hanging it.
fn gotchas_within_a_minute(args: &[&str]) -> common::Run {
    let cache = tempfile::tempdir().unwrap();
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .args(args)
        .env_remove("NO_COLOR")
        .env("GOTCHAS_CACHE_DIR", cache.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    common::Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// A corpus of one engine, with its schema.
fn one_engine() -> tempfile::TempDir {
    corpus_of(&[
        (
            "schema/engine.schema.json",
            r#"{"type": "object", "properties": {"id": {}, "type": {}, "name": {}}}"#,
        ),
        (
            "records/engines/vllm.json",
            r#"{"id": "vllm", "type": "engine", "name": "vLLM"}"#,
        ),
    ])
}

/// The schema folder is read as records are: a symlink out of the corpus is not followed
/// (its target is neither read nor quoted), a named pipe or a device is not opened (a pipe
/// would block the run for ever, `/dev/zero` would fill memory), a file over the size
/// limit is not read; each is named as a setup error.
#[test]
fn schema_files_out_of_the_corpus_special_or_too_large_are_not_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.json");
    std::fs::write(&secret, "{\"token\": \"TOPSECRET").unwrap();
    let dir = one_engine();
    let schema = dir.path().join("schema");
    std::os::unix::fs::symlink(&secret, schema.join("leak.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", schema.join("zero.json")).unwrap();
    let piped = named_pipe(&schema.join("pipe.schema.json"));
    // Over the limit: 10 MiB, unless the config raises it (lowered, it is for records).
    let big = format!("{{\"x\": \"{}\"}}", "a".repeat(10 * 1024 * 1024));
    std::fs::write(schema.join("big.json"), big).unwrap();
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "max_file_size = 100\n[rules]\norphan = \"allow\"\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let run = gotchas_within_a_minute(&["check", "--root", root, "--color", "never"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("TOPSECRET"), "{}", run.stderr);
    let out_of_corpus =
        "error[invalid-schema]: this symlink points outside the corpus, so it is not read";
    for expected in [
        format!("{out_of_corpus}\n--> schema/leak.json\n"),
        format!("= note: it points at {}\n", secret.canonicalize().unwrap().display()),
        format!("{out_of_corpus}\n--> schema/zero.json\n"),
        "error[invalid-schema]: the schema is 10485769 bytes, over the limit of 10485760 bytes\n--> schema/big.json\n".to_string(),
    ] {
        assert!(run.stderr.contains(&expected), "{expected}\n{}", run.stderr);
    }
    if piped {
        assert!(
            run.stderr.contains(
                "error[invalid-schema]: this is not a regular file (a folder, named pipe, socket or device), so it is not read\n--> schema/pipe.schema.json\n"
            ),
            "{}",
            run.stderr
        );
    }
}

/// A schema file saved with a UTF-8 byte-order mark is read, as a record would be.
#[test]
fn a_schema_with_a_byte_order_mark_is_read() {
    let dir = one_engine();
    std::fs::write(
        dir.path().join("schema/engine.schema.json"),
        "\u{feff}{\"type\": \"object\", \"properties\": {\"id\": {}, \"type\": {}, \"name\": {\"type\": \"integer\"}}}",
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("error[schema-violation]: `name` must be integer, found a string"),
        "{}",
        run.stdout
    );
}

/// Every file of `templates/` is published, so a symlink there out of the corpus is not
/// followed (the file it leads to would be on the site), and a named pipe is not opened:
/// the build stops, naming them, and writes nothing.
#[test]
fn template_files_out_of_the_corpus_or_special_are_not_published() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "TOPSECRET").unwrap();
    let dir = one_engine();
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    std::os::unix::fs::symlink(&secret, templates.join("logo.txt")).unwrap();
    let piped = named_pipe(&templates.join("pipe.css"));
    let site = outside.path().join("site");
    let run = gotchas_within_a_minute(&[
        "build",
        "--root",
        dir.path().to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(!site.exists(), "no site is written");
    assert!(
        run.stderr.contains(
            "error[invalid-config]: this symlink points outside the corpus, so it is not read\n--> templates/logo.txt\n"
        ),
        "{}",
        run.stderr
    );
    if piped {
        assert!(
            run.stderr
                .contains("so it is not read\n--> templates/pipe.css\n"),
            "{}",
            run.stderr
        );
    }
}
