//! `gotchas init`: a new corpus that checks clean, and a refusal that writes nothing.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{check, gotchas};

/// Every file under `dir` with its content.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn init_then_check_passes_and_a_second_init_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let root_arg = root.to_str().unwrap();
    let first = gotchas(&["init", root_arg]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        tree(&root).keys().collect::<Vec<_>>(),
        [
            "docs/index.md",
            "gotchas.toml",
            "records/gotchas/example-gotcha.md",
            "schema/gotcha.schema.json"
        ]
    );
    let checked = check(&root, &[]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    assert_eq!(
        checked.stdout,
        "checked 1 record in 2 files: 0 errors, 0 warnings\n"
    );

    let before = tree(&root);
    let second = gotchas(&["init", root_arg]);
    assert_eq!(second.code, 2);
    assert!(
        second.stderr.starts_with("error: already there: "),
        "{}",
        second.stderr
    );
    assert_eq!(tree(&root), before, "nothing changed");
}

#[test]
fn init_writes_nothing_when_any_target_exists() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("records")).unwrap();
    let run = gotchas(&["init", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("records"), "{}", run.stderr);
    assert!(tree(dir.path()).is_empty(), "no config, no schema");
}

#[test]
fn init_into_a_file_says_it_is_no_folder() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let shown = file.path().to_str().unwrap();
    let run = gotchas(&["init", shown]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!("error: {shown} is a file, not a folder to make the corpus in\n")
    );
}

#[test]
fn the_example_schema_declares_a_reference_that_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(gotchas(&["init", dir.path().to_str().unwrap()]).code, 0);
    let gotchas = dir.path().join("records/gotchas");
    let text = std::fs::read_to_string(gotchas.join("example-gotcha.md")).unwrap();
    assert!(text.contains("id: example-gotcha\n"));
    std::fs::write(
        gotchas.join("second.md"),
        text.replace("id: example-gotcha", "id: second")
            .replace("related: []", "related: [example-gotcah]"),
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("help: did you mean example-gotcha (gotchas/example-gotcha)?"),
        "{}",
        run.stdout
    );
}

/// A record made with `new --name` in a fresh corpus carries its name, which the site and
/// the graph show; a collection with no `name` field says the name only made the id.
#[test]
fn a_new_record_in_a_fresh_corpus_keeps_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    assert_eq!(gotchas(&["init", root]).code, 0);
    let made = gotchas(&["--root", root, "new", "gotcha", "--name", "Hello World"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert_eq!(made.stderr, "");
    let record = std::fs::read_to_string(dir.path().join("records/gotchas/hello-world.md"));
    assert!(record.unwrap().contains("\nname: Hello World\n"));
    let listed = gotchas(&["--root", root, "query", "list", "gotchas"]);
    assert!(listed.stdout.contains("Hello World"), "{}", listed.stdout);

    let schema = dir.path().join("schema/gotcha.schema.json");
    let text = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(&schema, text.replace("\"name\"", "\"title\"")).unwrap();
    let made = gotchas(&["--root", root, "new", "gotcha", "--name", "Second One"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert_eq!(
        made.stderr,
        "note: `gotcha` records have no `name` field: the name only made the id\n"
    );
}

/// The command `init` says to run next names the folder as a shell reads it back.
#[test]
fn the_next_command_quotes_the_folder_for_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let spaced = dir.path().join("my kb");
    let run = gotchas(&["init", spaced.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.ends_with(&format!(
            "next: edit the example, then run `gotchas check --root '{}'`\n",
            spaced.display()
        )),
        "{}",
        run.stdout
    );
}

/// A run stopped half-way (here by a file-size limit, as a full disk would stop it) leaves
/// none of the corpus's files behind, so that running it again is not refused.
#[cfg(unix)]
#[test]
fn an_init_stopped_half_way_leaves_nothing_to_refuse_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let kb = dir.path().join("kb");
    std::fs::create_dir(&kb).unwrap();
    let stopped = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" init \"$1\"")
        .arg(env!("CARGO_BIN_EXE_gotchas"))
        .arg(&kb)
        .output()
        .unwrap();
    assert!(!stopped.status.success(), "the limit stops it");
    for target in ["gotchas.toml", "schema", "records", "docs"] {
        assert!(!kb.join(target).exists(), "{target} was left behind");
    }
    let again = gotchas(&["init", kb.to_str().unwrap()]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(check(&kb, &[]).code, 0);
}
