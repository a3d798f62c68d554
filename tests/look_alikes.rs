//! Ids that look like others but are not, and ids whose record is there but did not load:
//! what the report says of them, how they are shown, and what `--fix` does with them.

mod common;

use std::path::Path;

use common::{Run, check};

/// The schema of the one collection, `thing`, whose `related` cites things.
const SCHEMA: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"thing","type":"object","required":["id","type","name"],"additionalProperties":false,"properties":{"id":{"type":"string"},"type":{"const":"thing"},"name":{"type":"string"},"kind":{"enum":["alpha","beta","gamma"]},"related":{"type":"array","items":{"type":"string","x-ref":"thing"}},"summary":{"type":"string"},"body":{"type":"string"}}}"#;

/// A corpus of things, `mooncake`, `vllm` and `nixl`, citing one another, and `files`
/// (paths relative to the root, as bytes, so that a name need not be UTF-8).
fn corpus(files: &[(&[u8], &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    write(root, b"schema/thing.schema.json", SCHEMA.as_bytes());
    write(
        root,
        b"gotchas.toml",
        b"docs = [\"docs/*.md\"]\n[collections.thing]\nid_pattern = \"^.+$\"\n",
    );
    for id in ["mooncake", "vllm", "nixl"] {
        let cites = if id == "mooncake" { "vllm" } else { "mooncake" };
        let text = format!("id: {id}\ntype: thing\nname: {id}\nrelated: [{cites}]\n");
        write(
            root,
            format!("records/things/{id}.yaml").as_bytes(),
            text.as_bytes(),
        );
    }
    for (path, bytes) in files {
        write(root, path, bytes);
    }
    dir
}

/// Writes `bytes` at `path` under `root`, making its folders.
fn write(root: &Path, path: &[u8], bytes: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    let path = root.join(std::ffi::OsStr::from_bytes(path));
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create folder");
    std::fs::write(path, bytes).expect("write file");
}

/// The human report of a check of `root`, with the summary line.
fn human(root: &Path) -> Run {
    check(root, &[])
}

#[test]
fn invisible_characters_in_a_quoted_id_are_shown_escaped() {
    let dir = corpus(&[
        (
            b"records/things/g.yaml",
            "id: g\ntype: thing\nname: G\nrelated: [ni\u{200d}xl, vl\u{200b}lm, a\u{202e}b, c\u{2066}d]\n"
                .as_bytes(),
        ),
        (b"docs/s.md", "See [[\u{200d}\u{200d}]].\n".as_bytes()),
    ]);
    let run = human(dir.path());
    assert_eq!(run.code, 1, "{}", run.stdout);
    for shown in [
        "`ni\\u{200d}xl` in `related` names no record",
        "`vl\\u{200b}lm` in `related` names no record",
        "`a\\u{202e}b` in `related` names no record",
        "`c\\u{2066}d` in `related` names no record",
        "the wiki-link `[[\\u{200d}\\u{200d}]]` names no record or page",
    ] {
        assert!(run.stdout.contains(shown), "{shown} in:\n{}", run.stdout);
    }
    // The snippets show the line as annotate-snippets draws it (a bidi control as U+FFFD, as
    // rustc does), not escaped, so that the carets stay under the values.
    assert!(
        run.stdout
            .contains("  |           ^^^^ no record has this id")
    );
    assert!(
        run.stdout
            .contains("  |                       ^^^ no record has this id")
    );
}

/// `crème` composed (NFC), as most keyboards type it, and decomposed (NFD), as macOS names
/// files.
const NFC: &str = "cr\u{e8}me";
const NFD: &str = "cre\u{300}me";

#[test]
fn an_id_that_differs_from_its_file_name_in_normalisation_alone_says_so() {
    let file = format!("records/things/{NFD}.yaml");
    let text = format!("id: {NFC}\ntype: thing\nname: C\n");
    let dir = corpus(&[(file.as_bytes(), text.as_bytes())]);
    let run = human(dir.path());
    assert!(
        run.stdout.contains(
            "= note: they differ only in Unicode normalisation: the id is composed (NFC), the file name decomposed (NFD)"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("error[id-mismatch]"), "{}", run.stdout);
}

#[test]
fn a_look_alike_of_a_known_id_is_suggested_first_and_fixed() {
    let file = format!("records/things/{NFD}.yaml");
    let record = format!("id: {NFD}\ntype: thing\nname: C\nrelated: [mooncake]\n");
    let citing = format!(
        "id: g\ntype: thing\nname: G\nrelated: [{NFC}, \u{ff56}\u{ff4c}\u{ff4c}\u{ff4d}, ni\u{200d}xl, VLLM]\n"
    );
    let page = format!("See [[{NFC}]], [[\u{1f600}]] and [[\u{200b}]].\n");
    let dir = corpus(&[
        (file.as_bytes(), record.as_bytes()),
        (b"records/things/g.yaml", citing.as_bytes()),
        (b"docs/s.md", page.as_bytes()),
    ]);
    let run = human(dir.path());
    for shown in [
        format!("= help: did you mean {NFD} (things/{NFD})?"),
        "= note: they differ only in Unicode normalisation: the id written here is composed (NFC), the record's decomposed (NFD)".to_string(),
        "= help: did you mean vllm (things/vllm)?".to_string(),
        "= note: they differ only in Unicode compatibility forms (full-width letters, ligatures and the like), which NFKC makes `vllm`".to_string(),
        "= note: `ni\\u{200d}xl` holds an invisible character, U+200D ZERO WIDTH JOINER".to_string(),
        "= help: did you mean nixl (things/nixl)?".to_string(),
        "= note: they differ only in case".to_string(),
    ] {
        assert!(run.stdout.contains(&shown), "{shown} in:\n{}", run.stdout);
    }
    // Every name of one character is an edit from every other: no page is suggested for
    // an emoji or an invisible character.
    assert!(!run.stdout.contains("the page s"), "{}", run.stdout);

    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 1, "{}", fixed.stdout);
    let written = std::fs::read_to_string(dir.path().join("records/things/g.yaml")).unwrap();
    // A decomposed letter is quoted as YAML is written for any reader.
    assert_eq!(
        written,
        format!("id: g\ntype: thing\nname: G\nrelated: [\"{NFD}\", vllm, nixl, vllm]\n")
    );
    let page = std::fs::read_to_string(dir.path().join("docs/s.md")).unwrap();
    assert_eq!(
        page,
        format!("See [[{NFD}]], [[\u{1f600}]] and [[\u{200b}]].\n")
    );
}

#[test]
fn an_invisible_character_is_no_word_break_in_a_made_id() {
    let dir = corpus(&[
        (
            b"gotchas.toml",
            b"docs = [\"docs/*.md\"]\n[collections.thing]\nid_pattern = \"^[a-z0-9]+(-[a-z0-9]+)*$\"\n",
        ),
        (
            "records/things/x\u{200b}y.yaml".as_bytes(),
            "id: x\u{200b}y\ntype: thing\nname: X\n".as_bytes(),
        ),
    ]);
    let run = human(dir.path());
    assert!(
        run.stdout
            .contains("= help: use `xy` (and rename the file to match)"),
        "{}",
        run.stdout
    );
    let made = common::gotchas_in(
        dir.path(),
        &[
            "new",
            "thing",
            "--name",
            "Zero\u{200b}width\u{ad}ed",
            "--format",
            "yaml",
        ],
    );
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert!(
        dir.path().join("records/things/zerowidthed.yaml").is_file(),
        "{}",
        made.stderr
    );
}

#[test]
fn a_reference_to_a_record_whose_file_did_not_load_says_so_and_is_not_fixed() {
    for broken in [
        &b"id: vllm\ntype: thing\nname: V\nrelated: [mooncake\n"[..],
        b"id: vllm\ntype: thing\nname: caf\xe9\n",
        b"\xff\xfei\x00d\x00:\x00 \x00v\x00l\x00l\x00m\x00\n\x00",
    ] {
        let dir = corpus(&[
            (b"records/things/vllm.yaml", broken),
            // One edit from `vllm`: a did-you-mean would offer it, and `--fix` apply it.
            (
                b"records/things/vlln.yaml",
                b"id: vlln\ntype: thing\nname: W\nrelated: [mooncake]\n",
            ),
            (b"docs/a.md", b"See [[vllm]] and [[things/vllm]].\n"),
        ]);
        let run = check(dir.path(), &["--format", "json"]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        let report = common::json_report(&run);
        let citing: Vec<&serde_json::Value> = report
            .iter()
            .filter(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .contains("names a record whose file did not load")
            })
            .collect();
        assert_eq!(citing.len(), 3, "{}", run.stdout);
        for diagnostic in &citing {
            assert_eq!(
                diagnostic["help"],
                "fix the error in `records/things/vllm.yaml` first; the reference is checked once it loads"
            );
            assert_eq!(
                diagnostic["related"][0]["path"], "records/things/vllm.yaml",
                "{diagnostic}"
            );
            assert!(diagnostic["fix"].is_null(), "{diagnostic}");
        }
        assert!(!run.stdout.contains("names no record"), "{}", run.stdout);
        assert!(!run.stdout.contains("did you mean"), "{}", run.stdout);

        let human = human(dir.path());
        assert!(
            human.stdout.contains(
                "error[unresolved-ref]: `vllm` in `related` names a record whose file did not load"
            ),
            "{}",
            human.stdout
        );
        assert!(
            human.stdout.contains(
                "= note: records/things/vllm.yaml: would define `vllm`, but did not load"
            ),
            "{}",
            human.stdout
        );

        let mooncake = dir.path().join("records/things/mooncake.yaml");
        let before = std::fs::read(&mooncake).unwrap();
        let fixed = check(dir.path(), &["--fix"]);
        assert_eq!(fixed.code, 1, "{}", fixed.stdout);
        assert_eq!(std::fs::read(&mooncake).unwrap(), before);
        assert_eq!(
            std::fs::read(dir.path().join("docs/a.md")).unwrap(),
            b"See [[vllm]] and [[things/vllm]].\n"
        );
    }
}

#[test]
fn machine_formats_name_a_file_by_its_real_name() {
    let dir = corpus(&[
        (
            b"records/things/caf\xe9.yaml",
            b"id: cafe\ntype: thing\nname: C\n",
        ),
        (
            b"records/things/c\x1b[31md.yaml",
            b"id: cd\ntype: thing\nname: C\nrelated: [vllm]\n",
        ),
    ]);
    let sarif = check(dir.path(), &["--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let mut uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| {
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    uris.sort_unstable();
    uris.dedup();
    assert_eq!(
        uris,
        [
            "records/things/c%1B%5B31md.yaml",
            "records/things/caf%E9.yaml"
        ]
    );
    let github = check(dir.path(), &["--format", "github"]);
    assert!(
        github
            .stdout
            .contains("::error file=records/things/c\u{1b}[31md.yaml,line=1,col=5,"),
        "{}",
        github.stdout
    );
    // The message still shows the name escaped.
    assert!(
        github.stdout.contains("file name `c\\u{1b}[31md`"),
        "{}",
        github.stdout
    );
}
