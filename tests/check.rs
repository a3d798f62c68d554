//! `gotchas check`, driven through the binary: one fixture corpus per rule, each with a
//! passing record (`engines/good.yaml`) beside the failing ones, and a snapshot of the
//! human output.

mod common;

use common::{check, fixture, json_diagnostics};

/// Checks a rule fixture: exit code 1, every diagnostic has the rule's code and a position,
/// the passing record has none, and the human output matches its snapshot.
fn rule_case(name: &str, code: &str, expected: usize) {
    rule_case_exiting(name, code, expected, 1);
}

/// [`rule_case`] of a rule whose findings are warnings, or errors: the exit code `exit`.
fn rule_case_exiting(name: &str, code: &str, expected: usize, exit: i32) {
    let root = fixture(&format!("rules/{name}"));
    let human = check(&root, &[]);
    assert_eq!(human.code, exit, "{}", human.stdout);
    insta::assert_snapshot!(format!("rule-{name}"), human.stdout);

    let json = check(&root, &["--format", "json"]);
    let diagnostics = json_diagnostics(&json);
    assert_eq!(diagnostics.len(), expected, "{diagnostics:?}");
    for (found, path, _, _) in &diagnostics {
        assert_eq!(found, code);
        assert_ne!(path, "records/engines/good.yaml");
    }
}

/// Diagnostics that point at a value must carry a line and column.
fn positioned(name: &str) {
    let json = check(&fixture(&format!("rules/{name}")), &["--format", "json"]);
    for (code, path, line, column) in json_diagnostics(&json) {
        assert!(
            line.is_some() && column.is_some(),
            "{code} in {path} has no position"
        );
    }
}

#[test]
fn syntax_error() {
    rule_case("syntax-error", "syntax-error", 2);
    positioned("syntax-error");
}

#[test]
fn duplicate_key() {
    rule_case("duplicate-key", "duplicate-key", 2);
    positioned("duplicate-key");
}

#[test]
fn not_a_mapping() {
    rule_case("not-a-mapping", "not-a-mapping", 2);
    positioned("not-a-mapping");
}

#[test]
fn front_matter() {
    rule_case("front-matter", "front-matter", 2);
    positioned("front-matter");
}

#[test]
fn invalid_utf8() {
    rule_case("invalid-utf8", "invalid-utf8", 1);
    positioned("invalid-utf8");
}

#[test]
fn empty_file() {
    rule_case("empty-file", "empty-file", 2);
}

#[test]
fn stray_file() {
    rule_case("stray-file", "stray-file", 5);
}

#[test]
fn schema_violation() {
    rule_case("schema-violation", "schema-violation", 2);
    positioned("schema-violation");
}

#[test]
fn missing_field() {
    rule_case("missing-field", "missing-field", 2);
    positioned("missing-field");
}

#[test]
fn unknown_field() {
    rule_case("unknown-field", "unknown-field", 2);
    positioned("unknown-field");
}

/// A misspelt `## Heading` is a warning (its text is still there, as prose); the intro and a
/// heading that is no field's near miss are prose on purpose and say nothing.
#[test]
fn broken_anchor() {
    rule_case_exiting("broken-anchor", "broken-anchor", 6, 0);
    positioned("broken-anchor");
}

#[test]
fn unknown_section() {
    rule_case_exiting("unknown-section", "unknown-section", 2, 0);
    positioned("unknown-section");
    // A setext heading is named and underlined by its text line.
    let record = "---\nid: g\ntype: gotcha\nname: G\nclass: config\nstatus: draft\n\
                  confidence: 0.5\nupdated: 2026-10-03\nsources: []\n---\n\n\
                  Workarond\n---------\n\nPin the dtype.\n";
    let dir = common::temp_corpus(&[("gotchas/g.md", record.as_bytes())]);
    let run = check(dir.path(), &[]);
    assert!(
        run.stdout.contains(
            "warning[unknown-section]: the section `Workarond` names no field\n  --> records/gotchas/g.md:12:1\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("12 | Workarond\n   | ^^^^^^^^^ its text"),
        "{}",
        run.stdout
    );
}

#[test]
fn invalid_value() {
    rule_case("invalid-value", "invalid-value", 2);
    positioned("invalid-value");
}

#[test]
fn id_mismatch() {
    rule_case("id-mismatch", "id-mismatch", 1);
    positioned("id-mismatch");
}

/// Keywords without a rule of their own are said in words, the field named as written,
/// the value quoted cut short rather than the message.
#[test]
fn schema_violations_are_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::create_dir_all(dir.path().join("records/things")).unwrap();
    std::fs::write(
        dir.path().join("schema/thing.schema.json"),
        r#"{"type": "object", "properties": {"id": {}, "type": {},
            "mail": {"type": "string", "format": "email"}, "a/b": {"type": "integer"},
            "pick": {"oneOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]},
            "note": {"type": "string", "maxLength": 5},
            "level": {"enum": ["l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9",
                "l10", "l11", "l12", "l13", "l14", "l15", "l16", "l17", "l18", "l19",
                "l20", "l21", "l22"]}}}"#,
    )
    .unwrap();
    let long = "on and ".repeat(20);
    std::fs::write(
        dir.path().join("records/things/t.yaml"),
        format!(
            "id: t\ntype: thing\nmail: nope\na/b: x\npick: [1, 2]\nnote: \"{long}\"\nlevel: top\n"
        ),
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    for said in [
        "error[schema-violation]: `mail` is not a valid email\n",
        "error[schema-violation]: `a/b` must be integer, found a string\n",
        "error[schema-violation]: `pick` matches none of the schemas `oneOf` lists\n",
        "fails `oneOf`",
        "error[schema-violation]: `note`: `\"on and on and on",
        " on …` is longer than 5 characters\n",
        // A large enum is named in part.
        "= note: allowed values: `l0`, `l1`",
        "`l19` and 3 more\n",
    ] {
        assert!(run.stdout.contains(said), "{said}\n{}", run.stdout);
    }
}

#[test]
fn id_format() {
    rule_case("id-format", "id-format", 1);
    positioned("id-format");
    // The id suggested is spelt in ASCII as `new` spells one, not cut short.
    let record = "id: café-ünï\ntype: engine\nname: E\nstatus: draft\nconfidence: 0.5\n\
                  updated: 2026-10-03\nsources: []\n";
    let dir = common::temp_corpus(&[("engines/café-ünï.yaml", record.as_bytes())]);
    let run = check(dir.path(), &[]);
    assert!(
        run.stdout
            .contains("help: use `cafe-uni` (and rename the file to match)"),
        "{}",
        run.stdout
    );
}

#[test]
fn duplicate_id() {
    rule_case("duplicate-id", "duplicate-id", 1);
    positioned("duplicate-id");
}

#[test]
fn type_mismatch() {
    rule_case("type-mismatch", "type-mismatch", 1);
    positioned("type-mismatch");
}

#[test]
fn bom_and_crlf_are_accepted_with_columns_right() {
    rule_case("bom-crlf", "invalid-value", 1);
    let json = check(&fixture("rules/bom-crlf"), &["--format", "json"]);
    let diagnostics = json_diagnostics(&json);
    // `status: drafty` on line 4: the value starts at column 9 whatever the BOM and CRLF.
    assert_eq!(diagnostics[0].2, Some(4));
    assert_eq!(diagnostics[0].3, Some(9));
}

/// A file saved with classic Mac line endings (a `\r` alone) is as many lines as YAML,
/// CommonMark and an editor read in it: every report places its problems on those lines,
/// and a Markdown record's front matter is found.
#[test]
fn a_lone_carriage_return_ends_a_line_in_every_report() {
    let yaml = "id: mac\rtype: engine\rname: M\rstatus: drafty\rconfidence: 0.5\r\
                updated: 2026-10-03\rsources: []\r";
    let markdown = "---\rid: macmd\rtype: engine\rname: M\rstatus: draft\rconfidence: 0.5\r\
                    updated: 2026-10-03\rsources: []\r---\r\rSee [[nowhere]].\r";
    let dir = common::temp_corpus(&[
        ("engines/mac.yaml", yaml.as_bytes()),
        ("engines/macmd.md", markdown.as_bytes()),
    ]);
    let human = check(dir.path(), &[]);
    for said in [
        " --> records/engines/mac.yaml:4:9\n",
        "4 | status: drafty\n",
        "  --> records/engines/macmd.md:11:7\n",
        "11 | See [[nowhere]].\n",
    ] {
        assert!(human.stdout.contains(said), "{said}\n{}", human.stdout);
    }
    assert!(!human.stdout.contains('\u{240d}'), "{}", human.stdout);
    let json = check(dir.path(), &["--format", "json"]);
    assert_eq!(
        json_diagnostics(&json),
        [
            (
                "invalid-value".into(),
                "records/engines/mac.yaml".into(),
                Some(4),
                Some(9)
            ),
            (
                "broken-link".into(),
                "records/engines/macmd.md".into(),
                Some(11),
                Some(7)
            ),
        ]
    );
    let sarif = check(dir.path(), &["--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    let regions: Vec<(u64, u64)> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|result| {
            let region = &result["locations"][0]["physicalLocation"]["region"];
            (
                region["startLine"].as_u64().unwrap_or_default(),
                region["startColumn"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(regions, [(4, 9), (11, 7)]);
    let github = check(dir.path(), &["--format", "github"]);
    assert!(
        github
            .stdout
            .contains("file=records/engines/mac.yaml,line=4,col=9,endLine=4,endColumn=15,"),
        "{}",
        github.stdout
    );
    // A fix keeps the file's own line endings.
    check(dir.path(), &["--fix"]);
    let fixed = std::fs::read_to_string(dir.path().join("records/engines/mac.yaml")).unwrap();
    assert_eq!(fixed, yaml.replace("drafty", "draft"));
}

#[test]
fn the_bundled_corpus_is_clean() {
    let run = check(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("checked 10 records in 10 files: 0 errors, 0 warnings")
    );
}

#[test]
fn output_is_deterministic() {
    let root = fixture("formats/json");
    let first = check(&root, &["--format", "json"]).stdout;
    for _ in 0..3 {
        assert_eq!(check(&root, &["--format", "json"]).stdout, first);
    }
}
