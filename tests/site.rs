//! `gotchas build`: the static site, through the binary. Every page is crawled with a link
//! checker written independently of the build's own, the way a browser resolves links from
//! a folder opened on disk.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{SAMPLE_CONFIG, bundled_copy, gotchas, json_diagnostics, on_sample, sample};

fn build(root: &Path, out: &Path, extra: &[&str]) -> common::Run {
    let mut args = vec![
        "build",
        "--root",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--color",
        "never",
    ];
    args.extend_from_slice(extra);
    gotchas(&args)
}

/// Writes `toml` as the corpus's `gotchas.toml`.
fn configure(root: &Path, toml: &str) {
    std::fs::write(root.join("gotchas.toml"), toml).unwrap();
}

/// The page `docs/guide.md`, written with `markdown`, is in a build of `corpus` with
/// `docs = ["docs/*.md"]`, which must succeed.
fn guide_page(corpus: &Path, markdown: &str) -> String {
    configure(corpus, "docs = [\"docs/*.md\"]\n");
    std::fs::create_dir_all(corpus.join("docs")).unwrap();
    std::fs::write(corpus.join("docs/guide.md"), markdown).unwrap();
    let out = corpus.join("out");
    let run = build(corpus, &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    text(&out, "docs/guide/index.html")
}

/// Every file under `dir`, by path relative to it with `/` separators.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                found.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// Links of every HTML page that do not arrive at a file, resolved as a browser does from
/// disk: relative to the page's folder, query and fragment dropped, percent-decoded. A link
/// to a folder is broken too: from disk, it shows a listing, not the page.
fn crawl(dir: &Path, base_url: &str) -> Vec<String> {
    let all = files(dir);
    let attribute = regex::Regex::new(r#"\s(?:href|src)="([^"]*)""#).unwrap();
    let canonical = regex::Regex::new(r#"<link rel="canonical" href="[^"]*">"#).unwrap();
    let scheme = regex::Regex::new(r"^[a-zA-Z][a-zA-Z0-9+.-]*:").unwrap();
    let mut broken = Vec::new();
    for (path, bytes) in &all {
        if !path.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8(bytes.clone()).unwrap();
        // The canonical link names the page's published address; it is not followed.
        let html = canonical.replace(&html, "");
        let folder = Path::new(path).parent().unwrap_or(Path::new(""));
        for capture in attribute.captures_iter(&html) {
            let url = capture[1]
                .replace("&amp;", "&")
                .replace("&#39;", "'")
                .replace("&quot;", "\"");
            let target = url.split(['?', '#']).next().unwrap().to_string();
            if target.is_empty() || scheme.is_match(&target) {
                continue;
            }
            let target = percent_decode(&target);
            let resolved = if let Some(below) = target.strip_prefix(base_url) {
                assert_eq!(path, "404.html", "{path} links absolutely to {url}");
                let below = if below.is_empty() || below.ends_with('/') {
                    format!("{below}index.html")
                } else {
                    below.to_string()
                };
                Some(PathBuf::from(below))
            } else {
                normalize(&folder.join(&target))
            };
            match resolved {
                Some(file) if all.contains_key(&file.to_string_lossy().replace('\\', "/")) => {}
                _ => broken.push(format!("{path}: {url}")),
            }
        }
    }
    broken
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

fn text(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn bundled_corpus_builds_and_every_link_arrives() {
    let corpus = bundled_copy();
    let run = gotchas(&["build", "--root", corpus.path().to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let site = corpus.path().join("site");
    assert!(
        site.join(".gotchas-site").is_file(),
        "the default folder is site/ under the root"
    );
    assert!(run.stdout.contains("built 21 pages"), "{}", run.stdout);
    assert_eq!(crawl(&site, "/"), Vec::<String>::new());
    for page in [
        "index.html",
        "engines/index.html",
        "engines/mooncake/index.html",
        "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace/index.html",
        "severity/major/index.html",
        "status/index.html",
        "graph/index.html",
        "search/index.html",
        "404.html",
        "engines/mooncake.json",
        "records.json",
        "graph.json",
        "graph/data.js",
        "search/data.js",
        "feed.xml",
        "sitemap.xml",
        "assets/style.css",
    ] {
        assert!(site.join(page).is_file(), "{page} is missing");
    }
}

/// A Markdown record's page renders its body from what the site kept of it, the file's text
/// let go: a broken link there is still reported at its place in the file, with a
/// did-you-mean, and marked on the page.
#[test]
fn a_broken_link_in_a_markdown_body_is_reported_at_its_line_and_marked() {
    let corpus = bundled_copy();
    let name = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let record = corpus.path().join(format!("records/gotchas/{name}.md"));
    let mut written = std::fs::read_to_string(&record).unwrap();
    let line = written.lines().count() + 2;
    written.push_str("\nSee [[engines/mooncache|the store]] too.\n");
    std::fs::write(&record, written).unwrap();
    let site = corpus.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let place = format!("records/gotchas/{name}.md:{line}:7");
    assert!(run.stdout.contains(&place), "{place}: {}", run.stdout);
    assert!(
        run.stdout
            .contains("help: did you mean mooncake (engines/mooncake)?"),
        "{}",
        run.stdout
    );
    let page = text(&site, &format!("gotchas/{name}/index.html"));
    assert_eq!(page.matches("class=\"broken-link\"").count(), 1);
    assert!(page.contains("the store"), "the link's label is shown");
}

/// A link or image in prose or in a string field whose URL would run in the reader's browser
/// is marked, never linked, however it is spelled; a web link and an inline image are kept.
#[test]
fn links_that_would_run_script_are_marked_not_linked() {
    let corpus = bundled_copy();
    let name = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let record = corpus.path().join(format!("records/gotchas/{name}.md"));
    let mut written = std::fs::read_to_string(&record).unwrap();
    written.push_str(concat!(
        "\nClick [one](javascript:alert(1)), [two](JaVaScRiPt:alert(2)), ",
        "<javascript:alert(3)>, [four][r], [five](data:text/html,<script>x</script>), ",
        "![six](javascript:alert(6)) and [seven](vbscript:msgbox).\n",
        "Kept: [docs](https://example.com/a) and ![dot](data:image/png;base64,iVBORw0KGgo=).\n",
        "\n[r]: &#x6A;avascript:alert(4)\n",
    ));
    std::fs::write(&record, written).unwrap();
    let vllm = corpus.path().join("records/engines/vllm.yaml");
    let engine = std::fs::read_to_string(&vllm).unwrap();
    std::fs::write(
        &vllm,
        engine.replace(
            "license: Apache-2.0",
            "license: |\n  Apache 2.0,\n  see [it](javascript:steal(document.cookie))",
        ),
    )
    .unwrap();
    let site = corpus.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = text(&site, &format!("gotchas/{name}/index.html"));
    let engine = text(&site, "engines/vllm/index.html");
    for html in [&page, &engine] {
        let lowered = html.to_ascii_lowercase();
        assert!(!lowered.contains("href=\"javascript"), "{html}");
        assert!(!lowered.contains("src=\"javascript"), "{html}");
        assert!(!lowered.contains("href=\"data:"), "{html}");
        assert!(!lowered.contains("href=\"vbscript"), "{html}");
    }
    assert_eq!(page.matches("class=\"unsafe-link\"").count(), 7, "{page}");
    assert_eq!(engine.matches("class=\"unsafe-link\"").count(), 1);
    assert!(page.contains("<a href=\"https://example.com/a\">docs</a>"));
    assert!(page.contains("<img src=\"data:image/png;base64,iVBORw0KGgo=\""));
    assert_eq!(crawl(&site, "/"), Vec::<String>::new());
}

/// The data files are streamed to disk a piece at a time; each must still be one whole
/// document, holding every record.
#[test]
fn data_files_are_whole_documents_with_every_record() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    assert_eq!(build(corpus.path(), &out, &[]).code, 0);
    let parse = |file: &str, prefix: &str, suffix: &str| -> serde_json::Value {
        let text = text(&out, file);
        let json = text
            .strip_prefix(prefix)
            .and_then(|t| t.strip_suffix(suffix))
            .unwrap_or_else(|| panic!("{file} is not `{prefix}...{suffix}`"));
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let records = parse("records.json", "", "\n");
    let ids: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 10, "{ids:?}");
    assert!(ids.contains(&"engines/mooncake"), "{ids:?}");
    let graph = parse("graph.json", "", "\n");
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 10);
    assert!(!graph["edges"].as_array().unwrap().is_empty());
    let script = parse("graph/data.js", "window.gotchasGraph = ", ";\n");
    assert_eq!(script["nodes"].as_array().unwrap().len(), 10);
    let search = parse("search/data.js", "window.gotchasSearch = ", ";\n");
    assert_eq!(search["entries"].as_array().unwrap().len(), 10);
}

/// Every record page's picture colours a collection alike, though a source's neighbourhood
/// has no engine and a gotcha's has all three collections: a collection took its colour
/// from its place among the collections of the picture at hand.
#[test]
fn a_collection_has_one_colour_in_every_neighbourhood() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    assert_eq!(build(corpus.path(), &out, &[]).code, 0);
    let mut colours: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (path, bytes) in files(&out) {
        if !path.ends_with("/index.html") {
            continue;
        }
        let page = String::from_utf8(bytes).unwrap();
        // Each node: `<title>collection/id: name</title><rect ... fill="#..."`.
        for node in page.split("<g class=\"node\"><title>").skip(1) {
            let collection = node.split('/').next().unwrap().to_string();
            let fill = node.split("fill=\"").nth(1).unwrap();
            let fill = fill[..fill.find('"').unwrap()].to_string();
            colours
                .entry(collection)
                .or_default()
                .entry(fill)
                .or_default()
                .push(path.clone());
        }
    }
    assert_eq!(
        colours.keys().collect::<Vec<_>>(),
        ["engines", "gotchas", "sources"]
    );
    for (collection, fills) in &colours {
        assert_eq!(fills.len(), 1, "{collection}: {fills:?}");
    }
}

#[test]
fn a_record_page_shows_fields_backlinks_and_its_neighbourhood() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    assert_eq!(build(corpus.path(), &out, &[]).code, 0);
    let mooncake = text(&out, "engines/mooncake/index.html");
    let backlinks = &mooncake[mooncake.find("Referenced by").unwrap()..];
    assert!(backlinks.contains(
        "<a href=\"../../gotchas/pd-batch-invariant-mode-absent-from-kv-namespace/index.html\""
    ));
    assert!(backlinks.contains("via <code>affects</code>"));
    assert!(
        mooncake.contains("<a href=\"../../sources/pd-mooncake-repo/index.html\""),
        "a reference field links to the record it names"
    );
    assert!(
        mooncake.contains("href=\"https://github.com/kvcache-ai/Mooncake\""),
        "a cited source shows its URL"
    );
    assert!(mooncake.contains("<svg"), "the neighbourhood is drawn");
    assert!(
        mooncake.contains("<a href=\"../../engines/mooncake.json\">"),
        "the page links its JSON"
    );
    let gotcha = text(
        &out,
        "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace/index.html",
    );
    assert!(
        gotcha.contains("<h2 id=\"root-cause\">Root cause</h2>"),
        "the body is Markdown"
    );
    assert!(gotcha.contains("class=\"badge badge-severity badge-severity-major\""));
    insta::assert_snapshot!("site-mooncake-json", text(&out, "engines/mooncake.json"));
    insta::assert_snapshot!("site-feed", text(&out, "feed.xml"));
}

#[test]
fn a_date_the_calendar_has_not_is_left_out_of_the_feed_and_sitemap() {
    let corpus = bundled_copy();
    let engine = corpus.path().join("records/engines/vllm.yaml");
    let text_before = std::fs::read_to_string(&engine).unwrap();
    let updated = text_before
        .lines()
        .find_map(|line| line.strip_prefix("updated: "))
        .unwrap()
        .to_string();
    std::fs::write(&engine, text_before.replace(&updated, "2026-13-45")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    for file in ["feed.xml", "sitemap.xml"] {
        let written = text(&site, file);
        assert!(!written.contains("2026-13-45"), "{file}: {written}");
    }
    assert!(
        text(&site, "sitemap.xml").contains("/engines/vllm/"),
        "the page is still listed"
    );
    // Lists show the value as written, as a `<time>` only when HTML can read it as one.
    let list = text(&site, "engines/index.html");
    assert!(list.contains("<td>2026-13-45</td>"), "{list}");
    assert!(!list.contains("datetime=\"2026-13-45\""), "{list}");
    std::fs::write(
        &engine,
        text_before.replace(&updated, "2026-02-03t10:00:00z"),
    )
    .unwrap();
    std::fs::remove_dir_all(&site).unwrap();
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        text(&site, "engines/index.html")
            .contains("<time datetime=\"2026-02-03T10:00:00Z\">2026-02-03t10:00:00z</time>")
    );
}

#[test]
fn the_search_index_keeps_hashes_and_angle_brackets_written_as_text() {
    let corpus = bundled_copy();
    let record = "id: yaml-symbols\ntype: gotcha\nname: Symbols\nclass: config\n\
        status: draft\nconfidence: 0.5\nupdated: 2026-01-01\n\
        sources: [engine-vllm-github]\naffects: [vllm]\n\
        symptom: |\n  # Heading\n\n  > Quoted: C# bindings see #123 when latency > 10 ms\n  \
        and `Vec<u8>` goes a -> b.\n  <!-- TODO: ask Bob about the NDA -->\n  \
        See [the docs](https://example.com/docs).\n";
    std::fs::write(
        corpus.path().join("records/gotchas/yaml-symbols.yaml"),
        record,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let search = text(&site, "search/data.js");
    let row = search
        .lines()
        .find(|line| line.contains("gotchas/yaml-symbols"))
        .unwrap();
    assert!(
        row.contains(
            "Heading Quoted: C# bindings see #123 when latency > 10 ms and Vec<u8> goes a -> b. See the docs."
        ),
        "{row}"
    );
    assert!(!search.contains("NDA"), "a comment is no text: {row}");
}

#[test]
fn control_characters_in_prose_reach_no_page() {
    let corpus = bundled_copy();
    let record = "id: yaml-controls\ntype: gotcha\nname: \"Con\\Ntrols\\x7f\"\nclass: config\n\
        status: draft\nconfidence: 0.5\nupdated: 2026-01-01\n\
        sources: [engine-vllm-github]\naffects: [vllm]\n\
        symptom: \"The log shows \\e[31m red \\a and `a\\x0bb`.\\n\\nA second paragraph.\"\n";
    std::fs::write(
        corpus.path().join("records/gotchas/yaml-controls.yaml"),
        record,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let page = text(&site, "gotchas/yaml-controls/index.html");
    assert!(
        page.contains("The log shows \u{FFFD}[31m red \u{FFFD} and <code>a\u{FFFD}b</code>"),
        "{page}"
    );
    assert!(
        !page.contains(|c: char| c.is_control() && !matches!(c, '\n' | '\t')),
        "{page}"
    );
    assert!(page.contains("<h1>Con\u{FFFD}trols\u{FFFD}</h1>"), "{page}");
}

#[test]
fn a_page_gives_each_id_once_whatever_its_prose_names() {
    let corpus = bundled_copy();
    // Two long fields, each with a footnote `[^1]`, and headings named as the template's
    // own elements are.
    let long = "A long text that is long enough to be shown as prose on its page.";
    let record = format!(
        "id: yaml-notes\ntype: gotcha\nname: Notes\nclass: config\nstatus: draft\n\
         confidence: 0.5\nupdated: 2026-01-01\nsources: [engine-vllm-github]\n\
         affects: [vllm]\n\
         symptom: |\n  {long}[^1]\n\n  ### Main\n\n  [^1]: The first note.\n\n  \
         <!-- a --> Kept between comments, MY_ENV_VAR. <!-- b -->\n\
         root_cause: |\n  {long}[^1]\n\n  ### Graph h\n\n  ### Arrow\n\n  [^1]: The second note.\n"
    );
    std::fs::write(
        corpus.path().join("records/gotchas/yaml-notes.yaml"),
        record,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let page = text(&site, "gotchas/yaml-notes/index.html");
    let ids: Vec<&str> = page
        .split("id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    let mut seen = std::collections::HashSet::new();
    for id in &ids {
        assert!(seen.insert(id), "`{id}` twice in {ids:?}");
    }
    assert!(
        ids.contains(&"main-1") && ids.contains(&"graph-h-1") && ids.contains(&"arrow-1"),
        "{ids:?}"
    );
    // Text between two comments is the prose's; a word with `_` is found as written.
    assert!(
        page.contains("Kept between comments, MY_ENV_VAR."),
        "{page}"
    );
    assert!(text(&site, "search/data.js").contains("MY_ENV_VAR"));
    // Each footnote reference leads to its own field's note.
    for target in page
        .split("href=\"#")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
    {
        assert!(ids.contains(&target), "`#{target}` leads nowhere: {ids:?}");
    }
    assert!(
        page.contains("href=\"#1-1\""),
        "the second field's footnote is its own"
    );
}

#[test]
fn sample_corpus_builds_marks_broken_links_and_reports_them() {
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = build(&sample(), &site, &["--config", SAMPLE_CONFIG]);
    assert_eq!(
        run.code, 0,
        "content problems do not fail the build: {}",
        run.stderr
    );
    // The sample is shared: the test leaves no cache in it.
    let checked = on_sample("check", &["--format", "json", "--no-cache"]);
    let broken = json_diagnostics(&checked)
        .iter()
        .filter(|d| d.0 == "broken-link")
        .count();
    assert!(broken > 0, "the sample has broken links in its prose");
    let reported = run.stdout.matches("error[broken-link]").count();
    assert_eq!(
        reported, broken,
        "the build reports every broken link `check` does"
    );
    assert!(
        run.stdout
            .contains(&format!("note: {broken} broken links marked on the pages"))
    );
    let marked: usize = files(&site)
        .iter()
        .filter(|(path, _)| path.ends_with(".html"))
        .map(|(_, bytes)| {
            String::from_utf8_lossy(bytes)
                .matches("class=\"broken-link\"")
                .count()
        })
        .sum();
    assert_eq!(marked, broken, "every broken link is marked on its page");
    let docs: usize = [
        "05-known-traps",
        "07-benchmarking-methodology",
        "10-testing-methodology",
    ]
    .iter()
    .map(|doc| {
        text(&site, &format!("docs/{doc}/index.html"))
            .matches("class=\"broken-link\"")
            .count()
    })
    .sum();
    assert_eq!(docs, 49, "the prose pages' broken links are marked on them");
    let traps = text(&site, "docs/05-known-traps/index.html");
    assert!(
        traps.contains("href=\"../../gotchas/marlin-w4a8-fp8-silent-corrupt-sm121a/index.html\""),
        "a wiki-link that resolves is a link"
    );
    assert!(!traps.contains("<!--"), "HTML comments are dropped");
    assert_eq!(crawl(&site, "/"), Vec::<String>::new());
    for field in ["severity", "status"] {
        assert!(site.join(field).join("index.html").is_file());
    }
}

#[test]
fn a_relative_base_url_is_refused_on_the_command_line_and_in_the_config() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &["--base-url", "kb/"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("`kb/` is relative"), "{}", run.stderr);
    std::fs::write(
        corpus.path().join("gotchas.toml"),
        "[site]\nbase_url = \"kb\"\n",
    )
    .unwrap();
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`kb` is relative") && run.stderr.contains("gotchas.toml:2:12"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[test]
fn links_hold_under_a_sub_path_base_url() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &["--base-url", "/inference-research"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(crawl(&out, "/inference-research/"), Vec::<String>::new());
    let feed = text(&out, "feed.xml");
    assert!(feed.contains("<link rel=\"alternate\" type=\"text/html\" href=\"/inference-research/engines/nvidia-dynamo/\"/>"));
    assert!(text(&out, "sitemap.xml").contains("<loc>/inference-research/engines/mooncake/</loc>"));
    // A canonical link names a page's one address, which a path alone does not.
    let page = text(&out, "engines/mooncake/index.html");
    assert!(!page.contains("rel=\"canonical\""), "{page}");
    assert!(
        run.stdout.contains("pages have no canonical link"),
        "{}",
        run.stdout
    );
    let missing = text(&out, "404.html");
    assert!(
        missing.contains("href=\"/inference-research/search/index.html\""),
        "the 404 page, shown at any depth, links absolutely"
    );
    // What a URL may not hold as it is is encoded once, everywhere it is written.
    let spaced = corpus.path().join("spaced");
    let run = build(corpus.path(), &spaced, &["--base-url", "/my kb"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(text(&spaced, "sitemap.xml").contains("<loc>/my%20kb/engines/mooncake/</loc>"));
    let full = corpus.path().join("full");
    let run = build(
        corpus.path(),
        &full,
        &["--base-url", "https://example.org/kb/"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        text(&full, "engines/mooncake/index.html")
            .contains("<link rel=\"canonical\" href=\"https://example.org/kb/engines/mooncake/\">")
    );
    assert!(!run.stdout.contains("no full URL"), "{}", run.stdout);
}

/// Every URL the site writes is the base and a path after it: after a query or a fragment,
/// the path would be part of that.
#[test]
fn a_base_url_with_a_query_or_fragment_is_refused() {
    let corpus = bundled_copy();
    for (base, says) in [
        ("https://example.org/kb/?x=1", "has a query (`?x=1`)"),
        ("/kb/#top", "has a fragment (`#top`)"),
    ] {
        let out = corpus.path().join("out");
        let run = build(corpus.path(), &out, &["--base-url", base]);
        assert_eq!(run.code, 2, "{base}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(says), "{base}: {}", run.stderr);
        assert!(!out.exists());
    }
}

#[test]
fn two_builds_are_byte_identical() {
    let corpus = bundled_copy();
    let first = corpus.path().join("first");
    let second = corpus.path().join("second");
    assert_eq!(build(corpus.path(), &first, &[]).code, 0);
    assert_eq!(build(corpus.path(), &second, &[]).code, 0);
    let (a, b) = (files(&first), files(&second));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{path} differs between two builds");
    }
    let sample_out = tempfile::tempdir().unwrap();
    let config = ["--config", SAMPLE_CONFIG];
    let (x, y) = (sample_out.path().join("x"), sample_out.path().join("y"));
    assert_eq!(build(&sample(), &x, &config).code, 0);
    assert_eq!(build(&sample(), &y, &config).code, 0);
    assert!(
        files(&x) == files(&y),
        "the sample's site differs between two builds"
    );
}

#[test]
fn never_replaces_a_folder_it_did_not_make() {
    let corpus = bundled_copy();
    let out = corpus.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "precious").unwrap();
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("was not made by `gotchas build` (it has no `.gotchas-site` file)"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "precious"
    );
    let leftovers: Vec<_> = std::fs::read_dir(corpus.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".gotchas"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary folder is left: {leftovers:?}"
    );

    let records = build(corpus.path(), &corpus.path().join("records/site"), &[]);
    assert_eq!(records.code, 2);
    assert!(
        records.stderr.contains("it is inside the records folder"),
        "{}",
        records.stderr
    );
    let root = build(corpus.path(), corpus.path(), &[]);
    assert_eq!(root.code, 2);
    assert!(
        root.stderr.contains("it would replace the corpus itself"),
        "{}",
        root.stderr
    );
}

#[test]
fn replaces_its_own_site_and_an_empty_folder() {
    let corpus = bundled_copy();
    let out = corpus.path().join("public");
    std::fs::create_dir(&out).unwrap();
    assert_eq!(
        build(corpus.path(), &out, &[]).code,
        0,
        "an empty folder is replaced"
    );
    std::fs::write(out.join("stale.html"), "from an old build").unwrap();
    std::fs::remove_file(corpus.path().join("records/engines/nixl.yaml")).unwrap();
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !out.join("stale.html").exists(),
        "the old site is replaced whole"
    );
    assert!(!out.join("engines/nixl").exists());
    assert!(out.join("engines/vllm/index.html").is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755, "the site can be served");
    }
}

/// The folders a build leaves beside its output while it runs.
fn build_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".gotchas-"))
        .collect()
}

/// The old site and the new are exchanged in one step: a reader looking all the while never
/// finds the output missing.
#[test]
fn a_rebuild_never_leaves_a_moment_without_a_site() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let corpus = bundled_copy();
    let out = corpus.path().join("public");
    assert_eq!(build(corpus.path(), &out, &[]).code, 0);
    let stop = Arc::new(AtomicBool::new(false));
    let missing = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (marker, stop, missing) = (out.join(".gotchas-site"), stop.clone(), missing.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if !marker.exists() {
                    missing.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    for _ in 0..20 {
        let run = build(corpus.path(), &out, &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
    assert_eq!(missing.load(Ordering::Relaxed), 0, "the site was missing");
    assert!(out.join("engines/vllm/index.html").is_file());
    assert_eq!(build_leftovers(corpus.path()), Vec::<String>::new());
}

/// Builds into one folder at once all succeed, each site replacing the one before it whole,
/// and one that replaced another build's site says so.
#[test]
fn builds_into_one_folder_at_once_all_succeed() {
    let corpus = bundled_copy();
    let out = corpus.path().join("public");
    for round in 0..4 {
        let builds: Vec<_> = (0..4)
            .map(|_| {
                let (root, out) = (corpus.path().to_path_buf(), out.clone());
                std::thread::spawn(move || build(&root, &out, &[]))
            })
            .collect();
        for run in builds.into_iter().map(|b| b.join().unwrap()) {
            assert_eq!(run.code, 0, "round {round}: {}{}", run.stdout, run.stderr);
            if run.stdout.contains("note: another build replaced") {
                assert!(
                    run.stdout.contains(&format!(
                        "note: another build replaced {} while this one ran; this build's site replaced it\n",
                        out.display()
                    )),
                    "{}",
                    run.stdout
                );
            }
        }
        assert!(out.join(".gotchas-site").is_file());
        assert!(out.join("engines/vllm/index.html").is_file());
        assert_eq!(build_leftovers(corpus.path()), Vec::<String>::new());
    }
}

/// The old site is the tool's own: made read-only (`chmod -R a-w site`), it is made
/// writable and removed, and what still cannot be (another user's folder in it) is named in
/// a warning, never left unsaid.
#[cfg(unix)]
#[test]
fn a_read_only_old_site_is_removed_and_what_cannot_be_is_named() {
    use std::os::unix::fs::PermissionsExt;
    let Some(user) = common::Unprivileged::new() else {
        return;
    };
    let corpus = user.folder("corpus");
    let main = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::copy_dir(&main.join("schema"), &corpus.join("schema"));
    common::copy_dir(&main.join("records"), &corpus.join("records"));
    let build = || user.run(&corpus, &["build", "--color", "never"]);
    let first = build();
    assert_eq!(first.code, 0, "{}", first.stderr);
    let site = corpus.join("site");
    let mut tree = vec![site.clone()];
    while let Some(path) = tree.pop() {
        if path.is_dir() {
            tree.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & !0o222)).unwrap();
    }
    let again = build();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!again.stderr.contains("warning"), "{}", again.stderr);
    assert_eq!(build_leftovers(&corpus), Vec::<String>::new());
    if !user.is_nobody() {
        eprintln!("skipped: no other user's folder can be made here");
        return;
    }
    let locked = site.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("page.html"), "<p>root's</p>").unwrap();
    let third = build();
    assert_eq!(third.code, 0, "{}", third.stderr);
    let left = build_leftovers(&corpus);
    assert_eq!(left.len(), 1, "{left:?}");
    let warning = format!(
        "warning: the old site could not be removed whole: ./{0} (./{0}/locked/page.html: Permission denied (os error 13))\n",
        left[0]
    );
    assert!(third.stderr.contains(&warning), "{}", third.stderr);
    std::fs::remove_dir_all(corpus.join(&left[0])).unwrap();
}

/// A link to the folder to build into stays a link: the site replaces the folder it leads
/// to, on the first build and on every one after.
#[cfg(unix)]
#[test]
fn a_link_to_the_output_folder_stays_a_link() {
    let corpus = bundled_copy();
    let published = corpus.path().join("published");
    std::fs::create_dir(&published).unwrap();
    let link = corpus.path().join("site-link");
    std::os::unix::fs::symlink(&published, &link).unwrap();
    for round in 0..2 {
        let run = build(corpus.path(), &link, &[]);
        assert_eq!(run.code, 0, "round {round}: {}", run.stderr);
        assert!(link.is_symlink(), "round {round}");
        assert!(published.join("engines/vllm/index.html").is_file());
    }
}

/// A template or asset is published as it is read, so it is read as the corpus's other
/// files are: within the size limit.
#[test]
fn a_template_over_the_size_limit_is_not_read() {
    let corpus = bundled_copy();
    let templates = corpus.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    let big = vec![b'x'; 10 * 1024 * 1024 + 1];
    std::fs::write(templates.join("big.bin"), big).unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("templates/big.bin"), "{}", run.stderr);
    assert!(!out.exists());
}

/// Content never fails a build: an id or enum value named like a file the site writes, a
/// control character, a name longer than a file system takes, each gets a page.
#[test]
fn any_id_or_value_gets_a_page_and_the_build_goes_on() {
    let corpus = bundled_copy();
    configure(corpus.path(), "[collections.engine]\nid_pattern = \".*\"\n");
    let engines = corpus.path().join("records/engines");
    let vllm = std::fs::read_to_string(engines.join("vllm.yaml")).unwrap();
    let long = "x".repeat(300);
    for (file, id) in [
        ("vllm.json.yaml", "vllm.json"),
        ("nul.yaml", "nul\\0"),
        ("long.yaml", long.as_str()),
    ] {
        std::fs::write(
            engines.join(file),
            vllm.replace("id: vllm\n", &format!("id: \"{id}\"\n")),
        )
        .unwrap();
    }
    std::fs::write(
        engines.join("index.yaml"),
        vllm.replace("id: vllm\n", "id: index\n")
            .replace("status: verified", "status: index.html"),
    )
    .unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.join("engines/vllm.json").is_file(), "the record's data");
    assert!(out.join("engines/vllm.json_/index.html").is_file());
    assert!(out.join("engines/nul%00/index.html").is_file());
    assert!(out.join("engines/index/index.html").is_file());
}

/// A Markdown link to a record's file leads to the record's page, as a wiki-link does.
#[test]
fn a_link_to_a_record_file_leads_to_its_page() {
    let corpus = bundled_copy();
    let page = guide_page(
        corpus.path(),
        "# Guide\n\nSee [the trap](../records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md).\n",
    );
    assert!(
        page.contains(
            "href=\"../../gotchas/pd-batch-invariant-mode-absent-from-kv-namespace/index.html\""
        ),
        "{page}"
    );
}

/// Prose about HTML quotes attributes as text: no link of the page, and no broken one.
#[test]
fn attributes_written_as_text_are_no_links() {
    let corpus = bundled_copy();
    let page = guide_page(
        corpus.path(),
        "# Guide\n\nWrite `<link href=\"style.css\">` in the head. Set href=\"../../x\" too.\n\n\
         ```html\n<script src=\"app.js\"></script>\n```\n",
    );
    assert!(
        page.contains("<code>&lt;link href=\"style.css\"&gt;</code>"),
        "{page}"
    );
}

/// HTML ids are never empty and hold no spaces, whatever the headings and footnotes say.
#[test]
fn headings_and_footnotes_get_ids_html_allows() {
    let corpus = bundled_copy();
    let page = guide_page(
        corpus.path(),
        "# Guide\n\n## ???\n\n## !!!\n\nA claim.[^my note]\n\n[^my note]: The source.\n",
    );
    let ids: Vec<&str> = page
        .split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    for id in &ids {
        assert!(!id.is_empty() && !id.contains(' '), "`{id}` in {ids:?}");
    }
    assert!(
        ids.contains(&"section") && ids.contains(&"section-1"),
        "{ids:?}"
    );
    assert!(page.contains("href=\"#my-note\""), "{page}");
    assert!(ids.contains(&"my-note"), "{ids:?}");
}

/// A wiki-link two records answer to is marked as `check` reports it: ambiguous, not missing.
#[test]
fn an_ambiguous_wiki_link_is_marked_as_ambiguous() {
    let corpus = bundled_copy();
    let engine = std::fs::read_to_string(corpus.path().join("records/engines/vllm.yaml")).unwrap();
    std::fs::write(
        corpus.path().join("records/sources/vllm.yaml"),
        engine.replace("type: engine", "type: source"),
    )
    .unwrap();
    let page = guide_page(corpus.path(), "# Guide\n\nSee [[vllm]].\n");
    assert!(
        page.contains("ambiguous link: `vllm` could be any of `engines/vllm`, `sources/vllm`"),
        "{page}"
    );
}

/// A web address is linked as a valid URL: what a URL may not hold as written is encoded.
#[test]
fn web_addresses_are_linked_as_valid_urls() {
    let corpus = bundled_copy();
    let engine = corpus.path().join("records/engines/vllm.yaml");
    let before = std::fs::read_to_string(&engine).unwrap();
    std::fs::write(
        &engine,
        before.replace(
            "docs_url: https://docs.vllm.ai/en/latest/",
            "docs_url: \"https://docs.vllm.ai/?a=1&b=<2>|{x}\"",
        ),
    )
    .unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = text(&out, "engines/vllm/index.html");
    assert!(
        page.contains(
            "<a class=\"external\" href=\"https://docs.vllm.ai/?a=1&amp;b=%3C2%3E%7C%7Bx%7D\">https://docs.vllm.ai/?a=1&amp;b=&lt;2&gt;|{x}</a>"
        ),
        "{page}"
    );
}

/// A record whose id another has gets no page, and the build says which.
#[test]
fn a_record_left_without_a_page_is_named() {
    let corpus = bundled_copy();
    let engine = std::fs::read_to_string(corpus.path().join("records/engines/vllm.yaml")).unwrap();
    std::fs::write(corpus.path().join("records/engines/vllm-copy.yaml"), engine).unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "note: 1 record has no page, as another record has its id: \
             records/engines/vllm.yaml (run `gotchas check`)"
        ),
        "{}",
        run.stdout
    );
}

/// A collection folder named like a file the site writes is refused before anything is
/// written, naming both, rather than failing half-way with the system's error.
#[test]
fn a_collection_folder_named_like_a_file_of_the_site_is_refused() {
    let corpus = bundled_copy();
    configure(
        corpus.path(),
        "[collections.source]\nfolder = \"feed.xml\"\n",
    );
    std::fs::rename(
        corpus.path().join("records/sources"),
        corpus.path().join("records/feed.xml"),
    )
    .unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stderr
            .matches("of the site would be written in a folder `feed.xml`, where the feed goes")
            .count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[test]
fn templates_and_assets_are_overridden_from_the_corpus() {
    let corpus = bundled_copy();
    let templates = corpus.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    std::fs::write(
        templates.join("value.html"),
        "{% extends \"base.html\" %}{% block main %}<p class=\"custom\">{{ value.value }}: {{ rows | length }}</p>{% endblock %}",
    )
    .unwrap();
    std::fs::write(templates.join("style.css"), "body { color: teal; }\n").unwrap();
    std::fs::write(templates.join("logo.svg"), "<svg/>").unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        text(&out, "status/verified/index.html").contains("<p class=\"custom\">verified: 10</p>")
    );
    assert_eq!(text(&out, "assets/style.css"), "body { color: teal; }\n");
    assert_eq!(text(&out, "assets/logo.svg"), "<svg/>");

    std::fs::write(
        templates.join("home.html"),
        "{% extends \"base.html\" %}\n{% block main %}{% if %}{% endblock %}",
    )
    .unwrap();
    let broken = build(corpus.path(), &out, &[]);
    assert_eq!(broken.code, 2);
    assert!(
        broken.stderr.contains("the template does not compile"),
        "{}",
        broken.stderr
    );
    assert!(
        broken.stderr.contains("--> templates/home.html:2:"),
        "{}",
        broken.stderr
    );
}

#[test]
fn a_template_that_links_nowhere_fails_the_build_and_keeps_the_old_site() {
    let corpus = bundled_copy();
    let out = corpus.path().join("out");
    assert_eq!(build(corpus.path(), &out, &[]).code, 0);
    let before = files(&out);
    let templates = corpus.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    std::fs::write(
        templates.join("field.html"),
        "{% extends \"base.html\" %}{% block main %}<a href=\"{{ href('nowhere/') }}\">x</a>{% endblock %}",
    )
    .unwrap();
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the site links to files it does not have")
    );
    assert!(
        run.stderr
            .contains("severity/index.html: ../nowhere/index.html"),
        "{}",
        run.stderr
    );
    assert!(files(&out) == before, "the previous site is left as it was");
}

#[test]
fn unknown_enum_page_field_gets_did_you_mean() {
    let corpus = bundled_copy();
    configure(
        corpus.path(),
        "[site]\nenum_pages = [\"severity\", \"clas\"]\n",
    );
    let run = build(corpus.path(), &corpus.path().join("out"), &[]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("site-unknown-enum-page", run.stderr);
}

#[test]
fn configured_enum_pages_and_repository_links() {
    let corpus = bundled_copy();
    configure(
        corpus.path(),
        "[site]\ntitle = \"KB\"\nenum_pages = [\"class\"]\nrepo_url = \"https://example.org/kb/-/blob/main/{path}\"\n",
    );
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.join("class/config/index.html").is_file());
    assert!(
        !out.join("severity").exists(),
        "only the listed fields get pages"
    );
    let page = text(&out, "engines/vllm/index.html");
    assert!(
        page.contains("<a href=\"https://example.org/kb/-/blob/main/records/engines/vllm.yaml\">")
    );
    assert!(page.contains("<title>vLLM · KB</title>"));
}

#[test]
fn ids_and_values_never_lead_out_of_the_site() {
    let corpus = bundled_copy();
    let engines = corpus.path().join("records/engines");
    let vllm = std::fs::read_to_string(engines.join("vllm.yaml")).unwrap();
    std::fs::write(
        engines.join("escape.yaml"),
        vllm.replace("id: vllm", "id: ../../escape")
            .replace("status: verified", "status: ../.."),
    )
    .unwrap();
    let out = corpus.path().join("nested/out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.join("engines/_/_/escape/index.html").is_file());
    assert!(!corpus.path().join("nested/escape").exists());
    assert!(
        !out.join("status/_").exists(),
        "a value that is no folder name gets no page"
    );
    assert_eq!(crawl(&out, "/"), Vec::<String>::new());
}

#[test]
fn a_string_field_is_markdown_only_when_it_holds_a_link() {
    let corpus = bundled_copy();
    let engines = corpus.path().join("records/engines");
    let edit = |file: &str, license: &str| {
        let path = engines.join(file);
        let record = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            record.replace("license: Apache-2.0", &format!("license: {license}")),
        )
        .unwrap();
    };
    edit("vllm.yaml", "\"*Apache* 2.0, text in docs/LICENSE.md\"");
    edit("nixl.yaml", "\"*Apache* 2.0, as [[mooncake]]\"");
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        text(&out, "engines/vllm/index.html")
            .contains("<dd>*Apache* 2.0, text in docs/LICENSE.md</dd>"),
        "a string without a link is shown as written"
    );
    let nixl = text(&out, "engines/nixl/index.html");
    assert!(
        nixl.contains("<em>Apache</em> 2.0, as <a href=\"../../engines/mooncake/index.html\""),
        "a string with a link is Markdown, its link resolved as `check` resolves it"
    );
}

/// `[site] paginate_by` splits a long list into pages that link to each other, every record
/// on exactly one of them; the count is the whole list's, and every page is in the sitemap.
#[test]
fn long_lists_are_split_into_pages() {
    let corpus = bundled_copy();
    configure(corpus.path(), "[site]\npaginate_by = 2\n");
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(crawl(&out, "/"), Vec::<String>::new());
    let listed = |page: &str| -> Vec<String> {
        let row = regex::Regex::new(r#"<td><a href="[^"]*"><code>([^<]*)</code>"#).unwrap();
        row.captures_iter(&text(&out, page))
            .map(|c| c[1].to_string())
            .collect()
    };
    let first = text(&out, "engines/index.html");
    assert!(first.contains("<span class=\"count\">4</span>"), "{first}");
    assert!(
        first.contains("Page 1 of 2: records 1 to 2 of 4"),
        "{first}"
    );
    assert!(first.contains(r#"<a rel="next" href="../engines/page/2/index.html">"#));
    assert!(first.contains("Type to filter this page by any column"));
    let second = text(&out, "engines/page/2/index.html");
    assert!(second.contains(r#"<a rel="prev" href="../../../engines/index.html">"#));
    assert!(
        !second.contains("rel=\"next\""),
        "the last page has no next"
    );
    assert!(second.contains("<title>engines, page 2 of 2 · gotchas</title>"));
    let mut engines = listed("engines/index.html");
    engines.extend(listed("engines/page/2/index.html"));
    assert_eq!(engines, ["mooncake", "nixl", "nvidia-dynamo", "vllm"]);
    assert!(!out.join("engines/page/3").exists());
    assert!(
        !out.join("gotchas/page").exists(),
        "a list that fits on one page is not split"
    );
    let last = text(&out, "status/verified/page/5/index.html");
    assert!(
        last.contains("Page 5 of 5: records 9 to 10 of 10"),
        "{last}"
    );
    assert_eq!(last.matches("<a class=\"record-name\"").count(), 2);
    let sitemap = text(&out, "sitemap.xml");
    assert!(sitemap.contains("<loc>/engines/page/2/</loc>"), "{sitemap}");

    configure(corpus.path(), "[site]\npaginate_by = 0\n");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!out.join("engines/page").exists(), "0 never splits a list");
    assert_eq!(listed("engines/index.html").len(), 4);

    configure(corpus.path(), "[site]\npaginate_by = -1\n");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("expected a non-negative integer") && run.stderr.contains(":2:15"),
        "{}",
        run.stderr
    );
}

/// The feed lists records by the moment their `updated` names, whatever its offset
/// (`2026-11-02T01:00:00+14:00` is the day before's 11:00 UTC, later than nothing here),
/// and writes a timestamp's `t` and `z` upper case, as Atom requires.
#[test]
fn the_feed_orders_records_by_moment_not_by_text() {
    let corpus = bundled_copy();
    let engines = corpus.path().join("records/engines");
    for (engine, updated) in [
        ("vllm", "\"2026-11-02T01:00:00+14:00\""),
        ("nixl", "\"2026-11-01T23:59:59Z\""),
        ("mooncake", "\"2026-11-01t12:00:00.5z\""),
    ] {
        let path = engines.join(format!("{engine}.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("updated: 2026-10-03", &format!("updated: {updated}")),
        )
        .unwrap();
    }
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let feed = text(&out, "feed.xml");
    let stamps: Vec<&str> = feed
        .split("<updated>")
        .skip(1)
        .map(|rest| rest.split('<').next().unwrap())
        .take(4)
        .collect();
    assert_eq!(
        stamps,
        [
            "2026-11-01T23:59:59Z",
            "2026-11-01T23:59:59Z",
            "2026-11-01T12:00:00.5Z",
            "2026-11-02T01:00:00+14:00",
        ],
        "{feed}"
    );
}

/// The `(file, line, column)` of each `code` diagnostic `check` gives the corpus at `root`.
fn checked_at(root: &Path, code: &str) -> Vec<String> {
    let run = gotchas(&[
        "check",
        "--root",
        root.to_str().unwrap(),
        "--format",
        "json",
        "--no-cache",
    ]);
    json_diagnostics(&run)
        .into_iter()
        .filter(|d| d.0 == code)
        .map(|(_, file, line, column)| format!("{file}:{}:{}", line.unwrap(), column.unwrap()))
        .collect()
}

#[test]
fn a_broken_link_in_a_record_field_is_reported_at_its_line_and_column() {
    let corpus = bundled_copy();
    let engines = corpus.path().join("records/engines");
    let vllm = engines.join("vllm.yaml");
    let text = std::fs::read_to_string(&vllm).unwrap();
    std::fs::write(
        &vllm,
        text.replace("name: vLLM", "name: \"vLLM see [[nope-a]]\""),
    )
    .unwrap();
    let nixl = engines.join("nixl.yaml");
    let text = std::fs::read_to_string(&nixl).unwrap();
    std::fs::write(
        &nixl,
        text.replace("license: Apache-2.0", "license: \"as [[nope-b]]\""),
    )
    .unwrap();
    let run = gotchas(&[
        "convert",
        "--root",
        corpus.path().to_str().unwrap(),
        "--to",
        "json",
        "nixl",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::remove_file(&nixl).unwrap();
    std::fs::write(engines.join("nixl.json"), run.stdout).unwrap();
    let places = checked_at(corpus.path(), "broken-link");
    assert_eq!(places.len(), 2, "{places:?}");
    assert!(
        places
            .iter()
            .any(|p| p.starts_with("records/engines/nixl.json:"))
    );
    let run = build(corpus.path(), &corpus.path().join("site"), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for place in &places {
        assert!(
            run.stdout.contains(&format!("--> {place}\n")),
            "{place}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_record_that_does_not_parse_is_reported_in_full() {
    let corpus = bundled_copy();
    let vllm = corpus.path().join("records/engines/vllm.yaml");
    let text = std::fs::read_to_string(&vllm).unwrap();
    std::fs::write(&vllm, text.replace("name: vLLM", "name: [unclosed")).unwrap();
    let places = checked_at(corpus.path(), "syntax-error");
    assert_eq!(places.len(), 1, "{places:?}");
    let site = corpus.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("error[syntax-error]"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("--> {}\n", places[0])),
        "{}: {}",
        places[0],
        run.stdout
    );
    assert!(
        run.stdout.contains("note: 1 problem while loading"),
        "{}",
        run.stdout
    );
    assert!(!site.join("engines/vllm/index.html").exists());
}

/// A reference in a field that does not resolve is shown unlinked, and the build says how
/// many there are, in the singular for one; a base URL that is no full URL is said to make
/// the feed and the sitemap relative.
#[test]
fn the_build_notes_unlinked_references_and_a_relative_base_url() {
    let corpus = bundled_copy();
    let gotcha = corpus
        .path()
        .join("records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md");
    let text = std::fs::read_to_string(&gotcha).unwrap();
    std::fs::write(&gotcha, text.replace("mooncake,", "mooncache,")).unwrap();
    let out = corpus.path().join("out");
    let run = build(corpus.path(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("note: the base URL `/` is no full URL, so feed.xml and sitemap.xml"),
        "{said}"
    );
    let full = build(
        corpus.path(),
        &out,
        &["--base-url", "https://kb.example.org/"],
    );
    assert!(!full.stdout.contains("no full URL"), "{}", full.stdout);
    assert!(
        said.contains(
            "note: 1 reference in fields does not resolve (no record, one of the wrong \
             collection, or several); it is shown unlinked (run `gotchas check`)\n"
        ),
        "{said}"
    );
}

/// A local file that prose links to or shows as an image is copied into the site at its
/// path from the corpus root, and the link leads to the copy, with or without `repo_url`:
/// from a prose page and from a record's body, its `%20` and fragment kept. A hidden file,
/// a schema, the config and a symbolic link leading out of the corpus are never copied.
#[test]
fn files_prose_links_to_are_copied_into_the_site() {
    let corpus = bundled_copy();
    let root = corpus.path();
    std::fs::create_dir_all(root.join("docs/sub")).unwrap();
    std::fs::write(root.join("docs/pic.png"), b"\x89PNG picture").unwrap();
    std::fs::write(root.join("docs/sub/my paper.pdf"), b"%PDF paper").unwrap();
    std::fs::write(root.join(".env"), "SECRET=1\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("docs/out.txt"))
        .unwrap();
    std::fs::write(
        root.join("docs/guide.md"),
        "# Guide\n\n![a picture](pic.png) [paper](sub/my%20paper.pdf#page=2)\n\
         [env](../.env) [schema](../schema/gotcha.schema.json) [config](../gotchas.toml)\n\
         [out](out.txt)\n",
    )
    .unwrap();
    let name = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let record = root.join(format!("records/gotchas/{name}.md"));
    let body = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, format!("{body}\n![diagram](../../docs/pic.png)\n")).unwrap();
    for config in ["", "[site]\nrepo_url = \"https://github.com/org/kb\"\n"] {
        configure(root, &format!("docs = [\"docs/*.md\"]\n{config}"));
        let out = root.join("out");
        let run = build(root, &out, &[]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(crawl(&out, "/"), Vec::<String>::new());
        let site = files(&out);
        assert_eq!(site["docs/pic.png"], b"\x89PNG picture");
        assert_eq!(site["docs/sub/my paper.pdf"], b"%PDF paper");
        for withheld in [
            ".env",
            "schema/gotcha.schema.json",
            "gotchas.toml",
            "docs/out.txt",
        ] {
            assert!(!site.contains_key(withheld), "{withheld} is copied");
        }
        let page = text(&out, "docs/guide/index.html");
        assert!(page.contains("<img src=\"../../docs/pic.png\""), "{page}");
        assert!(
            page.contains("href=\"../../docs/sub/my%20paper.pdf#page=2\""),
            "{page}"
        );
        assert!(!page.contains("/blob/HEAD/docs/pic.png"), "{page}");
        let shown = text(&out, &format!("gotchas/{name}/index.html"));
        assert!(shown.contains("<img src=\"../../docs/pic.png\""), "{shown}");
    }
}

/// A linked file whose path is one a generated file has is refused, as other collisions
/// are, rather than either overwriting the other.
#[test]
fn a_linked_file_where_a_generated_one_goes_is_refused() {
    let corpus = bundled_copy();
    let root = corpus.path();
    configure(root, "docs = [\"docs/*.md\"]\n");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::create_dir_all(root.join("engines")).unwrap();
    std::fs::write(root.join("engines/vllm.json"), "{}").unwrap();
    std::fs::write(
        root.join("docs/guide.md"),
        "# Guide\n\n[data](../engines/vllm.json)\n",
    )
    .unwrap();
    let run = build(root, &root.join("out"), &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "two files of the site would be written to `engines/vllm.json`: a record's JSON and a file prose links to"
        ),
        "{}",
        run.stderr
    );
}

/// Makes the corpus's `static/` folder: a file at the site's root, a hidden one, and one in
/// a subfolder whose bytes are no text.
fn static_folder(root: &Path) {
    std::fs::create_dir_all(root.join("static/img")).unwrap();
    std::fs::write(root.join("static/CNAME"), "kb.example.org\n").unwrap();
    std::fs::write(root.join("static/.nojekyll"), "").unwrap();
    std::fs::write(root.join("static/robots.txt"), "User-agent: *\n").unwrap();
    std::fs::write(
        root.join("static/img/logo.png"),
        b"\x89PNG\r\n\x1a\n\xff\x00",
    )
    .unwrap();
}

/// The files of `static/` are published as they are at their paths below it, hidden ones
/// included, by every build: the output folder is replaced whole, so they live there.
#[test]
fn static_files_are_published_at_their_paths() {
    let corpus = bundled_copy();
    let root = corpus.path();
    static_folder(root);
    let out = root.join("out");
    for _ in 0..2 {
        let run = build(root, &out, &[]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let site = files(&out);
        assert_eq!(site["CNAME"], b"kb.example.org\n");
        assert_eq!(site[".nojekyll"], b"");
        assert_eq!(site["robots.txt"], b"User-agent: *\n");
        assert_eq!(site["img/logo.png"], b"\x89PNG\r\n\x1a\n\xff\x00");
        assert!(!site.keys().any(|file| file.starts_with("static/")));
    }
}

/// A symbolic link in `static/` that leads out of the corpus stops the build, as one in
/// `templates/` does, rather than publishing a file of the machine.
#[test]
fn a_static_link_out_of_the_corpus_is_refused() {
    let corpus = bundled_copy();
    let root = corpus.path();
    static_folder(root);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        root.join("static/img/s.txt"),
    )
    .unwrap();
    let out = root.join("out");
    let run = build(root, &out, &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("this symlink points outside the corpus, so it is not read"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("static/img/s.txt"), "{}", run.stderr);
    assert!(!out.exists());
}

/// A static file at a path the site writes is refused, naming both, before anything is
/// written: neither is let win over the other.
#[test]
fn a_static_file_where_a_generated_one_goes_is_refused() {
    let corpus = bundled_copy();
    let root = corpus.path();
    static_folder(root);
    std::fs::write(root.join("static/index.html"), "<p>mine</p>").unwrap();
    let out = root.join("out");
    let run = build(root, &out, &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "two files of the site would be written to `index.html`: the home page and a file of the `static` folder"
        ),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

/// Prose and templates may link to a static file: from the site's root (`/robots.txt`) or
/// by its path in the corpus (`../static/img/logo.png`) in prose, by its site path in a
/// template (`href(path)` or `path|href`). Each link leads to the published file, which is
/// not copied a second time.
#[test]
fn links_to_static_files_arrive() {
    let corpus = bundled_copy();
    let root = corpus.path();
    static_folder(root);
    configure(root, "docs = [\"docs/*.md\"]\n");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("docs/guide.md"),
        "# Guide\n\n[robots](/robots.txt#top) ![logo](../static/img/logo.png)\n",
    )
    .unwrap();
    let templates = root.join("templates");
    std::fs::create_dir(&templates).unwrap();
    std::fs::write(
        templates.join("field.html"),
        "{% extends \"base.html\" %}{% block main %}<img src=\"{{ href('img/logo.png') }}\"><img src=\"{{ 'img/logo.png'|href }}\"><a href=\"{{ asset('style.css') }}\">{{ 'style.css'|asset }}</a>{% endblock %}",
    )
    .unwrap();
    let out = root.join("out");
    let run = build(root, &out, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("broken"), "{}", run.stderr);
    assert_eq!(crawl(&out, "/"), Vec::<String>::new());
    let page = text(&out, "docs/guide/index.html");
    assert!(page.contains("href=\"../../robots.txt#top\""), "{page}");
    assert!(page.contains("src=\"../../img/logo.png\""), "{page}");
    assert!(
        text(&out, "severity/index.html").contains(
            "<img src=\"../img/logo.png\"><img src=\"../img/logo.png\">\
             <a href=\"../assets/style.css\">../assets/style.css</a>"
        ),
        "the template's links, by the functions and by the filters alike"
    );
    assert!(!files(&out).contains_key("static/img/logo.png"));
}

/// A Markdown record's page shows its body as written, though the site keeps of each
/// `## Heading` section only the field it sets: a section whose text its heading holds too,
/// one whose line breaks are `\r\n` (its field holds `\n`), text under a heading that names
/// no field, and text before the first heading all come out in their places.
#[test]
fn a_markdown_body_is_shown_whole_and_in_order() {
    let corpus = bundled_copy();
    let name = "pd-batch-invariant-mode-absent-from-kv-namespace";
    let record = corpus.path().join(format!("records/gotchas/{name}.md"));
    let written = std::fs::read_to_string(&record).unwrap();
    let (front, _) = written.split_once("## Symptom").unwrap();
    let body = concat!(
        "Before any heading.\n\n",
        "## Symptom\n\nFirst symptom line.\n\n",
        "## Root cause\n\nThe cause, in one line.\n\n",
        "## Workaround\r\n\r\nOne line,\r\nthen another.\r\n\r\n",
        "## Aside\n\nText under no field.\n\n",
        "## Notes\n\nNotes\n",
    );
    std::fs::write(&record, format!("{front}{body}")).unwrap();
    let site = corpus.path().join("site");
    let run = build(corpus.path(), &site, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = text(&site, &format!("gotchas/{name}/index.html"));
    let mut from = 0;
    for shown in [
        "<p>Before any heading.</p>",
        ">Symptom</h2>",
        "<p>First symptom line.</p>",
        ">Root cause</h2>",
        "<p>The cause, in one line.</p>",
        ">Workaround</h2>",
        "<p>One line,\nthen another.</p>",
        ">Aside</h2>",
        "<p>Text under no field.</p>",
        ">Notes</h2>",
        "<p>Notes</p>",
    ] {
        let at = page[from..]
            .find(shown)
            .unwrap_or_else(|| panic!("{shown} is not shown after byte {from}:\n{page}"));
        from += at + shown.len();
    }
    let json: serde_json::Value =
        serde_json::from_str(&text(&site, &format!("gotchas/{name}.json"))).unwrap();
    assert_eq!(json["fields"]["notes"], "Notes");
    assert_eq!(json["fields"]["workaround"], "One line,\nthen another.");
}
