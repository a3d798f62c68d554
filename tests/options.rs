//! How loud `check` is and how it exits: `--quiet`, `--verbose`, `--max-warnings`,
//! `--exit-zero`; the process it runs in, without transparent huge pages; and how every
//! command exits when its output cannot be written.

mod common;

use std::path::Path;

use common::{check, copy_dir, fixture};

/// The `ci` fixture with only its warning-only gotcha and the engine it cites: 1 warning, no
/// error, and no record left that nothing cites.
fn warnings_only() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("ci"), dir.path());
    for file in [
        "gotchas/typo.yaml",
        "gotchas/markup.md",
        "engines/vllm.yaml",
    ] {
        std::fs::remove_file(dir.path().join("records").join(file)).unwrap();
    }
    dir
}

#[test]
fn max_warnings_fails_the_run_past_the_limit() {
    let dir = warnings_only();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 0, "warnings alone pass");
    assert!(
        run.stdout.ends_with("0 errors, 1 warning\n"),
        "{}",
        run.stdout
    );
    assert_eq!(check(dir.path(), &["--max-warnings", "1"]).code, 0);
    let over = check(dir.path(), &["--max-warnings", "0"]);
    assert_eq!(over.code, 1);
    assert_eq!(
        over.stderr,
        "error: 1 warning found, more than --max-warnings 0\n"
    );
    // A negative count is a bad value, not a flag to be passed after `--`.
    let negative = check(dir.path(), &["--max-warnings", "-1"]);
    assert_eq!(negative.code, 2);
    assert!(
        negative
            .stderr
            .contains("invalid value '-1' for '--max-warnings <N>'"),
        "{}",
        negative.stderr
    );
}

#[test]
fn exit_zero_reports_but_passes_unless_the_tool_cannot_run() {
    let run = check(&fixture("ci"), &["--exit-zero"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("error[unresolved-ref]"));
    assert_eq!(
        check(&fixture("setup/bad-config"), &["--exit-zero"]).code,
        2
    );
}

#[test]
fn quiet_prints_only_problems() {
    let problems = check(&fixture("formats/json"), &["--quiet"]);
    assert_eq!(problems.code, 1);
    assert!(problems.stdout.starts_with("error["));
    assert!(!problems.stdout.contains("checked "));

    let bundled = Path::new(env!("CARGO_MANIFEST_DIR"));
    let nothing = check(bundled, &["--quiet"]);
    assert_eq!(
        (nothing.code, nothing.stdout.as_str()),
        (0, ""),
        "a clean corpus"
    );

    let dir = warnings_only();
    let report = dir.path().join("report.json");
    let to_file = check(
        dir.path(),
        &[
            "--quiet",
            "--format",
            "json",
            "--output",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(to_file.stdout, "", "no summary line either");
    assert!(report.is_file());
}

#[test]
fn verbose_times_each_stage_on_stderr_and_changes_nothing_else() {
    let root = fixture("ci");
    let plain = check(&root, &[]);
    let verbose = check(&root, &["--verbose"]);
    assert_eq!(verbose.stdout, plain.stdout);
    assert_eq!(verbose.code, plain.code);
    for stage in [
        "config and schemas",
        "load",
        "check/records",
        "check/index",
        "check/resolve",
        "check/duplicate ids",
        "check/references and graph",
        "check/fragments",
        "check/levels",
        "check/locate",
        "baseline",
        "render",
    ] {
        assert!(
            verbose.stderr.contains(&format!("timing: {stage}: ")),
            "{stage}: {}",
            verbose.stderr
        );
    }
    assert_eq!(
        check(&root, &["--quiet", "--verbose"]).code,
        2,
        "they conflict"
    );
}

/// Whether transparent huge pages were on for `gotchas check --staged` (see src/main.rs),
/// with `MIMALLOC_ALLOW_THP` set to `allow` if given: the setting is the process's, and the
/// `git` it runs inherits it, so a `git` first on the PATH reports its own and fails.
#[cfg(target_os = "linux")]
fn huge_pages_in_check(allow: Option<&str>) -> String {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("thp");
    let git = dir.path().join("git");
    std::fs::write(
        &git,
        format!(
            "#!/bin/sh\ngrep THP_enabled /proc/self/status > '{}'\nexit 1\n",
            report.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(std::iter::once(dir.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut command = assert_cmd::Command::cargo_bin("gotchas").unwrap();
    command
        .current_dir(fixture("ci"))
        .env("GOTCHAS_CACHE_DIR", cache.path())
        .env("PATH", path)
        .env_remove("MIMALLOC_ALLOW_THP")
        .args(["check", "--staged"]);
    if let Some(allow) = allow {
        command.env("MIMALLOC_ALLOW_THP", allow);
    }
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2), "git failed, so the run did");
    std::fs::read_to_string(report).unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn a_check_runs_without_huge_pages_unless_told() {
    let told = huge_pages_in_check(Some("1"));
    if told.is_empty() {
        eprintln!("skipped: this kernel does not report THP_enabled in /proc/self/status");
        return;
    }
    assert_eq!(told, "THP_enabled:\t1\n");
    assert_eq!(huge_pages_in_check(None), "THP_enabled:\t0\n");
}

/// Reports, exports and listings go out as they are written, so one that fails part of the
/// way (a full disk) must still end the run with 2 and say why.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_out_exits_2_and_says_why() {
    let ci = fixture("ci");
    let graph = fixture("graph");
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut runs: Vec<(&Path, Vec<&str>)> = Vec::new();
    for format in ["human", "json", "sarif", "github", "junit"] {
        runs.push((&ci, vec!["check", "--no-cache", "--format", format]));
    }
    for format in ["dot", "json", "mermaid", "svg"] {
        runs.push((&graph, vec!["graph", "--format", format]));
    }
    runs.push((
        bundled,
        vec!["query", "list", "engines", "--format", "json"],
    ));
    runs.push((bundled, vec!["convert", "--to", "json", "--all"]));
    for (root, args) in runs {
        let mut all = vec!["--root", root.to_str().unwrap()];
        all.extend(&args);
        let run = common::gotchas_onto_a_full_disk(&all);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("error: cannot write the output: No space left on device"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// A closed or full stderr loses what the run says there, never the run: no panic, and the
/// exit code is the run's own.
#[cfg(target_os = "linux")]
#[test]
fn a_full_or_closed_stderr_does_not_crash_the_run() {
    let ci = fixture("ci");
    let root = ci.to_str().unwrap();
    let runs: [(&[&str], i32); 3] = [
        (&["check", "--no-cache", "--verbose"], 1),
        (&["query", "get", "nope"], 2),
        (&["convert", "--to", "yaml", "nope"], 2),
    ];
    for (args, code) in runs {
        for closed in [false, true] {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gotchas"));
            command
                .arg("--root")
                .arg(root)
                .args(args)
                .stdout(std::process::Stdio::null());
            if closed {
                // A pipe whose reader is gone: every write fails with a broken pipe.
                let (reader, writer) = std::io::pipe().unwrap();
                drop(reader);
                command.stderr(writer);
            } else {
                command.stderr(std::fs::File::create("/dev/full").unwrap());
            }
            let status = command.status().unwrap();
            assert_eq!(status.code(), Some(code), "{args:?}, closed: {closed}");
        }
    }
}

/// `--output` replaces a file atomically, but what stands at the path is kept: a symbolic
/// link stays a link to the file it leads to, now holding the report, and a named pipe (as
/// `/dev/null` or `/dev/stdout` are devices) is written into, not replaced by a file.
#[cfg(unix)]
#[test]
fn output_through_a_link_or_into_a_pipe_keeps_them() {
    use std::os::unix::fs::FileTypeExt;
    let ci = fixture("ci");
    let expected = check(&ci, &["--no-cache", "--format", "json"]).stdout;
    let dir = tempfile::tempdir().unwrap();

    let link = dir.path().join("latest.json");
    std::os::unix::fs::symlink("report.json", &link).unwrap();
    let report_to = |path: &Path| {
        let args = [
            "--no-cache",
            "--format",
            "json",
            "-o",
            path.to_str().unwrap(),
        ];
        let run = check(&ci, &args);
        assert_eq!(run.code, 1, "{}", run.stderr);
    };
    report_to(&link);
    assert!(link.is_symlink());
    let report = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
    assert_eq!(report, expected);

    let pipe = dir.path().join("pipe");
    if !common::named_pipe(&pipe) {
        return;
    }
    // Read on a thread of its own, which a write that misses the pipe leaves waiting.
    let (sender, read) = std::sync::mpsc::channel();
    {
        let pipe = pipe.clone();
        std::thread::spawn(move || sender.send(std::fs::read_to_string(pipe).unwrap()));
    }
    report_to(&pipe);
    assert_eq!(
        read.recv_timeout(std::time::Duration::from_secs(60))
            .unwrap(),
        expected
    );
    let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
    assert!(kind.is_fifo(), "still a pipe: {kind:?}");
}
