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

/// Runs `gotchas ARGS` in the folder `dir`, with `NO_COLOR` cleared.
pub fn gotchas_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::cargo_bin("gotchas")
        .expect("the binary is built")
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("the binary runs");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

/// Runs `gotchas check --root ROOT --color never [EXTRA...]`.
pub fn check(root: &Path, extra: &[&str]) -> Run {
    let root = root.to_str().expect("UTF-8 path");
    let mut args = vec!["check", "--root", root, "--color", "never"];
    args.extend_from_slice(extra);
    gotchas(&args)
}

/// The `(code, path, line, column)` of each diagnostic of a `--format json` run.
pub fn json_diagnostics(run: &Run) -> Vec<(String, String, Option<u64>, Option<u64>)> {
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON output");
    report["diagnostics"]
        .as_array()
        .expect("a diagnostics array")
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

/// Copies a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
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
