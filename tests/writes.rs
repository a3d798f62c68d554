//! Writes never lose data: `--fix` replaces files atomically, and a write that fails leaves
//! the original intact and names the file.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{bundled_copy, check};

const RECORD: &str = "records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md";

/// Replaces a file the way an editor that saves safely would: temp file, then rename.
fn replace(path: &Path, text: &str) {
    let temporary = path.with_extension("tmp-test");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

#[test]
fn a_reader_never_sees_a_half_written_file() {
    let dir = bundled_copy();
    let path = dir.path().join(RECORD);
    let fixed = std::fs::read_to_string(&path).unwrap();
    let broken = fixed.replace("nixl, mooncake,", "nixl, mooncache,");
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (path, stop) = (path.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                if let Ok(text) = std::fs::read_to_string(&path)
                    && !seen.contains(&text)
                {
                    seen.push(text);
                }
            }
            seen
        })
    };
    for _ in 0..5 {
        replace(&path, &broken);
        assert_eq!(check(dir.path(), &["--fix"]).code, 0);
    }
    stop.store(true, Ordering::Relaxed);
    let seen = reader.join().unwrap();
    for text in &seen {
        assert!(
            text == &fixed || text == &broken,
            "a reader saw a partial file:\n{text}"
        );
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), fixed);
}

/// Makes a folder unwritable, even for root (which ignores permission bits): the immutable
/// attribute where the file system has it. Returns a guard that undoes it.
struct ReadOnly<'a>(&'a Path, bool);

impl<'a> ReadOnly<'a> {
    fn new(dir: &'a Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(dir.join("probe"), "x").is_ok() {
            std::fs::remove_file(dir.join("probe")).unwrap();
            let status = std::process::Command::new("chattr")
                .arg("+i")
                .arg(dir)
                .status();
            assert!(
                status.is_ok_and(|s| s.success()),
                "running as root: `chattr +i` is needed to make a folder unwritable"
            );
            return ReadOnly(dir, true);
        }
        ReadOnly(dir, false)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.1 {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(self.0)
                .status();
        }
        let _ = std::fs::set_permissions(self.0, std::fs::Permissions::from_mode(0o755));
    }
}

/// Files are written side by side; one that cannot be written stops none of the others.
#[cfg(unix)]
#[test]
fn a_failed_write_leaves_the_original_and_names_the_file() {
    let dir = bundled_copy();
    let path = dir.path().join(RECORD);
    let broken = std::fs::read_to_string(&path)
        .unwrap()
        .replace("nixl, mooncake,", "nixl, mooncache,");
    std::fs::write(&path, &broken).unwrap();
    let engine = dir.path().join("records/engines/vllm.yaml");
    let engine_fixed = std::fs::read_to_string(&engine).unwrap();
    std::fs::write(
        &engine,
        engine_fixed.replace("- engine-vllm-github", "- engine-vllm-githb"),
    )
    .unwrap();
    let run = {
        let _guard = ReadOnly::new(path.parent().unwrap());
        check(dir.path(), &["--fix"])
    };
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("fixed 1 problem in 1 file"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&engine).unwrap(), engine_fixed);
    assert!(
        run.stdout
            .contains("error[io-error]: cannot write the fixed file"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(RECORD));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        broken,
        "the original is intact"
    );
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".gotchas-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left behind");
}

/// `--fix` reads a file again to fix it (a check lets the texts go) and fixes only what it
/// checked: a file saved in between keeps what was saved, and a file that did not change is
/// fixed as usual. Driven through the library, as the binary gives no moment to save in.
#[test]
fn a_file_saved_after_the_check_is_not_fixed_over() {
    let dir = bundled_copy();
    let saved = dir.path().join(RECORD);
    let untouched = dir.path().join("records/engines/mooncake.yaml");
    let mut broken = Vec::new();
    for (path, right, wrong) in [
        (&saved, "nixl, mooncake,", "nixl, mooncache,"),
        (&untouched, "- pd-mooncake-repo", "- pd-mooncache-repo"),
    ] {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(right), "{}", path.display());
        broken.push(text.replace(right, wrong));
        std::fs::write(path, broken.last().unwrap()).unwrap();
    }
    let project = gotchas::Project::open(dir.path(), None).unwrap();
    let mut corpus = project.load_for_check();
    let diagnostics = project.check(&corpus);
    let in_the_meantime = format!("{}\nSaved while the check ran.\n", broken[0]);
    replace(&saved, &in_the_meantime);
    let settled = project.settle_fixes(&mut corpus, diagnostics, |corpus| project.check(corpus));
    let fixed: Vec<&str> = settled.files.iter().map(|f| f.display.as_str()).collect();
    assert_eq!(fixed, ["records/engines/mooncake.yaml"]);
    assert_eq!(
        settled.files[0].new,
        broken[1].replace("- pd-mooncache-repo", "- pd-mooncake-repo")
    );
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), in_the_meantime);
}

#[test]
fn output_is_never_written_over_the_corpus_own_files() {
    let corpus = bundled_copy();
    let root = corpus.path();
    std::fs::write(root.join("gotchas.toml"), "docs = [\"docs/*.md\"]\n").unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/guide.md"), "# Guide\n").unwrap();
    for own in [
        "records/engines/vllm.yaml",
        "records/engines/new.json",
        "schema/engine.schema.json",
        "gotchas.toml",
        "docs/guide.md",
    ] {
        let path = root.join(own);
        let before = std::fs::read(&path).ok();
        let as_report = ["--format", "json", "--output", path.to_str().unwrap()];
        let as_baseline = [
            "--write-baseline",
            "--baseline",
            path.to_str().unwrap(),
            "-q",
        ];
        for args in [&as_report[..], &as_baseline[..]] {
            let run = check(root, args);
            assert_eq!(run.code, 2, "{own} {args:?}: {}", run.stderr);
            assert!(
                run.stderr.contains("the output is not written to"),
                "{}",
                run.stderr
            );
            assert_eq!(std::fs::read(&path).ok(), before, "{own} is as it was");
        }
    }
    let index = common::gotchas(&[
        "--root",
        root.to_str().unwrap(),
        "index",
        "--out",
        root.join("records/INDEX.md").to_str().unwrap(),
    ]);
    assert_eq!(index.code, 2, "{}", index.stderr);
    let beside = root.join("report.json");
    let run = check(
        root,
        &["--format", "json", "--output", beside.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        beside.is_file(),
        "a file beside the corpus's own is written"
    );
}

/// A fix keeps its file's owner and group, as an edit in place would: run as root (a
/// container, a hook under sudo), it would otherwise hand each file it fixed to root.
#[cfg(unix)]
#[test]
fn a_fixed_file_keeps_its_owner() {
    use std::os::unix::fs::MetadataExt;
    let dir = bundled_copy();
    let record = dir.path().join(RECORD);
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.replace("nixl, mooncake,", "nixl, mooncache,")).unwrap();
    // Only root can give a file away; elsewhere there is nothing to keep but one's own.
    if std::os::unix::fs::chown(&record, Some(65_534), Some(65_534)).is_err() {
        eprintln!("skipped: files cannot be given away here");
        return;
    }
    let fixed = check(dir.path(), &["--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert!(
        fixed.stdout.contains("fixed 1 problem in 1 file"),
        "{}",
        fixed.stdout
    );
    let after = std::fs::metadata(&record).unwrap();
    assert_eq!((after.uid(), after.gid()), (65_534, 65_534));
}

/// A corpus a user without privileges owns, copied from the bundled one.
fn owned_corpus(user: &common::Unprivileged) -> std::path::PathBuf {
    let corpus = user.folder("corpus");
    let main = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::copy_dir(&main.join("schema"), &corpus.join("schema"));
    common::copy_dir(&main.join("records"), &corpus.join("records"));
    corpus
}

/// A temporary file or folder that cannot be made is no name to show: the error names the
/// folder the user gave (the site's output, the cache), not tempfile's absolute path to a
/// name nobody has seen.
#[test]
fn a_temporary_name_never_reaches_an_error() {
    let Some(user) = common::Unprivileged::new() else {
        return;
    };
    if !user.is_nobody() {
        eprintln!("skipped: no folder the tests' user cannot write can be made here");
        return;
    }
    let corpus = owned_corpus(&user);
    // Folders root makes are not nobody's to write in.
    let unwritable = corpus.join("nbb");
    std::fs::create_dir(&unwritable).unwrap();
    let build = user.run(&unwritable, &["build", "--root", "..", "--out", "site"]);
    assert_eq!(build.code, 2, "{}", build.stderr);
    assert_eq!(
        build.stderr,
        "error: site: cannot make the folder the site is built in, beside it: Permission \
         denied (os error 13)\n"
    );

    let cache = corpus.join(".gotchas-cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::write(cache.join(".gitignore"), "*\n").unwrap();
    let check = user.run(&corpus, &["check", "--verbose", "--color", "never"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stderr.contains(
            "note: the cache was not written to ./.gotchas-cache: Permission denied (os error 13)\n"
        ),
        "{}",
        check.stderr
    );
    assert!(!check.stderr.contains("at path"), "{}", check.stderr);
}

/// A corpus of one engine whose `status` has a certain fix (`drft`), with a prose page,
/// which every command loading the corpus reads once every record is read.
fn corpus_with_a_page() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let config = format!(
        "schemas = {:?}\ndocs = [\"docs/*.md\"]\n[rules]\norphan = \"allow\"\n",
        schemas.to_str().unwrap()
    );
    std::fs::write(dir.path().join("gotchas.toml"), config).unwrap();
    std::fs::create_dir_all(dir.path().join("records/engines")).unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join(ENGINE), TYPO).unwrap();
    std::fs::write(dir.path().join("docs/guide.md"), "# Guide\n").unwrap();
    dir
}

const ENGINE: &str = "records/engines/good.yaml";
const TYPO: &str = "id: good\ntype: engine\nname: Good\nstatus: drft\nconfidence: 0.5\nupdated: 2026-10-03\nsources: []\n";

/// Runs `gotchas ARGS` in `dir`, holding it where it opens the prose page (every record
/// read, nothing written) while `meanwhile` runs; `None` where no lease can hold it.
#[cfg(target_os = "linux")]
fn with_an_edit_meanwhile(
    dir: &Path,
    args: &[&str],
    meanwhile: impl FnOnce(),
) -> Option<common::Run> {
    let held = common::Held::new(&dir.join("docs/guide.md"))?;
    let child = common::spawn(dir, args);
    held.wait_until_opened();
    meanwhile();
    held.release();
    Some(common::finished(child))
}

/// An edit saved while `--fix` runs, after the file was read, is kept: the fixes found in
/// what was read are not written over it, the file is named (exit 1), and the next run fixes
/// the file as it is now.
#[cfg(target_os = "linux")]
#[test]
fn an_edit_saved_while_fix_runs_is_not_written_over() {
    let dir = corpus_with_a_page();
    let engine = dir.path().join(ENGINE);
    let edited = TYPO.replace("name: Good", "name: Edited meanwhile");
    let Some(run) =
        with_an_edit_meanwhile(dir.path(), &["check", "--fix", "--color", "never"], || {
            std::fs::write(&engine, &edited).unwrap();
        })
    else {
        return;
    };
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let said = "error[io-error]: the file changed since it was read; its fixes were not applied\n\
                --> records/engines/good.yaml\n";
    assert!(run.stdout.contains(said), "{}", run.stdout);
    assert_eq!(std::fs::read_to_string(&engine).unwrap(), edited);
    let again = common::gotchas_in(dir.path(), &["check", "--fix", "--color", "never"]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert_eq!(
        std::fs::read_to_string(&engine).unwrap(),
        edited.replace("drft", "draft")
    );
}

/// An edit saved while `convert --in-place` runs, after the record was read, is kept: the
/// old file is not removed, the new one written from what was read is, and the record is
/// named (exit 1).
#[cfg(target_os = "linux")]
#[test]
fn an_edit_saved_while_convert_runs_is_not_deleted() {
    let dir = corpus_with_a_page();
    let engine = dir.path().join(ENGINE);
    let edited = TYPO.replace("name: Good", "name: Edited meanwhile");
    let args = ["convert", "--all", "--to", "json", "--in-place"];
    let Some(run) = with_an_edit_meanwhile(dir.path(), &args, || {
        std::fs::write(&engine, &edited).unwrap();
    }) else {
        return;
    };
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stderr,
        "error: records/engines/good.yaml changed since it was read, so it was not converted; run again\n"
    );
    assert_eq!(run.stdout, "converted 0 of 1 records\n");
    assert_eq!(std::fs::read_to_string(&engine).unwrap(), edited);
    assert!(!engine.with_extension("json").exists());
    let again = common::gotchas_in(dir.path(), &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!engine.exists());
    let json = std::fs::read_to_string(engine.with_extension("json")).unwrap();
    assert!(json.contains("Edited meanwhile"), "{json}");
}

/// A file marked read-only is left as it is by `--fix` and by `convert --in-place`, though
/// its folder is writable, and named (exit 1), as other fixers and editors leave it.
#[test]
fn a_read_only_file_is_neither_fixed_nor_converted() {
    use std::os::unix::fs::PermissionsExt;
    let dir = corpus_with_a_page();
    let engine = dir.path().join(ENGINE);
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o444)).unwrap();
    let fixed = common::gotchas_in(dir.path(), &["check", "--fix", "--color", "never"]);
    assert_eq!(fixed.code, 1, "{}", fixed.stdout);
    let said = "error[io-error]: the file is read-only; its fixes were not applied\n\
                --> records/engines/good.yaml\n";
    assert!(fixed.stdout.contains(said), "{}", fixed.stdout);
    let args = ["convert", "--all", "--to", "json", "--in-place"];
    let converted = common::gotchas_in(dir.path(), &args);
    assert_eq!(converted.code, 1, "{}", converted.stderr);
    assert_eq!(
        converted.stderr,
        "error: records/engines/good.yaml is read-only, so it was not converted\n"
    );
    assert_eq!(std::fs::read_to_string(&engine).unwrap(), TYPO);
    let mode = std::fs::metadata(&engine).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
    assert!(!engine.with_extension("json").exists());
}
