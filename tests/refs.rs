//! Cross-references through the binary: reference fields in every format, every wiki-link
//! form, did-you-mean, `--fix`, `--diff` and the baseline.

mod common;

use std::path::Path;

use common::{check, copy_dir, fixture, json_diagnostics};

#[test]
fn reference_rules_in_every_format() {
    let root = fixture("refs");
    let human = check(&root, &[]);
    assert_eq!(human.code, 1);
    insta::assert_snapshot!("refs", human.stdout);
    let diagnostics = json_diagnostics(&check(&root, &["--format", "json"]));
    let codes_in = |file: &str| -> Vec<String> {
        diagnostics
            .iter()
            .filter(|d| d.1 == file)
            .map(|d| d.0.clone())
            .collect()
    };
    for file in ["bad-json.json", "bad-yaml.yaml", "bad-md.md"] {
        let codes = codes_in(&format!("records/gotchas/{file}"));
        for code in ["unresolved-ref", "wrong-target", "ambiguous-ref"] {
            assert!(
                codes.contains(&code.to_string()),
                "{code} in {file}: {codes:?}"
            );
        }
    }
    assert!(
        codes_in("records/gotchas/clean.json").is_empty(),
        "qualified ids, nulls and cross-collection bare ids resolve"
    );
    for (_, path, line, column) in &diagnostics {
        assert!(line.is_some() && column.is_some(), "{path}");
    }
}

#[test]
fn every_wiki_link_form_and_code_is_not_a_link() {
    let run = check(&fixture("refs"), &[]);
    // Resolving forms produce nothing; each broken form is reported where it is written.
    assert!(
        run.stdout
            .contains("the wiki-link `[[engines/moonkake]]` names no record or page")
    );
    assert!(
        run.stdout
            .contains("`vllm` in a link could name any of engines/vllm, sources/vllm")
    );
    assert!(
        run.stdout
            .contains("the wiki-link `[[nothing-here]]` names no record or page")
    );
    assert!(
        run.stdout
            .contains("the link to `../../docs/missing.md` points at no file")
    );
    // Links in the string fields of JSON and YAML records, one made with an escape.
    assert!(
        run.stdout
            .contains("the wiki-link `[[engines/moonkayk]]` names no record or page")
    );
    let escaped = "the wiki-link `[[engines/vllmm]]` names no record or page";
    assert_eq!(run.stdout.matches(escaped).count(), 2, "{}", run.stdout);
    assert!(!run.stdout.contains("[[engines/vllm|"));
    assert!(!run.stdout.contains("guide.md` points"));
    assert!(
        !run.stdout.contains("nope"),
        "a link in a code span is text"
    );
    assert!(
        !run.stdout.contains("also-not-a-link"),
        "a link in a code block is text"
    );
}

#[test]
fn links_in_tables_and_reference_links_are_read_and_placed_as_written() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    // In a table a wiki-link's `|` is escaped; a reference link's target is in its
    // definition; a link whose text is its own target is placed at the target.
    let page = "| engine | note |\n|---|---|\n| [[engines/vllm\\|vLLM]] | ok |\n\
                | [[engines/mooncaek\\|Mooncake]] | typo |\n\n\
                See [the guide][g] and [missing.md](missing.md).\n\n[g]: gide.md\n";
    let path = dir.path().join("docs/table.md");
    std::fs::write(&path, page).unwrap();
    let found: Vec<(String, Option<u64>, Option<u64>)> =
        json_diagnostics(&check(dir.path(), &["--format", "json"]))
            .into_iter()
            .filter(|(_, path, _, _)| path == "docs/table.md")
            .map(|(code, _, line, column)| (code, line, column))
            .collect();
    let at = |code: &str, line, column| (code.to_string(), Some(line), Some(column));
    assert_eq!(
        found,
        vec![
            at("broken-link", 4, 5),
            at("broken-link", 6, 37),
            at("broken-link", 8, 6),
        ]
    );
    check(dir.path(), &["--fix"]);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        page.replace("mooncaek", "mooncake"),
        "the table keeps its escaped `|`"
    );
}

/// Prose pages in several folders may share a stem: a bare wiki-link naming it is
/// ambiguous, as an id several collections have is, and each page is named by its path
/// below its `docs` folder or from the root, `.md` or not. A path that is also a record's
/// qualified id names the record; the page is then named from the root.
#[test]
fn pages_sharing_a_stem_are_named_by_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    std::fs::write(
        dir.path().join("gotchas.toml"),
        "docs = [\"docs/**/*.md\"]\n",
    )
    .unwrap();
    for (page, title) in [
        ("linux/setup", "Linux"),
        ("windows/setup", "Windows"),
        ("engines/vllm", "Running vLLM"),
    ] {
        let path = dir.path().join(format!("docs/{page}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("# {title}\n")).unwrap();
    }
    std::fs::write(
        dir.path().join("docs/guide.md"),
        "# Guide\n\n[[setup]], [[windows/setup]], [[docs/windows/setup]],\n\
         [[docs/linux/setup.md]], [[engines/vllm]] and [[docs/engines/vllm]].\n",
    )
    .unwrap();
    let run = check(dir.path(), &["--format", "json"]);
    let in_guide: Vec<serde_json::Value> = common::json_report(&run)
        .into_iter()
        .filter(|d| d["path"] == "docs/guide.md")
        .collect();
    assert_eq!(in_guide.len(), 1, "{in_guide:#?}");
    let ambiguous = &in_guide[0];
    assert_eq!(ambiguous["code"], "ambiguous-ref");
    assert_eq!(
        (&ambiguous["line"], &ambiguous["column"]),
        (&3.into(), &3.into())
    );
    assert_eq!(
        ambiguous["message"],
        "the wiki-link `[[setup]]` could name any of the pages docs/linux/setup.md, docs/windows/setup.md"
    );
    let cited_by = |id: &str| -> serde_json::Value {
        let root = dir.path().to_str().unwrap();
        let run = common::gotchas(&["refs", "--root", root, id, "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let refs: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        refs["referenced_by"]["pages"]["link"].clone()
    };
    for id in [
        "docs/windows/setup",
        "docs/linux/setup",
        "docs/engines/vllm",
        "engines/vllm",
    ] {
        assert_eq!(cited_by(id), serde_json::json!(["docs/guide"]), "{id}");
    }
}

/// A relative link or image to any file, not only a Markdown one, is checked: in a prose
/// page, in a Markdown record's body and in a string field, each placed at its path, by
/// `check` and by `build`, which marks it on the page. Files that exist, external links,
/// fragments of the page itself and escaped spaces are no problem.
#[test]
fn a_link_or_image_to_a_missing_file_of_any_kind_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    std::fs::write(dir.path().join("docs/pic.png"), b"\x89PNG").unwrap();
    std::fs::write(dir.path().join("docs/my plot.svg"), "<svg/>").unwrap();
    std::fs::write(
        dir.path().join("docs/files.md"),
        "# Files\n\n![a picture](pic.png) ![plot](my%20plot.svg) [site](https://x.org/a.png)\n\
         [top](#files) and [here](files.md#files).\n\n\
         ![x](nope.png) and [f](nope.txt?raw=1#l2).\n\n[r]: gone.pdf\n\nSee [r].\n",
    )
    .unwrap();
    let record = dir.path().join("records/gotchas/bad-md.md");
    let body = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, format!("{body}\n![diagram](diagram.svg)\n")).unwrap();
    let line = body.lines().count() + 2;
    // The record's body has broken links of its own above the image.
    let found = |run: &common::Run| -> Vec<String> {
        json_diagnostics(run)
            .into_iter()
            .filter(|(code, file, at, _)| {
                code == "broken-link" && (file == "docs/files.md" || *at == Some(line as u64))
            })
            .map(|(_, file, line, column)| format!("{file}:{}:{}", line.unwrap(), column.unwrap()))
            .collect()
    };
    let expected = [
        "docs/files.md:6:6".to_string(),
        "docs/files.md:6:24".to_string(),
        "docs/files.md:8:6".to_string(),
        format!("records/gotchas/bad-md.md:{line}:12"),
    ];
    assert_eq!(found(&check(dir.path(), &["--format", "json"])), expected);
    let out = dir.path().join("out");
    let build = build(dir.path(), &out);
    assert_eq!(build.code, 0, "{}", build.stderr);
    for place in &expected {
        assert!(
            build.stdout.contains(&format!("--> {place}\n")),
            "{place}: {}",
            build.stdout
        );
    }
    let page = std::fs::read_to_string(out.join("docs/files/index.html")).unwrap();
    assert_eq!(page.matches("class=\"broken-link\"").count(), 3, "{page}");
}

#[test]
fn a_misspelt_folder_is_fixed_to_the_same_id_never_to_a_neighbour() {
    let engine = |id: &str| format!("id: {id}\nname: {id}\n{ENGINE}");
    let (sglang, sglong) = (engine("sglang"), engine("sglong"));
    let gotcha = GOTCHA
        .replace(
            "sources: [s]\n",
            "sources: [s]\naffects: [engine/sglang, engin/sglong]\n",
        )
        .replace("symptom: S\n", "symptom: \"see [[engine/sglang]]\"\n");
    let dir = common::temp_corpus(&[
        ("sources/s.yaml", SOURCE.as_bytes()),
        ("engines/sglang.yaml", sglang.as_bytes()),
        ("engines/sglong.yaml", sglong.as_bytes()),
        ("gotchas/g.yaml", gotcha.as_bytes()),
    ]);
    let run = check(dir.path(), &[]);
    assert_eq!(
        run.stdout
            .matches("help: did you mean sglang (engines/sglang)?")
            .count(),
        2,
        "{}",
        run.stdout
    );
    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        gotcha
            .replace("engine/sglang", "engines/sglang")
            .replace("engin/sglong", "engines/sglong")
    );
}

#[test]
fn a_wiki_link_near_a_page_stem_gets_the_page_as_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    std::fs::write(dir.path().join("docs/known-traps.md"), "# Known traps\n").unwrap();
    std::fs::write(
        dir.path().join("docs/index.md"),
        "# Index\n\n[[known-trapz]]\n",
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert!(
        run.stdout
            .contains("= help: did you mean the page known-traps (docs/known-traps.md)?"),
        "{}",
        run.stdout
    );
}

/// A link to a record's file cites the record, as a wiki-link does, and a link between
/// pages leads to the page, however the corpus root is named (`.` in the corpus, `..`
/// from below it).
#[test]
fn a_link_to_a_file_of_the_corpus_cites_what_the_file_holds_from_any_root() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    std::fs::write(
        dir.path().join("docs/index.md"),
        "# Index\n\n[The guide](guide.md), [the gotcha](../records/gotchas/bad-md.md).\n",
    )
    .unwrap();
    let refs = |cwd: &Path, root: &str, id: &str| -> serde_json::Value {
        let run = common::gotchas_in(cwd, &["--root", root, "refs", id, "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    };
    for (cwd, root) in [
        (dir.path().to_path_buf(), "."),
        (dir.path().join("records"), ".."),
        (dir.path().to_path_buf(), dir.path().to_str().unwrap()),
    ] {
        let gotcha = refs(&cwd, root, "gotchas/bad-md");
        assert_eq!(
            gotcha["referenced_by"]["pages"]["link"],
            serde_json::json!(["docs/index"]),
            "root {root}: {gotcha}"
        );
        let page = refs(&cwd, root, "docs/index");
        assert_eq!(
            page["references"]["link"],
            serde_json::json!(["docs/guide", "gotchas/bad-md"]),
            "root {root}: {page}"
        );
    }
}

/// `gotchas build` of the corpus at `root` into `out`, uncoloured.
fn build(root: &Path, out: &Path) -> common::Run {
    common::gotchas(&[
        "build",
        "--root",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--color",
        "never",
    ])
}

/// A copy of the bundled corpus with the user's historical typo put back.
fn corpus_with_mooncache() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let main = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&main.join("schema"), &dir.path().join("schema"));
    copy_dir(&main.join("records"), &dir.path().join("records"));
    let record = dir
        .path()
        .join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
    let original = std::fs::read_to_string(&record).unwrap();
    let broken = original.replace(
        "affects: [vllm, nixl, mooncake, nvidia-dynamo]",
        "affects: [vllm, nixl, mooncache, nvidia-dynamo]",
    );
    assert_ne!(broken, original);
    std::fs::write(&record, &broken).unwrap();
    (dir, record, original)
}

#[test]
fn mooncache_is_reported_suggested_and_fixed() {
    let (dir, record, original) = corpus_with_mooncache();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("mooncache", run.stdout);
    assert!(
        run.stdout.contains(
            "--> records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md:6:23"
        )
    );
    assert!(
        run.stdout
            .contains("help: did you mean mooncake (engines/mooncake)")
    );

    let diff = check(dir.path(), &["--diff"]);
    assert!(
        diff.stdout
            .contains("-affects: [vllm, nixl, mooncache, nvidia-dynamo]")
    );
    assert!(
        diff.stdout
            .contains("+affects: [vllm, nixl, mooncake, nvidia-dynamo]")
    );
    assert_ne!(
        std::fs::read_to_string(&record).unwrap(),
        original,
        "--diff writes nothing"
    );
    // A machine format has no room for the diff, so the two are not asked for together.
    let refused = check(dir.path(), &["--diff", "--format", "json"]);
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "error: --diff prints a unified diff in the human format only\n"
    );

    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert!(fixed.stdout.contains("fixed 1 problem in 1 file"));
    assert_eq!(
        std::fs::read_to_string(&record).unwrap(),
        original,
        "every other byte is unchanged"
    );
    assert_eq!(check(dir.path(), &[]).code, 0);

    let again = check(dir.path(), &["--fix"]);
    assert!(
        again.stdout.contains("fixed 0 problems in 0 files"),
        "--fix is idempotent"
    );
}

/// A field that cites engines, given the misspelt id of a record of another collection:
/// only a close typo of it is suggested, named with its collection so that the author sees
/// the field cannot point at it; a name that only shares words with it is not.
#[test]
fn a_close_typo_of_another_collections_record_is_suggested() {
    let (dir, record, original) = corpus_with_mooncache();
    let cites = |affects: &str| {
        let text = original.replace(
            "affects: [vllm, nixl, mooncake, nvidia-dynamo]",
            &format!("affects: [vllm, nixl, mooncake, {affects}]"),
        );
        std::fs::write(&record, text).unwrap();
        check(dir.path(), &[]).stdout
    };
    let typo = cites("pd-nixl-rep");
    assert!(
        typo.contains(
            "help: no close id is in engines/; close ids of records `affects` cannot point at: \
             pd-nixl-repo (sources/pd-nixl-repo)"
        ),
        "{typo}"
    );
    assert!(typo.contains("`pd-nixl-rep` in `affects` names no record"));
    let shared_words = cites("nixl-repo-pd");
    assert!(shared_words.contains("`nixl-repo-pd` in `affects` names no record"));
    assert!(
        !shared_words.contains("sources/pd-nixl-repo"),
        "{shared_words}"
    );
    let far = cites("pd-nixl-rxpxx");
    assert!(!far.contains("sources/pd-nixl-repo"), "three edits: {far}");
}

#[test]
fn fixes_keep_json_quotes_and_yaml_comments() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    let json = dir.path().join("records/gotchas/bad-json.json");
    let yaml = dir.path().join("records/gotchas/bad-yaml.yaml");
    let yaml_before = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("name: Bad YAML", "name: Bad YAML # kept");
    std::fs::write(&yaml, &yaml_before).unwrap();
    let json_before = std::fs::read_to_string(&json).unwrap();
    // The links written with an escape (`\u005b[engines/vllmm]]`) are reported but not
    // fixed: found only as the whole string, an edit would have replaced the string.
    check(dir.path(), &["--fix"]);
    let json_after = std::fs::read_to_string(&json).unwrap();
    assert_eq!(
        json_after,
        json_before
            .replace("\"mooncache\"", "\"mooncake\"")
            .replace("\"vllm-doc\"", "\"vllm-docs\"")
    );
    let yaml_after = std::fs::read_to_string(&yaml).unwrap();
    assert_eq!(
        yaml_after,
        yaml_before
            .replace("- mooncache", "- mooncake")
            .replace("[vllm-doc]", "[vllm-docs]")
            .replace("cleen", "clean")
    );
    // Ambiguous and wrong-target references are never fixed automatically.
    assert!(yaml_after.contains("- gaudi") && yaml_after.contains("- vllm-docs"));
}

const SOURCE: &str = "id: s\ntype: source\nname: S\nstatus: verified\nconfidence: 0.9\n\
    updated: 2026-01-01\nurl: https://example.com/\nkind: repo\naccessed: 2026-01-01\n";

const GOTCHA: &str = "id: g\ntype: gotcha\nname: G\nclass: config\nsymptom: S\n\
    status: verified\nconfidence: 0.5\nupdated: 2026-01-01\nsources: [s]\n";

#[test]
fn a_link_in_a_text_field_is_placed_and_fixed_where_it_is_not_where_code_shows_it() {
    let source = SOURCE.replace("id: s\n", "id: vllm-docs\n");
    let yaml = GOTCHA.replace(
        "symptom: S\n",
        "symptom: \"Write `[[vllm-doc]]` to link; see [[vllm-doc]].\"\n",
    );
    let block = GOTCHA.replace("id: g\n", "id: b\n").replace(
        "symptom: S\n",
        "symptom: |\n  ```\n  [[vllm-doc]]\n  ```\n  See [[vllm-doc|the docs]].\n",
    );
    let json = serde_json::json!({
        "id": "j", "type": "gotcha", "name": "J", "class": "config",
        "symptom": "A \"quoted\" `[[vllm-doc]]`, then [[vllm-doc]]",
        "status": "verified", "confidence": 0.5, "updated": "2026-01-01", "sources": ["s"],
    })
    .to_string();
    let dir = common::temp_corpus(&[
        ("sources/s.yaml", SOURCE.as_bytes()),
        ("sources/vllm-docs.yaml", source.as_bytes()),
        ("gotchas/g.yaml", yaml.as_bytes()),
        ("gotchas/b.yaml", block.as_bytes()),
        ("gotchas/j.json", json.as_bytes()),
    ]);
    let found: Vec<(String, Option<u64>, Option<u64>)> =
        json_diagnostics(&check(dir.path(), &["--format", "json"]))
            .into_iter()
            .map(|(_, path, line, column)| (path, line, column))
            .collect();
    assert_eq!(
        found,
        vec![
            ("records/gotchas/b.yaml".to_string(), Some(9), Some(9)),
            ("records/gotchas/g.yaml".to_string(), Some(5), Some(47)),
            ("records/gotchas/j.json".to_string(), Some(1), Some(102)),
        ]
    );
    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    let read = |name: &str| std::fs::read_to_string(dir.path().join("records/gotchas").join(name));
    assert_eq!(
        read("g.yaml").unwrap(),
        yaml.replace("see [[vllm-doc]]", "see [[vllm-docs]]")
    );
    assert_eq!(
        read("b.yaml").unwrap(),
        block.replace("[[vllm-doc|", "[[vllm-docs|")
    );
    assert_eq!(
        read("j.json").unwrap(),
        json.replace("then [[vllm-doc]]", "then [[vllm-docs]]")
    );
}

#[test]
fn one_fix_run_also_fixes_what_a_fix_reveals() {
    // `severty` is not validated against the enum until it is renamed to `severity`.
    let gotcha = format!("{GOTCHA}severty: majr\n");
    let dir = common::temp_corpus(&[
        ("sources/s.yaml", SOURCE.as_bytes()),
        ("gotchas/g.yaml", gotcha.as_bytes()),
    ]);
    let fixed = check(dir.path(), &["--fix"]);
    assert!(
        fixed.stdout.contains("fixed 2 problems in 1 file"),
        "{}",
        fixed.stdout
    );
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        format!("{GOTCHA}severity: major\n")
    );
}

#[test]
fn fixes_in_yaml_keep_anchors_tags_comments_and_the_lines_after_a_block_scalar() {
    let source = SOURCE.replace("id: s\n", "id: vllm-docs\n");
    // Each typo is written in a style whose node the parser spans wider than the value: after
    // an anchor or a tag, quoted with a comment after it, or as a block scalar, whose fix
    // once joined the next line onto the value.
    let yaml = "id: g\ntype: gotcha\nname: G\nclass: !!str confg # why\n\
        symptom: *st\nstatus: &st 'verifed'   # by alice's review\nconfidence: 0.5\n\
        severity: |-\n  majr\n\n# kept\nupdated: 2026-01-01\n\
        sources:\n  - \"vllm-doc\" # c\n";
    let markdown = "---\nid: h\ntype: gotcha\nname: H\nclass: config\nsymptom: S\n\
        confidence: 0.5\nupdated: 2026-01-01\nsources: [vllm-docs]\nstatus: |\n  verifed\n---\n\
        Body.\n";
    let dir = common::temp_corpus(&[
        ("sources/vllm-docs.yaml", source.as_bytes()),
        ("gotchas/g.yaml", yaml.as_bytes()),
        ("gotchas/h.md", markdown.as_bytes()),
    ]);
    // `symptom: *st` comes before its anchor: YAML refuses it, so it is moved after.
    let yaml = yaml.replace("symptom: *st\n", "");
    let yaml = yaml.replace("confidence: 0.5\n", "confidence: 0.5\nsymptom: *st\n");
    std::fs::write(dir.path().join("records/gotchas/g.yaml"), &yaml).unwrap();
    let fixed = check(dir.path(), &["--fix"]);
    assert!(
        fixed.stdout.contains("fixed 5 problems in 2 files"),
        "{}",
        fixed.stdout
    );
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        yaml.replace("confg", "config")
            .replace("'verifed'", "'verified'")
            .replace("|-\n  majr", "major")
            .replace("\"vllm-doc\"", "\"vllm-docs\"")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/h.md")).unwrap(),
        markdown.replace("|\n  verifed", "verified")
    );
}

/// A value reached through an alias of a sequence has no place of its own in the text:
/// the fix is offered, never applied, as an edit at the alias would replace the whole list.
#[test]
fn a_value_inside_an_aliased_list_is_not_fixed_through_the_alias() {
    let source = SOURCE.replace("id: s\n", "id: vllm-docs\n");
    let yaml = GOTCHA.replace("sources: [s]\n", "x-lists: &l [vllm-doc]\nsources: *l\n");
    let dir = common::temp_corpus(&[
        ("sources/vllm-docs.yaml", source.as_bytes()),
        ("gotchas/g.yaml", yaml.as_bytes()),
    ]);
    let run = check(dir.path(), &["--fix"]);
    assert!(run.stdout.contains("fixed 0 problems"), "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        yaml,
        "the file is as it was"
    );
}

/// `--diff` shows a file as its bytes are, byte-order mark and all, so that `patch` and
/// `git apply` find the lines it changes.
#[test]
fn a_diff_keeps_the_byte_order_mark_of_the_file() {
    let source = SOURCE.replace("id: s\n", "id: vllm-docs\n");
    let rest = GOTCHA.replace("id: g\n", "").replace("sources: [s]\n", "");
    let yaml = format!("\u{feff}id: g\nsources: [vllm-doc]\n{rest}");
    let dir = common::temp_corpus(&[
        ("sources/vllm-docs.yaml", source.as_bytes()),
        ("gotchas/g.yaml", yaml.as_bytes()),
    ]);
    let diff = check(dir.path(), &["--diff"]);
    assert!(
        diff.stdout.contains("@@ -1,5 +1,5 @@\n \u{feff}id: g\n"),
        "{}",
        diff.stdout
    );
}

/// `--diff` of a file whose lines end with a carriage return alone shows them one per line,
/// counted as the file has them; `--fix` keeps its line ends.
#[test]
fn a_diff_of_a_file_with_carriage_returns_alone_shows_each_line() {
    let source = SOURCE.replace("id: s\n", "id: vllm-docs\n");
    let rest = GOTCHA.replace("id: g\n", "").replace("sources: [s]\n", "");
    let yaml = format!("id: g\nsources: [vllm-doc]\n{rest}").replace('\n', "\r");
    let dir = common::temp_corpus(&[
        ("sources/vllm-docs.yaml", source.as_bytes()),
        ("gotchas/g.yaml", yaml.as_bytes()),
    ]);
    let diff = check(dir.path(), &["--diff"]);
    assert!(
        diff.stdout
            .contains("@@ -1,5 +1,5 @@\n id: g\n-sources: [vllm-doc]\n+sources: [vllm-docs]\n"),
        "{}",
        diff.stdout
    );
    assert!(!diff.stdout.contains('\r'), "{:?}", diff.stdout);
    check(dir.path(), &["--fix"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        yaml.replace("[vllm-doc]", "[vllm-docs]"),
        "the fix keeps the file's line ends"
    );
}

#[test]
fn a_fixed_value_is_written_so_that_it_reads_back_as_itself() {
    // Values YAML would read as a boolean, or that need escaping in the quotes they go in.
    let schema = r#"{"type": "object", "required": ["id", "type"], "properties": {
        "id": {"type": "string"}, "type": {"const": "note"},
        "state": {"enum": ["true", "it's", "say \"hi\""]}}}"#;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("schema")).unwrap();
    std::fs::create_dir_all(root.join("records/notes")).unwrap();
    std::fs::write(root.join("schema/note.schema.json"), schema).unwrap();
    std::fs::write(root.join("gotchas.toml"), "[rules]\norphan = \"allow\"\n").unwrap();
    let records = [
        (
            "a.yaml",
            "id: a\ntype: note\nstate: treu # c\n",
            "id: a\ntype: note\nstate: \"true\" # c\n",
        ),
        (
            "b.yaml",
            "id: b\ntype: note\nstate: 'its' # c\n",
            "id: b\ntype: note\nstate: 'it''s' # c\n",
        ),
        (
            "c.json",
            "{\"id\": \"c\", \"type\": \"note\", \"state\": \"say \\\"hii\\\"\"}\n",
            "{\"id\": \"c\", \"type\": \"note\", \"state\": \"say \\\"hi\\\"\"}\n",
        ),
    ];
    for (file, before, _) in records {
        std::fs::write(root.join("records/notes").join(file), before).unwrap();
    }
    let fixed = check(root, &["--fix"]);
    assert!(
        fixed.stdout.contains("fixed 3 problems in 3 files"),
        "{}",
        fixed.stdout
    );
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    for (file, _, after) in records {
        assert_eq!(
            std::fs::read_to_string(root.join("records/notes").join(file)).unwrap(),
            after
        );
    }
}

const ENGINE: &str =
    "type: engine\nstatus: verified\nconfidence: 0.9\nupdated: 2026-01-01\nsources: [s]\n";

#[test]
fn a_record_of_the_wrong_collection_gets_a_did_you_mean_among_the_allowed_ones() {
    // The engine `lmcache` was renamed `lm-cache`, and the source `lmcache` (its repository)
    // now takes the references the engine had; `sources/vllm` was written for the engine of
    // that id; nothing the field allows is close to `s`.
    let gotcha = format!("{GOTCHA}affects: [lmcache, sources/vllm, s]\n");
    let files = [
        ("sources/s.yaml", SOURCE.as_bytes().to_vec()),
        (
            "sources/lmcache.yaml",
            SOURCE.replace("id: s", "id: lmcache").into_bytes(),
        ),
        (
            "sources/vllm.yaml",
            SOURCE.replace("id: s", "id: vllm").into_bytes(),
        ),
        (
            "engines/lm-cache.yaml",
            format!("id: lm-cache\nname: LMCache\n{ENGINE}").into_bytes(),
        ),
        (
            "engines/vllm.yaml",
            format!("id: vllm\nname: vLLM\n{ENGINE}").into_bytes(),
        ),
        ("gotchas/g.yaml", gotcha.clone().into_bytes()),
    ];
    let files: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (*p, b.as_slice())).collect();
    let dir = common::temp_corpus(&files);
    let report = common::json_report(&check(dir.path(), &["--format", "json"]));
    let wrong: Vec<_> = report
        .iter()
        .filter(|d| d["code"] == "wrong-target")
        .collect();
    let seen: Vec<(&str, &str, Option<&str>)> = wrong
        .iter()
        .map(|d| {
            (
                d["message"].as_str().unwrap_or_default(),
                d["help"].as_str().unwrap_or_default(),
                d["fix"]["edits"][0]["replacement"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "`lmcache` in `affects` names sources/lmcache, which `affects` cannot point at",
                "did you mean lm-cache (engines/lm-cache)?",
                Some("lm-cache"),
            ),
            (
                "`sources/vllm` in `affects` names sources/vllm, which `affects` cannot point at",
                "did you mean engines/vllm?",
                Some("engines/vllm"),
            ),
            (
                "`s` in `affects` names sources/s, which `affects` cannot point at",
                "use the id of a record of an allowed collection, or allow the collection \
                 where the field's references are declared (its `x-ref`, or `[references]` in \
                 the config)",
                None,
            ),
        ]
    );
    for suggested in &wrong[..2] {
        assert_eq!(suggested["fix"]["applicability"], "maybe-incorrect");
        assert!(
            suggested["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().ends_with(
                    "is meant, allow its collection where the field's references are declared"
                )),
            "{suggested}"
        );
    }
    // The record named exists: whether the reference or the schema is wrong is the
    // author's call, so `--fix` applies neither suggestion.
    let fixed = check(dir.path(), &["--fix"]);
    assert!(
        fixed.stdout.contains("fixed 0 problems in 0 files"),
        "{}",
        fixed.stdout
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        gotcha
    );
}

#[test]
fn a_field_is_not_renamed_onto_one_the_record_has() {
    let gotcha = format!("{GOTCHA}severity: major\nseverty: minor\n");
    let dir = common::temp_corpus(&[
        ("sources/s.yaml", SOURCE.as_bytes()),
        ("gotchas/g.yaml", gotcha.as_bytes()),
    ]);
    let run = check(dir.path(), &["--fix"]);
    assert!(
        run.stdout.contains("fixed 0 problems in 0 files"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("error[unknown-field]: unknown field `severty`")
    );
    assert!(run.stdout.contains("help: did you mean `severity`?"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("records/gotchas/g.yaml")).unwrap(),
        gotcha,
        "a rename would have made a duplicate key"
    );
}

#[test]
fn baseline_accepts_known_problems_and_fails_on_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    // Fixing and accepting at once would leave it unsaid which problems were accepted.
    for fixing in ["--fix", "--diff"] {
        let refused = check(dir.path(), &["--write-baseline", fixing]);
        assert_eq!(refused.code, 2, "{fixing}");
        assert!(
            refused.stderr.contains("cannot be used with"),
            "{}",
            refused.stderr
        );
        assert!(!dir.path().join("gotchas-baseline.json").exists());
    }
    let write = check(dir.path(), &["--write-baseline"]);
    assert_eq!(write.code, 0);
    assert!(write.stdout.contains("wrote 21 known problems to"));
    let baseline = std::fs::read_to_string(dir.path().join("gotchas-baseline.json")).unwrap();
    assert!(
        baseline.contains("\"pointer\": \"/affects/*\""),
        "array indices are not part of a fingerprint"
    );

    let known = check(dir.path(), &[]);
    assert_eq!(known.code, 0, "{}", known.stdout);
    assert!(
        known
            .stdout
            .contains("0 errors, 0 warnings (21 known problems in the baseline)")
    );

    // Edits above a known problem move its line but not its fingerprint; a new problem fails.
    let yaml = dir.path().join("records/gotchas/bad-yaml.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        format!(
            "# a new first line\n{}",
            text.replace("- gaudi", "- gaudi\n  - sglang")
        ),
    )
    .unwrap();
    let new = check(dir.path(), &["--format", "json"]);
    assert_eq!(new.code, 1);
    let reported = json_diagnostics(&new);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].0, "unresolved-ref");

    // A known problem that is fixed is reported as stale, so the baseline can shrink.
    std::fs::write(&yaml, text.replace("cleen", "clean")).unwrap();
    let shrunk = check(dir.path(), &[]);
    assert_eq!(shrunk.code, 0);
    assert!(
        shrunk
            .stdout
            .contains("1 known problem in the baseline no longer occurs; run `gotchas check --write-baseline` to remove it:\n  records/gotchas/bad-yaml.yaml: "),
        "{}",
        shrunk.stdout
    );
}

/// A baseline the config names is a place, as the default one is: until it is written,
/// every problem is reported (a note says so) rather than the run refused;
/// `--write-baseline` makes its folder. One named on the command line must exist.
#[test]
fn a_configured_baseline_is_written_where_it_is_named_and_missing_means_none_known() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    let config = dir.path().join("gotchas.toml");
    let before = std::fs::read_to_string(&config).unwrap_or_default();
    std::fs::write(&config, format!("baseline = \"ci/known.json\"\n{before}")).unwrap();

    let unwritten = check(dir.path(), &[]);
    assert_eq!(unwritten.code, 1, "{}", unwritten.stderr);
    assert!(
        unwritten.stderr.contains(
            "ci/known.json does not exist yet, so every problem is reported (`--write-baseline` writes it)"
        ),
        "{}",
        unwritten.stderr
    );
    assert!(
        unwritten.stdout.contains("20 errors, 1 warning"),
        "{}",
        unwritten.stdout
    );
    assert!(!check(dir.path(), &["--quiet"]).stderr.contains("note:"));

    let named = check(dir.path(), &["--baseline", "elsewhere.json"]);
    assert_eq!(named.code, 2);
    assert!(
        named.stderr.contains("cannot read the baseline"),
        "{}",
        named.stderr
    );

    let write = check(dir.path(), &["--write-baseline"]);
    assert_eq!(write.code, 0, "{}", write.stderr);
    assert!(dir.path().join("ci/known.json").is_file());
    let known = check(dir.path(), &[]);
    assert_eq!(known.code, 0, "{}", known.stdout);
    assert!(known.stdout.contains("(21 known problems in the baseline)"));
}

/// A name that shares every word with a record (`nvidia-h200` of `nvidia-h200-sxm`) is
/// suggested before typos that change a model number (`nvidia-b200`), which are shown
/// after it and never applied.
#[test]
fn a_word_match_is_suggested_before_a_typo_of_another_model() {
    let dir = common::bundled_copy();
    let engines = dir.path().join("records/engines");
    let vllm = std::fs::read_to_string(engines.join("vllm.yaml")).unwrap();
    for id in ["nvidia-h200-sxm", "nvidia-b200", "nvidia-b300"] {
        std::fs::write(
            engines.join(format!("{id}.yaml")),
            vllm.replace("id: vllm", &format!("id: {id}")),
        )
        .unwrap();
    }
    let gotcha = dir
        .path()
        .join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
    let text = std::fs::read_to_string(&gotcha).unwrap();
    std::fs::write(
        &gotcha,
        text.replace("affects: [vllm,", "affects: [nvidia-h200,"),
    )
    .unwrap();
    let run = check(dir.path(), &["--fix"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "help: did you mean one of nvidia-h200-sxm (engines/nvidia-h200-sxm), \
             nvidia-b200 (engines/nvidia-b200), nvidia-b300 (engines/nvidia-b300)?"
        ),
        "{}",
        run.stdout
    );
    assert!(
        std::fs::read_to_string(&gotcha)
            .unwrap()
            .contains("affects: [nvidia-h200,"),
        "no suggestion is certain"
    );
}

/// The citing record is never offered for its own reference: `mooncak` in the sources of
/// the engine `mooncake` suggests no source, and not the engine itself.
#[test]
fn the_citing_record_is_never_suggested_for_its_own_reference() {
    let dir = common::bundled_copy();
    let mooncake = dir.path().join("records/engines/mooncake.yaml");
    let text = std::fs::read_to_string(&mooncake).unwrap();
    std::fs::write(
        &mooncake,
        text.replace("  - pd-mooncake-repo", "  - mooncak"),
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert!(
        run.stdout
            .contains("error[unresolved-ref]: `mooncak` in `sources` names no record"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("= help: `sources` may point at records in sources/\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("engines/mooncake)"), "{}", run.stdout);
}

/// A `docs` pattern matches as a shell does: `*` stays within a folder (`docs/**/*.md`
/// reaches below it), and a leading `./` names the root, where paths are matched from.
#[test]
fn docs_patterns_match_as_a_shell_does() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("refs"), dir.path());
    std::fs::create_dir(dir.path().join("docs/deeper")).unwrap();
    std::fs::write(
        dir.path().join("docs/deeper/nested.md"),
        "See [[nowhere-below]].\n",
    )
    .unwrap();
    let broken = |patterns: &str| -> Vec<String> {
        std::fs::write(
            dir.path().join("gotchas.toml"),
            format!("docs = {patterns}\n"),
        )
        .unwrap();
        let run = check(dir.path(), &["--format", "json"]);
        json_diagnostics(&run)
            .into_iter()
            .filter(|(code, file, ..)| code == "broken-link" && file.starts_with("docs/"))
            .map(|(_, file, ..)| file)
            .collect()
    };
    assert_eq!(broken(r#"["docs/*.md"]"#), ["docs/guide.md"]);
    assert_eq!(broken(r#"["./docs/*.md"]"#), ["docs/guide.md"]);
    assert_eq!(
        broken(r#"["docs/**/*.md"]"#),
        ["docs/deeper/nested.md", "docs/guide.md"]
    );
}

/// The `broken-anchor` fixture in a folder of its own, to fix and build.
fn anchor_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("rules/broken-anchor"), dir.path());
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let config = std::fs::read_to_string(dir.path().join("gotchas.toml")).unwrap();
    let config = config.replace("../../../../schema", schemas.to_str().unwrap());
    std::fs::write(dir.path().join("gotchas.toml"), config).unwrap();
    dir
}

/// A fragment naming no place in its page is a warning at the fragment, in prose and in a
/// JSON or YAML string field, recalled alike from the check cache (a record's body and
/// fields are let go, their fragments kept); `--fix` rewrites the ones a single id is
/// near, and nothing else.
#[test]
fn fragments_naming_no_place_are_recalled_and_fixed() {
    let dir = anchor_corpus();
    let places = |run: &common::Run| -> Vec<String> {
        json_diagnostics(run)
            .into_iter()
            .map(|(code, file, line, column)| {
                format!("{code} {file}:{}:{}", line.unwrap(), column.unwrap())
            })
            .collect()
    };
    let expected = [
        "broken-anchor docs/guide.md:14:38",
        "broken-anchor docs/guide.md:14:73",
        "broken-anchor docs/guide.md:15:9",
        "broken-anchor records/engines/other.json:9:102",
        "broken-anchor records/engines/typo.yaml:8:29",
        "broken-anchor records/gotchas/example-gotcha.md:15:12",
    ];
    let first = common::check_keeping_cache(dir.path(), &["--format", "json"]);
    assert_eq!(places(&first), expected);
    let recalled = common::check_keeping_cache(dir.path(), &["--format", "json", "--verbose"]);
    assert!(
        recalled.stderr.contains("recalled 4"),
        "{}",
        recalled.stderr
    );
    assert_eq!(places(&recalled), expected);
    let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).unwrap();
    let (guide, engine, other) = (
        read("docs/guide.md"),
        read("records/engines/typo.yaml"),
        read("records/engines/other.json"),
    );
    check(dir.path(), &["--fix"]);
    assert_eq!(
        read("docs/guide.md"),
        guide.replace("(#instal)", "(#install)")
    );
    // In a string field, as in prose, the fragment alone is rewritten.
    assert_eq!(
        read("records/engines/typo.yaml"),
        engine.replace(
            "[[example-gotcha#backgrund]]",
            "[[example-gotcha#background]]"
        )
    );
    assert_eq!(read("records/engines/other.json"), other);
    let after = check(dir.path(), &["--format", "json"]);
    assert_eq!(places(&after).len(), 4, "{}", after.stdout);
}

/// A record with fragments naming places in its own page draws the page's ids as it is
/// loaded, and every fragment naming a place there is checked against the text that was
/// loaded: its file, saved anew before the rule runs, is not read again (the ids of a page
/// no fragment of its own names are read from its file, and only while its text is the
/// one checked).
#[test]
fn fragments_naming_their_own_page_are_checked_against_the_text_loaded() {
    let dir = anchor_corpus();
    let project = gotchas::Project::open(dir.path(), None).unwrap();
    let corpus = project.load_for_check();
    let gotcha = dir.path().join("records/gotchas/example-gotcha.md");
    let text = std::fs::read_to_string(&gotcha).unwrap();
    let saved = text.replace("## Background", "## Nowhere\n\n## Backgrund");
    std::fs::write(&gotcha, saved).unwrap();
    let found: Vec<(String, String)> = (project.check(&corpus).into_iter())
        .filter(|d| d.code == "broken-anchor" && d.file.starts_with("records/"))
        .map(|d| (d.file, d.message))
        .collect();
    // As loaded: `#background` is there, and `typo`'s `#backgrund`, which the saved
    // page has, is not.
    let page = "the page of gotchas/example-gotcha";
    assert_eq!(
        found,
        [
            (
                "records/engines/other.json".to_string(),
                format!("`#nowhere-at-all` names no heading or element of {page}")
            ),
            (
                "records/engines/typo.yaml".to_string(),
                format!("`#backgrund` names no heading or element of {page}")
            ),
            (
                "records/gotchas/example-gotcha.md".to_string(),
                "`#nowhere` names no heading or element of this page".to_string()
            ),
        ]
    );
}

/// A page whose only fragment opens a line (its destination on the line after the `(`)
/// is checked: the quick test that spares parsing a page passes over the `#`s that open
/// headings alone, and this one opens no heading.
#[test]
fn a_fragment_opening_a_line_is_checked() {
    let dir = anchor_corpus();
    let guide = "# Guide\n\n## Install\n\nSee [the steps](\n#instal) first.\n";
    std::fs::write(dir.path().join("docs/guide.md"), guide).unwrap();
    let run = check(dir.path(), &["--format", "json"]);
    let found: Vec<_> = json_diagnostics(&run)
        .into_iter()
        .filter(|(_, file, ..)| file == "docs/guide.md")
        .collect();
    assert_eq!(
        found,
        [(
            "broken-anchor".to_string(),
            "docs/guide.md".to_string(),
            Some(6),
            Some(2)
        )],
        "{}",
        run.stdout
    );
}

/// `build` reports a fragment naming no place as `check` does, without failing, and links
/// its page all the same, fragment and all.
#[test]
fn build_reports_fragments_naming_no_place_and_links_their_pages() {
    let dir = anchor_corpus();
    let out = dir.path().join("out");
    let build = build(dir.path(), &out);
    assert_eq!(build.code, 0, "{}", build.stderr);
    assert_eq!(
        build.stdout.matches("warning[broken-anchor]").count(),
        6,
        "{}",
        build.stdout
    );
    assert!(build.stdout.contains("--> docs/guide.md:14:38\n"));
    assert!(
        !build.stdout.contains("marked on the pages"),
        "{}",
        build.stdout
    );
    let page = std::fs::read_to_string(out.join("docs/guide/index.html")).unwrap();
    assert!(
        page.contains("href=\"../../gotchas/example-gotcha/index.html#no-such-heading\""),
        "{page}"
    );
    assert!(page.contains("<h2 id=\"install-1\">"), "{page}");
    let record = std::fs::read_to_string(out.join("gotchas/example-gotcha/index.html")).unwrap();
    assert!(record.contains("<h2 id=\"background\">"), "{record}");
}
