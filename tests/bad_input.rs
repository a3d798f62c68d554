//! Hostile and broken input: every file gets a diagnostic with a position where one exists,
//! nothing hangs or crashes, and the run goes on to report every other file.

mod common;

use common::{check, json_diagnostics, json_report, temp_corpus};

const GOOD: &[u8] = b"id: good\ntype: engine\nname: Good\nstatus: draft\nconfidence: 0.5\nupdated: 2026-10-03\nsources: []\n";

fn alias_bomb() -> Vec<u8> {
    let mut text = String::from("id: bomb\na: &a [x, x, x, x, x, x, x, x, x]\n");
    for i in 0..9 {
        let prev = if i == 0 {
            "a".to_string()
        } else {
            format!("l{}", i - 1)
        };
        let refs = vec![format!("*{prev}"); 9].join(", ");
        text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    text.into_bytes()
}

fn nested(open: &str, close: &str, depth: usize) -> Vec<u8> {
    format!("{}{}", open.repeat(depth), close.repeat(depth)).into_bytes()
}

#[test]
fn every_bad_file_is_reported_and_the_run_goes_on() {
    let bomb = alias_bomb();
    let deep_json = nested("[", "]", 10_000);
    let deep_yaml = nested("[", "]", 10_000);
    let block_yaml: Vec<u8> = (0..1_000)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect::<String>()
        .into_bytes();
    let corpus = temp_corpus(&[
        ("engines/good.yaml", GOOD),
        ("engines/bomb.yaml", &bomb),
        ("engines/deep-json.json", &deep_json),
        ("engines/deep-yaml.yaml", &deep_yaml),
        ("engines/deep-block.yaml", &block_yaml),
        ("engines/broken.json", b"{\"id\": \"broken\""),
        ("engines/empty.yaml", b""),
        ("gotchas/no-front.md", b"just prose\n"),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let diagnostics = json_diagnostics(&run);
    let by_file = |file: &str| -> Vec<String> {
        diagnostics
            .iter()
            .filter(|(_, path, _, _)| path == &format!("records/{file}"))
            .map(|(code, _, _, _)| code.clone())
            .collect()
    };
    assert_eq!(by_file("engines/good.yaml"), Vec::<String>::new());
    assert_eq!(by_file("engines/bomb.yaml"), vec!["limit-exceeded"]);
    assert_eq!(by_file("engines/deep-json.json"), vec!["limit-exceeded"]);
    assert_eq!(by_file("engines/deep-yaml.yaml"), vec!["limit-exceeded"]);
    assert_eq!(by_file("engines/deep-block.yaml"), vec!["limit-exceeded"]);
    assert_eq!(by_file("engines/broken.json"), vec!["syntax-error"]);
    assert_eq!(by_file("engines/empty.yaml"), vec!["empty-file"]);
    assert_eq!(by_file("gotchas/no-front.md"), vec!["front-matter"]);
    for (code, path, line, _) in &diagnostics {
        if code != "empty-file" {
            assert!(line.is_some(), "{code} in {path} has no position");
        }
    }
}

/// A record's references name it by its place among the records, which files that hold no
/// record (here, the broken one before it) shift: the reference must still be reported in
/// its own file, not in the file of the record after it.
#[test]
fn references_after_a_broken_file_are_reported_in_their_own_file() {
    let citing = String::from_utf8_lossy(GOOD)
        .replace("id: good", "id: b-citing")
        .replace("sources: []", "sources: [no-such-source]");
    let plain = String::from_utf8_lossy(GOOD).replace("id: good", "id: c-plain");
    let corpus = temp_corpus(&[
        ("engines/a-broken.json", b"{\"id\": "),
        ("engines/b-citing.yaml", citing.as_bytes()),
        ("engines/c-plain.yaml", plain.as_bytes()),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let unresolved: Vec<(String, Option<u64>)> = json_diagnostics(&run)
        .into_iter()
        .filter(|(code, _, _, _)| code == "unresolved-ref")
        .map(|(_, path, line, _)| (path, line))
        .collect();
    assert_eq!(
        unresolved,
        vec![("records/engines/b-citing.yaml".to_string(), Some(7))],
        "{}",
        run.stdout
    );
}

#[test]
fn a_file_over_the_size_limit_is_reported_not_read() {
    let corpus = temp_corpus(&[
        ("engines/good.yaml", GOOD),
        ("engines/huge.yaml", &[b'#'; 4096]),
    ]);
    let config = corpus.path().join("gotchas.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("max_file_size = 1024\n{text}")).unwrap();
    let run = check(corpus.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(
            "error[limit-exceeded]: the file is 4096 bytes, over the limit of 1024 bytes"
        )
    );
    assert!(run.stdout.contains("records/engines/huge.yaml"));
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_reported_and_the_run_goes_on() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    std::os::unix::fs::symlink(
        corpus.path().join("nowhere.yaml"),
        corpus.path().join("records/engines/ghost.yaml"),
    )
    .unwrap();
    let run = check(corpus.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("error[io-error]: cannot read the file"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("records/engines/ghost.yaml"));
    assert!(run.stdout.contains("checked 1 record in 1 file: 1 error"));
}

#[cfg(unix)]
#[test]
fn hostile_file_systems_are_reported_and_the_run_goes_on() {
    use std::os::unix::ffi::OsStrExt;
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let engines = corpus.path().join("records/engines");
    // A symlink loop, a symlink out of the corpus, and a file name that is not UTF-8.
    std::os::unix::fs::symlink(&engines, engines.join("loop")).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "id: secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), engines.join("escape.yaml")).unwrap();
    let bad_name = std::ffi::OsStr::from_bytes(b"caf\xe9.yaml");
    std::fs::write(engines.join(bad_name), GOOD).unwrap();
    let run = check(corpus.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("this symlink points outside the corpus, so it is not followed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("the file name is not valid UTF-8"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("secret"),
        "the file outside the corpus is never read"
    );
    assert!(run.stdout.contains("checked 1 record"), "{}", run.stdout);
}

/// A named pipe, or a link to a device, under the records folder is a stray file, said so
/// without reading it: reading a pipe waits for a writer that never comes.
#[cfg(unix)]
#[test]
fn a_pipe_or_device_among_the_records_is_reported_never_read() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let engines = corpus.path().join("records/engines");
    if !common::named_pipe(&engines.join("pipe.yaml")) {
        return;
    }
    std::os::unix::fs::symlink("/dev/zero", engines.join("zero.yaml")).unwrap();
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .args(["check", "--no-cache", "--color", "never", "--root"])
        .arg(corpus.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout
            .matches("error[stray-file]: this is not a regular file")
            .count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains("checked 1 record"), "{stdout}");
}

/// `gotchas check ARGS --root ROOT` with no colour, stopped if it takes a minute: a run
/// that opens a named pipe to read it waits for a writer that never comes.
fn check_within_a_minute(root: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .arg("check")
        .args(args)
        .args(["--color", "never", "--root"])
        .arg(root)
        .env_remove("GOTCHAS_CACHE_DIR")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let code = output.status.code().unwrap_or(-1);
    (code, text(&output.stdout), text(&output.stderr))
}

/// A named pipe where the check cache, the baseline or an ignore file is looked for is
/// never opened: a cache that cannot be read is no cache, a baseline that cannot be read
/// stops the run (exit 2), and a folder whose `.gitignore` or `.ignore` is no file is
/// reported and not read, as what it ignores cannot be known.
#[cfg(unix)]
#[test]
fn a_pipe_for_the_cache_the_baseline_or_an_ignore_file_is_never_opened() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let root = corpus.path();
    std::fs::create_dir(root.join(".gotchas-cache")).unwrap();
    if !common::named_pipe(&root.join(".gotchas-cache/check-v1.bin")) {
        return;
    }
    let (code, stdout, stderr) = check_within_a_minute(root, &["--verbose"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("cache: recalled 0 of 1 records"),
        "{stderr}"
    );
    assert!(
        root.join(".gotchas-cache/check-v1.bin").is_file(),
        "replaced"
    );

    common::named_pipe(&root.join("gotchas-baseline.json"));
    let (code, _, stderr) = check_within_a_minute(root, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("cannot read the baseline: it is not a regular file"),
        "{stderr}"
    );
    std::fs::remove_file(root.join("gotchas-baseline.json")).unwrap();

    let pipe = "this ignore file is not a regular file (a named pipe, socket or device), so \
                its folder is not read";
    for folder in ["records/engines", "records"] {
        let ignore = root.join(folder).join(".gitignore");
        common::named_pipe(&ignore);
        let (code, stdout, stderr) = check_within_a_minute(root, &["--format", "json"]);
        assert_eq!(code, 1, "{stdout}{stderr}");
        let file = format!("{folder}/.gitignore");
        let report = json_report(&common::Run {
            stdout,
            stderr,
            code,
        });
        let found = report
            .iter()
            .find(|d| d["path"] == file.as_str())
            .unwrap_or_else(|| panic!("{file} in {report:?}"));
        assert_eq!(found["code"], "io-error");
        assert_eq!(found["message"], pipe);
        std::fs::remove_file(ignore).unwrap();
    }
}

/// Every malformed input collected so far (`tests/fixtures/malformed/`), through every
/// command that reads a corpus: exit code 1 or 0, never a panic (101) or a signal.
#[test]
fn no_command_crashes_on_the_malformed_collection() {
    let root = common::fixture("malformed");
    let root = root.to_str().unwrap();
    for format in ["human", "json"] {
        let run = common::gotchas(&["check", "--root", root, "--format", format]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    let report = common::gotchas(&["check", "--root", root, "--format", "json"]);
    let files = std::fs::read_dir(common::fixture("malformed/records/engines"))
        .unwrap()
        .chain(std::fs::read_dir(common::fixture("malformed/records/gotchas")).unwrap())
        .count();
    let reported: std::collections::BTreeSet<String> =
        json_diagnostics(&report).into_iter().map(|d| d.1).collect();
    assert_eq!(
        reported.len(),
        files,
        "every malformed file gets a diagnostic"
    );
    for command in [
        &["graph"][..],
        &["stats"],
        &["index"],
        &["query", "search", "a"],
        &["refs", "link-soup"],
    ] {
        let mut args = vec!["--root", root];
        args.extend_from_slice(command);
        let run = common::gotchas(&args);
        assert!(
            run.code == 0 || run.code == 1 || run.code == 2,
            "{command:?}: {}",
            run.code
        );
        assert!(
            !run.stderr.contains("panicked"),
            "{command:?}: {}",
            run.stderr
        );
    }
}

/// Each malformed input's diagnostics, one snapshot per file (`malformed-<folder>-<file>`),
/// so that a change in how any of them is reported shows in review.
#[test]
fn each_malformed_input_has_a_snapshot_of_its_diagnostics() {
    let root = common::fixture("malformed");
    let run = check(&root, &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut by_file: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for diagnostic in report["diagnostics"].as_array().unwrap() {
        let field = |name: &str| diagnostic[name].to_string().trim_matches('"').to_string();
        by_file.entry(field("path")).or_default().push(format!(
            "{}:{} {}[{}] {}",
            field("line"),
            field("column"),
            field("severity"),
            field("code"),
            field("message")
        ));
    }
    let mut cases = 0;
    for folder in ["engines", "gotchas"] {
        let mut names: Vec<String> = std::fs::read_dir(root.join("records").join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        for name in names {
            let path = format!("records/{folder}/{name}");
            let lines = by_file
                .get(&path)
                .unwrap_or_else(|| panic!("{path}: no diagnostic"));
            insta::assert_snapshot!(
                format!("malformed-{folder}-{}", name.replace('.', "-")),
                lines.join("\n")
            );
            cases += 1;
        }
    }
    assert!(cases >= 40, "{cases} malformed inputs");
}

#[test]
fn the_human_report_caps_diagnostics_per_file_and_counts_the_rest() {
    let root = common::fixture("malformed");
    let capped = check(&root, &["--max-per-file", "2"]);
    assert!(
        capped
            .stdout
            .contains("note: records/engines/empty-object.json: 5 more diagnostics not shown"),
        "{}",
        capped.stdout
    );
    let all = check(&root, &["--max-per-file", "0"]);
    assert!(!all.stdout.contains("not shown"));
    assert!(all.stdout.matches("error[").count() > capped.stdout.matches("error[").count());
}

/// A minified record: one line of about a megabyte, with an invalid value in the middle, a
/// duplicate key far from the first one, a wide-character value too long to show whole, and
/// a reference to an id as long as a page, which the message quotes.
#[test]
fn a_megabyte_line_is_shown_as_a_window_around_each_problem() {
    let padding = "x".repeat(500_000);
    let wide = "漢字".repeat(100_000);
    let long_id = "z".repeat(100_000);
    let record = format!(
        r#"{{"id":"big","type":"engine","name":"Big","status":"verified","confidence":0.9,"updated":"2026-01-01","sources":["{long_id}"],"notes":"{padding}","tracing_support":"bsic","notes":"again","first_release_year":"{wide}"}}"#
    );
    let column_of = |needle: &str| record[..record.find(needle).unwrap()].chars().count() + 1;
    let corpus = temp_corpus(&[("engines/big.json", record.as_bytes())]);
    let run = check(corpus.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);

    let longest = run.stdout.lines().map(|l| l.chars().count()).max();
    assert!(longest <= Some(250), "a line of {longest:?} characters");
    for (needle, code) in [
        ("\"bsic\"", "invalid-value"),
        ("\"notes\":\"again\"", "duplicate-key"),
        ("\"漢字", "schema-violation"),
        ("\"zzz", "unresolved-ref"),
    ] {
        let location = format!("--> records/engines/big.json:1:{}", column_of(needle));
        let at = run.stdout.find(&format!("error[{code}]")).unwrap();
        assert!(
            run.stdout[at..]
                .lines()
                .nth(1)
                .unwrap()
                .ends_with(&location),
            "{code} at {location}:\n{}",
            run.stdout
        );
    }
    // The caret is under the value in the window shown.
    let lines: Vec<&str> = run.stdout.lines().collect();
    let shown = lines
        .iter()
        .position(|l| l.starts_with("1 | ") && l.contains("\"bsic\""))
        .unwrap();
    assert_eq!(lines[shown + 1].find('^'), lines[shown].find("\"bsic\""));
    // The first `notes`, 500,000 characters away, is named in a note instead.
    assert!(
        run.stdout.contains(&format!(
            "= note: records/engines/big.json:1:{}: first defined here",
            column_of("\"notes\"")
        )),
        "{}",
        run.stdout
    );
}

#[cfg(unix)]
#[test]
fn unreadable_files_and_folders_are_reported_and_the_run_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let Some(prefix) = common::without_privileges() else {
        eprintln!("skipped: running as root, and `setpriv` cannot drop to nobody here");
        return;
    };
    let mode = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    // Everything the unprivileged user needs is copied into one world-readable folder: the
    // binary and the schemas may sit under root's home.
    let dir = tempfile::tempdir().unwrap();
    mode(dir.path(), 0o755);
    let binary = dir.path().join("gotchas");
    std::fs::copy(assert_cmd::cargo::cargo_bin("gotchas"), &binary).unwrap();
    mode(&binary, 0o755);
    let corpus = dir.path().join("corpus");
    common::copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema"),
        &corpus.join("schema"),
    );
    let records = corpus.join("records");
    for (path, text) in [
        ("engines/good.yaml", GOOD.to_vec()),
        ("engines/locked.yaml", GOOD.to_vec()),
        (
            "engines/typo.yaml",
            String::from_utf8_lossy(GOOD)
                .replace("draft", "draf")
                .into_bytes(),
        ),
        ("sources/hidden.yaml", b"id: hidden\n".to_vec()),
    ] {
        std::fs::create_dir_all(records.join(path).parent().unwrap()).unwrap();
        std::fs::write(records.join(path), text).unwrap();
    }
    std::fs::create_dir_all(corpus.join("docs")).unwrap();
    std::fs::write(corpus.join("docs/guide.md"), "# Guide\n").unwrap();
    std::fs::write(
        corpus.join("gotchas.toml"),
        "docs = [\"docs/*.md\"]\n[rules]\norphan = \"allow\"\n",
    )
    .unwrap();
    let mut tree = vec![corpus.clone()];
    while let Some(folder) = tree.pop() {
        mode(&folder, 0o755);
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                tree.push(path);
            } else {
                mode(&path, 0o644);
            }
        }
    }
    mode(&records.join("engines/locked.yaml"), 0o000);
    mode(&records.join("sources"), 0o000);
    mode(&corpus.join("docs"), 0o000);

    let mut command = match prefix.split_first() {
        Some((program, args)) => {
            let mut command = std::process::Command::new(program);
            command.args(args).arg(&binary);
            command
        }
        None => std::process::Command::new(&binary),
    };
    let output = command
        .args(["check", "--format", "json", "--root"])
        .arg(&corpus)
        .output()
        .unwrap();
    // Give the folders back, so that the temporary folder can be removed.
    mode(&records.join("sources"), 0o755);
    mode(&corpus.join("docs"), 0o755);

    let run = common::Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    };
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reported: Vec<(&str, &str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["path"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    for (path, message) in [
        (
            "records/engines/locked.yaml",
            "cannot read the file: Permission denied",
        ),
        (
            "records/sources",
            "cannot read the folder: Permission denied",
        ),
        ("docs", "cannot read the folder: Permission denied"),
    ] {
        assert!(
            reported
                .iter()
                .any(|(code, p, m)| *code == "io-error" && *p == path && m.starts_with(message)),
            "{path}: {reported:#?}"
        );
    }
    assert!(
        reported
            .iter()
            .any(|(code, path, _)| *code == "invalid-value" && *path == "records/engines/typo.yaml"),
        "the readable records are still checked: {reported:#?}"
    );
}

/// A key repeated in one JSON object is reported where it repeats however it is spelled
/// (an escape for a letter), and a repeated value's own repeated key is reported too, each
/// at its line and column.
#[test]
fn repeated_json_keys_are_placed_however_spelled_and_however_deep() {
    let record = concat!(
        "{\n",
        "  \"id\": \"twice\",\n",
        "  \"type\": \"engine\",\n",
        "  \"name\": \"Twice\",\n",
        "  \"status\": \"verified\",\n",
        "  \"st\\u0061tus\": \"draft\",\n",
        "  \"extra\": {\"a\": 1},\n",
        "  \"extra\": {\"b\": 2, \"b\": 3}\n",
        "}\n",
    );
    let corpus = temp_corpus(&[("engines/twice.json", record.as_bytes())]);
    let run = check(corpus.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let repeated: Vec<(Option<u64>, Option<u64>)> = json_diagnostics(&run)
        .into_iter()
        .filter(|(code, ..)| code == "duplicate-key")
        .map(|(_, _, line, column)| (line, column))
        .collect();
    assert_eq!(
        repeated,
        [(Some(6), Some(3)), (Some(8), Some(3)), (Some(8), Some(21))],
        "{}",
        run.stdout
    );
}

/// A file in another encoding is named by its byte-order mark, and the report's range covers
/// what it shows of the offending bytes: the mark, or the bad byte's replacement character.
/// YAML 1.2 allows no control character but tab and the line breaks in a stream as it is,
/// nor DEL, C1 controls but U+0085, U+FFFE or U+FFFF: other YAML readers refuse a file
/// holding one, so a check does too, at the character, in a record or in front matter.
#[test]
fn an_unprintable_character_in_yaml_is_a_syntax_error_at_it() {
    let good = String::from_utf8_lossy(GOOD);
    let with = |id: &str, name: &str| {
        good.replace("id: good", &format!("id: {id}"))
            .replace("name: Good", &format!("name: {name}"))
    };
    let front = format!("---\n{}---\n", with("front", "\"c\u{1b}[31m\""));
    let corpus = temp_corpus(&[
        ("engines/soh.yaml", with("soh", "a\u{1}b").as_bytes()),
        ("engines/del.yaml", with("del", "'a\u{7f}'").as_bytes()),
        ("engines/csi.yaml", with("csi", "\"é\u{9b}\"").as_bytes()),
        (
            "engines/nonchar.yaml",
            with("nonchar", "a\u{fffe}").as_bytes(),
        ),
        (
            "engines/comment.yaml",
            format!("{good}# a\u{7}\n").as_bytes(),
        ),
        ("gotchas/front.md", front.as_bytes()),
        // Tab, U+0085 and the line ends are printable.
        (
            "engines/fine.yaml",
            with("fine", "\"a\tb\u{85}\"\r").as_bytes(),
        ),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let found: Vec<(String, String, Option<u64>, Option<u64>)> = json_report(&run)
        .iter()
        .filter(|d| d["code"] == "syntax-error")
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default().to_string(),
                d["message"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64(),
                d["column"].as_u64(),
            )
        })
        .collect();
    let at = |file: &str, character: &str, line: u64, column: u64| {
        (
            format!("records/{file}"),
            format!("invalid YAML: found unprintable character U+{character}"),
            Some(line),
            Some(column),
        )
    };
    assert_eq!(
        found,
        [
            at("engines/comment.yaml", "0007", 8, 4),
            at("engines/csi.yaml", "009B", 3, 9),
            at("engines/del.yaml", "007F", 3, 9),
            at("engines/nonchar.yaml", "FFFE", 3, 8),
            at("engines/soh.yaml", "0001", 3, 8),
            at("gotchas/front.md", "001B", 4, 9),
        ]
    );
}

#[test]
fn a_file_in_another_encoding_is_named_and_its_bad_bytes_are_spanned() {
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("id: wide\n".bytes().flat_map(|byte| [byte, 0]))
        .collect();
    // Without a byte-order mark, UTF-16 of ASCII text is valid UTF-8 with a NUL in every
    // other byte, which the parsers refused as a character they do not print.
    let unmarked_le: Vec<u8> = "id: wide\n".bytes().flat_map(|byte| [byte, 0]).collect();
    let unmarked_be: Vec<u8> = "{\"id\": \"wide\"}"
        .bytes()
        .flat_map(|byte| [0, byte])
        .collect();
    let corpus = temp_corpus(&[
        ("engines/good.yaml", GOOD),
        ("engines/wide.yaml", &utf16),
        ("engines/latin1.yaml", b"id: latin1\nname: Caf\xE9\n"),
        ("engines/unmarked-le.yaml", &unmarked_le),
        ("engines/unmarked-be.json", &unmarked_be),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = json_report(&run);
    let found: Vec<(&str, &str, u64, u64, u64)> = report
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default(),
                d["line"].as_u64().unwrap_or_default(),
                d["column"].as_u64().unwrap_or_default(),
                d["end_column"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "records/engines/latin1.yaml",
                "the file is not valid UTF-8",
                2,
                10,
                11
            ),
            (
                "records/engines/unmarked-be.json",
                "the file looks like UTF-16BE without a byte-order mark, not UTF-8",
                1,
                1,
                9
            ),
            (
                "records/engines/unmarked-le.yaml",
                "the file looks like UTF-16LE without a byte-order mark, not UTF-8",
                1,
                1,
                9
            ),
            (
                "records/engines/wide.yaml",
                "the file is UTF-16LE, not UTF-8",
                1,
                1,
                3
            ),
        ]
    );
}

/// The path and help of each diagnostic of `report` with code `code`, in order.
fn helps<'r>(report: &'r [serde_json::Value], code: &str) -> Vec<(&'r str, Option<&'r str>)> {
    report
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| (d["path"].as_str().unwrap_or_default(), d["help"].as_str()))
        .collect()
}

/// Where JSON's parser stops at something JSON has no room for but people write in it, the
/// help says what: comments, JavaScript's numbers, single quotes.
#[test]
fn json_errors_at_comments_odd_numbers_and_single_quotes_say_why() {
    let corpus = temp_corpus(&[
        ("engines/good.yaml", GOOD),
        (
            "engines/comment.json",
            b"{\"id\": \"comment\", /* draft */ \"name\": \"C\"}",
        ),
        (
            "engines/nan.json",
            b"{\"id\": \"nan\", \"confidence\": NaN}",
        ),
        (
            "engines/minus.json",
            b"{\"id\": \"minus\", \"confidence\": -Infinity}",
        ),
        ("engines/quote.json", b"{'id': 'quote'}"),
        ("engines/comma.json", b"{\"id\": \"comma\",}"),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let report = json_report(&run);
    let found = helps(&report, "syntax-error");
    let no_comments =
        "JSON has no comments: remove it, or write the record in YAML, where `#` starts one";
    let no_nan = "JSON has no NaN or Infinity: write a number, or `null`";
    assert_eq!(
        found,
        [
            ("records/engines/comma.json", None),
            ("records/engines/comment.json", Some(no_comments)),
            ("records/engines/minus.json", Some(no_nan)),
            ("records/engines/nan.json", Some(no_nan)),
            (
                "records/engines/quote.json",
                Some("JSON strings and keys take double quotes")
            ),
        ]
    );
}

/// A YAML 1.1 merge key is a plain key in the YAML 1.2 that records are read as: the
/// unknown field it makes says so, rather than suggesting another field's name.
#[test]
fn a_yaml_merge_key_is_reported_as_one() {
    let corpus = temp_corpus(&[(
        "engines/merged.yaml",
        b"id: merged\ntype: engine\nname: Merged\nconfidence: 0.5\nupdated: 2026-10-03\n\
          sources: []\nstatus: draft\n<<: {status: verified}\n",
    )]);
    let run = check(corpus.path(), &["--format", "json"]);
    let report = json_report(&run);
    let unknown: Vec<(&str, Option<&str>, u64)> = report
        .iter()
        .filter(|d| d["code"] == "unknown-field")
        .map(|d| {
            (
                d["message"].as_str().unwrap_or_default(),
                d["help"].as_str(),
                d["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        unknown,
        [(
            "unknown field `<<`",
            Some(
                "`<<` merges a mapping into another in YAML 1.1 only; YAML 1.2, which gotchas \
                 reads, has no merge keys: write the fields out in the record"
            ),
            8
        )]
    );
}

/// A YAML 1.1 boolean (`yes`, `off`) is a string in YAML 1.2: a boolean field holding one
/// says how to write it; the same string in JSON, where nothing made it a boolean, does not.
#[test]
fn a_yaml_1_1_boolean_in_a_boolean_field_says_how_to_write_it() {
    let yaml = "id: off\ntype: engine\nname: Off\nstatus: draft\nconfidence: 0.5\n\
                updated: 2026-10-03\nsources: []\nverified_negatively: Off\n";
    let json = "{\"id\": \"quoted\", \"type\": \"engine\", \"name\": \"Q\", \"status\": \"draft\", \
                \"confidence\": 0.5, \"updated\": \"2026-10-03\", \"sources\": [], \
                \"verified_negatively\": \"yes\"}";
    let corpus = temp_corpus(&[
        ("engines/off.yaml", yaml.as_bytes()),
        ("engines/quoted.json", json.as_bytes()),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let report = json_report(&run);
    let violations = helps(&report, "schema-violation");
    assert_eq!(
        violations,
        [
            (
                "records/engines/off.yaml",
                Some(
                    "`Off` is false in YAML 1.1 only; YAML 1.2, which gotchas reads, takes it as a \
                 string: write `false`"
                )
            ),
            ("records/engines/quoted.json", None),
        ],
        "{}",
        run.stdout
    );
}

/// A Markdown record with TOML front matter, as Zola and Hugo write it, is told what a
/// record's front matter is; one with none at all, only where it goes.
#[test]
fn toml_front_matter_is_named_as_such() {
    let corpus = temp_corpus(&[
        ("gotchas/toml.md", b"+++\nid = \"toml\"\n+++\n\nBody.\n"),
        ("gotchas/none.md", b"# A heading\n\nBody.\n"),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let report = json_report(&run);
    assert_eq!(
        helps(&report, "front-matter"),
        [
            (
                "records/gotchas/none.md",
                Some("put the fields between two `---` lines at the top of the file")
            ),
            (
                "records/gotchas/toml.md",
                Some(
                    "`+++` opens TOML front matter, as Zola and Hugo write it; a record's \
                     fields are YAML, between two `---` lines at the top of the file"
                )
            ),
        ]
    );
}

/// A YAML error where a tab indents a line, in a YAML record or in Markdown front matter,
/// says YAML indents with spaces; another YAML error does not.
#[test]
fn a_tab_in_yaml_indentation_is_named() {
    let corpus = temp_corpus(&[
        ("engines/tab.yaml", b"id: tab\nname:\n\t- x\n"),
        (
            "gotchas/tab.md",
            b"---\nid: tab\nsources:\n\t- x\n---\n\nBody.\n",
        ),
        ("engines/quote.yaml", b"id: \"quote\nname: Q\n"),
    ]);
    let run = check(corpus.path(), &["--format", "json"]);
    let report = json_report(&run);
    let tabs = Some("YAML indents with spaces, never tabs");
    assert_eq!(
        helps(&report, "syntax-error"),
        [
            ("records/engines/quote.yaml", None),
            ("records/engines/tab.yaml", tabs),
            ("records/gotchas/tab.md", tabs),
        ]
    );
}

/// A collection folder that is a symlink is not followed, and said: its records would
/// otherwise go unchecked in silence.
#[cfg(unix)]
#[test]
fn a_symlinked_collection_folder_is_reported() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let shared = corpus.path().join("shared-sources");
    std::fs::create_dir(&shared).unwrap();
    std::fs::write(shared.join("s.yaml"), "id: s\n").unwrap();
    std::os::unix::fs::symlink(&shared, corpus.path().join("records/sources")).unwrap();
    let run = check(corpus.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "error[stray-file]: this symlink points at a folder, which is not followed: its records are not checked\n--> records/sources\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(" = note: it points at shared-sources\n")
    );
}

/// What a user's global git excludes ignore is checked all the same: they differ from
/// machine to machine, and a check must find the same records on each.
#[test]
fn global_git_excludes_do_not_hide_records() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("git")).unwrap();
    std::fs::write(config.path().join("git/ignore"), "*.yaml\n").unwrap();
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .args(["check", "--no-cache", "--color", "never", "--root"])
        .arg(corpus.path())
        .env("XDG_CONFIG_HOME", config.path())
        .env("HOME", config.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("checked 1 record in 1 file"), "{stdout}");
}

/// A prose page that is a link or a pipe is said, never passed over in silence: a link to a
/// file of the corpus is read like the file, one out of the corpus is not followed.
#[cfg(unix)]
#[test]
fn a_page_that_is_a_link_or_a_pipe_is_reported() {
    let corpus = temp_corpus(&[("engines/good.yaml", GOOD)]);
    let root = corpus.path();
    let config = std::fs::read_to_string(root.join("gotchas.toml")).unwrap();
    std::fs::write(
        root.join("gotchas.toml"),
        format!("docs = [\"docs/*.md\"]\n{config}"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/kept.md"), "# Kept\n\n[[nowhere-at-all]]\n").unwrap();
    std::os::unix::fs::symlink(root.join("notes/kept.md"), root.join("docs/inside.md")).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "# Secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("docs/outside.md")).unwrap();
    let run = check(root, &[]);
    assert!(
        run.stdout
            .contains("this prose page is a link out of the corpus, so it is not read"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("[[nowhere-at-all]]"),
        "the link inside the corpus is read: {}",
        run.stdout
    );
    assert!(!run.stdout.contains("Secret"));
    if common::named_pipe(&root.join("docs/pipe.md")) {
        let run = check(root, &[]);
        assert!(
            run.stdout
                .contains("this prose page is a named pipe, socket or device, so it is not read"),
            "{}",
            run.stdout
        );
    }
}
