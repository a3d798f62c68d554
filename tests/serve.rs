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
