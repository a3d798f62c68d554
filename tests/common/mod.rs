//! Helpers shared by the integration tests: run the real binary on a fixture corpus.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// What a run of the binary produced.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// The path of a fixture corpus under `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs `gotchas ARGS` with colour off and `NO_COLOR` cleared, from the crate root.
pub fn gotchas(args: &[&str]) -> Run {
    gotchas_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Runs `gotchas ARGS` in the folder `dir`, with `NO_COLOR` cleared and the check cache in
/// a folder of its own, deleted after the run: a check of a fixture under `tests/` leaves
/// nothing in the source tree, and no run recalls what another drew. The cache's own tests
/// keep it where a user's would be ([`check_keeping_cache`]).
pub fn gotchas_in(dir: &Path, args: &[&str]) -> Run {
    let cache = tempfile::tempdir().expect("a temporary folder");
    run(dir, args, Some(cache.path()))
}

/// Runs `gotchas check --root ROOT --color never [EXTRA...]` with the cache where it goes by
/// default, `.gotchas-cache/` under the root (or where `--cache-dir` in EXTRA says).
pub fn check_keeping_cache(root: &Path, extra: &[&str]) -> Run {
    run(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &check_args(root, extra),
        None,
    )
}

/// Runs `gotchas ARGS` in `dir` with `NO_COLOR` cleared and `GOTCHAS_CACHE_DIR` set to
/// `cache`, or cleared.
pub fn run(dir: &Path, args: &[&str], cache: Option<&Path>) -> Run {
    let mut command = Command::cargo_bin("gotchas").expect("the binary is built");
    command.current_dir(dir).env_remove("NO_COLOR").args(args);
    match cache {
        Some(folder) => command.env("GOTCHAS_CACHE_DIR", folder),
        None => command.env_remove("GOTCHAS_CACHE_DIR"),
    };
    let output = command.output().expect("the binary runs");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// Runs `gotchas ARGS` with standard output on `/dev/full`, where every write fails as on
/// a full disk.
#[cfg(target_os = "linux")]
pub fn gotchas_onto_a_full_disk(args: &[&str]) -> Run {
    let full = std::fs::File::create("/dev/full").expect("/dev/full");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gotchas"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdout(full)
        .output()
        .expect("the binary runs");
    Run {
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// Makes a named pipe at `path` with `mkfifo`; `false`, said on stderr, where there is none
/// to run, for the caller to skip what needs the pipe.
pub fn named_pipe(path: &Path) -> bool {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    let made = made.is_ok_and(|status| status.success());
    if !made {
        eprintln!("skipped: no mkfifo here to make {}", path.display());
    }
    made
}

/// Runs `gotchas check --root ROOT --color never [EXTRA...]`.
pub fn check(root: &Path, extra: &[&str]) -> Run {
    gotchas(&check_args(root, extra))
}

/// `check --root ROOT --color never [EXTRA...]`.
fn check_args<'a>(root: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let root = root.to_str().expect("UTF-8 path");
    let mut args = vec!["check", "--root", root, "--color", "never"];
    args.extend_from_slice(extra);
    args
}

/// The diagnostics of a `--format json` run, whole.
pub fn json_report(run: &Run) -> Vec<serde_json::Value> {
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON output");
    report["diagnostics"]
        .as_array()
        .expect("a diagnostics array")
        .clone()
}

/// The `(code, path, line, column)` of each diagnostic of a `--format json` run.
pub fn json_diagnostics(run: &Run) -> Vec<(String, String, Option<u64>, Option<u64>)> {
    json_report(run)
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["path"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64(),
                d["column"].as_u64(),
            )
        })
        .collect()
}

/// A fresh corpus in a temporary folder that uses the bundled schemas, with the given
/// record files (paths relative to `records/`).
pub fn temp_corpus(records: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    std::fs::write(
        dir.path().join("gotchas.toml"),
        // Lone records here exist to test loading, not the web: `orphan` would be noise.
        format!(
            "schemas = {:?}\n[rules]\norphan = \"allow\"\n",
            schemas.to_str().expect("UTF-8 path")
        ),
    )
    .expect("write config");
    for (path, bytes) in records {
        let path = dir.path().join("records").join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create folder");
        std::fs::write(path, bytes).expect("write record");
    }
    dir
}

/// The bundled corpus (records and schemas) copied into a fresh folder, to change or build.
pub fn bundled_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let main = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&main.join("schema"), &dir.path().join("schema"));
    copy_dir(&main.join("records"), &dir.path().join("records"));
    dir
}

/// Copies a folder recursively, each file writable by its owner: a copy is made to be
/// changed, and the shared sample corpus is read-only, which `--fix` and `convert` respect.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&target)
                    .expect("copied")
                    .permissions()
                    .mode();
                let writable = std::fs::Permissions::from_mode(mode | 0o200);
                std::fs::set_permissions(&target, writable).expect("make the copy writable");
            }
        }
    }
}

/// A `gotchas serve` running in the background, killed when dropped.
pub struct Served {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Served {
    /// Starts `gotchas serve --root ROOT --port 0` and waits (at most a minute) for the
    /// address it prints.
    pub fn start(root: &Path) -> Served {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("gotchas"));
        command.arg("--root").arg(root);
        Served::spawn(command)
    }

    /// Starts `gotchas serve --port 0` in the folder `dir`, which finds its corpus root
    /// from there, as a user would run it.
    pub fn start_in(dir: &Path) -> Served {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("gotchas"));
        command.current_dir(dir);
        Served::spawn(command)
    }

    fn spawn(mut command: std::process::Command) -> Served {
        let mut child = command
            .args(["serve", "--port", "0", "--color", "never"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut served = Served {
            child,
            url: String::new(),
            lines,
        };
        let line = served
            .wait_for("serving the site at ", std::time::Duration::from_secs(60))
            .expect("the server prints its address");
        let at = line.find("http://").expect("an address");
        served.url = line[at..]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        served
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for an output line that contains `text`.
    pub fn wait_for(&self, text: &str, timeout: std::time::Duration) -> Option<String> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            if line.contains(text) {
                return Some(line);
            }
        }
    }

    /// `GET path` (bounded by a timeout): the status code, the headers and the body.
    pub fn get(&self, path: &str) -> (u16, String, String) {
        use std::io::{Read, Write};
        let address = self.url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = std::net::TcpStream::connect(address).expect("connect");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .expect("timeout");
        write!(stream, "GET {path} HTTP/1.0\r\nHost: {address}\r\n\r\n").expect("request");
        let mut response = Vec::new();
        stream.read_to_end(&mut response).expect("response");
        let response = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, head.to_string(), body.to_string())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes a git (or git-running) command independent of the machine's git config, with a
/// fixed identity for commits.
pub fn hermetic_git(command: &mut std::process::Command) -> &mut std::process::Command {
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
}

/// The committed config that reads the sample's layout (see [`sample`]).
pub const SAMPLE_CONFIG: &str = "examples/inference-research.toml";

/// Runs `gotchas COMMAND` on the sample through [`SAMPLE_CONFIG`], with `args` after.
pub fn on_sample(command: &str, args: &[&str]) -> Run {
    let root = sample();
    let mut all = vec![
        command,
        "--root",
        root.to_str().unwrap(),
        "--config",
        SAMPLE_CONFIG,
    ];
    all.extend_from_slice(args);
    gotchas(&all)
}

/// The public `inference-research` sample in `../shared/corpus`, which CI lays beside the
/// checkout; a test that needs it fails loudly when it is missing.
pub fn sample() -> PathBuf {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/inference-research");
    assert!(
        path.is_dir(),
        "the shared corpus sample is expected at {}",
        path.display()
    );
    path
}

/// An SVG parsed as XML, as a reader of it would; Graphviz's starts with a DOCTYPE.
pub fn svg_document(svg: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(svg, options).expect("well-formed XML")
}

/// How to run a command without the right to read what its owner cannot: directly when the
/// tests run as a user other than root, through `setpriv` (util-linux) as `nobody` when they
/// run as root, whom permissions do not stop. `None` when neither is possible.
#[cfg(unix)]
pub fn without_privileges() -> Option<Vec<String>> {
    let uid = std::process::Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some(Vec::new());
    }
    let setpriv = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ];
    let works = std::process::Command::new(setpriv[0])
        .args(&setpriv[1..])
        .arg("true")
        .status()
        .is_ok_and(|status| status.success());
    works.then(|| setpriv.map(String::from).to_vec())
}

/// A user the file permissions stop: the binary run as `nobody` when the tests run as root
/// (see [`without_privileges`]), else as the tests' own user, from a copy in a folder
/// anyone may read, as the binary may sit under root's home.
#[cfg(unix)]
pub struct Unprivileged {
    prefix: Vec<String>,
    binary: PathBuf,
    dir: tempfile::TempDir,
}

#[cfg(unix)]
impl Unprivileged {
    /// `None`, said on stderr, when the tests run as root and cannot drop to `nobody`.
    pub fn new() -> Option<Unprivileged> {
        use std::os::unix::fs::PermissionsExt;
        let Some(prefix) = without_privileges() else {
            eprintln!("skipped: running as root, and `setpriv` cannot drop to nobody here");
            return None;
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        let open = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(dir.path(), open.clone()).expect("permissions");
        let binary = dir.path().join("gotchas");
        std::fs::copy(assert_cmd::cargo::cargo_bin("gotchas"), &binary).expect("a copy");
        std::fs::set_permissions(&binary, open).expect("permissions");
        Some(Unprivileged {
            prefix,
            binary,
            dir,
        })
    }

    /// Whether the user is `nobody`, for whom root makes what it cannot change.
    pub fn is_nobody(&self) -> bool {
        !self.prefix.is_empty()
    }

    /// A folder the user owns, in a folder anyone may enter.
    pub fn folder(&self, name: &str) -> PathBuf {
        let folder = self.dir.path().join(name);
        std::fs::create_dir(&folder).expect("a folder");
        if self.is_nobody() {
            std::os::unix::fs::chown(&folder, Some(65_534), Some(65_534)).expect("chown");
        }
        folder
    }

    /// Runs `gotchas ARGS` as the user, in `dir`.
    pub fn run(&self, dir: &Path, args: &[&str]) -> Run {
        let mut command = match self.prefix.split_first() {
            Some((program, rest)) => {
                let mut command = std::process::Command::new(program);
                command.args(rest).arg(&self.binary);
                command
            }
            None => std::process::Command::new(&self.binary),
        };
        let output = command
            .current_dir(dir)
            .args(args)
            .env_remove("NO_COLOR")
            .env_remove("GOTCHAS_CACHE_DIR")
            .output()
            .expect("the binary runs");
        Run {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }
}

/// A file held by a write lease (Linux's `F_SETLEASE`): a process that opens it waits until
/// the lease is released, so a test knows that a run has reached it and holds the run
/// there, deterministically, while it changes something the run read before: a prose page
/// is opened once every record has been read, and before anything is written.
#[cfg(target_os = "linux")]
pub struct Held {
    file: std::fs::File,
}

#[cfg(target_os = "linux")]
impl Held {
    /// Holds `path`; `None`, said on stderr, where the file system grants no lease.
    pub fn new(path: &Path) -> Option<Held> {
        use std::os::fd::AsRawFd;
        // The kernel says a lease is wanted with SIGIO, whose default action ends the
        // process; the lease's state is read below instead.
        // SAFETY: setting a signal's disposition to "ignore" runs no code of ours.
        unsafe { libc::signal(libc::SIGIO, libc::SIG_IGN) };
        let file = std::fs::File::open(path).expect("open the file to hold");
        // SAFETY: `file` is open for as long as the call.
        let taken = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_WRLCK) };
        if taken != 0 {
            eprintln!(
                "skipped: no lease on {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            );
            return None;
        }
        Some(Held { file })
    }

    /// Waits until a process opens the file (and waits for the lease), for at most a minute.
    pub fn wait_until_opened(&self) {
        use std::os::fd::AsRawFd;
        let start = std::time::Instant::now();
        // SAFETY: `self.file` is open for as long as the call.
        let lease = || unsafe { libc::fcntl(self.file.as_raw_fd(), libc::F_GETLEASE) };
        while lease() == libc::F_WRLCK {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "nobody opened the held file"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Lets the process waiting to open the file go on.
    pub fn release(self) {
        drop(self.file);
    }
}

/// Starts `gotchas ARGS` in `dir`, with its output piped, to be waited for with
/// [`finished`].
pub fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_gotchas"))
        .current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("GOTCHAS_CACHE_DIR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// What a run started with [`spawn`] produced.
pub fn finished(child: std::process::Child) -> Run {
    let output = child.wait_with_output().expect("the run ends");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}
