//! The report does not depend on how the work was scheduled: the same corpus gives the same
//! bytes with one thread or four, and whatever order the file system lists its files in.
//!
//! Each case runs the real binary three times, and spawning it costs far more than checking
//! a small corpus, so this property runs 64 cases where `tests/properties.rs` runs 1,000; the
//! corpora are built to mix many kinds of problems in each (unresolved, ambiguous and
//! wrong-target references, duplicate ids, schema errors, syntax errors, broken links, strays).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use gotchas::serialize;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::json;

/// Few enough ids that records share them (duplicate ids), and some name no record.
const IDS: &[&str] = &["vllm", "mooncake", "nixl", "pd-repo", "mooncache", "gaudi"];

/// Record folders, with one that belongs to no collection.
const FOLDERS: &[&str] = &["engines", "gotchas", "sources", "gotcha"];

/// Record formats, with one that is not a record format.
const EXTENSIONS: &[&str] = &["json", "yaml", "md", "txt"];

/// The pages prose may link to.
const PAGES: &[&str] = &["guide", "faq", "missing"];

/// What is wrong with a record, besides what its references and links name.
#[derive(Clone, Copy, Debug)]
enum Mistake {
    None,
    MissingField,
    NotAnAllowedValue,
    UnknownField,
    WrongType,
    Syntax,
}

#[derive(Clone, Debug)]
struct RecordFile {
    folder: &'static str,
    stem: &'static str,
    extension: &'static str,
    id: &'static str,
    cites: Vec<&'static str>,
    link: &'static str,
    mistake: Mistake,
}

fn record_file() -> impl Strategy<Value = RecordFile> {
    let mistake = prop_oneof![
        Just(Mistake::None),
        Just(Mistake::MissingField),
        Just(Mistake::NotAnAllowedValue),
        Just(Mistake::UnknownField),
        Just(Mistake::WrongType),
        Just(Mistake::Syntax),
    ];
    (
        prop::sample::select(FOLDERS),
        prop::sample::select(IDS),
        prop::sample::select(EXTENSIONS),
        prop::sample::select(IDS),
        prop::collection::vec(prop::sample::select(IDS), 0..3),
        prop::sample::select(IDS),
        mistake,
    )
        .prop_map(
            |(folder, stem, extension, id, cites, link, mistake)| RecordFile {
                folder,
                stem,
                extension,
                id,
                cites,
                link,
                mistake,
            },
        )
}

/// A prose page linking to records by id and to other pages by file name.
fn page() -> impl Strategy<Value = (&'static str, Vec<&'static str>, &'static str)> {
    (
        prop::sample::select(PAGES),
        prop::collection::vec(prop::sample::select(IDS), 0..3),
        prop::sample::select(PAGES),
    )
}

impl RecordFile {
    fn path(&self) -> String {
        format!("records/{}/{}.{}", self.folder, self.stem, self.extension)
    }

    fn text(&self) -> String {
        let link = format!("Seen with [[{}]].", self.link);
        let mut record = match self.folder {
            "engines" => json!({
                "id": self.id, "type": "engine", "name": self.id, "status": "verified",
                "confidence": 0.9, "updated": "2026-01-01", "sources": self.cites,
                "notes": link,
            }),
            "sources" => json!({
                "id": self.id, "type": "source", "name": self.id, "status": "verified",
                "confidence": 0.9, "updated": "2026-01-01", "url": "https://example.com/",
                "kind": "repo", "accessed": "2026-01-01", "notes": link,
            }),
            _ => json!({
                "id": self.id, "type": "gotcha", "name": self.id, "class": "config",
                "symptom": link, "status": "verified", "confidence": 0.5,
                "updated": "2026-01-01", "affects": self.cites, "sources": self.cites,
            }),
        };
        match self.mistake {
            Mistake::None | Mistake::Syntax => {}
            Mistake::MissingField => {
                record.as_object_mut().unwrap().remove("name");
            }
            Mistake::NotAnAllowedValue => record["status"] = json!("verifed"),
            Mistake::UnknownField => record["severty"] = json!("major"),
            Mistake::WrongType => record["confidence"] = json!("high"),
        }
        let text = match self.extension {
            "json" => serialize::to_json(&record),
            "md" => {
                let text_fields: HashSet<String> = ["symptom", "notes"].map(String::from).into();
                serialize::to_markdown(&record, &text_fields)
            }
            _ => serialize::to_yaml(&record),
        };
        match self.mistake {
            Mistake::Syntax => format!("{}\n[unclosed\n", &text[..text.len() / 2]),
            _ => text,
        }
    }
}

/// Every file of a corpus, by path: config, schemas, records and pages. Files generated for
/// the same path keep the last one.
fn corpus() -> impl Strategy<Value = BTreeMap<String, String>> {
    (
        prop::collection::vec(record_file(), 1..14),
        prop::collection::vec(page(), 0..3),
    )
        .prop_map(|(records, pages)| {
            let mut files = BTreeMap::new();
            files.insert(
                "gotchas.toml".to_string(),
                "docs = [\"docs/*.md\"]\n".to_string(),
            );
            let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
            for entry in std::fs::read_dir(schemas).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap();
                files.insert(
                    format!("schema/{name}"),
                    std::fs::read_to_string(&path).unwrap(),
                );
            }
            for record in records {
                files.insert(record.path(), record.text());
            }
            for (stem, ids, page) in pages {
                let links: Vec<String> = ids.iter().map(|id| format!("[[{id}]]")).collect();
                files.insert(
                    format!("docs/{stem}.md"),
                    format!(
                        "# {stem}\n\n{}, and [the {page}]({page}.md).\n",
                        links.join(", ")
                    ),
                );
            }
            files
        })
}

/// Writes the files under `root` in the given order, creating folders as they are needed,
/// so that the order of their entries follows it where the file system keeps creation order.
fn write_in_order<'a>(root: &Path, files: impl Iterator<Item = (&'a String, &'a String)>) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The corpus written twice under `base`: its files created in order, then in reverse order.
fn written_both_ways(
    base: &Path,
    files: &BTreeMap<String, String>,
) -> (tempfile::TempDir, tempfile::TempDir) {
    let forward = tempfile::tempdir_in(base).unwrap();
    let backward = tempfile::tempdir_in(base).unwrap();
    write_in_order(forward.path(), files.iter());
    write_in_order(backward.path(), files.iter().rev());
    (forward, backward)
}

/// `gotchas check --format json` with this many threads: the report and the exit code.
fn check_json(root: &Path, threads: &str) -> (String, i32) {
    let output = assert_cmd::Command::cargo_bin("gotchas")
        .unwrap()
        .env("RAYON_NUM_THREADS", threads)
        .args(["check", "--format", "json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap_or(-1),
    )
}

/// A folder on tmpfs when there is one: tmpfs lists a folder's entries in an order that
/// follows their creation, where ext4 lists them in the order of a hash of their names.
fn scratch() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Whether folders under `base` list their entries in an order that depends on the order
/// the entries were created in.
fn creation_order_shows(base: &Path) -> bool {
    let listing = |names: [&str; 3]| {
        let dir = tempfile::tempdir_in(base).unwrap();
        for name in names {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect::<Vec<_>>()
    };
    listing(["a", "b", "c"]) != listing(["c", "b", "a"])
}

#[test]
fn reports_do_not_depend_on_threads_or_file_order() {
    let base = scratch();
    if !creation_order_shows(&base) {
        eprintln!(
            "note: {} lists folders in the same order whatever order their files were created \
             in, so only thread counts vary here",
            base.display()
        );
    }
    let mut runner = TestRunner::new(ProptestConfig::with_cases(64));
    runner
        .run(&corpus(), |files| {
            let (forward, backward) = written_both_ways(&base, &files);

            let (one_thread, code) = check_json(forward.path(), "1");
            prop_assert!(code == 0 || code == 1, "exit code {}: {}", code, one_thread);
            prop_assert_eq!(&check_json(forward.path(), "4").0, &one_thread, "threads");
            prop_assert_eq!(
                &check_json(backward.path(), "4").0,
                &one_thread,
                "file order"
            );
            Ok(())
        })
        .unwrap();
}

/// The same property through the library, where no process is spawned, at the 1,000 cases
/// the other properties run: every field of every diagnostic is the same with one thread or
/// four, and whatever order the files were created in.
#[test]
fn diagnostics_do_not_depend_on_threads_or_file_order() {
    let base = scratch();
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    let (one, four) = (pool(1), pool(4));
    let diagnostics = |project: &gotchas::Project, pool: &rayon::ThreadPool| {
        pool.install(|| format!("{:#?}", project.check(&project.load())))
    };
    let mut runner = TestRunner::new(ProptestConfig::with_cases(1000));
    runner
        .run(&corpus(), |files| {
            let (forward, backward) = written_both_ways(&base, &files);
            let forward = gotchas::Project::open(forward.path(), None).unwrap();
            let backward = gotchas::Project::open(backward.path(), None).unwrap();

            let expected = diagnostics(&forward, &one);
            prop_assert_eq!(&diagnostics(&forward, &four), &expected, "threads");
            prop_assert_eq!(&diagnostics(&backward, &four), &expected, "file order");
            Ok(())
        })
        .unwrap();
}
