//! Shell completions and manual pages, generated from the command definition.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::gotchas;

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = gotchas(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for word in ["gotchas", "check", "init", "format", "staged"] {
            assert!(run.stdout.contains(word), "{shell} completes {word}");
        }
    }
    let bash = gotchas(&["completions", "bash"]).stdout;
    let syntax = Command::new("bash")
        .args(["-n", "-c", &bash])
        .output()
        .expect("bash runs");
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
}

/// Pipes `input` into a program and returns whether it succeeded, its output and errors.
fn pipe(program: &str, args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| {
            panic!("{program} runs ({err}); .ci/run installs groff and man-db where missing")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn man_pages_are_valid_roff() {
    for (args, title) in [
        (&["man"][..], "gotchas(1)"),
        (&["man", "check"][..], "gotchas-check(1)"),
        (&["man", "init"][..], "gotchas-init(1)"),
        (&["man", "query", "list"][..], "gotchas-query-list(1)"),
    ] {
        let run = gotchas(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains(".TH "), "roff");
        let (ok, _, warnings) = pipe("groff", &["-man", "-Tutf8", "-ww", "-z"], &run.stdout);
        assert!(ok && warnings.is_empty(), "groff: {warnings}");
        let (ok, page, errors) = pipe("man", &["-l", "-"], &run.stdout);
        assert!(ok, "man: {errors}");
        assert!(page.contains(title), "{page}");
    }
    let check_page = pipe("man", &["-l", "-"], &gotchas(&["man", "check"]).stdout).1;
    assert!(check_page.contains("--max-warnings"));
    // Every page carries the version, which the page of a command took from no one.
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        check_page.contains(&format!("gotchas {version}")),
        "{check_page}"
    );
    assert!(check_page.contains(&format!("v{version}")), "{check_page}");
    assert_eq!(gotchas(&["man", "nope"]).code, 2);
    let typo = gotchas(&["man", "chek"]);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("help: did you mean `check`?"),
        "{}",
        typo.stderr
    );
}
