//! `gotchas serve`: the site over HTTP on 127.0.0.1, rebuilt when a record changes.

mod common;

use std::time::{Duration, Instant};

use common::{Served, bundled_copy};

#[test]
fn serves_the_site_and_rebuilds_on_change() {
    let corpus = bundled_copy();
    let server = Served::start(corpus.path());
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );

    let (status, head, home) = server.get("/");
    assert_eq!(status, 200);
    assert!(
        head.contains("Content-Type: text/html; charset=utf-8"),
        "{head}"
    );
    assert!(home.contains("<script src=\"/__gotchas/reload.js\" data-version=\"1\"></script>"));
    assert_eq!(server.get("/__gotchas/version").2, "1");
    assert!(
        server
            .get("/__gotchas/reload.js")
            .2
            .contains("location.reload()")
    );
    let (status, head, _) = server.get("/engines/mooncake");
    assert_eq!(status, 301);
    assert!(head.contains("Location: /engines/mooncake/"), "{head}");
    let (status, _, missing) = server.get("/no/such/page/");
    assert_eq!(status, 404);
    assert!(missing.contains("<h1>Not found</h1>"));
    let feed = server.get("/feed.xml").2;
    assert!(
        feed.contains(&format!("<id>{}engines/nvidia-dynamo/</id>", server.url)),
        "the site is built for the server's address"
    );

    // Building reads every file, which the watcher also reports: that is no change.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        server.get("/__gotchas/version").2,
        "1",
        "rebuilt with no change"
    );

    let record = corpus.path().join("records/engines/mooncake.yaml");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace("name: Mooncake", "name: Mooncake Transfer Engine"),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.get("/__gotchas/version").2 == "1" {
        assert!(Instant::now() < deadline, "no rebuild within a minute");
        std::thread::sleep(Duration::from_millis(200));
    }
    let page = server.get("/engines/mooncake/").2;
    assert!(page.contains("<h1>Mooncake Transfer Engine</h1>"));
    assert!(
        page.contains("data-version=\"2\""),
        "open pages see the new version and reload"
    );
}

#[test]
fn a_server_started_in_its_corpus_rebuilds_on_change() {
    let corpus = bundled_copy();
    std::fs::write(corpus.path().join("gotchas.toml"), "").unwrap();
    let server = Served::start_in(&corpus.path().join("records"));
    assert_eq!(server.get("/__gotchas/version").2, "1");
    std::fs::write(
        corpus.path().join("gotchas.toml"),
        "[site]\ntitle = \"Traps\"\n",
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.get("/__gotchas/version").2 == "1" {
        assert!(Instant::now() < deadline, "no rebuild within a minute");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        server.get("/").2.contains("Traps"),
        "built with the new config"
    );
}

/// A fresh corpus from `gotchas init`, at `kb/` in a temporary folder.
fn initialised() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let run = common::gotchas(&["init", root.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    (dir, root)
}

/// Waits (at most a minute) until `path` answers with `status` and a body holding
/// `text`, and gives the body.
fn wait_for_page(server: &Served, path: &str, status: u16, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (got, _, body) = server.get(path);
        if got == status && body.contains(text) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never answered {status} with {text:?}; last {got}: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits (at most a minute) for a build newer than `version`, and gives its version.
fn wait_past(server: &Served, version: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now: u64 = server.get("/__gotchas/version").2.parse().unwrap_or(0);
        if now > version {
            return now;
        }
        assert!(Instant::now() < deadline, "no rebuild past {version}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_folder_made_after_startup_is_watched_from_then_on() {
    let (_dir, root) = initialised();
    let server = Served::start(&root);
    std::fs::create_dir(root.join("templates")).unwrap();
    // The folder's making rebuilds; the file, written after, must be seen on its own.
    wait_past(&server, 1);
    std::fs::write(root.join("templates/style.css"), "/*MARK*/\n").unwrap();
    wait_for_page(&server, "/assets/style.css", 200, "/*MARK*/");
}

#[test]
fn a_folder_removed_and_made_again_is_watched_again() {
    let (dir, root) = initialised();
    let saved = dir.path().join("saved");
    common::copy_dir(&root.join("records"), &saved);
    let server = Served::start(&root);
    let page = "/gotchas/example-gotcha/";
    std::fs::remove_dir_all(root.join("records")).unwrap();
    wait_for_page(&server, page, 404, "");
    common::copy_dir(&saved, &root.join("records"));
    wait_for_page(&server, page, 200, "An example to copy");
    let record = root.join("records/gotchas/example-gotcha.md");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace("name: An example to copy", "name: Edited after restore"),
    )
    .unwrap();
    wait_for_page(&server, page, 200, "Edited after restore");

    std::fs::remove_dir_all(root.join("docs")).unwrap();
    wait_for_page(&server, "/docs/index/", 404, "");
    std::fs::create_dir(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/fresh.md"), "# Fresh page\n").unwrap();
    wait_for_page(&server, "/docs/fresh/", 200, "Fresh page");
}

#[test]
fn a_folder_the_config_names_anew_is_watched() {
    let (_dir, root) = initialised();
    std::fs::create_dir(root.join("guides")).unwrap();
    std::fs::write(root.join("guides/first.md"), "# First guide\n").unwrap();
    let server = Served::start(&root);
    let config = root.join("gotchas.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("docs = [\"docs/*.md\"]", "docs = [\"guides/*.md\"]"),
    )
    .unwrap();
    wait_for_page(&server, "/guides/first/", 200, "First guide");
    std::fs::write(root.join("guides/second.md"), "# Second guide\n").unwrap();
    wait_for_page(&server, "/guides/second/", 200, "Second guide");
}

#[test]
fn a_server_keeps_its_corpus_when_its_config_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let outer = dir.path().join("outer");
    let inner = outer.join("inner");
    for root in [&outer, &inner] {
        let run = common::gotchas(&["init", root.to_str().unwrap()]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let record = outer.join("records/gotchas/example-gotcha.md");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace("name: An example to copy", "name: The outer record"),
    )
    .unwrap();
    let server = Served::start_in(&inner);
    let page = "/gotchas/example-gotcha/";
    assert!(server.get(page).2.contains("<h1>An example to copy</h1>"));
    std::fs::remove_file(inner.join("gotchas.toml")).unwrap();
    wait_past(&server, 1);
    let (status, _, body) = server.get(page);
    assert_eq!(status, 200);
    assert!(
        body.contains("<h1>An example to copy</h1>"),
        "still the corpus it was started in: {body}"
    );
}

/// The inotify watches a process holds, from its open files' descriptions.
#[cfg(target_os = "linux")]
fn inotify_watches(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fdinfo"))
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .map(|info| {
            info.lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count()
        })
        .sum()
}

#[cfg(target_os = "linux")]
#[test]
fn a_docs_file_at_the_root_does_not_watch_the_whole_root() {
    let (_dir, root) = initialised();
    for n in 0..40 {
        std::fs::create_dir_all(root.join(format!("node_modules/package-{n}/lib"))).unwrap();
    }
    std::fs::write(root.join("README.md"), "# Read me\n").unwrap();
    let config = root.join("gotchas.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "docs = [\"docs/*.md\"]",
            "docs = [\"docs/*.md\", \"README.md\"]",
        ),
    )
    .unwrap();
    let server = Served::start(&root);
    wait_for_page(&server, "/README/", 200, "Read me");
    let watches = inotify_watches(server.pid());
    assert!(
        watches < 40,
        "{watches} watches: the folders beside README.md are not watched"
    );
    std::fs::write(root.join("README.md"), "# Read me again\n").unwrap();
    wait_for_page(&server, "/README/", 200, "Read me again");
}

#[test]
fn a_folder_redirect_keeps_the_query_and_encodes_the_path() {
    let (_dir, root) = initialised();
    let config = root.join("gotchas.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[collections.gotcha]\nid_pattern = \"^.+$\"\n");
    std::fs::write(&config, text).unwrap();
    let ids = [
        ("what?yes", "what%3Fyes"),
        ("100%", "100%25"),
        ("a b", "a%20b"),
        ("café", "caf%C3%A9"),
        ("x#y", "x%23y"),
    ];
    for (id, _) in ids {
        let run = common::gotchas(&[
            "new",
            "--root",
            root.to_str().unwrap(),
            "gotcha",
            "--name",
            &format!("Named {id}"),
            "--id",
            id,
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let server = Served::start(&root);
    for (asked, location) in [
        ("/search?q=example", "/search/?q=example"),
        (
            "/graph?focus=gotchas/example-gotcha",
            "/graph/?focus=gotchas/example-gotcha",
        ),
        ("/search?q=caf%C3%A9", "/search/?q=caf%C3%A9"),
        ("/search?q=café", "/search/?q=caf%C3%A9"),
    ] {
        let (status, head, _) = server.get(asked);
        assert_eq!(status, 301, "{asked}");
        assert!(
            head.lines().any(|l| l == format!("Location: {location}")),
            "{asked}: {head}"
        );
    }
    for (id, encoded) in ids {
        let (status, head, _) = server.get(&format!("/gotchas/{encoded}"));
        assert_eq!(status, 301, "{id}");
        let location = format!("/gotchas/{encoded}/");
        assert!(
            head.lines().any(|l| l == format!("Location: {location}")),
            "{id}: {head}"
        );
        let (status, _, page) = server.get(&location);
        assert_eq!(status, 200, "{id}");
        assert!(page.contains(&format!("Named {id}")), "{id}: {page}");
    }
}

#[test]
fn a_record_broken_while_serving_is_reported_in_full() {
    let (_dir, root) = initialised();
    let server = Served::start(&root);
    let record = root.join("records/gotchas/example-gotcha.md");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace("name: An example to copy", "name: [unclosed"),
    )
    .unwrap();
    let minute = Duration::from_secs(60);
    server
        .wait_for("error[syntax-error]", minute)
        .expect("the syntax error is printed");
    let place = server.wait_for("-->", minute).expect("and placed");
    assert!(
        place.ends_with("--> records/gotchas/example-gotcha.md:5:9"),
        "{place}"
    );
}

/// Sends `bytes` as they are, and gives the answer's status (0 for none) and head.
fn raw(server: &Served, bytes: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let address = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    stream.write_all(bytes).expect("request");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let head = response.split("\r\n\r\n").next().unwrap_or_default();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string())
}

#[test]
fn requests_a_browser_would_not_send_are_answered() {
    let (_dir, root) = initialised();
    let server = Served::start(&root);
    let (status, head) = raw(&server, b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    assert_eq!(status, 405, "{head}");
    assert!(head.lines().any(|l| l == "Allow: GET, HEAD"), "{head}");
    for malformed in [
        &b"\r\n\r\n"[..],
        b"\x00\x01\x02\xff garbage\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET / HTTP/1.1 extra\r\n\r\n",
        b"GET nowhere HTTP/1.1\r\n\r\n",
        // A TLS ClientHello's first bytes, with no blank line to wait for.
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
    ] {
        assert_eq!(raw(&server, malformed).0, 400, "{malformed:?}");
    }
    let (status, head) = raw(&server, b"GET /gotchas/ HTTP/1.1\nHost: x\n\n");
    assert_eq!(status, 200, "a head with bare LF line ends: {head}");
    let mut long = b"GET / HTTP/1.1\r\nX-Long: ".to_vec();
    long.extend(std::iter::repeat_n(b'a', 20 * 1024));
    long.extend_from_slice(b"\r\n\r\n");
    assert_eq!(raw(&server, &long).0, 431);
    let address = server.url.trim_end_matches('/');
    let absolute = format!("GET {address}/gotchas/example-gotcha/ HTTP/1.1\r\n\r\n");
    let (status, head) = raw(&server, absolute.as_bytes());
    assert_eq!(status, 200, "{head}");
    let (status, head) = raw(
        &server,
        format!("GET {address}/search?q=x HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert_eq!(status, 301, "{head}");
    assert!(
        head.lines().any(|l| l == "Location: /search/?q=x"),
        "{head}"
    );
    let (status, head) = raw(
        &server,
        format!("GET {address} HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert_eq!(status, 200, "the root, with no path: {head}");
}

#[test]
fn extra_template_assets_are_served_as_what_they_are() {
    let (_dir, root) = initialised();
    let types = [
        ("a.gif", "image/gif"),
        ("a.webp", "image/webp"),
        ("a.avif", "image/avif"),
        ("a.ico", "image/x-icon"),
        ("a.txt", "text/plain; charset=utf-8"),
        ("a.webmanifest", "application/manifest+json"),
        ("a.wasm", "application/wasm"),
        ("a.woff", "font/woff"),
        ("a.woff2", "font/woff2"),
        ("a.json", "application/json"),
        ("a.xml", "application/xml"),
        ("a.pdf", "application/pdf"),
        ("LOGO.PNG", "image/png"),
        ("a.unknown", "application/octet-stream"),
    ];
    std::fs::create_dir(root.join("templates")).unwrap();
    for (file, _) in types {
        std::fs::write(root.join("templates").join(file), "x").unwrap();
    }
    let server = Served::start(&root);
    for (file, media) in types {
        let (status, head, _) = server.get(&format!("/assets/{file}"));
        assert_eq!(status, 200, "{file}");
        assert!(
            head.lines().any(|l| l == format!("Content-Type: {media}")),
            "{file}: {head}"
        );
    }
}
