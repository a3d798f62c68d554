//! The graph: rules in `check`, exports, `refs` and `stats`, through the binary.

mod common;

use std::path::Path;

use common::{check, fixture, gotchas, json_diagnostics};

fn run_in(root: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    gotchas(&all)
}

/// An unknown id is a usage error (exit code 2) whose message says `help`.
fn fails_with_help(root: &Path, args: &[&str], help: &str) {
    let run = run_in(root, args);
    assert_eq!(run.code, 2, "{args:?}");
    assert!(run.stderr.contains(help), "{}", run.stderr);
}

#[test]
fn graph_rules_orphan_cycle_unreferenced() {
    let root = fixture("graph");
    let human = check(&root, &[]);
    assert_eq!(human.code, 1, "cycles are errors");
    insta::assert_snapshot!("graph-rules", human.stdout);
    let codes: Vec<(String, String)> = json_diagnostics(&check(&root, &["--format", "json"]))
        .into_iter()
        .map(|d| (d.0, d.1))
        .collect();
    assert_eq!(
        codes,
        vec![
            (
                "orphan".to_string(),
                "records/engines/lonely.yaml".to_string()
            ),
            ("cycle".to_string(), "records/gotchas/a.yaml".to_string()),
            ("cycle".to_string(), "records/gotchas/d.yaml".to_string()),
            (
                "unreferenced".to_string(),
                "records/sources/unused.yaml".to_string()
            ),
        ],
        "leaf collections are not orphans; a loop is reported once, not per member"
    );
    assert!(
        human.stdout.contains(
            "`supersedes` forms a cycle: gotchas/a -> gotchas/b -> gotchas/c -> gotchas/a"
        )
    );
}

#[test]
fn a_record_repeating_an_id_is_reported_once_and_is_no_orphan() {
    // The graph has one node per id, the first record's: the cited `mooncake.yaml`. Its
    // twin cites nothing, and a citation of `mooncake` is the first record's, so as a node
    // it would be an orphan; it is a duplicate only.
    let corpus = common::bundled_copy();
    let engines = corpus.path().join("records/engines");
    let mooncake = std::fs::read_to_string(engines.join("mooncake.yaml")).unwrap();
    let twin = mooncake.replace("sources:\n  - pd-mooncake-repo", "sources: []");
    assert_ne!(twin, mooncake);
    std::fs::write(engines.join("mooncake.yml"), twin).unwrap();
    let run = check(corpus.path(), &["--format", "json"]);
    let codes: Vec<(String, String)> = json_diagnostics(&run)
        .into_iter()
        .map(|d| (d.0, d.1))
        .collect();
    assert_eq!(
        codes,
        [(
            "duplicate-id".to_string(),
            "records/engines/mooncake.yml".to_string()
        )]
    );
}

#[test]
fn passing_corpus_has_no_graph_findings() {
    let run = check(Path::new(env!("CARGO_MANIFEST_DIR")), &["--format", "json"]);
    assert!(json_diagnostics(&run).is_empty());
}

#[test]
fn every_export_format_matches_its_snapshot() {
    let root = fixture("graph");
    for format in ["dot", "json", "mermaid", "svg"] {
        let run = run_in(&root, &["graph", "--format", format]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        insta::assert_snapshot!(format!("graph-{format}"), run.stdout);
    }
}

#[test]
fn filters_narrow_the_graph() {
    let root = fixture("graph");
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["graph", "--format", "json"];
        all.extend_from_slice(args);
        serde_json::from_str(&run_in(&root, &all).stdout).unwrap()
    };
    let ids = |graph: &serde_json::Value| -> Vec<String> {
        graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect()
    };
    let around = json(&["--around", "sglang", "--depth", "1"]);
    assert_eq!(
        ids(&around),
        vec!["engines/sglang", "gotchas/b", "gotchas/e"]
    );
    let deeper = json(&["--around", "engines/sglang", "--depth", "2"]);
    assert!(
        ids(&deeper).contains(&"gotchas/a".to_string()),
        "b supersedes c, a supersedes b"
    );
    let fields = json(&["--field", "supersedes"]);
    for edge in fields["edges"].as_array().unwrap() {
        assert_eq!(edge["field"], "supersedes");
    }
    let collections = json(&["--collection", "engines", "--collection", "sources"]);
    assert!(
        ids(&collections)
            .iter()
            .all(|id| id.starts_with("engines/") || id.starts_with("sources/"))
    );
    fails_with_help(
        &root,
        &["graph", "--around", "sglng"],
        "did you mean `engines/sglang`?",
    );
    // A filter naming nothing is refused, not answered with an empty graph.
    fails_with_help(
        &root,
        &["graph", "--collection", "enginez"],
        "error: --collection `enginez` names no collection folder\nhelp: did you mean `engines`?",
    );
    fails_with_help(
        &root,
        &["graph", "--field", "superseeds"],
        "error: --field `superseeds` names no reference field\nhelp: did you mean `supersedes`?",
    );
    fails_with_help(&root, &["graph", "--depth", "2"], "--around <ID>");
    let links = json(&["--field", "link"]);
    assert!(links["edges"].is_array());
}

#[test]
fn dot_output_is_accepted_by_graphviz() {
    let run = run_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["graph", "--format", "dot"],
    );
    assert_eq!(run.code, 0);
    let Ok(mut dot) = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        eprintln!("skipped: Graphviz `dot` is not installed (.ci/run installs it)");
        return;
    };
    use std::io::Write;
    dot.stdin
        .take()
        .unwrap()
        .write_all(run.stdout.as_bytes())
        .unwrap();
    let output = dot.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let svg = String::from_utf8(output.stdout).unwrap();
    common::svg_document(&svg);
    assert!(svg.contains("vLLM"));
}

/// A graph too large for Graphviz to lay out in reasonable time is refused as SVG at once,
/// with ways to a smaller picture, where `--format dot` still writes it whole.
#[test]
fn an_svg_of_a_very_large_graph_is_refused_with_ways_to_narrow_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::copy_dir(&fixture("graph").join("schema"), &root.join("schema"));
    let engines = root.join("records/engines");
    std::fs::create_dir_all(&engines).unwrap();
    for n in 0..401 {
        std::fs::write(
            engines.join(format!("engine-{n}.yaml")),
            format!("id: engine-{n}\ntype: engine\nname: Engine {n}\n"),
        )
        .unwrap();
    }
    fails_with_help(root, &["graph", "--format", "svg"], "--around");
    let run = run_in(root, &["graph", "--format", "svg"]);
    assert!(
        run.stderr.contains("401 nodes") && run.stderr.contains("sfdp"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let dot = run_in(root, &["graph", "--format", "dot"]);
    assert_eq!(dot.code, 0, "{}", dot.stderr);
    assert!(dot.stdout.contains("engines/engine-400"));
}

/// Folder names and record names with what each format treats as its own syntax: `&`, a
/// control character, folders that differ only in punctuation.
#[test]
fn odd_folders_and_names_keep_every_format_valid() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("schema")).unwrap();
    for (kind, folder) in [("faq", "q&a"), ("note", "q-a"), ("memo", "q_a")] {
        std::fs::write(
            root.join(format!("schema/{kind}.schema.json")),
            format!(
                r#"{{"x-collection": "{folder}", "type": "object", "properties": {{
                    "see": {{"type": "array", "items": {{"type": "string", "x-ref": "faq"}}}}}}}}"#
            ),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("records").join(folder)).unwrap();
    }
    // More nodes than the in-process layout takes, so that Graphviz lays the SVG out.
    for n in 0..70 {
        std::fs::write(
            root.join(format!("records/q&a/f{n}.json")),
            serde_json::json!({"id": format!("f{n}"), "type": "faq",
                "name": format!("Q{n} \u{1} &amp;"), "see": [format!("f{}", (n + 1) % 70)]})
            .to_string(),
        )
        .unwrap();
    }
    std::fs::write(
        root.join("records/q-a/n.yaml"),
        "id: n\ntype: note\nsee: [f0]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("records/q_a/m.yaml"),
        "id: m\ntype: memo\nsee: [f0]\n",
    )
    .unwrap();

    let mermaid = run_in(root, &["graph", "--format", "mermaid"]);
    assert_eq!(mermaid.code, 0, "{}", mermaid.stderr);
    let subgraphs: Vec<&str> = mermaid
        .stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("subgraph "))
        .collect();
    assert_eq!(
        subgraphs,
        [r#"c0["q#amp;a"]"#, r#"c1["q-a"]"#, r#"c2["q_a"]"#]
    );
    assert!(
        mermaid.stdout.contains(r#"n0["Q0   #amp;amp;"]"#),
        "{}",
        mermaid.stdout
    );

    let dot = run_in(root, &["graph", "--format", "dot"]);
    assert!(dot.stdout.contains(r#"URL="/q%26a/f0/""#), "{}", dot.stdout);
    assert!(!dot.stdout.contains('\u{1}'));
    let svg = run_in(root, &["graph", "--format", "svg"]);
    if svg.stderr.contains("Graphviz") && svg.code == 2 {
        eprintln!("skipped the SVG: {}", svg.stderr);
        return;
    }
    assert_eq!(svg.code, 0, "{}", svg.stderr);
    let document = common::svg_document(&svg.stdout);
    let links: Vec<&str> = document
        .descendants()
        .filter_map(|n| n.attribute(("http://www.w3.org/1999/xlink", "href")))
        .collect();
    assert!(links.contains(&"/q%26a/f0/"), "{links:?}");
}

#[test]
fn neighbourhood_svg_is_valid_with_the_expected_labels() {
    let run = run_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "graph",
            "--format",
            "svg",
            "--around",
            "engines/vllm",
            "--depth",
            "2",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let document = roxmltree::Document::parse(&run.stdout).unwrap();
    let labels: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for expected in [
        "vLLM",
        "vllm-project/vllm on GitHub",
        "NVIDIA Dynamo",
        "Mooncake",
    ] {
        assert!(labels.contains(&expected), "{expected} in {labels:?}");
    }
    let links: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .filter_map(|n| n.attribute("href"))
        .collect();
    assert!(
        links.contains(&"/engines/vllm/"),
        "nodes are clickable: {links:?}"
    );
}

#[test]
fn refs_lists_references_and_backlinks() {
    let root = fixture("graph");
    let human = run_in(&root, &["refs", "vllm"]);
    assert_eq!(human.code, 0);
    insta::assert_snapshot!("refs-vllm", human.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&run_in(&root, &["refs", "engines/vllm", "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(json["references"]["sources"][0], "sources/vllm-repo");
    assert_eq!(
        json["referenced_by"]["gotchas"]["affects"],
        serde_json::json!(["gotchas/a", "gotchas/c", "gotchas/d"])
    );
    assert_eq!(
        json["referenced_by"]["pages"]["link"],
        serde_json::json!(["docs/overview"])
    );
    fails_with_help(&root, &["refs", "vlm"], "did you mean");
}

#[test]
fn refs_lists_the_references_that_do_not_resolve() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&fixture("graph"), dir.path());
    let engine = dir.path().join("records/engines/vllm.yaml");
    let text = std::fs::read_to_string(&engine).unwrap();
    std::fs::write(
        &engine,
        text.replace(
            "sources: [vllm-repo]",
            "sources: [vllm-repo, no-such-source]",
        ),
    )
    .unwrap();
    let human = run_in(dir.path(), &["refs", "vllm"]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human
            .stdout
            .contains("  sources\n    sources/vllm-repo\n    no-such-source (names no record)\n"),
        "{}",
        human.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&run_in(dir.path(), &["refs", "vllm", "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(
        json["unresolved"]["sources"],
        serde_json::json!([{"id": "no-such-source", "problem": "names no record"}])
    );
}

#[test]
fn a_file_that_holds_no_record_moves_no_reference() {
    // Records are numbered as they load, before every file ahead of them is known to hold
    // one: a broken file that sorts first renumbers every record after it, and the
    // references drawn from them must follow, or each backlink names the record before.
    let corpus = tempfile::tempdir().unwrap();
    common::copy_dir(&fixture("graph"), corpus.path());
    let views = |root: &Path| {
        [
            run_in(root, &["refs", "engines/vllm", "--format", "json"]).stdout,
            run_in(root, &["stats", "--format", "json"]).stdout,
            run_in(root, &["graph", "--format", "json"]).stdout,
        ]
    };
    let before = views(corpus.path());
    std::fs::write(
        corpus.path().join("records/engines/0-broken.yaml"),
        "name: [unclosed\n",
    )
    .unwrap();
    let run = run_in(corpus.path(), &["refs", "engines/vllm"]);
    assert!(
        run.stderr.contains("note: 1 problem while loading;"),
        "{}",
        run.stderr
    );
    assert_eq!(views(corpus.path()), before);
}

#[test]
fn stats_counts_the_corpus() {
    let root = fixture("graph");
    let human = run_in(&root, &["stats"]);
    assert_eq!(human.code, 0);
    insta::assert_snapshot!("stats", human.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&run_in(&root, &["stats", "--format", "json"]).stdout).unwrap();
    assert_eq!(json["records"]["gotchas"], 5);
    assert_eq!(json["references"]["supersedes"], 4);
    assert_eq!(
        json["most_referenced"][0],
        serde_json::json!(["engines/vllm", 4])
    );
    // A reference written twice counts twice, as a dangling one written twice does.
    let corpus = tempfile::tempdir().unwrap();
    common::copy_dir(&root, corpus.path());
    std::fs::write(
        corpus.path().join("records/gotchas/twice.yaml"),
        "id: twice\ntype: gotcha\nname: Twice\naffects: [vllm, vllm, nope, nope]\n",
    )
    .unwrap();
    let again: serde_json::Value =
        serde_json::from_str(&run_in(corpus.path(), &["stats", "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(
        again["references"]["affects"].as_u64(),
        json["references"]["affects"].as_u64().map(|n| n + 2)
    );
    assert_eq!(
        again["dangling"].as_u64(),
        json["dangling"].as_u64().map(|n| n + 2)
    );
}

#[test]
fn graph_output_is_identical_across_runs_and_thread_counts() {
    let root = fixture("graph");
    // Kept out of the fixture; the first check fills it and the others recall from it.
    let cache = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "2", "1", "4"] {
        let output = assert_cmd::Command::cargo_bin("gotchas")
            .unwrap()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "--root",
                root.to_str().unwrap(),
                "graph",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        outputs.push(output.stdout);
        let output = assert_cmd::Command::cargo_bin("gotchas")
            .unwrap()
            .env("RAYON_NUM_THREADS", threads)
            .env("GOTCHAS_CACHE_DIR", cache.path())
            .args([
                "--root",
                root.to_str().unwrap(),
                "check",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        outputs.push(output.stdout);
    }
    for pair in outputs.chunks(2).skip(1) {
        assert_eq!(pair[0], outputs[0]);
        assert_eq!(pair[1], outputs[1]);
    }
}

/// A long `supersedes` history is searched for cycles without the search's depth growing
/// with it: followed by recursion, a chain of 30,000 records overflowed a thread's stack.
#[test]
fn a_long_chain_of_acyclic_references_is_checked_without_overflow() {
    let corpus = tempfile::tempdir().unwrap();
    common::copy_dir(&fixture("graph"), corpus.path());
    let gotchas = corpus.path().join("records/gotchas");
    let length = 30_000;
    for n in 0..length {
        let next = if n + 1 < length {
            format!("supersedes: chain-{}\n", n + 1)
        } else {
            "supersedes: chain-0\n".to_string()
        };
        std::fs::write(
            gotchas.join(format!("chain-{n}.yaml")),
            format!("id: chain-{n}\ntype: gotcha\nname: Chain {n}\naffects: [vllm]\n{next}"),
        )
        .unwrap();
    }
    let run = check(corpus.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let cycles = json_diagnostics(&run)
        .into_iter()
        .filter(|d| d.0 == "cycle" && d.1.contains("chain-"))
        .count();
    assert_eq!(cycles, 1, "the ring is one cycle");
}

/// A corpus of `count` records `things/t0`..: each cites the next, the last the first, and
/// `name` is the name of `t5` (the others are `Thing N`).
fn ring(count: usize, name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(
        dir.path().join("schema/thing.schema.json"),
        r#"{"$id": "thing", "x-collection": "things", "type": "object",
            "required": ["id", "type", "name"], "properties": {
                "id": {"type": "string"}, "type": {"const": "thing"}, "name": {"type": "string"},
                "rel": {"type": "array", "items": {"type": "string", "x-ref": ["thing"]}}}}"#,
    )
    .unwrap();
    let things = dir.path().join("records/things");
    std::fs::create_dir_all(&things).unwrap();
    for n in 0..count {
        let name = if n == 5 {
            name.to_string()
        } else {
            format!("Thing {n}")
        };
        std::fs::write(
            things.join(format!("t{n}.json")),
            serde_json::json!({"id": format!("t{n}"), "type": "thing", "name": name,
                "rel": [format!("t{}", (n + 1) % count)]})
            .to_string(),
        )
        .unwrap();
    }
    dir
}

/// U+FFFE and U+FFFF are not XML characters: Graphviz copies them from the DOT into its
/// SVG, so the DOT holds U+FFFD in their place, as the in-process SVG does.
#[test]
fn noncharacters_in_a_name_keep_the_graphviz_svg_valid_xml() {
    let corpus = ring(61, "Thing \u{FFFE} \u{FFFF}");
    let dot = run_in(corpus.path(), &["graph", "--format", "dot"]);
    assert_eq!(dot.code, 0, "{}", dot.stderr);
    assert!(
        dot.stdout.contains("label=\"Thing \u{FFFD} \u{FFFD}\""),
        "{}",
        dot.stdout
    );
    assert!(!dot.stdout.contains(['\u{FFFE}', '\u{FFFF}']));
    let svg = run_in(corpus.path(), &["graph", "--format", "svg"]);
    if svg.stderr.contains("not installed") && svg.code == 2 {
        eprintln!("skipped the SVG: {}", svg.stderr);
        return;
    }
    assert_eq!(svg.code, 0, "{}", svg.stderr);
    let document = common::svg_document(&svg.stdout);
    assert!(
        document
            .descendants()
            .any(|n| n.text() == Some("Thing \u{FFFD} \u{FFFD}")),
        "{}",
        svg.stdout
    );
}

/// The line of `--format mermaid` that declares `t5`, the record [`ring`] names.
fn mermaid_t5(corpus: &Path) -> String {
    let run = run_in(corpus, &["graph", "--format", "mermaid"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .find(|line| line.trim_start().starts_with("n5["))
        .unwrap_or_else(|| panic!("no n5 in {}", run.stdout))
        .trim()
        .to_string()
}

/// Mermaid refuses the whole diagram at an empty `""` label: a nameless record shows its id.
#[test]
fn a_record_without_a_name_is_labelled_with_its_id_in_mermaid() {
    let corpus = ring(8, "");
    assert_eq!(mermaid_t5(corpus.path()), r#"n5["things/t5"]"#);
}

/// `%%{...}%%` anywhere in a Mermaid diagram is a directive that configures it, and a label
/// in backquotes is Markdown: in a name, both are text, written as character codes.
#[test]
fn directives_and_markdown_in_a_name_stay_text_in_mermaid() {
    let corpus = ring(8, "x %%{init: {'theme':'forest'}}%% `**y**`");
    assert_eq!(
        mermaid_t5(corpus.path()),
        "n5[\"x #37;#37;{init: {'theme':'forest'}}#37;#37; #96;**y**#96;\"]"
    );
}

/// Mermaid draws no flowchart of more than 500 edges or 50,000 characters (GitHub's
/// neither): such a graph is refused as Mermaid, with ways to a smaller one, as an SVG too
/// large for Graphviz is.
#[test]
fn a_mermaid_flowchart_mermaid_would_not_draw_is_refused_with_ways_to_narrow_it() {
    let most = ring(500, "Thing 5");
    let run = run_in(most.path(), &["graph", "--format", "mermaid"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches(" -->|").count(), 500);

    let over = ring(501, "Thing 5");
    fails_with_help(over.path(), &["graph", "--format", "mermaid"], "--around");
    let run = run_in(over.path(), &["graph", "--format", "mermaid"]);
    assert!(
        run.stderr.contains("501 edges") && run.stderr.contains("500"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let narrowed = run_in(
        over.path(),
        &[
            "graph", "--format", "mermaid", "--around", "t5", "--depth", "3",
        ],
    );
    assert_eq!(narrowed.code, 0, "{}", narrowed.stderr);

    // Few edges, long names: the text is what is too long. JavaScript counts `日` as one.
    let long = ring(100, &"日".repeat(1_000));
    let run = run_in(
        long.path(),
        &["graph", "--format", "mermaid", "--field", "rel"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let longer = ring(100, &"日".repeat(50_000));
    fails_with_help(longer.path(), &["graph", "--format", "mermaid"], "--field");
    let run = run_in(longer.path(), &["graph", "--format", "mermaid"]);
    assert!(run.stderr.contains("characters"), "{}", run.stderr);
}

/// A `dot` that takes longer than it is given is stopped, and the refusal says how to go
/// on; here a `dot` on the PATH that never finishes stands in for a graph too hard to lay
/// out.
#[cfg(unix)]
#[test]
fn a_dot_that_takes_too_long_is_stopped() {
    use std::os::unix::fs::PermissionsExt;
    let corpus = ring(61, "Thing 5");
    let bin = tempfile::tempdir().unwrap();
    let dot = bin.path().join("dot");
    std::fs::write(&dot, "#!/bin/sh\nexec sleep 600\n").unwrap();
    std::fs::set_permissions(&dot, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .args(["graph", "--format", "svg", "--dot-timeout", "1", "--root"])
        .arg(corpus.path())
        .env("PATH", path)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Graphviz `dot` was stopped after 1 s laying out 61 nodes")
            && stderr.contains("give it longer (--dot-timeout)"),
        "{stderr}"
    );
}
