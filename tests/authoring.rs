//! Authoring and parity commands through the binary: `new`, `convert`, `query`, `index`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{bundled_copy, check, copy_dir, gotchas, sample};

fn config() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(common::SAMPLE_CONFIG)
        .to_string_lossy()
        .into_owned()
}

fn run(root: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    gotchas(&all)
}

/// `SOURCE_DATE_EPOCH` dates a new record, and one that names no date is refused rather
/// than replaced by today's or written as a year no schema's `date` reads.
#[test]
fn new_dates_records_by_source_date_epoch_and_refuses_a_bad_one() {
    let dir = bundled_copy();
    let new = |epoch: &str, id: &str| {
        assert_cmd::Command::cargo_bin("gotchas")
            .unwrap()
            .args(["--root", dir.path().to_str().unwrap()])
            .args([
                "new", "engine", "--name", "E", "--id", id, "--format", "yaml",
            ])
            .args(["--source", "engine-vllm-github"])
            .env("SOURCE_DATE_EPOCH", epoch)
            .output()
            .unwrap()
    };
    let dated = new("86400", "dated");
    assert_eq!(dated.status.code(), Some(0));
    let written = std::fs::read_to_string(dir.path().join("records/engines/dated.yaml")).unwrap();
    assert!(written.contains("1970-01-02"), "{written}");
    for bad in ["abc", "99999999999999"] {
        let refused = new(bad, "refused");
        assert_eq!(refused.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains(&format!(
            "error: SOURCE_DATE_EPOCH `{bad}` is not a number of seconds since 1970"
        )));
        assert!(!dir.path().join("records/engines/refused.yaml").exists());
    }
}

#[test]
fn new_never_writes_outside_the_collection_folder() {
    let dir = bundled_copy();
    // A pattern that lets anything through leaves the file name as the only guard.
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "[collections.engine]\nid_pattern = \".*\"\n",
    )
    .unwrap();
    let schema = dir.path().join("schema/engine.schema.json");
    let before = std::fs::read(&schema).unwrap();
    for (id, why) in [
        ("../../schema/engine.schema", "path separator"),
        ("/tmp/gotchas-new-escape", "path separator"),
        (".hidden", "hidden"),
    ] {
        let run = run(
            dir.path(),
            &[
                "new", "engine", "--name", "x", "--id", id, "--format", "json", "--force",
            ],
        );
        assert_eq!(run.code, 2, "{id}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "error: the id `{id}` cannot name a record's file: "
            )),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains(why), "{}", run.stderr);
    }
    assert_eq!(std::fs::read(&schema).unwrap(), before);
    assert!(!Path::new("/tmp/gotchas-new-escape.json").exists());
}

#[test]
fn new_records_check_clean_in_every_collection_and_format() {
    let dir = bundled_copy();
    for collection in ["gotcha", "engine", "source"] {
        for format in ["md", "yaml", "json"] {
            let mut args = vec![
                "new",
                collection,
                "--name",
                "A new record",
                "--id",
                "",
                "--format",
                format,
            ];
            let id = format!("new-{collection}-{format}");
            args[5] = &id;
            if collection != "source" {
                args.extend(["--source", "engine-vllm-github"]);
            }
            let created = run(dir.path(), &args);
            assert_eq!(created.code, 0, "{}", created.stderr);
        }
    }
    let checked = check(dir.path(), &["--format", "json"]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    let errors =
        serde_json::from_str::<serde_json::Value>(&checked.stdout).unwrap()["summary"]["errors"]
            .clone();
    assert_eq!(errors, 0);
    let again = run(
        dir.path(),
        &["new", "engine", "--name", "x", "--id", "new-engine-md"],
    );
    assert_eq!(again.code, 2, "no overwrite without --force");
    assert!(
        again
            .stderr
            .contains("already exists: records/engines/new-engine-md.md"),
        "{}",
        again.stderr
    );
    let other_format = run(
        dir.path(),
        &[
            "new",
            "engine",
            "--name",
            "x",
            "--id",
            "new-engine-md",
            "--format",
            "yaml",
            "--force",
        ],
    );
    assert_eq!(
        other_format.code, 2,
        "--force replaces a file, never adds a second"
    );
    assert!(
        other_format
            .stderr
            .contains("pass --format md to overwrite it"),
        "{}",
        other_format.stderr
    );
    assert!(
        !dir.path()
            .join("records/engines/new-engine-md.yaml")
            .exists()
    );
    let forced = run(
        dir.path(),
        &[
            "new",
            "engine",
            "--name",
            "x",
            "--id",
            "new-engine-md",
            "--format",
            "md",
            "--force",
            "--source",
            "engine-vllm-github",
        ],
    );
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let typo = run(
        dir.path(),
        &[
            "new",
            "gotcha",
            "--name",
            "x",
            "--source",
            "engine-vllm-githb",
        ],
    );
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean engine-vllm-github"),
        "{}",
        typo.stderr
    );
}

#[test]
fn a_new_record_id_spells_the_name_in_ascii() {
    let dir = bundled_copy();
    let created = run(
        dir.path(),
        &[
            "new",
            "engine",
            "--name",
            "Café Engine",
            "--format",
            "yaml",
            "--source",
            "engine-vllm-github",
        ],
    );
    assert_eq!(created.code, 0, "{}", created.stderr);
    let record = dir.path().join("records/engines/cafe-engine.yaml");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.contains("id: cafe-engine") && text.contains("name: Café Engine"),
        "{text}"
    );
    // A name as long as a paragraph makes an id of the words that fit.
    let sentence = "a very long name ".repeat(20);
    let long = run(
        dir.path(),
        &[
            "new",
            "engine",
            "--name",
            &sentence,
            "--format",
            "yaml",
            "--source",
            "engine-vllm-github",
        ],
    );
    assert_eq!(long.code, 0, "{}", long.stderr);
    let id = "a-very-long-name-".repeat(3) + "a-very-long";
    assert!(
        long.stdout.contains(&format!("records/engines/{id}.yaml")),
        "{}",
        long.stdout
    );
}

#[test]
fn new_records_validate_in_every_collection_of_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&sample(), dir.path());
    let before = run(
        dir.path(),
        &["--config", &config(), "check", "--format", "json"],
    );
    let collections: Vec<String> = std::fs::read_dir(dir.path().join("schemas"))
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".schema.json")
                .map(str::to_string)
        })
        .collect();
    assert!(collections.len() >= 10);
    for collection in &collections {
        let created = run(
            dir.path(),
            &[
                "--config",
                &config(),
                "new",
                collection,
                "--name",
                &format!("Fresh {collection}"),
                "--format",
                "json",
            ],
        );
        assert_eq!(created.code, 0, "{collection}: {}", created.stderr);
    }
    let after = run(
        dir.path(),
        &["--config", &config(), "check", "--format", "json"],
    );
    let errors = |run: &common::Run| {
        serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap()["summary"]["errors"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        errors(&after),
        errors(&before),
        "the new records add no error: {}",
        after.stdout
    );
}

/// Every record of a corpus folder: displayed path without extension -> value.
fn values(root: &Path) -> BTreeMap<String, serde_json::Value> {
    let mut found = BTreeMap::new();
    for folder in std::fs::read_dir(root.join("data")).unwrap().flatten() {
        for file in std::fs::read_dir(folder.path()).unwrap().flatten() {
            let path = file.path();
            let text = std::fs::read_to_string(&path).unwrap();
            let key = path
                .with_extension("")
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            found.insert(key, serde_json::from_str(&text).unwrap());
        }
    }
    found
}

#[test]
fn convert_to_markdown_and_back_keeps_every_value_of_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&sample(), dir.path());
    let original = values(dir.path());
    let to_md = run(
        dir.path(),
        &[
            "--config",
            &config(),
            "convert",
            "--to",
            "md",
            "--all",
            "--in-place",
        ],
    );
    assert_eq!(to_md.code, 0, "{}", to_md.stderr);
    assert!(to_md.stdout.contains("converted 321 of 321 records"));
    let markdown = std::fs::read_to_string(dir.path().join("data/engines/mooncake.md")).unwrap();
    assert!(markdown.starts_with("---\nid: mooncake\n"));
    assert!(
        markdown.contains("\n## Notes\n\n"),
        "long text fields become sections"
    );
    let checked_md = run(
        dir.path(),
        &["--config", &config(), "check", "--format", "json"],
    );
    let summary = |run: &common::Run| {
        serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap()["summary"]["errors"].clone()
    };
    let to_json = run(
        dir.path(),
        &[
            "--config",
            &config(),
            "convert",
            "--to",
            "json",
            "--all",
            "--in-place",
        ],
    );
    assert_eq!(to_json.code, 0, "{}", to_json.stderr);
    assert_eq!(values(dir.path()), original);
    let checked_json = run(
        dir.path(),
        &["--config", &config(), "check", "--format", "json"],
    );
    assert_eq!(
        summary(&checked_md),
        summary(&checked_json),
        "Markdown records validate like JSON ones"
    );
}

#[test]
fn convert_prints_without_in_place_and_refuses_lossy_markdown() {
    let dir = bundled_copy();
    let printed = run(
        dir.path(),
        &[
            "convert",
            "--to",
            "json",
            "pd-batch-invariant-mode-absent-from-kv-namespace",
        ],
    );
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let value: serde_json::Value = serde_json::from_str(&printed.stdout).unwrap();
    assert_eq!(
        value["affects"],
        serde_json::json!(["vllm", "nixl", "mooncake", "nvidia-dynamo"])
    );
    assert!(
        value["root_cause"]
            .as_str()
            .unwrap()
            .starts_with("The compatibility metadata is incomplete")
    );
    let record = dir
        .path()
        .join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace("## Symptom", "Some free prose.\n\n## Symptom"),
    )
    .unwrap();
    let refused = run(
        dir.path(),
        &["convert", "--to", "yaml", "--all", "--in-place"],
    );
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("prose outside the field sections"));
    assert!(record.exists(), "a refused record is left as it was");
    let named = run(
        dir.path(),
        &[
            "convert",
            "--to",
            "yaml",
            "pd-batch-invariant-mode-absent-from-kv-namespace",
        ],
    );
    assert_eq!(named.code, 1);
    assert!(named.stderr.contains("prose outside the field sections"));
    // To Markdown as well: the record is written from its fields, whatever the format.
    let again = run(
        dir.path(),
        &["convert", "--to", "md", "--all", "--in-place"],
    );
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("prose outside the field sections"));
    assert!(
        std::fs::read_to_string(&record)
            .unwrap()
            .contains("Some free prose.")
    );
    // A heading holding more than its field's name would lose the rest.
    std::fs::write(
        &record,
        text.replace("## Symptom", "## [Symptom](https://example.org/advisory)"),
    )
    .unwrap();
    let linked = run(
        dir.path(),
        &["convert", "--to", "json", "--all", "--in-place"],
    );
    assert_eq!(linked.code, 1);
    assert!(linked.stderr.contains("markup in a section's heading"));
    assert!(record.exists());
}

#[test]
fn convert_refuses_a_record_that_sets_a_field_twice() {
    let dir = bundled_copy();
    let engine = dir.path().join("records/engines/vllm.yaml");
    let yaml = std::fs::read_to_string(&engine).unwrap() + "name: Another name\n";
    std::fs::write(&engine, &yaml).unwrap();
    let gotcha = dir
        .path()
        .join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
    let markdown = std::fs::read_to_string(&gotcha).unwrap().replacen(
        "---\n",
        "---\nsymptom: A short one.\n",
        1,
    );
    std::fs::write(&gotcha, &markdown).unwrap();
    for args in [
        &["convert", "--to", "json", "--all", "--in-place"][..],
        &["convert", "--to", "json", "--in-place", "vllm"],
        &[
            "convert",
            "--to",
            "json",
            "pd-batch-invariant-mode-absent-from-kv-namespace",
        ],
    ] {
        let refused = run(dir.path(), args);
        assert_eq!(refused.code, 1, "{args:?}");
        assert!(
            refused.stderr.contains("sets a field twice"),
            "{args:?}: {}",
            refused.stderr
        );
    }
    assert_eq!(std::fs::read_to_string(&engine).unwrap(), yaml);
    assert_eq!(std::fs::read_to_string(&gotcha).unwrap(), markdown);
}

#[test]
fn convert_refuses_an_integer_it_would_round() {
    let dir = bundled_copy();
    let engine = dir.path().join("records/engines/vllm.yaml");
    let yaml = std::fs::read_to_string(&engine).unwrap();
    let huge = "123456789012345678901234";
    std::fs::write(
        &engine,
        yaml.replace(
            "first_release_year: 2023",
            &format!("first_release_year: {huge}"),
        ),
    )
    .unwrap();
    let refused = run(
        dir.path(),
        &["convert", "--to", "json", "--in-place", "vllm"],
    );
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains(&format!("the integer {huge}")),
        "{}",
        refused.stderr
    );
    assert!(engine.exists(), "left as it was");
    // The largest integers 64 bits hold are kept, and converted.
    std::fs::write(
        &engine,
        yaml.replace(
            "first_release_year: 2023",
            "first_release_year: 18446744073709551615",
        ),
    )
    .unwrap();
    let json = run(dir.path(), &["convert", "--to", "json", "vllm"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert!(
        json.stdout
            .contains("\"first_release_year\": 18446744073709551615"),
        "{}",
        json.stdout
    );
    std::fs::write(
        dir.path().join("records/engines/vllm.json"),
        json.stdout
            .replace("18446744073709551615", &format!("-{huge}")),
    )
    .unwrap();
    std::fs::remove_file(&engine).unwrap();
    let refused = run(dir.path(), &["convert", "--to", "yaml", "vllm"]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains(&format!("the integer -{huge}")),
        "{}",
        refused.stderr
    );
    // A YAML integer tagged as one is read as a number however it is quoted.
    std::fs::remove_file(dir.path().join("records/engines/vllm.json")).unwrap();
    std::fs::write(
        &engine,
        yaml.replace(
            "first_release_year: 2023",
            &format!("first_release_year: !!int \"{huge}\""),
        ),
    )
    .unwrap();
    let tagged = run(dir.path(), &["convert", "--to", "json", "vllm"]);
    assert_eq!(tagged.code, 1, "{}", tagged.stdout);
    assert!(tagged.stderr.contains(&format!("the integer {huge}")));
}

#[test]
fn converted_yaml_escapes_what_other_yaml_readers_refuse() {
    let dir = bundled_copy();
    let engine = dir.path().join("records/engines/vllm.yaml");
    let text = std::fs::read_to_string(&engine)
        .unwrap()
        .replace("name: vLLM", "name: \"v\\x7fLLM\\x85\"");
    std::fs::write(&engine, text).unwrap();
    let printed = run(dir.path(), &["convert", "--to", "yaml", "vllm"]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    assert!(
        printed.stdout.contains("name: \"v\\u007fLLM\\u0085\"\n"),
        "{}",
        printed.stdout
    );
}

/// A text holding a control character or a line separator is no Markdown prose: written
/// raw, a NUL makes git take the file for binary and an ESC drives the terminal showing
/// it. It stays in the front matter, escaped, and reads back equal.
#[test]
fn convert_to_markdown_keeps_control_characters_escaped_in_the_front_matter() {
    let dir = bundled_copy();
    let id = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let to_json = run(dir.path(), &["convert", "--to", "json", "--in-place", id]);
    assert_eq!(to_json.code, 0, "{}", to_json.stderr);
    let json = dir.path().join(format!("records/gotchas/{id}.json"));
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    value["notes"] = "line one\nline two \u{0} nul \u{1b}[31m red \u{7}".into();
    let name = value["name"].as_str().unwrap().to_string();
    value["name"] = format!("{name} \u{85} \u{2028} \u{2029} \u{7f} \u{9b}").into();
    std::fs::write(&json, serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let to_md = run(dir.path(), &["convert", "--to", "md", "--in-place", id]);
    assert_eq!(to_md.code, 0, "{}", to_md.stderr);
    let markdown = std::fs::read_to_string(json.with_extension("md")).unwrap();
    let raw: Vec<char> = markdown
        .chars()
        .filter(|&c| {
            (c.is_control() && !matches!(c, '\t' | '\n')) || matches!(c, '\u{2028}' | '\u{2029}')
        })
        .collect();
    assert_eq!(raw, [], "{markdown}");
    assert!(
        markdown.contains("\nnotes: \"line one\\nline two \\u0000 nul \\u001b[31m red \\u0007\"\n"),
        "{markdown}"
    );
    assert!(!markdown.contains("## Notes"), "{markdown}");
    assert!(markdown.contains("## Symptom"), "{markdown}");

    let back = run(dir.path(), &["convert", "--to", "json", "--in-place", id]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    let read: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(read, value);
}

#[test]
fn a_records_values_do_not_depend_on_its_line_endings() {
    let dir = bundled_copy();
    let id = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let record = dir.path().join(format!("records/gotchas/{id}.md"));
    // A section of two lines, so that its value holds a line break.
    let text = std::fs::read_to_string(&record).unwrap().replacen(
        "## Symptom\n\n",
        "## Symptom\n\nA first line,\n",
        1,
    );
    std::fs::write(&record, &text).unwrap();
    let lf = run(dir.path(), &["convert", "--to", "json", id]);
    assert_eq!(lf.code, 0, "{}", lf.stderr);
    std::fs::write(&record, text.replace('\n', "\r\n")).unwrap();
    let crlf = run(dir.path(), &["convert", "--to", "json", id]);
    assert_eq!(crlf.code, 0, "{}", crlf.stderr);
    assert_eq!(crlf.stdout, lf.stdout);
    std::fs::write(&record, text.replace('\n', "\r")).unwrap();
    let cr = run(dir.path(), &["convert", "--to", "json", id]);
    assert_eq!(cr.code, 0, "{}", cr.stderr);
    assert_eq!(cr.stdout, lf.stdout);
}

#[test]
fn convert_prints_named_records_in_the_order_named() {
    let dir = bundled_copy();
    let printed = run(
        dir.path(),
        &["convert", "--to", "json", "vllm", "mooncake", "vllm"],
    );
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let headers: Vec<&str> = printed
        .stdout
        .lines()
        .filter(|line| line.starts_with("==> "))
        .collect();
    assert_eq!(
        headers,
        [
            "==> records/engines/vllm.json <==",
            "==> records/engines/mooncake.json <==",
            "==> records/engines/vllm.json <==",
        ]
    );
    assert!(printed.stdout.contains("\"id\": \"mooncake\""));
}

#[test]
fn query_search_lists_the_mooncake_engine_first() {
    let json = run(
        &sample(),
        &[
            "--config",
            &config(),
            "query",
            "search",
            "mooncake",
            "--format",
            "json",
        ],
    );
    assert_eq!(json.code, 0, "{}", json.stderr);
    let hits: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(hits[0]["id"], "engines/mooncake");
    assert!(hits.as_array().unwrap().len() > 1);
    let table = run(
        &sample(),
        &["--config", &config(), "query", "search", "mooncake"],
    );
    assert!(
        table
            .stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("engines/mooncake")
    );
}

#[test]
fn query_search_json_holds_whole_names_and_the_table_cuts_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = "Batch-invariant mode is not part of any KV-offload namespace or connector \
                compatibility check, so a numerics-mode mismatch across prefill and decode is \
                undetectable";
    let json = run(
        root,
        &[
            "query",
            "search",
            "batch-invariant-mode",
            "--format",
            "json",
        ],
    );
    assert_eq!(json.code, 0, "{}", json.stderr);
    let hits: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(hits[0]["name"], name);
    let table = run(root, &["query", "search", "batch-invariant-mode"]);
    assert!(
        table
            .stdout
            .contains("Batch-invariant mode is not part of any KV-offloa…")
    );
}

/// Numbers sort before text, each in its own order, whichever ids the records have; a
/// number is matched as a number.
#[test]
fn query_list_sorts_mixed_values_one_way_and_matches_numbers_as_numbers() {
    let engine = |id: &str, name: &str, confidence: &str| {
        format!(
            "id: {id}\ntype: engine\nname: \"{name}\"\nstatus: draft\nconfidence: {confidence}\n\
             updated: 2026-01-01\nsources: [s]\n"
        )
    };
    let names = ["10", "9", "1a", "-3", "b"];
    for rotation in 0..names.len() {
        let records: Vec<(String, String)> = (0..names.len())
            .map(|i| {
                let id = format!("e{i}");
                let name = names[(i + rotation) % names.len()];
                (format!("engines/{id}.yaml"), engine(&id, name, "0.8"))
            })
            .collect();
        let files: Vec<(&str, &[u8])> = records
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_bytes()))
            .collect();
        let dir = common::temp_corpus(&files);
        let listed = run(
            dir.path(),
            &[
                "query", "list", "engines", "--sort", "name", "--format", "json",
            ],
        );
        assert_eq!(listed.code, 0, "{}", listed.stderr);
        let rows: Vec<serde_json::Value> = serde_json::from_str(&listed.stdout).unwrap();
        let sorted: Vec<&str> = rows
            .iter()
            .map(|r| r["record"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(sorted, ["-3", "9", "10", "1a", "b"], "rotation {rotation}");
        let matched = run(
            dir.path(),
            &["query", "list", "engines", "--where", "confidence=0.80"],
        );
        assert_eq!(
            matched.stdout.lines().count(),
            1 + names.len(),
            "{}",
            matched.stdout
        );
    }
}

/// An id given to several records of one collection names none of them alone: `get`
/// and `convert` say which files hold it rather than pick the first.
#[test]
fn an_id_held_twice_is_named_by_neither_record() {
    let engine = |name: &str| {
        format!(
            "id: twice\ntype: engine\nname: {name}\nstatus: draft\nconfidence: 0.5\n\
             updated: 2026-01-01\nsources: [s]\n"
        )
    };
    let (first, second) = (engine("First"), engine("Second"));
    let dir = common::temp_corpus(&[
        ("engines/twice.yaml", first.as_bytes()),
        ("engines/z.yaml", second.as_bytes()),
    ]);
    for args in [
        &["query", "get", "twice"][..],
        &["convert", "--to", "json", "twice"],
    ] {
        let run = run(dir.path(), args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(
            run.stderr.contains(
                "error: `twice` names 2 records, one id in one collection: records/engines/twice.yaml, records/engines/z.yaml"
            ),
            "{}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn query_list_filters_sorts_and_get_suggests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = run(
        root,
        &[
            "query",
            "list",
            "engines",
            "--where",
            "license=Apache-2.0",
            "--sort",
            "first_release_year",
        ],
    );
    assert_eq!(listed.code, 0);
    insta::assert_snapshot!("query-list", listed.stdout);
    let by_name = run(root, &["query", "list", "engines", "--sort", "name"]);
    let header: Vec<&str> = by_name
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["id", "name"], "the name column once");
    // A field or value the schema does not have is refused, with a did-you-mean.
    for (args, said) in [
        (
            ["--where", "licence=Apache-2.0"],
            "error: --where `licence`: `engine` records have no field `licence`\nhelp: did you mean `license`?",
        ),
        (
            ["--sort", "first_release_yaer"],
            "help: did you mean `first_release_year`?",
        ),
        (
            ["--where", "status=verifed"],
            "error: --where `status=verifed`: `verifed` is not an allowed value of `status`\nhelp: did you mean `verified`?",
        ),
    ] {
        let refused = run(
            root,
            &[&["query", "list", "engines"][..], &args[..]].concat(),
        );
        assert_eq!(refused.code, 2, "{args:?}");
        assert!(refused.stderr.contains(said), "{}", refused.stderr);
    }
    let nested = run(
        &sample(),
        &[
            "--config",
            &config(),
            "query",
            "list",
            "accelerators",
            "--where",
            "flops.precision=fp4",
            "--format",
            "json",
        ],
    );
    let items: serde_json::Value = serde_json::from_str(&nested.stdout).unwrap();
    assert!(!items.as_array().unwrap().is_empty());
    let engines = run(root, &["query", "list", "engines", "--format", "json"]);
    let engines: serde_json::Value = serde_json::from_str(&engines.stdout).unwrap();
    let vllm = engines
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["id"] == "engines/vllm")
        .expect("vllm is listed");
    let keys: Vec<&String> = vllm.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "record"], "each item: the id, then the fields");
    assert_eq!(vllm["record"]["name"], "vLLM");
    let got = run(root, &["query", "get", "vllm", "--format", "json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&got.stdout).unwrap()["name"],
        "vLLM"
    );
    let missing = run(root, &["query", "get", "mooncache"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("did you mean mooncake (engines/mooncake)?")
    );
}

#[test]
fn index_counts_one_record_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(
        dir.path().join("schema/engine.schema.json"),
        r#"{"x-collection": "engines", "type": "object"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("records/engines")).unwrap();
    std::fs::write(
        dir.path().join("records/engines/vllm.json"),
        r#"{"id": "vllm"}"#,
    )
    .unwrap();
    let index = run(dir.path(), &["index"]);
    assert_eq!(index.code, 0, "{}", index.stderr);
    assert!(
        index.stdout.contains("\n1 record in 1 collection.\n"),
        "{}",
        index.stdout
    );
}

#[test]
fn index_escapes_folder_names_and_names_a_record_without_a_name_by_its_id() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(
        dir.path().join("schema/faq.schema.json"),
        r#"{"x-collection": "q|a", "type": "object"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("records/q|a")).unwrap();
    std::fs::write(
        dir.path().join("records/q|a/why.json"),
        r#"{"id": "why", "name": " "}"#,
    )
    .unwrap();
    let index = run(dir.path(), &["index"]);
    assert_eq!(index.code, 0, "{}", index.stderr);
    assert!(
        index.stdout.contains("| [q\\|a](#qa) | 1 |\n"),
        "a `|` would end the table's cell: {}",
        index.stdout
    );
    assert!(
        index.stdout.contains("- **why** (`why`)"),
        "{}",
        index.stdout
    );
}

/// What a record holds reaches the index as text, never as Markdown: a value with line
/// breaks cannot open a heading or a list item, a property name with a `|` cannot end a
/// table's cell, an id with a backtick stays in its code span, and a name with spaces at
/// its ends is still bold.
#[test]
fn index_shows_record_values_as_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(
        dir.path().join("schema/note.schema.json"),
        r#"{"type": "object", "properties": {"id": {}, "name": {}, "a|b": {},
            "kind": {"enum": ["plain", "major\n## Injected heading\n- injected item"]}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("records/notes")).unwrap();
    std::fs::write(
        dir.path().join("records/notes/odd.json"),
        r#"{"id": "odd`one", "name": " padded ", "a|b": 1,
            "kind": "major\n## Injected heading\n- injected item"}"#,
    )
    .unwrap();
    let index = run(dir.path(), &["index"]);
    assert_eq!(index.code, 0, "{}", index.stderr);
    assert!(
        index.stdout.contains(
            "- **padded** (``odd`one``) — kind: major ## Injected heading - injected item\n"
        ),
        "{}",
        index.stdout
    );
    assert!(!index.stdout.contains("\n## Injected"), "{}", index.stdout);
    assert!(
        index.stdout.contains("| `a\\|b` | 1 of 1 |\n"),
        "{}",
        index.stdout
    );
}

#[test]
fn index_is_deterministic_and_check_detects_a_stale_one() {
    let dir = bundled_copy();
    let missing = run(dir.path(), &["index", "--check"]);
    assert_eq!(missing.code, 1);
    assert!(
        missing
            .stderr
            .contains("INDEX.md does not exist; run `gotchas index --out "),
        "{}",
        missing.stderr
    );
    let written = run(
        dir.path(),
        &[
            "index",
            "--out",
            dir.path().join("INDEX.md").to_str().unwrap(),
        ],
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    let index = std::fs::read_to_string(dir.path().join("INDEX.md")).unwrap();
    insta::assert_snapshot!("index", index);
    assert_eq!(run(dir.path(), &["index", "--check"]).code, 0);
    run(
        dir.path(),
        &[
            "new",
            "engine",
            "--name",
            "Brand new engine",
            "--format",
            "yaml",
        ],
    );
    let stale = run(dir.path(), &["index", "--check"]);
    assert_eq!(stale.code, 1);
    assert!(
        stale
            .stdout
            .contains("+- **Brand new engine** (`brand-new-engine`)"),
        "{}",
        stale.stdout
    );
}

/// A record converted in place keeps its file's permissions under its new name, and a new
/// record gets those any new file gets (the umask's), not a temporary file's `0600`.
#[cfg(unix)]
#[test]
fn converted_and_new_records_get_the_permissions_people_expect() {
    use std::os::unix::fs::PermissionsExt;
    let corpus = bundled_copy();
    let root = corpus.path();
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode();
    let engine = root.join("records/engines/vllm.yaml");
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o664)).unwrap();
    let converted = run(root, &["convert", "--to", "json", "--in-place", "vllm"]);
    assert_eq!(converted.code, 0, "{}", converted.stderr);
    assert_eq!(mode(&root.join("records/engines/vllm.json")) & 0o777, 0o664);

    let reference = root.join("made-by-std");
    std::fs::write(&reference, "").unwrap();
    let made = run(root, &["new", "engine", "--name", "Fresh Engine"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let new = root.join("records/engines/fresh-engine.md");
    assert_eq!(mode(&new), mode(&reference));
}

/// A name holding a line break, a `#` or Markdown's own characters keeps each record on one
/// line of a table or of the index, and Mermaid shows it as written.
#[test]
fn a_name_with_line_breaks_and_markup_stays_on_its_line() {
    let dir = bundled_copy();
    let vllm = dir.path().join("records/engines/vllm.yaml");
    let record = std::fs::read_to_string(&vllm).unwrap();
    let name = r#"name: "A **bold** | pipe\nsecond line #35; end""#;
    std::fs::write(&vllm, record.replace("name: vLLM", name)).unwrap();
    let listed = run(dir.path(), &["query", "list", "engines"]);
    assert_eq!(listed.stdout.lines().count(), 5, "{}", listed.stdout);
    assert!(
        listed
            .stdout
            .contains("A **bold** | pipe second line #35; end"),
        "{}",
        listed.stdout
    );
    let index = run(dir.path(), &["index"]);
    assert!(
        index
            .stdout
            .contains("- **A \\*\\*bold\\*\\* \\| pipe second line #35; end** (`vllm`)"),
        "{}",
        index.stdout
    );
    let mermaid = run(dir.path(), &["graph", "--format", "mermaid"]);
    assert!(
        mermaid
            .stdout
            .contains("[\"A **bold** | pipe second line #35;35; end\"]"),
        "{}",
        mermaid.stdout
    );
}

/// A record that did not load is missing from every answer but `check`'s, and each command
/// says that some did not, rather than answer as if the corpus were whole.
#[test]
fn commands_say_when_records_did_not_load() {
    let dir = bundled_copy();
    std::fs::write(dir.path().join("gotchas.toml"), "max_file_size = 100\n").unwrap();
    let note = "note: 10 problems while loading; this shows what loaded (run `gotchas check`)\n";
    for args in [
        &["query", "list", "gotchas"][..],
        &["query", "search", "cache"],
        &["query", "get", "vllm"],
        &["stats"],
        &["index"],
        &["graph"],
    ] {
        let answered = run(dir.path(), args);
        assert!(
            answered.stderr.ends_with(note),
            "{args:?}: {}",
            answered.stderr
        );
    }
}

/// A record kept as `.yml` is overwritten in place by `--force --format yaml`, which is what
/// the refusal of another format tells the author to run; never joined by a `.yaml` twin.
#[test]
fn new_force_overwrites_a_yml_record_where_it_is() {
    let dir = bundled_copy();
    let yml = dir.path().join("records/gotchas/foo.yml");
    std::fs::write(
        &yml,
        "id: foo\ntype: gotcha\nname: Foo\nseverity: minor\nsymptom: x\n",
    )
    .unwrap();
    let new = |format: &str| {
        run(
            dir.path(),
            &[
                "new",
                "gotcha",
                "--name",
                "Foo",
                "--force",
                "--format",
                format,
                "--source",
                "engine-vllm-github",
            ],
        )
    };
    let refused = new("md");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("records/gotchas/foo.yml\nhelp: pass --format yaml to overwrite it"),
        "{}",
        refused.stderr
    );
    let forced = new("yaml");
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(
        forced.stdout.contains("created records/gotchas/foo.yml"),
        "{}",
        forced.stdout
    );
    assert!(!dir.path().join("records/gotchas/foo.yaml").exists());
    let written = std::fs::read_to_string(&yml).unwrap();
    assert!(written.contains("status: draft"), "{written}");
    // With both spellings there, no `--format` names the other file.
    std::fs::copy(&yml, dir.path().join("records/gotchas/foo.yaml")).unwrap();
    let both = new("yaml");
    assert_eq!(both.code, 2, "{}", both.stderr);
    assert!(
        both.stderr.contains("help: delete one of the two first"),
        "{}",
        both.stderr
    );
}

/// A fresh project in a temporary folder: the given schema files, and a config that lets a
/// lone record be (a new record cites nothing yet).
fn project_with_schemas(schemas: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "[rules]\norphan = \"allow\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    for (name, text) in schemas {
        std::fs::write(dir.path().join("schema").join(name), text).unwrap();
    }
    dir
}

/// A text field whose `## Heading` would read back as another field name (camelCase,
/// capitals, dashes, doubled underscores) is written in the front matter of a Markdown
/// skeleton, so the record checks clean as its YAML twin does.
#[test]
fn new_markdown_keeps_fields_a_heading_cannot_name_in_the_front_matter() {
    let dir = project_with_schemas(&[(
        "note.schema.json",
        r#"{"title": "note", "type": "object",
            "required": ["id", "type", "name", "rootCause", "Summary", "side-effect", "a__b", "api_URL", "plain_text"],
            "properties": {"id": {"type": "string"}, "type": {"const": "note"}, "name": {"type": "string"},
              "rootCause": {"type": "string"}, "Summary": {"type": "string"},
              "side-effect": {"type": "string"}, "a__b": {"type": "string"},
              "api_URL": {"type": "string"}, "plain_text": {"type": "string"}},
            "additionalProperties": false}"#,
    )]);
    let created = run(dir.path(), &["new", "note", "--name", "One"]);
    assert_eq!(created.code, 0, "{}", created.stderr);
    let text = std::fs::read_to_string(dir.path().join("records/notes/one.md")).unwrap();
    for field in ["rootCause", "Summary", "side-effect", "a__b", "api_URL"] {
        assert!(
            text.contains(&format!("{field}: \"\"\n")),
            "{field}: {text}"
        );
    }
    assert!(text.ends_with("---\n\n## Plain text\n\n"), "{text}");
    let checked = check(dir.path(), &[]);
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    assert!(
        checked.stdout.contains("0 errors, 0 warnings"),
        "{}",
        checked.stdout
    );
}

/// `new` follows what the checker follows (`$ref` into `$defs` and other files, `allOf`
/// bases, `oneOf`/`anyOf` branches) and meets `minItems`, nested required objects, number
/// bounds, formats, `minLength`, `default` and `examples`; what no placeholder can meet (a
/// `pattern`, a reference with no record to point at) is written anyway and listed on
/// stderr, each field with why, and `check` reports exactly those.
#[test]
fn new_skeletons_meet_the_schema_and_list_what_they_cannot() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&common::fixture("authoring/skeleton"), dir.path());
    let new = |args: &[&str]| {
        let output = assert_cmd::Command::cargo_bin("gotchas")
            .unwrap()
            .args(["--root", dir.path().to_str().unwrap(), "new"])
            .args(args)
            .env("SOURCE_DATE_EPOCH", "86400")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = new(&["memo", "--name", "M one"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let memo = std::fs::read_to_string(dir.path().join("records/memos/m-one.md")).unwrap();
    for line in [
        "name: M one\n",
        "status: draft\n",
        "updated: 1970-01-02\n",
        "body: TODO TODO TODO\n",
    ] {
        assert!(memo.contains(line), "{line}: {memo}");
    }
    for format in ["yaml", "md"] {
        let id = format!("thing-{format}");
        let (code, stderr) = new(&[
            "thing", "--name", "A thing", "--id", &id, "--format", format,
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(
            stderr,
            "warning: the new record does not validate until these are filled in (`gotchas check` reports them):\n  \
             `code`: `\"\"` does not match \"^[A-Z]{3}$\" [schema-violation]\n  \
             `team`: a reference to a `team` record, and there is none to point it at yet [unresolved-ref]\n"
        );
    }
    let thing = std::fs::read_to_string(dir.path().join("records/things/thing-yaml.yaml")).unwrap();
    assert_eq!(
        thing,
        "id: thing-yaml\ntype: thing\nname: A thing\ntags:\n  - TODO\n  - TODO\nowner:\n  \
         group: \"\"\n  contact: name@example.com\nlink: \"https://example.com/\"\ncount: 1\n\
         ratio: 0.75\nseen: \"1970-01-02T00:00:00Z\"\nlevel: 3\nshade: \"#00aaff\"\nsize: 1\n\
         kind: \"https://example.com/\"\ncode: \"\"\nteam: \"\"\n"
    );
    let checked = check(dir.path(), &["--format", "json"]);
    let mut found: Vec<(String, String)> = common::json_report(&checked)
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    let expected: Vec<(String, String)> = [
        ("schema-violation", "records/things/thing-md.md"),
        ("schema-violation", "records/things/thing-yaml.yaml"),
        ("unresolved-ref", "records/things/thing-md.md"),
        ("unresolved-ref", "records/things/thing-yaml.yaml"),
    ]
    .iter()
    .map(|(code, path)| (code.to_string(), path.to_string()))
    .collect();
    assert_eq!(found, expected, "{}", checked.stdout);
}

/// A schema no skeleton can meet (a tree that requires itself on both sides, arrays asking
/// for a billion items) is built within bounds: the record is written, and the list of what
/// is unmet is cut short with a pointer to `check`.
#[test]
fn new_skeletons_of_endless_schemas_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&common::fixture("authoring/skeleton"), dir.path());
    let started = std::time::Instant::now();
    let created = run(
        dir.path(),
        &["new", "knot", "--name", "K", "--format", "json"],
    );
    assert_eq!(created.code, 0, "{}", created.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(created.stderr.lines().count(), 22, "{}", created.stderr);
    assert!(
        created
            .stderr
            .contains(" more, which `gotchas check` lists\n"),
        "{}",
        created.stderr
    );
    let written = std::fs::metadata(dir.path().join("records/knots/k.json")).unwrap();
    assert!(written.len() < 1 << 20, "{}", written.len());
}

/// The `thing` schema the query and convert tests below share: a nullable enum, a field of
/// any type and a nested object.
const THING_SCHEMA: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"thing","x-collection":"things","type":"object","required":["id","type"],"properties":{"id":{"type":"string"},"type":{"const":"thing"},"name":{"type":"string"},"notes":{"type":"string"},"prio":{"enum":["low","high",null]},"mixed":{"enum":["a",1,true]},"level":{"enum":[1,2,3]},"n":{},"misc":{"type":"object","properties":{"k":{"type":"string"}}},"flops":{"type":"array","items":{"type":"object","properties":{"precision":{"type":"string"}}}}},"additionalProperties":true}"#;

/// A project of `things` records: file name in `records/things/` -> text.
fn things(records: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = project_with_schemas(&[("thing.schema.json", THING_SCHEMA)]);
    let folder = dir.path().join("records/things");
    std::fs::create_dir_all(&folder).unwrap();
    for (name, text) in records {
        std::fs::write(folder.join(name), text).unwrap();
    }
    dir
}

/// A YAML comment, in a YAML record or a Markdown record's front matter, is not in the
/// record, so converting would drop it: the record is refused, with the comment's line,
/// and left as it was. A `#` that is text (quoted, in a block scalar, in a plain value
/// such as a URL's fragment) is no comment, and such a record converts.
#[test]
fn convert_refuses_a_record_with_a_yaml_comment() {
    let commented = [
        (
            "a.yaml",
            "# provenance: do not delete\nid: a\ntype: thing\n",
            1,
        ),
        ("b.yaml", "id: b\ntype: thing   # must stay thing\n", 2),
        (
            "c.md",
            "---\nid: c\ntype: thing\nname: C # the name\n---\n\n## Notes\n\nSome notes.\n",
            4,
        ),
    ];
    let texts = "id: t\ntype: thing\nname: \"quoted # text\"\nmisc:\n  k: a#b\n\
                 notes: |\n  first\n  # not a comment\nurl: https://example.org/#fragment\n";
    let mut records: Vec<(&str, &str)> = commented.iter().map(|&(f, t, _)| (f, t)).collect();
    records.push(("t.yaml", texts));
    let dir = things(&records);
    for &(file, text, line) in &commented {
        let id = file.split('.').next().unwrap();
        let refused = run(dir.path(), &["convert", "--to", "yaml", "--in-place", id]);
        assert_eq!(refused.code, 1, "{file}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(&format!(
                "error: records/things/{file} was not converted: its YAML has a comment on line {line}"
            )) && refused.stderr.contains("help: move what the comment says into a field"),
            "{file}: {}",
            refused.stderr
        );
        let path = dir.path().join("records/things").join(file);
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    }
    let all = run(
        dir.path(),
        &["convert", "--to", "json", "--all", "--in-place"],
    );
    assert_eq!(all.code, 1, "{}", all.stderr);
    assert!(
        all.stdout.contains("converted 1 of 4 records"),
        "{}",
        all.stdout
    );
    let converted = std::fs::read_to_string(dir.path().join("records/things/t.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&converted).unwrap();
    assert_eq!(value["notes"], "first\n# not a comment\n");
    assert_eq!(value["url"], "https://example.org/#fragment");
}

/// A string YAML 1.1 readers (PyYAML, Go's yaml.v2) would take for a boolean or a number,
/// a key too, is quoted when converted to YAML, as YAML 1.2's own `true` and `1.5` are, so
/// that every reader gets the string back.
#[test]
fn convert_quotes_what_yaml_1_1_would_read_as_another_type() {
    let dir = things(&[(
        "w.json",
        r#"{"id": "w", "type": "thing", "name": "no", "misc": {"k": "on"},
            "notes": "Y", "n": ["yes", "Off", "1_000", "0b101", "on-call", "snake_case"]}"#,
    )]);
    let run = run(dir.path(), &["convert", "--to", "yaml", "w"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "id: w\ntype: thing\nname: \"no\"\nmisc:\n  k: \"on\"\nnotes: \"Y\"\n\"n\":\n  - \"yes\"\n  \
         - \"Off\"\n  - \"1_000\"\n  - \"0b101\"\n  - on-call\n  - snake_case\n"
    );
}

/// `convert --all` names each record file that did not load as not converted, counts it,
/// and fails, rather than report the records that loaded as all there are.
#[test]
fn convert_all_names_the_records_that_did_not_load() {
    let broken = "id: d\ntype: thing\nname: [oops\n";
    let dir = things(&[
        ("a.json", r#"{"id": "a", "type": "thing"}"#),
        ("d.yaml", broken),
    ]);
    let all = run(
        dir.path(),
        &["convert", "--all", "--to", "yaml", "--in-place"],
    );
    assert_eq!(all.code, 1, "{}", all.stderr);
    assert_eq!(all.stdout, "converted 1 of 2 records\n");
    assert!(
        all.stderr.contains(
            "error: records/things/d.yaml was not converted: it did not load (`gotchas check` says why)"
        ),
        "{}",
        all.stderr
    );
    assert!(dir.path().join("records/things/a.yaml").exists());
    let left = std::fs::read_to_string(dir.path().join("records/things/d.yaml")).unwrap();
    assert_eq!(left, broken);
}

/// `--where` accepts any member of a field's `enum`, whatever its type (`null`, a number,
/// `true`), matched as it matches a record's value, and refuses a value no member is, in
/// an enum of numbers too.
#[test]
fn query_where_checks_values_against_enums_of_every_type() {
    let dir = things(&[
        (
            "a.yaml",
            "id: a\ntype: thing\nprio: null\nmixed: 1\nlevel: 2\n",
        ),
        (
            "b.yaml",
            "id: b\ntype: thing\nprio: low\nmixed: true\nlevel: 1\n",
        ),
    ]);
    for (condition, listed) in [
        ("prio=null", "a"),
        ("prio=low", "b"),
        ("mixed=1", "a"),
        ("mixed=true", "b"),
        ("level=2.0", "a"),
    ] {
        let query = run(
            dir.path(),
            &[
                "query", "list", "things", "--where", condition, "--format", "json",
            ],
        );
        assert_eq!(query.code, 0, "{condition}: {}", query.stderr);
        let rows: Vec<serde_json::Value> = serde_json::from_str(&query.stdout).unwrap();
        let ids: Vec<&str> = rows
            .iter()
            .map(|r| r["record"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [listed], "{condition}");
    }
    for (condition, said) in [
        (
            "level=one",
            "error: --where `level=one`: `one` is not an allowed value of `level`\nnote: allowed values: 1, 2, 3",
        ),
        (
            "prio=nul",
            "error: --where `prio=nul`: `nul` is not an allowed value of `prio`\nhelp: did you mean `null`?",
        ),
    ] {
        let refused = run(
            dir.path(),
            &["query", "list", "things", "--where", condition],
        );
        assert_eq!(refused.code, 2, "{condition}");
        assert!(
            refused.stderr.contains(said),
            "{condition}: {}",
            refused.stderr
        );
    }
}

/// A `--where` or `--sort` field is checked key by key, through nested objects and
/// arrays' items: a typo anywhere on the path is refused with a did-you-mean, rather than
/// list nothing.
#[test]
fn query_fields_are_checked_at_every_level() {
    let dir = things(&[(
        "a.yaml",
        "id: a\ntype: thing\nmisc:\n  k: x\nflops:\n  - precision: bf16\n",
    )]);
    for (args, said) in [
        (
            &["--where", "misc.kk=x"][..],
            "error: --where `misc.kk`: `thing` records have no field `misc.kk`\nhelp: did you mean `misc.k`?",
        ),
        (
            &["--where", "flops.precison=bf16"],
            "error: --where `flops.precison`: `thing` records have no field `flops.precison`\nhelp: did you mean `flops.precision`?",
        ),
        (
            &["--sort", "misc.kk.deeper"],
            "error: --sort `misc.kk.deeper`: `thing` records have no field `misc.kk`",
        ),
    ] {
        let mut all = vec!["query", "list", "things"];
        all.extend_from_slice(args);
        let refused = run(dir.path(), &all);
        assert_eq!(refused.code, 2, "{args:?}");
        assert!(
            refused.stderr.contains(said),
            "{args:?}: {}",
            refused.stderr
        );
    }
    for condition in ["misc.k=x", "flops.precision=bf16"] {
        let listed = run(
            dir.path(),
            &["query", "list", "things", "--where", condition],
        );
        assert_eq!(listed.code, 0, "{condition}: {}", listed.stderr);
        assert_eq!(
            listed.stdout.lines().count(),
            2,
            "{condition}: {}",
            listed.stdout
        );
    }
}

/// A search excerpt holds the match in text whose lowercase is longer or shorter than it
/// (the Kelvin sign lowercases to `k`, `İ` to `i̇`).
#[test]
fn query_search_excerpts_hold_the_match_after_case_changing_text() {
    let kelvin = format!(
        "id: a\ntype: thing\nnotes: \"{} target here\"\n",
        "\u{212A}".repeat(40)
    );
    let dotted = format!(
        "id: b\ntype: thing\nnotes: \"{} zzfind\"\n",
        "İ".repeat(1000)
    );
    let dir = things(&[("a.yaml", &kelvin), ("b.yaml", &dotted)]);
    for (text, excerpt) in [
        ("target", format!("…{} target here", "\u{212A}".repeat(10))),
        ("zzfind", format!("…{} zzfind", "İ".repeat(15))),
    ] {
        let search = run(dir.path(), &["query", "search", text, "--format", "json"]);
        assert_eq!(search.code, 0, "{}", search.stderr);
        let hits: Vec<serde_json::Value> = serde_json::from_str(&search.stdout).unwrap();
        assert_eq!(hits.len(), 1, "{}", search.stdout);
        assert_eq!(hits[0]["excerpt"], excerpt.as_str(), "{text}");
    }
}

/// A bare id two collections hold names neither record: `get` and `convert` list both
/// qualified, as `refs` does. An id whose file did not load is said to be that file, not a
/// record that does not exist.
#[test]
fn get_and_convert_name_the_candidates_of_an_ambiguous_id_and_an_unloaded_record() {
    let dir = things(&[
        ("vllm.yaml", "id: vllm\ntype: thing\n"),
        ("d.yaml", "id: d\ntype: thing\nname: [oops\n"),
    ]);
    let other = THING_SCHEMA
        .replace("\"$id\":\"thing\"", "\"$id\":\"engine\"")
        .replace(
            "\"x-collection\":\"things\"",
            "\"x-collection\":\"engines\"",
        )
        .replace("\"const\":\"thing\"", "\"const\":\"engine\"");
    std::fs::write(dir.path().join("schema/engine.schema.json"), other).unwrap();
    std::fs::create_dir_all(dir.path().join("records/engines")).unwrap();
    std::fs::write(
        dir.path().join("records/engines/vllm.yaml"),
        "id: vllm\ntype: engine\n",
    )
    .unwrap();
    for command in [&["query", "get"][..], &["convert", "--to", "json"]] {
        let ask = |id: &str| {
            let mut all = command.to_vec();
            all.push(id);
            run(dir.path(), &all)
        };
        let ambiguous = ask("vllm");
        assert_eq!(ambiguous.code, 2, "{command:?}");
        assert!(
            ambiguous.stderr.contains(
                "error: `vllm` could be any of `engines/vllm`, `things/vllm`\nhelp: qualify it with its folder"
            ),
            "{command:?}: {}",
            ambiguous.stderr
        );
        assert_eq!(ask("things/vllm").code, 0, "{command:?}");
        for id in ["d", "things/d"] {
            let unloaded = ask(id);
            assert_eq!(unloaded.code, 2, "{command:?} {id}");
            assert!(
                unloaded.stderr.contains(&format!(
                    "error: `{id}` is in records/things/d.yaml, which did not load (`gotchas check` says why)"
                )),
                "{command:?} {id}: {}",
                unloaded.stderr
            );
        }
    }
}

/// An empty or blank search text, which every record holds, is refused rather than list
/// the whole corpus.
#[test]
fn query_search_refuses_an_empty_text() {
    let dir = things(&[("a.yaml", "id: a\ntype: thing\n")]);
    for text in ["", "  \t"] {
        let search = run(dir.path(), &["query", "search", text]);
        assert_eq!(search.code, 2, "{text:?}");
        assert_eq!(search.stdout, "", "{text:?}");
        assert!(
            search.stderr.contains("error: the search text is empty"),
            "{text:?}: {}",
            search.stderr
        );
    }
}
