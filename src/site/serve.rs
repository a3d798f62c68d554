//! `gotchas serve`: the site from memory on 127.0.0.1, rebuilt when an input changes.
//!
//! Live reload is deliberately simple: every HTML page served gets a small script that polls
//! `/__gotchas/version` and reloads the page when the number changes, which it does on every
//! successful rebuild. A poll survives anything (a server restart, a laptop waking up) and
//! needs no WebSocket. The script is added as pages are served, so the built files are
//! exactly those of `gotchas build`.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use super::protected_folders;
use crate::project::Project;
use crate::write::resolved;

/// Where the page script asks for the site's version.
const VERSION_PATH: &str = "__gotchas/version";

/// The live-reload script.
const RELOAD_PATH: &str = "__gotchas/reload.js";

const RELOAD_SCRIPT: &str = r#"(function () {
  "use strict";
  var seen = document.currentScript.getAttribute("data-version");
  function poll() {
    fetch("/__gotchas/version", { cache: "no-store" })
      .then(function (response) { return response.text(); })
      .then(function (version) {
        if (version.trim() !== seen) window.location.reload();
        else setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 1000);
})();
"#;

/// How long the watcher waits for a burst of changes (an editor's save, a `git checkout`)
/// to end before rebuilding.
const QUIET: Duration = Duration::from_millis(200);

#[derive(Default)]
struct Published {
    files: BTreeMap<String, Vec<u8>>,
    version: u64,
}

/// How long a connection may take to send its request or read the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest request head read; a browser's is a few hundred bytes.
const MAX_REQUEST: usize = 16 * 1024;

/// The HTTP server and the site it serves.
///
/// HTTP here is the least that a browser needs: one request per connection, answered and
/// closed (`Connection: close`), each connection on its own short-lived thread with read and
/// write timeouts. No keep-alive means no connection can hold a worker while another waits,
/// which is the failure that makes small servers hang under a browser's parallel requests.
pub struct Server {
    listener: TcpListener,
    site: Arc<RwLock<Published>>,
    port: u16,
}

impl Server {
    /// Listens on 127.0.0.1 (never on other interfaces); port 0 takes a free one.
    pub fn bind(port: u16) -> std::io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        Ok(Server {
            listener,
            site: Arc::default(),
            port,
        })
    }

    /// The site's address, which is also the base URL it is built for.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Serves a new build; open pages reload.
    pub fn publish(&self, files: BTreeMap<String, Vec<u8>>) {
        let mut site = self.site.write().unwrap_or_else(|e| e.into_inner());
        site.files = files;
        site.version += 1;
    }

    /// Answers requests on a background thread, for as long as the process lives.
    pub fn spawn(&self) -> std::io::Result<()> {
        let listener = self.listener.try_clone()?;
        let site = Arc::clone(&self.site);
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let site = Arc::clone(&site);
                std::thread::spawn(move || serve_connection(stream, &site));
            }
        });
        Ok(())
    }
}

/// Reads one request, writes its answer, closes. A connection that sends no complete
/// request head in time is dropped.
fn serve_connection(mut stream: TcpStream, site: &RwLock<Published>) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let (answer, head_only) = match read_head(&mut stream) {
        Head::Complete(head) => match request(&head) {
            Ok((method, target)) => {
                let site = site.read().unwrap_or_else(|e| e.into_inner());
                (answer(&site, &method, &target), method == "HEAD")
            }
            Err(()) => (Answer::text(400, "not an HTTP request\n"), false),
        },
        Head::Malformed => (Answer::text(400, "not an HTTP request\n"), false),
        Head::TooLarge => (Answer::text(431, "request head too large\n"), false),
        Head::Gone => return,
    };
    let reason = match answer.status {
        200 => "OK",
        301 => "Moved Permanently",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Request Header Fields Too Large",
    };
    let mut response = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n",
        answer.status,
        answer.content_type,
        answer.body.len()
    );
    for (name, value) in &answer.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    let mut bytes = response.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&answer.body);
    }
    let _ = stream.write_all(&bytes);
    let _ = stream.flush();
    linger(&mut stream);
}

/// How long, at most, a connection is read from after its answer (see [`linger`]).
const LINGER: Duration = Duration::from_secs(2);

/// Reads, and drops, what the client still sends, until it closes or for [`LINGER`] (and
/// at most 64 KiB), after saying no more will be written. A connection closed with bytes
/// unread, as a head cut short at 431 or a body sent with a POST leaves, is reset by the
/// system, and the client may lose the answer before it reads it.
fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let deadline = std::time::Instant::now() + LINGER;
    let mut buffer = [0u8; 4096];
    let mut left = 64 * 1024usize;
    while left > 0 {
        let Some(wait) = deadline.checked_duration_since(std::time::Instant::now()) else {
            return;
        };
        if wait.is_zero() || stream.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// What a connection sent before its request's blank line.
enum Head {
    /// The request line and headers, the blank line left off.
    Complete(Vec<u8>),
    /// Bytes no request line holds (binary, a TLS handshake), or an end before the blank
    /// line: answered at once, not waited on.
    Malformed,
    /// More than [`MAX_REQUEST`] bytes with no end.
    TooLarge,
    /// Nothing came, or not in time.
    Gone,
}

/// Reads a request head. Lines may end in a bare LF, as most servers accept.
fn read_head(stream: &mut impl Read) -> Head {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = head_end(&head).filter(|&end| end <= MAX_REQUEST) {
            head.truncate(end);
            return Head::Complete(head);
        }
        if !could_be_request_line(&head) {
            return Head::Malformed;
        }
        if head.len() > MAX_REQUEST {
            return Head::TooLarge;
        }
        match stream.read(&mut buffer) {
            Ok(0) if head.is_empty() => return Head::Gone,
            Ok(0) => return Head::Malformed,
            Ok(n) => head.extend_from_slice(buffer.get(..n).unwrap_or_default()),
            Err(_) => return Head::Gone,
        }
    }
}

/// Where the blank line that ends a head starts: after a line's `\n`, a `\n` or `\r\n`.
fn head_end(head: &[u8]) -> Option<usize> {
    head.iter().enumerate().find_map(|(at, &byte)| {
        let rest = head.get(at + 1..)?;
        (byte == b'\n' && (rest.starts_with(b"\n") || rest.starts_with(b"\r\n"))).then_some(at)
    })
}

/// Whether the first line so far is free of the control bytes no request line has; bytes
/// past ASCII are let through, as some clients send a path's letters unencoded.
fn could_be_request_line(head: &[u8]) -> bool {
    head.iter()
        .take_while(|&&byte| byte != b'\n')
        .all(|&byte| !(byte.is_ascii_control() && byte != b'\r' && byte != b'\t'))
}

/// The method and target of a request head's first line, `METHOD TARGET HTTP/x`: the target
/// in origin form (`/path?query`), or the path and query of one in absolute form
/// (`http://host/path`), which a client talking to a proxy sends.
fn request(head: &[u8]) -> Result<(String, String), ()> {
    let line = head.split(|&byte| byte == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let [method, target, version] = words.as_slice() else {
        return Err(());
    };
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if !method.chars().all(token) || !version.starts_with("HTTP/") {
        return Err(());
    }
    let scheme = target.split_once("://").filter(|(scheme, _)| {
        ["http", "https"]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(scheme))
    });
    let target = match scheme {
        Some((_, rest)) => {
            let after_host = rest
                .find(['/', '?'])
                .and_then(|at| rest.get(at..))
                .unwrap_or_default();
            if after_host.starts_with('/') {
                after_host.to_string()
            } else {
                format!("/{after_host}")
            }
        }
        None if target.starts_with('/') || *target == "*" => (*target).to_string(),
        None => return Err(()),
    };
    Ok(((*method).to_string(), target))
}

/// What to send back.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    /// Headers besides those every answer has.
    headers: Vec<(&'static str, String)>,
}

impl Answer {
    /// A plain-text answer.
    fn text(status: u16, body: &str) -> Answer {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.as_bytes().to_vec(),
            headers: Vec::new(),
        }
    }
}

fn answer(site: &Published, method: &str, url: &str) -> Answer {
    let text = Answer::text;
    if !matches!(method, "GET" | "HEAD") {
        let mut answer = text(405, "only GET and HEAD\n");
        answer.headers.push(("Allow", "GET, HEAD".to_string()));
        return answer;
    }
    // A fragment is never sent, but a request may have one all the same.
    let url = url.split('#').next().unwrap_or_default();
    let (path, query) = match url.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (url, None),
    };
    let path = percent_encoding::percent_decode_str(path.trim_start_matches('/'))
        .decode_utf8_lossy()
        .into_owned();
    match path.as_str() {
        VERSION_PATH => return text(200, &site.version.to_string()),
        RELOAD_PATH => {
            return Answer {
                status: 200,
                content_type: "text/javascript; charset=utf-8",
                body: RELOAD_SCRIPT.as_bytes().to_vec(),
                headers: Vec::new(),
            };
        }
        _ => {}
    }
    let file = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.clone()
    };
    if let Some(bytes) = site.files.get(&file) {
        return Answer {
            status: 200,
            content_type: content_type(&file),
            body: with_reload(&file, bytes, site.version),
            headers: Vec::new(),
        };
    }
    if site.files.contains_key(&format!("{path}/index.html")) {
        return Answer {
            status: 301,
            content_type: "text/plain; charset=utf-8",
            body: Vec::new(),
            headers: vec![("Location", folder_location(&path, query))],
        };
    }
    match site.files.get("404.html") {
        Some(bytes) => Answer {
            status: 404,
            content_type: content_type("404.html"),
            body: with_reload("404.html", bytes, site.version),
            headers: Vec::new(),
        },
        None => text(404, "not found\n"),
    }
}

/// Where a folder asked for without its final `/` is: its path encoded again as the site's
/// links encode it (an id may hold `?`, `#`, `%`, spaces or any letter, which the decoded
/// path would give raw), and the query kept, since `search?q=` and `graph?focus=` are what
/// the pages read.
fn folder_location(path: &str, query: Option<&str>) -> String {
    let mut location = format!("/{}/", super::urls::encode_segments(path));
    if let Some(query) = query {
        // A header is ASCII: bytes beyond it, and controls, are escaped; the rest of the
        // query is passed on as the browser wrote it.
        location.push('?');
        location.extend(percent_encoding::utf8_percent_encode(
            query,
            percent_encoding::CONTROLS,
        ));
    }
    location
}

fn with_reload(file: &str, bytes: &[u8], version: u64) -> Vec<u8> {
    if !file.ends_with(".html") {
        return bytes.to_vec();
    }
    let html = String::from_utf8_lossy(bytes);
    let script = format!("<script src=\"/{RELOAD_PATH}\" data-version=\"{version}\"></script>\n");
    match html
        .rfind("</body>")
        .and_then(|at| html.split_at_checked(at))
    {
        Some((before, after)) => format!("{before}{script}{after}").into_bytes(),
        None => format!("{html}{script}").into_bytes(),
    }
}

/// The media type a file is served as, by its extension (in any case): those of the
/// site's own files and of what a templates folder commonly adds to them; any other is
/// bytes.
fn content_type(file: &str) -> &'static str {
    let extension = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref().unwrap_or_default() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "xml" if file == "feed.xml" => "application/atom+xml",
        "xml" => "application/xml",
        "wasm" => "application/wasm",
        "pdf" => "application/pdf",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        _ => "application/octet-stream",
    }
}

/// The project's inputs, watched: changes are noticed from [`Watching::start`] on, so a
/// server starts watching before it builds, and a change made while it builds, or before
/// it says where it serves, is not missed.
///
/// What is watched follows the project: [`Watching::follow`] watches again what a rebuild
/// is about to read, since a folder removed and made again, one that did not exist, or one
/// the config names anew is not what the watches were set on.
pub struct Watching {
    watcher: notify::RecommendedWatcher,
    events: mpsc::Receiver<notify::Result<notify::Event>>,
    /// The paths watched now, [`resolved`], and how.
    watched: BTreeMap<PathBuf, RecursiveMode>,
    inputs: Inputs,
}

impl Watching {
    /// Starts watching the project's inputs.
    pub fn start(project: &Project) -> notify::Result<Watching> {
        let (sender, events) = mpsc::channel();
        let watcher = notify::recommended_watcher(sender)?;
        let mut watching = Watching {
            watcher,
            events,
            watched: BTreeMap::new(),
            inputs: Inputs::of(project),
        };
        watching.follow(project)?;
        Ok(watching)
    }

    /// Watches what `project` reads, in place of what was watched: to be called before
    /// each rebuild reads it, so that nothing changed from then on goes unnoticed.
    ///
    /// Every watch is set again, not only the new ones: a folder removed and made again
    /// under the same name is another folder, which the old watch does not see (inotify
    /// drops it with the folder). A folder that does not exist is noticed as it is made
    /// through the nearest folder above it that does. Returns the first watch that could
    /// not be set, after setting all the others.
    pub fn follow(&mut self, project: &Project) -> notify::Result<()> {
        self.inputs = Inputs::of(project);
        for path in std::mem::take(&mut self.watched).into_keys() {
            // A watch on a folder since removed went with it: there is nothing to undo.
            let _ = self.watcher.unwatch(&path);
        }
        let mut failed = None;
        for (path, mode) in watched(project) {
            match watch_nearest(&mut self.watcher, &path, mode) {
                Ok((path, mode)) => {
                    self.watched.insert(path, mode);
                }
                Err(err) => {
                    failed.get_or_insert(err);
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// Waits for the next burst of changes to end and gives the changed paths (under the
    /// project's root, as it names it), sorted; `None` once the watcher stopped working.
    ///
    /// A change is a file made, written, renamed or removed: reading one is not, though the
    /// watcher reports it (inotify's open and close), or every build, reading the corpus,
    /// would start the next, and open pages would reload for ever.
    pub fn next_change(&self) -> Option<Vec<PathBuf>> {
        let relevant = |event: notify::Result<notify::Event>| -> Vec<PathBuf> {
            match event {
                Ok(event) if is_change(&event.kind) => event
                    .paths
                    .into_iter()
                    .filter_map(|path| self.inputs.named(&path))
                    .collect(),
                _ => Vec::new(),
            }
        };
        loop {
            let mut changed = relevant(self.events.recv().ok()?);
            if changed.is_empty() {
                continue;
            }
            while let Ok(event) = self.events.recv_timeout(QUIET) {
                changed.extend(relevant(event));
            }
            changed.sort();
            changed.dedup();
            return Some(changed);
        }
    }
}

/// Watches `path`, or when it is not there (not yet, or no longer), the nearest folder
/// above it that is, alone: its making is what is then waited for. Gives what is watched.
fn watch_nearest(
    watcher: &mut notify::RecommendedWatcher,
    path: &Path,
    mode: RecursiveMode,
) -> notify::Result<(PathBuf, RecursiveMode)> {
    let (mut path, mut mode) = (path.to_path_buf(), mode);
    loop {
        // Removed after it was looked for, as a `git checkout` may: its folder is watched.
        let gone = |err: &notify::Error| {
            matches!(&err.kind, notify::ErrorKind::PathNotFound)
                || matches!(&err.kind, notify::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound)
        };
        if path.exists() {
            match watcher.watch(&path, mode) {
                Ok(()) => return Ok((path, mode)),
                Err(err) if !gone(&err) => return Err(err),
                Err(_) => {}
            }
        }
        match path.parent() {
            Some(parent) if parent != path => {
                path = parent.to_path_buf();
                mode = RecursiveMode::NonRecursive;
            }
            _ => return Err(notify::Error::path_not_found().add_path(path)),
        }
    }
}

/// Whether an event is a change to what the site is built from; reading a file is not.
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::event::{MetadataKind, ModifyKind};
    !matches!(
        kind,
        notify::EventKind::Access(_)
            | notify::EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))
    )
}

/// The site's inputs, as the watcher reports paths: the paths it watches (see
/// [`resolved`]) joined with the names below them.
struct Inputs {
    /// The root as the project names it, for the paths given back.
    root: PathBuf,
    /// The root, [`resolved`].
    resolved_root: PathBuf,
    /// The records, schema, templates and static folders.
    folders: Vec<PathBuf>,
    /// Every folder read: those, and those the docs patterns start in.
    reached: Vec<PathBuf>,
    /// The config file, wherever it is, and `gotchas.toml` at the root.
    configs: Vec<PathBuf>,
    docs: Option<globset::GlobSet>,
}

impl Inputs {
    fn of(project: &Project) -> Inputs {
        let mut configs = vec![resolved(&project.root.join(crate::config::FILE_NAME))];
        configs.extend(project.config.file.as_deref().map(resolved));
        let folders: Vec<PathBuf> = protected_folders(project)
            .iter()
            .map(|(folder, _)| resolved(folder))
            .collect();
        let reached = folders
            .iter()
            .cloned()
            .chain(
                docs_folders(project)
                    .into_iter()
                    .map(|(folder, _)| resolved(&folder)),
            )
            .collect();
        Inputs {
            root: project.root.clone(),
            resolved_root: resolved(&project.root),
            folders,
            reached,
            configs,
            docs: project.config.docs_matcher(),
        }
    }

    /// A changed path the site is built from, under the root as the project names it: an
    /// input, or a folder on the way to one (made, it is where the input will be; removed,
    /// the input went with it).
    fn named(&self, path: &Path) -> Option<PathBuf> {
        let relative = path.strip_prefix(&self.resolved_root).ok();
        let input = self.folders.iter().any(|folder| path.starts_with(folder))
            || self.configs.iter().any(|config| path == config)
            || relative
                .is_some_and(|relative| self.docs.as_ref().is_some_and(|d| d.is_match(relative)))
            // The root itself, and the folders above it, are on the way to everything.
            || (!self.resolved_root.starts_with(path)
                && self.reached.iter().any(|folder| folder.starts_with(path)));
        input.then(|| relative.map_or_else(|| path.to_path_buf(), |r| self.root.join(r)))
    }
}

/// The folders the docs patterns reach, and how: below the folder a pattern's first
/// wildcard is in, recursively, since `*` matches across `/` as the docs are found; a
/// pattern naming one file (`README.md`), only the folder it is in, alone, as watching the
/// root whole would watch every folder of the repository (`node_modules`, `.git`).
fn docs_folders(project: &Project) -> Vec<(PathBuf, RecursiveMode)> {
    project
        .config
        .docs
        .iter()
        .map(|pattern| {
            let folder = project.root.join(crate::corpus::literal_folder(pattern));
            let mode = if pattern.contains(['*', '?', '[', '{', '\\']) {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            (folder, mode)
        })
        .collect()
}

/// The paths to watch, [`resolved`]: the corpus's own folders, recursively, and the
/// folders the docs patterns reach (see [`docs_folders`]); the root and the config file's
/// folder, for the config file alone. A path watched two ways is watched recursively.
fn watched(project: &Project) -> BTreeMap<PathBuf, RecursiveMode> {
    let mut paths: BTreeMap<PathBuf, RecursiveMode> = BTreeMap::new();
    let folders = protected_folders(project)
        .into_iter()
        .map(|(folder, _)| (folder, RecursiveMode::Recursive))
        .chain(docs_folders(project))
        .chain([(project.root.clone(), RecursiveMode::NonRecursive)])
        .chain(
            // Resolved first: `--config gotchas.toml` has no folder named.
            project
                .config
                .file
                .as_deref()
                .map(resolved)
                .and_then(|file| file.parent().map(Path::to_path_buf))
                .map(|parent| (parent, RecursiveMode::NonRecursive)),
        );
    for (folder, mode) in folders {
        let watched = paths.entry(resolved(&folder)).or_insert(mode);
        if mode == RecursiveMode::Recursive {
            *watched = mode;
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> Published {
        Published {
            files: [
                ("index.html", "<html><body>home</body></html>"),
                ("engines/vllm/index.html", "<body>vllm</body>"),
                ("404.html", "<body>missing</body>"),
                ("style.css", "body{}"),
            ]
            .into_iter()
            .map(|(path, text)| (path.to_string(), text.as_bytes().to_vec()))
            .collect(),
            version: 3,
        }
    }

    #[test]
    fn serves_pages_with_the_reload_script() {
        let site = site();
        let home = answer(&site, "GET", "/?q=x");
        assert_eq!(home.status, 200);
        let html = String::from_utf8(home.body).unwrap();
        assert!(html.contains(
            "<script src=\"/__gotchas/reload.js\" data-version=\"3\"></script>\n</body>"
        ));
        let css = answer(&site, "GET", "/style.css");
        assert_eq!(css.body, b"body{}");
        assert_eq!(answer(&site, "GET", "/__gotchas/version").body, b"3");
    }

    #[test]
    fn redirects_folders_and_answers_404() {
        let site = site();
        let folder = answer(&site, "GET", "/engines/vllm");
        assert_eq!(
            (folder.status, folder.headers),
            (301, vec![("Location", "/engines/vllm/".to_string())])
        );
        let missing = answer(&site, "GET", "/nope/");
        assert_eq!(missing.status, 404);
        assert!(String::from_utf8(missing.body).unwrap().contains("missing"));
        assert_eq!(answer(&site, "POST", "/").status, 405);
    }
}
