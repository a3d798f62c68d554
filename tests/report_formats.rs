//! The formats CI reads: SARIF for code scanning, workflow commands for pull-request
//! annotations, JUnit XML for test dashboards, and `--output` to write any of them to a file.
//!
//! The fixture `ci` has an error with a certain fix (`typo.yaml`), an error and a warning in
//! one file whose value needs escaping (`markup.md`), and a file with only a warning
//! (`warned.md`). Each test runs on a copy outside any git work tree, so paths are the same
//! wherever the repository is checked out.

mod common;

use common::{check, copy_dir, fixture};
use serde_json::{Value, json};

/// A copy of the `ci` fixture, plus a stray file whose name needs escaping in properties.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("ci"), dir.path());
    std::fs::write(dir.path().join("records/engines/a,b:c.txt"), "stray").unwrap();
    dir
}

#[test]
fn sarif_has_the_structure_code_scanning_requires() {
    let dir = corpus();
    let run = check(dir.path(), &["--format", "sarif"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    // The results only: the rules array grows with every new rule and is checked below.
    insta::assert_snapshot!(
        "sarif-results",
        serde_json::to_string_pretty(&log["runs"][0]["results"]).unwrap()
    );

    assert_eq!(
        log["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");

    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "gotchas");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    match env!("CARGO_PKG_REPOSITORY") {
        "" => assert!(driver.get("informationUri").is_none()),
        uri => assert_eq!(driver["informationUri"], uri),
    }
    let rules = driver["rules"].as_array().expect("rules");
    let listed = common::gotchas(&["explain"]).stdout;
    assert_eq!(
        rules.len(),
        listed.lines().count(),
        "every rule is described"
    );
    let mut ids = Vec::new();
    for rule in rules {
        let id = rule["id"].as_str().expect("rule id");
        assert!(!ids.contains(&id), "duplicate rule {id}");
        ids.push(id);
        for text in [
            &rule["shortDescription"]["text"],
            &rule["fullDescription"]["text"],
            &rule["help"]["text"],
            &rule["help"]["markdown"],
        ] {
            assert!(text.as_str().is_some_and(|t| !t.is_empty()), "{id}: {text}");
        }
        assert!(
            rule["help"]["markdown"]
                .as_str()
                .unwrap()
                .starts_with("## What it finds\n")
        );
        let level = rule["defaultConfiguration"]["level"].as_str().unwrap();
        assert!(
            ["error", "warning", "note", "none"].contains(&level),
            "{id}"
        );
    }

    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 5);
    for result in results {
        let rule_id = result["ruleId"].as_str().expect("ruleId");
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], rule_id, "ruleIndex names the rule");
        let level = result["level"].as_str().unwrap();
        assert!(level == "error" || level == "warning");
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(!uri.starts_with('/') && !uri.contains('\\'), "{uri}");
        let region = &location["region"];
        let start_line = region["startLine"].as_u64().expect("startLine, always");
        assert!(start_line >= 1);
        if rule_id != "stray-file" {
            let end_line = region["endLine"].as_u64().unwrap();
            assert!(region["startColumn"].as_u64().unwrap() >= 1);
            assert!(end_line >= start_line);
            assert!(region["endColumn"].as_u64().unwrap() >= 1);
        }
    }
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert!(
        levels.contains(&"warning"),
        "rule levels from the config apply"
    );
    let stray = results
        .iter()
        .find(|r| r["ruleId"] == "stray-file")
        .unwrap();
    assert_eq!(
        stray["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "records/engines/a%2Cb%3Ac.txt",
        "URIs are percent-encoded"
    );

    // Certain fixes only: the typo'd reference and the typo'd wiki-link, not the enum value.
    let mut fixes = Vec::new();
    for result in results.iter().filter(|r| r.get("fixes").is_some()) {
        let change = &result["fixes"][0]["artifactChanges"][0];
        let uri = change["artifactLocation"]["uri"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.path().join(uri)).unwrap();
        let replacement = &change["replacements"][0];
        fixes.push((
            region_text(&text, &replacement["deletedRegion"]),
            replacement["insertedContent"]["text"]
                .as_str()
                .unwrap()
                .to_string(),
        ));
    }
    assert_eq!(
        fixes,
        [
            ("mooncache".to_string(), "mooncake".to_string()),
            ("engines/vlm".to_string(), "engines/vllm".to_string()),
        ],
        "each deleted region is exactly the typo"
    );
}

/// The text a SARIF region covers: 1-based lines, 1-based code-point columns, end exclusive.
fn region_text(text: &str, region: &Value) -> String {
    let field = |name: &str| region[name].as_u64().unwrap() as usize;
    let line: Vec<char> = text
        .lines()
        .nth(field("startLine") - 1)
        .unwrap()
        .chars()
        .collect();
    assert_eq!(field("startLine"), field("endLine"));
    line[field("startColumn") - 1..field("endColumn") - 1]
        .iter()
        .collect()
}

#[test]
fn github_workflow_commands_one_line_per_diagnostic() {
    let dir = corpus();
    let run = check(dir.path(), &["--format", "github"]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("github", run.stdout);
    assert_eq!(run.stdout.lines().count(), 5);
    for line in run.stdout.lines() {
        assert!(
            line.starts_with("::error file=") || line.starts_with("::warning file="),
            "{line}"
        );
    }
    assert!(run.stdout.contains(
        "::error file=records/gotchas/typo.yaml,line=5,col=17,endLine=5,endColumn=26,title=unresolved-ref::"
    ));
    assert!(
        run.stdout
            .contains("file=records/engines/a%2Cb%3Ac.txt,title=stray-file::"),
        "`,` and `:` are escaped in properties"
    );
    assert!(
        run.stdout
            .contains("`<major> & 100%25` is not an allowed value"),
        "`%` is escaped in messages"
    );
    assert!(
        run.stdout.contains("%0Ahelp: did you mean mooncake"),
        "a message keeps its help on an escaped new line"
    );
}

#[test]
fn junit_has_a_case_per_record_and_fails_the_ones_with_errors() {
    let dir = corpus();
    let run = check(dir.path(), &["--format", "junit"]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("junit", run.stdout);
    let xml = &run.stdout;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    assert!(xml.contains("<testsuites name=\"gotchas\" tests=\"6\" failures=\"3\""));
    assert_eq!(
        xml.matches("<testcase ").count(),
        6,
        "5 records and the stray file"
    );
    assert_eq!(xml.matches("<failure ").count(), 3);
    assert!(xml.contains("`&lt;major&gt; &amp; 100%` is not an allowed value"));
    assert!(xml.contains(
        "<failure message=\"1 error, 1 warning\" type=\"invalid-value\">records/gotchas/markup.md:5:11: error[invalid-value]:"
    ));
    assert!(
        xml.contains("<system-out>records/gotchas/warned.md:11:7: warning[broken-link]:"),
        "a file with only warnings passes"
    );
    assert_well_formed(xml);
    assert_eq!(
        check(dir.path(), &["--format", "junit"]).stdout,
        *xml,
        "deterministic"
    );
}

/// Tags balance and every `&` starts an entity: enough to catch broken escaping without an
/// XML parser among the dependencies.
fn assert_well_formed(xml: &str) {
    let mut open: Vec<&str> = Vec::new();
    let body = xml.split_once("?>\n").unwrap().1;
    for piece in body.split('<').skip(1) {
        let (tag, _) = piece.split_once('>').expect("every tag closes");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "balanced tags");
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap());
        }
        assert_eq!(tag.matches('"').count() % 2, 0, "quoted attributes: {tag}");
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
    for (i, _) in xml.match_indices('&') {
        let entity = &xml[i..xml[i..].find(';').map_or(xml.len(), |end| i + end + 1)];
        assert!(
            [
                "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#39;", "&#10;", "&#13;", "&#9;"
            ]
            .contains(&entity),
            "bad entity {entity}"
        );
    }
}

/// The statistics of the corpus at `root`, after checking that they are the counts of the
/// full report: per rule and level, and what `--fix` fixes.
fn statistics_agree_with_the_report(root: &std::path::Path) -> Value {
    let report = common::json_report(&check(root, &["--no-cache", "--format", "json"]));
    let run = check(root, &["--no-cache", "--statistics", "--format", "json"]);
    let statistics: Value = serde_json::from_str(&run.stdout).expect("JSON");
    for rule in statistics["statistics"]
        .as_array()
        .expect("a statistics array")
    {
        let of_rule: Vec<&Value> = report
            .iter()
            .filter(|d| d["code"] == rule["code"] && d["severity"] == rule["severity"])
            .collect();
        assert_eq!(rule["count"], of_rule.len(), "{rule}");
        let fixable = of_rule
            .iter()
            .filter(|d| d["fix"]["applicability"] == "machine-applicable")
            .count();
        assert_eq!(rule["fixable"], fixable, "{rule}");
    }
    statistics
}

#[test]
fn statistics_count_the_problems_of_each_rule_instead_of_listing_them() {
    let dir = corpus();
    let table = check(dir.path(), &["--statistics"]);
    assert_eq!(table.code, 1, "errors still fail the run: {}", table.stderr);
    assert_eq!(
        table.stdout,
        "2  warning  broken-link     [*] a link in prose points at nothing\n\
         1  error    invalid-value       a value is not one of the allowed values\n\
         1  error    stray-file          a file under the records root is not a record\n\
         1  error    unresolved-ref  [*] a reference names no record\n\
         [*] 2 problems fixable with `gotchas check --fix`\n\
         checked 5 records in 5 files: 3 errors, 2 warnings\n"
    );

    let statistics = statistics_agree_with_the_report(dir.path());
    assert_eq!(statistics["summary"]["errors"], 3);
    // Also where a fix cannot be placed (a wiki-link written with escapes in a JSON or
    // YAML string), and so is neither offered nor counted.
    statistics_agree_with_the_report(&fixture("refs"));

    // A count shows no position, so no file is read again to place a problem in it but to
    // place a fix, which the stage timings do not show apart; `--fix` places them all.
    let placing = |args: &[&str]| {
        check(dir.path(), args)
            .stderr
            .contains("timing: check/locate:")
    };
    assert!(placing(&["--verbose"]));
    assert!(!placing(&["--verbose", "--statistics"]));
    assert!(placing(&["--verbose", "--statistics", "--diff"]));

    let refused = check(dir.path(), &["--statistics", "--format", "sarif"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("--statistics"),
        "{}",
        refused.stderr
    );
}

#[test]
fn output_writes_the_report_and_keeps_the_summary_on_the_terminal() {
    let dir = corpus();
    let report = dir.path().join("report.sarif");
    let report_arg = report.to_str().unwrap();
    let run = check(dir.path(), &["--format", "sarif", "--output", report_arg]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "checked 5 records in 5 files: 3 errors, 2 warnings\n"
    );
    let direct = check(dir.path(), &["--format", "sarif"]).stdout;
    assert_eq!(std::fs::read_to_string(&report).unwrap(), direct);

    let human = dir.path().join("report.txt");
    check(dir.path(), &["--output", human.to_str().unwrap()]);
    let written = std::fs::read_to_string(&human).unwrap();
    assert!(written.contains("error[unresolved-ref]"));
    assert!(!written.contains('\u{1b}'), "a file gets no colour");

    let unwritable = check(
        dir.path(),
        &[
            "--output",
            dir.path().join("no/such/dir/r.txt").to_str().unwrap(),
        ],
    );
    assert_eq!(unwritable.code, 2);
    assert!(
        unwritable
            .stderr
            .contains("dir/r.txt: cannot create a file in "),
        "{}",
        unwritable.stderr
    );
    assert!(
        unwritable
            .stderr
            .trim_end()
            .ends_with("/no/such/dir: No such file or directory (os error 2)"),
        "the temporary file is not named: {}",
        unwritable.stderr
    );
}

#[test]
fn paths_are_relative_to_the_repository_not_the_corpus() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    let root = repo.path().join("kb");
    copy_dir(&fixture("ci"), &root);
    let github = check(&root, &["--format", "github"]).stdout;
    assert!(
        github.contains("file=kb/records/gotchas/typo.yaml,"),
        "{github}"
    );
    let sarif: Value = serde_json::from_str(&check(&root, &["--format", "sarif"]).stdout).unwrap();
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert!(uri.as_str().unwrap().starts_with("kb/records/"), "{uri}");
    let human = check(&root, &[]).stdout;
    assert!(
        human.contains("--> records/gotchas/typo.yaml"),
        "people still see corpus paths"
    );
}

/// A file name or a value may hold a control character; printed as it is, it would break a
/// line of the report or drive the terminal that shows it.
#[test]
fn control_characters_in_names_and_values_are_escaped() {
    let dir = common::bundled_copy();
    let engines = dir.path().join("records/engines");
    let text = std::fs::read_to_string(engines.join("vllm.yaml")).unwrap();
    std::fs::write(
        engines.join("x\u{1b}[2Jy.yaml"),
        text.replace("status: verified", "status: \"verif\\eed\""),
    )
    .unwrap();
    let human = check(dir.path(), &[]);
    assert!(!human.stdout.contains('\u{1b}'), "{:?}", human.stdout);
    assert!(
        human
            .stdout
            .contains("--> records/engines/x\\u{1b}[2Jy.yaml"),
        "{}",
        human.stdout
    );
    // The runner matches a `file=` property with the repository's files, unescaping only
    // what GitHub's toolkit escapes, so it carries the name as it is; the messages do not.
    let github = check(dir.path(), &["--format", "github"]);
    let messages: Vec<&str> = github
        .stdout
        .lines()
        .filter_map(|line| {
            line.split_once("::")
                .and_then(|(_, rest)| rest.split_once("::"))
        })
        .map(|(_, message)| message)
        .collect();
    assert!(!messages.is_empty(), "{}", github.stdout);
    assert!(
        messages.iter().all(|message| !message.contains('\u{1b}')),
        "{:?}",
        github.stdout
    );
    assert!(
        github
            .stdout
            .contains("file=records/engines/x\u{1b}[2Jy.yaml,"),
        "{:?}",
        github.stdout
    );
    assert!(
        github.stdout.contains("verif\\u{1b}ed"),
        "{}",
        github.stdout
    );
}

/// A diagnostic that points at a second place (where a duplicated id was first used) keeps
/// it in the machine formats: `related` in JSON, `relatedLocations` in SARIF, as the human
/// report shows it under the snippet.
#[test]
fn related_places_reach_json_and_sarif() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("rules/duplicate-id"), dir.path());
    let schemas = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let config = format!("schemas = {:?}\n[rules]\norphan = \"allow\"\n", schemas);
    std::fs::write(dir.path().join("gotchas.toml"), config).unwrap();
    let root = dir.path();
    let json: Value = serde_json::from_str(&check(root, &["--format", "json"]).stdout).unwrap();
    assert_eq!(
        json["diagnostics"][0]["related"],
        serde_json::json!([{
            "path": "records/engines/twin.json", "line": 2, "column": 9,
            "end_line": 2, "end_column": 15, "message": "first used here"
        }])
    );
    let sarif: Value = serde_json::from_str(&check(root, &["--format", "sarif"]).stdout).unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["relatedLocations"],
        serde_json::json!([{
            "id": 0,
            "physicalLocation": {
                "artifactLocation": {"uri": "records/engines/twin.json"},
                "region": {"startLine": 2, "startColumn": 9, "endLine": 2, "endColumn": 15}
            },
            "message": {"text": "first used here"}
        }])
    );
}

/// GitHub shows ten error annotations of a step and drops the rest: past ten, a last
/// notice says how many there are, so that nobody takes the ten for all.
#[test]
fn github_annotations_past_what_github_shows_end_in_a_notice() {
    let dir = corpus();
    for n in 0..10 {
        std::fs::write(dir.path().join(format!("records/engines/{n}.txt")), "").unwrap();
    }
    let run = check(dir.path(), &["--format", "github"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("::error ")).count(),
        13
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "::notice title=gotchas::13 errors and 2 warnings: GitHub shows the first 10 of each on the pull request; this step's log lists them all"
        ),
        "{}",
        run.stdout
    );
    assert!(
        !check(corpus().path(), &["--format", "github"])
            .stdout
            .contains("::notice")
    );
}

/// A check stopped by its config still writes the machine formats' document, holding the
/// config's diagnostics, so that `jq` or a code-scanning upload sees why; an `--output`
/// file is replaced only when it holds such a report already.
#[test]
fn a_setup_error_reaches_the_machine_formats() {
    let dir = corpus();
    let config = dir.path().join("gotchas.toml");
    let good = std::fs::read_to_string(&config).unwrap_or_default();
    let sarif = dir.path().join("report.sarif");
    assert_eq!(
        check(
            dir.path(),
            &["--format", "sarif", "-o", sarif.to_str().unwrap()]
        )
        .code,
        1
    );
    std::fs::write(&config, format!("docs = 5\n{good}")).unwrap();

    let json = check(dir.path(), &["--format", "json"]);
    assert_eq!(json.code, 2);
    assert!(
        json.stderr.contains("error[invalid-config]"),
        "{}",
        json.stderr
    );
    let report: Value = serde_json::from_str(&json.stdout).expect("a JSON document");
    let first = &report["diagnostics"][0];
    assert_eq!(
        (&first["code"], &first["path"], &first["line"]),
        (&json!("invalid-config"), &json!("gotchas.toml"), &json!(1))
    );
    let github = check(dir.path(), &["--format", "github"]);
    assert!(
        github
            .stdout
            .starts_with("::error file=gotchas.toml,line=1,"),
        "{}",
        github.stdout
    );

    let replaced = check(
        dir.path(),
        &["--format", "sarif", "-o", sarif.to_str().unwrap()],
    );
    assert_eq!(replaced.code, 2);
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "invalid-config");

    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "mine\n").unwrap();
    let kept = check(
        dir.path(),
        &["--format", "sarif", "-o", other.to_str().unwrap()],
    );
    assert_eq!(kept.code, 2);
    assert!(
        kept.stderr
            .contains("is left as it is: it holds no sarif report to replace"),
        "{}",
        kept.stderr
    );
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "mine\n");
}
