//! An interrupted run leaves nothing of its own behind: Ctrl-C or SIGTERM while a file is
//! being written removes its temporary file (among the records, beside a report, in the
//! cache) before the run ends, as the signal ends it.

#![cfg(target_os = "linux")]

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// A corpus made by `gotchas init` with `count` more gotchas, each of `severity` (`majr` is
/// a typo `--fix` fixes) and a symptom of `words` words.
fn corpus(count: usize, severity: &str, words: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let made = common::gotchas(&["init", dir.path().to_str().unwrap()]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let folder = dir.path().join("records/gotchas");
    let symptom = "what you see ".repeat(words);
    for n in 0..count {
        let record = serde_json::json!({
            "id": format!("g{n:05}"),
            "type": "gotcha",
            "name": format!("Gotcha {n}"),
            "severity": severity,
            "symptom": symptom,
        });
        std::fs::write(folder.join(format!("g{n:05}.json")), record.to_string()).unwrap();
    }
    dir
}

/// Starts `gotchas ARGS` in `dir`, its output discarded.
fn start(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gotchas"))
        .current_dir(dir)
        .args(args)
        .env_remove("GOTCHAS_CACHE_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, signal: Signal) {
    let pid = Pid::from_raw(child.id().try_into().unwrap()).unwrap();
    kill_process(pid, signal).unwrap();
}

/// The entries of `folder` whose names start with `prefix` and end with `suffix`.
fn named(folder: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .map(|e| e.path())
        .collect()
}

/// Runs `gotchas ARGS` in `dir` until `in_flight` finds a temporary path, stops the run
/// there (SIGSTOP), checks that one is still in flight, sends `interrupt` and lets the run
/// go on; a run that ends first is started again. Returns how the run ended and the paths
/// that were in flight when it was interrupted.
fn interrupt_while_writing(
    dir: &Path,
    args: &[&str],
    interrupt: Signal,
    in_flight: impl Fn() -> Vec<PathBuf>,
) -> (ExitStatus, Vec<PathBuf>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let mut child = start(dir, args);
        while child.try_wait().unwrap().is_none() {
            if in_flight().is_empty() {
                continue;
            }
            signal(&child, Signal::STOP);
            let caught = in_flight();
            if !caught.is_empty() {
                signal(&child, interrupt);
                signal(&child, Signal::CONT);
                return (child.wait().unwrap(), caught);
            }
            signal(&child, Signal::CONT);
        }
    }
    panic!("no run of {args:?} was caught writing in two minutes");
}

/// How an interrupted run must end: by the signal, as it would have without a handler, so
/// that the shell sees 130 or 143 and a script running the tool stops too.
fn assert_ended_by(status: ExitStatus, interrupt: Signal) {
    assert_eq!(
        status.signal(),
        Some(interrupt.as_raw()),
        "ended by the signal: {status:?}"
    );
}

#[test]
fn an_interrupted_fix_leaves_no_temporary_file_among_the_records() {
    let dir = corpus(3000, "majr", 5);
    let records = dir.path().join("records/gotchas");
    let (status, caught) = interrupt_while_writing(
        dir.path(),
        &["check", "--fix", "--no-cache"],
        Signal::INT,
        || named(&records, ".gotchas-", ".tmp"),
    );
    assert_ended_by(status, Signal::INT);
    let left = named(&records, ".gotchas-", ".tmp");
    assert!(left.is_empty(), "in flight {caught:?}, left {left:?}");
}

#[test]
fn an_interrupted_report_leaves_no_temporary_file_beside_it() {
    let dir = corpus(3000, "majr", 5);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let report = out.join("report.sarif");
    let (status, caught) = interrupt_while_writing(
        dir.path(),
        &[
            "check",
            "--no-cache",
            "--format",
            "sarif",
            "--output",
            report.to_str().unwrap(),
        ],
        Signal::TERM,
        || named(&out, ".gotchas-", ".tmp"),
    );
    assert_ended_by(status, Signal::TERM);
    let left = named(&out, ".gotchas-", ".tmp");
    assert!(left.is_empty(), "in flight {caught:?}, left {left:?}");
}

#[test]
fn an_interrupted_cache_save_leaves_no_temporary_file_in_the_cache() {
    let dir = corpus(5000, "major", 200);
    let cache = dir.path().join("cache");
    let (status, caught) = interrupt_while_writing(
        dir.path(),
        &["check", "--cache-dir", "cache", "--quiet"],
        Signal::INT,
        || {
            let found = named(&cache, ".check-", ".tmp");
            // A cache already saved is not saved again: the next run starts without one.
            if found.is_empty() && cache.join("check-v1.bin").exists() {
                let _ = std::fs::remove_dir_all(&cache);
            }
            found
        },
    );
    assert_ended_by(status, Signal::INT);
    let left = named(&cache, ".check-", ".tmp");
    assert!(left.is_empty(), "in flight {caught:?}, left {left:?}");
}

/// A run killed outright (SIGKILL, a machine going down) cannot remove its temporary cache
/// file: the next save removes it once nobody has written to it for a minute.
#[test]
fn a_cache_file_left_by_a_killed_run_is_swept_by_the_next_save() {
    let dir = corpus(3, "major", 5);
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let stale = cache.join(".check-Abc123.tmp");
    let fresh = cache.join(".check-Xyz789.tmp");
    for path in [&stale, &fresh] {
        std::fs::write(path, vec![0; 4096]).unwrap();
    }
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let run = common::check_keeping_cache(dir.path(), &["--cache-dir", cache.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(cache.join("check-v1.bin").is_file());
    assert!(!stale.exists(), "a file nobody writes to is swept");
    assert!(
        fresh.exists(),
        "one written to in the last minute may be another run's"
    );
}

/// Neither can a `--fix` killed outright remove the temporary file it was writing beside a
/// record: the next run that writes into that folder removes it, once nobody has written
/// to it for a minute and no run holds it, and never a file of any other name.
#[test]
fn a_temporary_file_left_by_a_killed_fix_is_swept_by_the_next_write_there() {
    let dir = corpus(3, "majr", 5);
    let folder = dir.path().join("records/gotchas");
    let stale = folder.join(".gotchas-Abc123.tmp");
    let fresh = folder.join(".gotchas-Xyz789.tmp");
    let held = folder.join(".gotchas-Held42.tmp");
    let other = folder.join(".gotchas-notes.tmp");
    for path in [&stale, &fresh, &held, &other] {
        std::fs::write(path, "{\"id\": \"g0").unwrap();
    }
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    for path in [&stale, &held, &other] {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    let holder = std::fs::File::open(&held).unwrap();
    holder.lock().unwrap();
    let fixed = common::gotchas_in(dir.path(), &["check", "--fix"]);
    assert_eq!(fixed.code, 0, "{}{}", fixed.stdout, fixed.stderr);
    assert!(
        fixed.stdout.contains("fixed 3 problems in 3 files"),
        "{}",
        fixed.stdout
    );
    assert!(!stale.exists(), "a file nobody writes to is swept");
    assert!(
        fresh.exists(),
        "one written to in the last minute may be another run's"
    );
    assert!(held.exists(), "one another run holds is being written");
    assert!(
        other.exists(),
        "a name tempfile does not make is someone else's"
    );
    let left = named(&folder, ".gotchas-", ".tmp");
    assert_eq!(left.len(), 3, "the fixes left none of their own: {left:?}");
}

/// The folders a build of a site into `dir/site` leaves beside it while it runs.
fn build_folders(dir: &Path) -> Vec<PathBuf> {
    let mut found = named(dir, ".gotchas-site-", "");
    found.extend(named(dir, ".gotchas-old-", ""));
    found
}

#[test]
fn an_interrupted_build_removes_its_staged_site_and_keeps_the_old_one() {
    let dir = corpus(2000, "major", 5);
    let (status, caught) = interrupt_while_writing(dir.path(), &["build"], Signal::INT, || {
        build_folders(dir.path())
    });
    assert_ended_by(status, Signal::INT);
    let left = build_folders(dir.path());
    assert!(left.is_empty(), "in flight {caught:?}, left {left:?}");
    assert!(!dir.path().join("site").exists());

    let built = common::gotchas_in(dir.path(), &["build"]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let (status, caught) = interrupt_while_writing(dir.path(), &["build"], Signal::TERM, || {
        build_folders(dir.path())
    });
    assert_ended_by(status, Signal::TERM);
    let left = build_folders(dir.path());
    assert!(left.is_empty(), "in flight {caught:?}, left {left:?}");
    let site = dir.path().join("site");
    assert!(site.join(".gotchas-site").is_file(), "a whole site is left");
    assert!(site.join("gotchas/g01999/index.html").is_file());
}

/// Makes a folder as a build leaves it, holding a marker unless `marker` is `None`, its
/// times `age` ago.
fn left_folder(path: &Path, marker: Option<&str>, age: Duration) {
    std::fs::create_dir_all(path.join("gotchas/g00001")).unwrap();
    std::fs::write(path.join("gotchas/g00001/index.html"), "<p>old</p>").unwrap();
    if let Some(text) = marker {
        std::fs::write(path.join(".gotchas-site"), text).unwrap();
    }
    let then = std::time::SystemTime::now() - age;
    std::fs::File::open(path)
        .unwrap()
        .set_modified(then)
        .unwrap();
}

/// A build killed outright (SIGKILL, a machine going down) leaves its staged site; the next
/// build removes it, and whatever other such builds left, and says so, but never a running
/// build's, whose marker is locked, nor a folder just made that has no marker yet.
#[test]
fn a_build_sweeps_what_killed_builds_left_and_never_a_running_build() {
    let dir = corpus(2000, "major", 5);
    // Killed once its folder's marker has its name: one killed before (as the folder is
    // made) is swept a minute later, as a folder with no marker is, below.
    let (status, killed) = interrupt_while_writing(dir.path(), &["build"], Signal::KILL, || {
        let staged = named(dir.path(), ".gotchas-site-", "");
        staged
            .into_iter()
            .filter(|folder| folder.join(".gotchas-site").exists())
            .collect()
    });
    assert_eq!(status.signal(), Some(Signal::KILL.as_raw()));
    assert_eq!(killed.len(), 1, "{killed:?}");
    let hour = Duration::from_secs(3600);
    let old = dir.path().join(".gotchas-old-Ab12Cd");
    left_folder(&old, Some(""), hour);
    let unmarked = dir.path().join(".gotchas-site-NoMark");
    left_folder(&unmarked, None, hour);
    let fresh = dir.path().join(".gotchas-site-Fresh1");
    left_folder(&fresh, None, Duration::ZERO);
    let running = dir.path().join(".gotchas-site-Runs01");
    left_folder(&running, Some(""), hour);
    let lock = std::fs::File::open(running.join(".gotchas-site")).unwrap();
    lock.try_lock().unwrap();

    let built = common::gotchas_in(dir.path(), &["build"]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let mut swept = [
        killed[0].file_name().unwrap().to_str().unwrap(),
        ".gotchas-old-Ab12Cd",
        ".gotchas-site-NoMark",
    ];
    swept.sort();
    let note = format!(
        "note: removed 3 folders that builds killed before they finished left beside ./site: {}\n",
        swept.join(", ")
    );
    assert!(built.stdout.contains(&note), "{}", built.stdout);
    assert!(!killed[0].exists() && !old.exists() && !unmarked.exists());
    assert!(running.join("gotchas/g00001/index.html").is_file());
    assert!(fresh.join("gotchas/g00001/index.html").is_file());
    drop(lock);
}
