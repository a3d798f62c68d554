//! The pre-commit hook, end to end: the real `pre-commit` from PyPI, installed in a temporary
//! virtualenv, runs this repository's `gotchas-system` hook (with the freshly built binary
//! first on PATH) on real commits in a temporary repository holding the bundled corpus.
//!
//! This is the one test that needs the network: PyPI, to install pre-commit.

#![cfg(unix)]

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_dir, hermetic_git};

const GOTCHA: &str = "records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md";

/// A temporary folder with everything the test runs in it.
struct Sandbox {
    dir: tempfile::TempDir,
    path: OsString,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let created = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .output()
            .expect("python3 runs");
        assert!(
            created.status.success(),
            "`python3 -m venv` failed (is python3-venv installed?): {}",
            String::from_utf8_lossy(&created.stderr)
        );
        let installed = Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "pre-commit",
            ])
            .output()
            .expect("pip runs");
        assert!(
            installed.status.success(),
            "cannot install pre-commit from PyPI; this test needs access to PyPI:\n{}",
            String::from_utf8_lossy(&installed.stderr)
        );
        let binary = assert_cmd::cargo::cargo_bin("gotchas");
        let mut path = vec![binary.parent().unwrap().to_path_buf(), venv.join("bin")];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        Sandbox {
            path: std::env::join_paths(path).unwrap(),
            dir,
        }
    }

    /// Runs a program in `dir` with the sandbox's PATH, a private pre-commit cache, and git
    /// configured by the environment alone.
    fn run(&self, dir: &Path, program: &str, args: &[&str]) -> Output {
        hermetic_git(Command::new(program).args(args).current_dir(dir))
            .env("PATH", &self.path)
            .env("PRE_COMMIT_HOME", self.dir.path().join("cache"))
            .env_remove("NO_COLOR")
            .output()
            .unwrap_or_else(|err| panic!("{program} runs: {err}"))
    }

    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let output = self.run(dir, "git", args);
        assert!(output.status.success(), "git {args:?}: {}", text(&output));
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// A repository holding only this repository's hook definitions, as pre-commit clones it.
    fn hook_repository(&self) -> (PathBuf, String) {
        let repo = self.dir.path().join("hooks");
        std::fs::create_dir(&repo).unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
            repo.join(".pre-commit-hooks.yaml"),
        )
        .unwrap();
        self.git(&repo, &["init", "-q"]);
        self.git(&repo, &["add", "-A"]);
        self.git(&repo, &["commit", "-qm", "hooks"]);
        let rev = self.git(&repo, &["rev-parse", "HEAD"]);
        (repo, rev)
    }

    /// A repository holding the bundled corpus, committed, with the hook installed.
    fn corpus_repository(&self) -> PathBuf {
        let (hooks, rev) = self.hook_repository();
        let repo = self.dir.path().join("corpus");
        let main = Path::new(env!("CARGO_MANIFEST_DIR"));
        copy_dir(&main.join("schema"), &repo.join("schema"));
        copy_dir(&main.join("records"), &repo.join("records"));
        std::fs::write(
            repo.join(".pre-commit-config.yaml"),
            format!(
                "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: gotchas-system\n",
                hooks.display()
            ),
        )
        .unwrap();
        self.git(&repo, &["init", "-q"]);
        self.git(&repo, &["add", "-A"]);
        self.git(&repo, &["commit", "-qm", "corpus"]);
        let installed = self.run(&repo, "pre-commit", &["install"]);
        assert!(installed.status.success(), "{}", text(&installed));
        repo
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn the_hook_rejects_broken_commits_and_passes_clean_ones() {
    let sandbox = Sandbox::new();
    let repo = sandbox.corpus_repository();
    let commit = |message: &str| sandbox.run(&repo, "git", &["commit", "-qm", message]);

    // A typo'd reference in the gotcha is rejected, with the diagnostic.
    edit(
        &repo.join(GOTCHA),
        "affects: [vllm, nixl,",
        "affects: [vllm, nixll,",
    );
    sandbox.git(&repo, &["add", GOTCHA]);
    let typo = commit("typo");
    let output = text(&typo);
    assert!(!typo.status.success(), "{output}");
    assert!(
        output.contains("error[unresolved-ref]: `nixll` in `affects` names no record"),
        "{output}"
    );
    assert!(
        output.contains("did you mean nixl (engines/nixl)?"),
        "{output}"
    );
    sandbox.git(&repo, &["reset", "-q", "--hard"]);

    // Deleting an engine that the committed, unchanged gotcha cites is rejected too, although
    // pre-commit passes the hook no file at all.
    sandbox.git(&repo, &["rm", "-q", "records/engines/nixl.yaml"]);
    let deletion = commit("delete nixl");
    let output = text(&deletion);
    assert!(!deletion.status.success(), "{output}");
    assert!(
        output.contains("`nixl` in `affects` names no record"),
        "{output}"
    );
    assert!(output.contains(GOTCHA), "{output}");
    sandbox.git(&repo, &["reset", "-q", "--hard"]);

    // A clean change passes, and is committed.
    edit(
        &repo.join("records/engines/nixl.yaml"),
        "name: ",
        "name: The ",
    );
    sandbox.git(&repo, &["add", "-A"]);
    let clean = commit("rename nixl's display name");
    assert!(clean.status.success(), "{}", text(&clean));
    assert_eq!(
        sandbox.git(&repo, &["log", "-1", "--format=%s"]),
        "rename nixl's display name"
    );
}

/// pre-commit splits a long list of file names into several runs of a hook; `--staged` asks
/// git for the changes itself, so the hook takes no names and runs once, however large the
/// commit, rather than once per part, each repeating the whole report.
#[test]
fn a_large_commit_is_checked_once() {
    let sandbox = Sandbox::new();
    let repo = sandbox.corpus_repository();
    // pre-commit passes at most 128 KiB of names to one run: 700 names of 200 bytes are
    // more than that.
    let source =
        std::fs::read_to_string(repo.join("records/sources/engine-vllm-github.yaml")).unwrap();
    for n in 0..700 {
        let id = format!("source-{n:03}-{}", "x".repeat(180));
        std::fs::write(
            repo.join(format!("records/sources/{id}.yaml")),
            source.replace("id: engine-vllm-github", &format!("id: {id}")),
        )
        .unwrap();
    }
    edit(
        &repo.join("records/engines/nixl.yaml"),
        "confidence: 0.85",
        "confidence: high",
    );
    sandbox.git(&repo, &["add", "-A"]);
    let commit = sandbox.run(&repo, "git", &["commit", "-qm", "many sources"]);
    let output = text(&commit);
    assert!(!commit.status.success(), "{output}");
    // Seven hundred warnings (the new sources are cited by nothing) would drown a failure.
    let gist: Vec<&str> = output
        .lines()
        .filter(|l| l.starts_with("error") || l.starts_with("checked "))
        .collect();
    assert_eq!(
        output.matches("--> records/engines/nixl.yaml:").count(),
        1,
        "{gist:#?}"
    );
    let summaries = gist.iter().filter(|l| l.starts_with("checked ")).count();
    assert_eq!(summaries, 1, "{gist:#?}");
}
