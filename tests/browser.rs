//! The site in a real browser: headless Chromium against `gotchas serve`, reading the DOM
//! after the page's scripts ran. Skipped where Chromium is not installed, except in CI
//! (`CI` set), where `.ci/run` installs it and a missing browser is a failure.
//!
//! `GOTCHAS_SCREENSHOTS=docs/screenshots cargo test --test browser` also refreshes the
//! screenshots the README shows.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Served, bundled_copy};

/// Chromium, or `None` (with a note) where it may be missing.
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        })
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Chromium is required in CI: .ci/run installs Debian's `chromium`"
        );
        eprintln!("skipped: Chromium is not installed (.ci/run installs it)");
    }
    found
}

/// Runs headless Chromium with `args` then `url`, killed after a minute; returns stdout.
fn run_chromium(browser: &Path, args: &[String], url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=8000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Chromium starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish {url} within a minute");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().expect("the reader thread")
}

/// The page at `url` as Chromium leaves it once its scripts have run. Tried up to three
/// times: on a machine busy with the other test binaries, Chromium now and then dumps a
/// page that has not loaded (once in session 29's eight full runs), and every page of the
/// site has its `<main>`.
fn dom(browser: &Path, url: &str) -> String {
    let mut page = String::new();
    for _ in 0..3 {
        page = run_chromium(browser, &["--dump-dom".to_string()], url);
        if page.contains("<main id=\"main\"") {
            break;
        }
    }
    page
}

fn screenshot(browser: &Path, url: &str, file: &Path, size: &str) {
    run_chromium(
        browser,
        &[
            format!("--screenshot={}", file.display()),
            format!("--window-size={size}"),
        ],
        url,
    );
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is a PNG",
        file.display()
    );
}

#[test]
fn pages_render_search_finds_and_the_graph_draws() {
    let Some(browser) = chromium() else { return };
    let corpus = bundled_copy();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = Served::start(corpus.path());
    let url = |path: &str| format!("{}{path}", server.url);

    let home = dom(&browser, &url(""));
    assert!(home.contains("<h1>gotchas</h1>"), "{home}");
    assert!(home.contains("<span class=\"card-name\">engines</span>"));

    let record = dom(&browser, &url("engines/mooncake/"));
    let backlinks = &record[record.find("Referenced by").expect("a backlinks section")..];
    assert!(backlinks.contains(
        "href=\"../../gotchas/pd-batch-invariant-mode-absent-from-kv-namespace/index.html\""
    ));

    let search = dom(&browser, &url("search/?q=mooncake"));
    let results = &search[search.find("id=\"results\"").expect("a results list")..];
    assert!(
        results.contains("href=\"../engines/mooncake/index.html\">Mooncake</a>"),
        "the search lists the mooncake engine: {results}"
    );
    assert!(search.contains("results for “mooncake”"));

    let graph = dom(&browser, &url("graph/"));
    let nodes = graph.matches("<circle ").count();
    assert_eq!(nodes, 10, "the graph draws every record: {graph}");
    assert!(graph.contains("The whole graph: 10 nodes"));
    let focused = dom(&browser, &url("graph/?focus=engines/mooncake"));
    assert!(focused.contains("The neighbourhood of Mooncake"));

    let scratch = tempfile::tempdir().unwrap();
    let shots = match std::env::var_os("GOTCHAS_SCREENSHOTS") {
        Some(folder) => manifest.join(folder),
        None => scratch.path().to_path_buf(),
    };
    std::fs::create_dir_all(&shots).unwrap();
    screenshot(&browser, &url(""), &shots.join("home.png"), "1280,860");
    screenshot(
        &browser,
        &url("engines/vllm/"),
        &shots.join("record.png"),
        "1280,1000",
    );
    screenshot(
        &browser,
        &url("graph/"),
        &shots.join("graph.png"),
        "1280,860",
    );
}
