//! Property tests: what must hold for any record, not just the fixtures.
//!
//! - Writing a value as JSON, YAML or Markdown and reading it back gives the same value.
//! - The span a source map gives for a pointer holds text that parses to that same value.
//! - `--fix` leaves nothing to fix: a second run changes no byte, also in YAML written in
//!   every style (quoted, block scalars, anchors, tags, comments after values).

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use gotchas::check::Drawn;
use gotchas::corpus::Corpus;
use gotchas::diagnostic::{Applicability, Diagnostic};
use gotchas::load::{self, json, yaml};
use gotchas::source::Format;
use gotchas::{Project, serialize};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};

/// Cases per property: enough that rare shapes (a slip that lands on another id, a tie
/// between two candidates) come up in every run.
const CASES: u32 = 1000;

/// Any JSON value a record may hold: unicode strings (with line breaks, quotes, `#`, `: `),
/// integers and finite floats, nested arrays and objects.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e12f64..1.0e12)
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,24}".prop_map(Value::String),
        prop_oneof![
            Just("null"),
            Just("true"),
            Just("0.8"),
            Just("2026-10-03"),
            Just("a: b"),
            Just("# x"),
            Just(" lead"),
            Just("line\nbreak"),
            Just("---"),
            Just("")
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_][a-z0-9_ -]{0,10}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// A record: an object of fields, some of them long text, which may hold control
/// characters.
fn record() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-z][a-z0-9_]{0,10}", value(), 0..6),
        prop::collection::vec("(\\PC|\\p{Cc}){0,200}", 0..3),
    )
        .prop_map(|(fields, texts)| {
            let mut map: Map<String, Value> = fields.into_iter().collect();
            for (i, text) in texts.into_iter().enumerate() {
                map.insert(format!("text_{i}"), Value::String(text));
            }
            Value::Object(map)
        })
}

fn text_fields() -> HashSet<String> {
    (0..3).map(|i| format!("text_{i}")).collect()
}

/// A Markdown record's fields as the loader reads them: front matter and sections, with
/// what the loader does to a section's text (its line breaks read as `\n`).
fn read_markdown(text: &str) -> Value {
    let fields = text_fields();
    let context = load::LoadContext {
        text_fields: &fields,
        max_file_size: u64::MAX,
    };
    let mut diagnostics = Vec::new();
    let loaded = load::parse(text, "r.md", Format::Markdown, &context, &mut diagnostics);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    loaded.expect("the record loads").value
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn json_round_trips(value in value()) {
        let text = serialize::to_json(&value);
        prop_assert_eq!(json::parse(&text).expect("parses").0, value);
    }

    #[test]
    fn yaml_round_trips(value in value()) {
        let text = serialize::to_yaml(&value);
        let parsed = yaml::parse(&text, 0, yaml::Limits::default(), false).expect("parses").value;
        prop_assert_eq!(parsed.unwrap_or(Value::Null), value, "{}", text);
    }

    /// And what is written is text: no control character but tabs and line feeds, nor a
    /// line or paragraph separator, is written as it is.
    #[test]
    fn markdown_round_trips(record in record()) {
        let text = serialize::to_markdown(&record, &text_fields());
        prop_assert_eq!(read_markdown(&text), record, "{}", text);
        let raw = |c: char| {
            (c.is_control() && !matches!(c, '\t' | '\n')) || matches!(c, '\u{2028}' | '\u{2029}')
        };
        prop_assert!(!text.contains(raw), "{:?}", text);
    }

    #[test]
    fn json_spans_hold_their_values(record in record()) {
        let text = serialize::to_json(&record);
        let map = load::source_map(&text, Format::Json, &HashSet::new());
        for (pointer, expected) in pointers(&record) {
            let node = map.get(&pointer).expect("every pointer is mapped");
            let found: Value = serde_json::from_str(&text[node.value.clone()]).expect("the span parses");
            prop_assert_eq!(&found, expected, "{}", pointer);
        }
    }

    /// The root's span found without scanning is the one the source map has, however the
    /// value is written (pretty or compact, a mapping or any other value) and whatever
    /// whitespace surrounds it.
    #[test]
    fn a_json_roots_span_is_found_without_scanning(
        value in value(),
        pretty in any::<bool>(),
        before in "[ \t\r\n]{0,4}",
        after in "[ \t\r\n]{0,4}",
    ) {
        let written = if pretty { serialize::to_json(&value) } else { value.to_string() };
        let text = format!("{before}{written}{after}");
        let (map, _) = json::scan(&text);
        let root = map.get("").expect("the root is mapped");
        prop_assert_eq!(json::root_span(&text), root.value.clone(), "{:?}", text);
    }

    #[test]
    fn yaml_scalar_spans_hold_their_values(record in record()) {
        let text = serialize::to_yaml(&record);
        let map = load::source_map(&text, Format::Yaml, &HashSet::new());
        for (pointer, expected) in pointers(&record) {
            if expected.is_array() || expected.is_object() {
                continue;
            }
            let node = map.get(&pointer).expect("every pointer is mapped");
            let found = yaml::parse(&text[node.value.clone()], 0, yaml::Limits::default(), false)
                .expect("the span parses")
                .value
                .unwrap_or(Value::Null);
            prop_assert_eq!(&found, expected, "{} in {}", pointer, text);
        }
    }
}

/// Every pointer of a value with the value there.
fn pointers(value: &Value) -> Vec<(String, &Value)> {
    let mut out = vec![(String::new(), value)];
    let mut index = 0;
    while index < out.len() {
        let (pointer, node) = out[index].clone();
        match node {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    out.push((format!("{pointer}/{i}"), item));
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    out.push((gotchas::diagnostic::join_pointer(&pointer, key), item));
                }
            }
            _ => {}
        }
        index += 1;
    }
    out
}

/// Words that ids are made of: few enough that ids often lie one slip apart, so that the
/// typos below meet unique candidates, ties and near misses alike.
const WORDS: &[&str] = &[
    "moon", "cake", "mooncake", "vllm", "nixl", "dynamo", "nvidia", "cache", "lmcache", "store",
];

fn id() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..=2).prop_map(|words| words.join("-"))
}

/// A slip of the keyboard in a word that is written by hand.
#[derive(Clone, Debug)]
enum Slip {
    None,
    Replace(prop::sample::Index, char),
    Drop(prop::sample::Index),
    Insert(prop::sample::Index, char),
    Swap(prop::sample::Index),
}

impl Slip {
    fn apply(&self, word: &str) -> String {
        let mut chars: Vec<char> = word.chars().collect();
        let len = chars.len();
        match self {
            Slip::None => {}
            Slip::Replace(at, c) => chars[at.index(len)] = *c,
            Slip::Drop(at) => {
                chars.remove(at.index(len));
            }
            Slip::Insert(at, c) => chars.insert(at.index(len + 1), *c),
            Slip::Swap(at) if len >= 2 => {
                let at = at.index(len - 1);
                chars.swap(at, at + 1);
            }
            Slip::Swap(_) => {}
        }
        chars.into_iter().collect()
    }
}

/// Half of the words come out as intended, the other half with one slip.
fn slip() -> impl Strategy<Value = Slip> {
    let letter = prop::char::range('a', 'z');
    prop_oneof![
        4 => Just(Slip::None),
        1 => (any::<prop::sample::Index>(), letter.clone()).prop_map(|(at, c)| Slip::Replace(at, c)),
        1 => any::<prop::sample::Index>().prop_map(Slip::Drop),
        1 => (any::<prop::sample::Index>(), letter).prop_map(|(at, c)| Slip::Insert(at, c)),
        1 => any::<prop::sample::Index>().prop_map(Slip::Swap),
    ]
}

fn written(intended: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (intended, slip()).prop_map(|(word, slip)| slip.apply(&word))
}

fn one_of(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    written(prop::sample::select(words).prop_map(str::to_string))
}

/// An id as a reference field holds it: bare or qualified with the folder, maybe mistyped.
fn reference(folder: &'static str, ids: Vec<String>) -> impl Strategy<Value = String> {
    (written(prop::sample::select(ids)), any::<bool>()).prop_map(move |(id, qualified)| {
        if qualified {
            format!("{folder}/{id}")
        } else {
            id
        }
    })
}

/// The formats a record may be written in.
#[derive(Clone, Debug)]
enum Written {
    Json,
    Yaml,
    /// YAML with each key and value written in the style the next number picks (see
    /// [`styled_yaml`]).
    StyledYaml(Vec<u8>),
    Markdown,
}

/// A YAML text of `record`, a mapping of scalars and lists of scalars, in the styles
/// `styles` picks one after another: each string plain, quoted either way or as a block
/// scalar, some after an anchor or a tag or before a comment, each list in flow or block
/// style, each key plain or quoted. Where a fix's edit goes depends on how the value is
/// written, and an edit placed wrong breaks the file or what is around the value.
fn styled_yaml(record: &Value, styles: &[u8]) -> String {
    let mut styles = styles.iter().copied().cycle();
    let mut next = move || styles.next().unwrap_or(0);
    let mut text = String::new();
    for (anchor, (key, value)) in record.as_object().expect("a mapping").iter().enumerate() {
        let key = match next() % 3 {
            0 => key.clone(),
            1 => format!("'{key}'  "),
            _ => format!("\"{key}\""),
        };
        match value {
            Value::String(value) => {
                let scalar = styled_scalar(value, next(), anchor, "  ");
                text.push_str(&format!("{key}: {scalar}\n"));
            }
            Value::Array(items) if next() % 2 == 0 || items.is_empty() => {
                let items: Vec<String> = items
                    .iter()
                    .map(|item| {
                        styled_scalar(item.as_str().expect("a string"), next() % 4, anchor, "")
                    })
                    .map(|item| item.split(" #").next().unwrap_or_default().to_string())
                    .collect();
                text.push_str(&format!("{key}: [{}] # a list\n", items.join(", ")));
            }
            Value::Array(items) => {
                text.push_str(&format!("{key}:\n"));
                for (i, item) in items.iter().enumerate() {
                    let item = item.as_str().expect("a string");
                    let scalar = styled_scalar(item, next(), anchor * 100 + i, "    ");
                    text.push_str(&format!("  - {scalar}\n"));
                }
            }
            other => text.push_str(&format!("{key}: {other}\n")),
        }
    }
    text
}

/// `value` as a YAML scalar in the style `style` picks; `anchor` names an anchor, and
/// `indent` is how a block scalar's content is indented.
fn styled_scalar(value: &str, style: u8, anchor: usize, indent: &str) -> String {
    let plain_safe = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'/')
        && !value.starts_with('-');
    let plain = if plain_safe {
        value.to_string()
    } else {
        serde_json::to_string(value).expect("a string")
    };
    let single = format!("'{}'", value.replace('\'', "''"));
    let double = serde_json::to_string(value).expect("a string");
    let one_line = !value.contains('\n') && value.trim() == value && !value.is_empty();
    match style % 9 {
        0 => plain,
        1 => format!("{single}   # it's a note"),
        2 => double,
        3 => format!("&a{anchor} {single}"),
        4 => format!("!!str {plain} # a \"note\""),
        5 if one_line && !indent.is_empty() => format!("|- # a | note\n{indent}{value}\n"),
        6 if one_line && !indent.is_empty() => format!("&b{anchor} >-\n{indent}{value}\n\n# after"),
        7 => format!("{double} # note"),
        _ => single,
    }
}

/// A gotcha citing the given engines and sources, with slips in its references, its
/// enum values, its wiki-link and its field names; a mistyped field may sit beside the
/// field it was meant to be.
fn gotcha(engines: Vec<String>, sources: Vec<String>) -> impl Strategy<Value = (Written, Value)> {
    let fields = (
        one_of(&["driver", "kernel", "config", "hardware", "format"]),
        one_of(&["verified", "draft", "contested", "deprecated"]),
        prop::option::of(one_of(&["blocker", "major", "minor"])),
        prop::collection::vec(reference("engines", engines.clone()), 0..4),
        prop::collection::vec(reference("sources", sources), 1..3),
        written(prop::sample::select(engines)),
    );
    let keys = prop::collection::vec((slip(), any::<bool>()), 6);
    let format = prop_oneof![
        Just(Written::Json),
        Just(Written::Yaml),
        prop::collection::vec(any::<u8>(), 1..40).prop_map(Written::StyledYaml),
        Just(Written::Markdown)
    ];
    (fields, keys, format).prop_map(
        |((class, status, severity, affects, sources, link), keys, format)| {
            let mut fields = vec![
                ("class", Value::from(class)),
                ("status", Value::from(status)),
                ("affects", Value::from(affects)),
                ("sources", Value::from(sources)),
                (
                    "symptom",
                    Value::from(format!("Seen with [[{link}]] under load.")),
                ),
            ];
            if let Some(severity) = severity {
                fields.push(("severity", Value::from(severity)));
            }
            let mut record = Map::new();
            for (key, value) in [
                ("id", "placeholder"),
                ("type", "gotcha"),
                ("name", "A trap"),
                ("updated", "2026-01-01"),
            ] {
                record.insert(key.to_string(), Value::from(value));
            }
            record.insert("confidence".to_string(), Value::from(0.5));
            for ((key, value), (slip, keep_intended)) in fields.into_iter().zip(keys) {
                let written = slip.apply(key);
                if written != key && keep_intended {
                    record.insert(key.to_string(), value.clone());
                }
                record.insert(written, value);
            }
            (format, Value::Object(record))
        },
    )
}

/// Engines and sources with well-formed records, and gotchas citing them with slips.
fn corpus_with_slips() -> impl Strategy<Value = (Vec<String>, Vec<String>, Vec<(Written, Value)>)> {
    (
        prop::collection::btree_set(id(), 2..6),
        prop::collection::btree_set(id(), 1..4),
    )
        .prop_flat_map(|(engines, sources)| {
            let engines: Vec<String> = engines.into_iter().collect();
            let sources: Vec<String> = sources.into_iter().collect();
            let gotchas = prop::collection::vec(gotcha(engines.clone(), sources.clone()), 1..4);
            (Just(engines), Just(sources), gotchas)
        })
}

/// Writes the engines, sources and gotchas as the corpus's only records.
fn write_records(
    root: &Path,
    (engines, sources, gotchas): &(Vec<String>, Vec<String>, Vec<(Written, Value)>),
    text_fields: &HashSet<String>,
) {
    let records = root.join("records");
    if records.exists() {
        std::fs::remove_dir_all(&records).unwrap();
    }
    for folder in ["engines", "sources", "gotchas"] {
        std::fs::create_dir_all(records.join(folder)).unwrap();
    }
    for id in engines {
        let engine = serde_json::json!({
            "id": id, "type": "engine", "name": id, "status": "verified",
            "confidence": 0.9, "updated": "2026-01-01", "sources": [sources[0]],
        });
        std::fs::write(
            records.join(format!("engines/{id}.yaml")),
            serialize::to_yaml(&engine),
        )
        .unwrap();
    }
    for id in sources {
        let source = serde_json::json!({
            "id": id, "type": "source", "name": id, "status": "verified", "confidence": 0.9,
            "updated": "2026-01-01", "url": "https://example.com/", "kind": "repo",
            "accessed": "2026-01-01",
        });
        std::fs::write(
            records.join(format!("sources/{id}.yaml")),
            serialize::to_yaml(&source),
        )
        .unwrap();
    }
    for (i, (format, gotcha)) in gotchas.iter().enumerate() {
        let id = format!("gotcha-{i}");
        let mut gotcha = gotcha.clone();
        gotcha["id"] = Value::from(id.as_str());
        let (extension, text) = match format {
            Written::Json => ("json", serialize::to_json(&gotcha)),
            Written::Yaml => ("yaml", serialize::to_yaml(&gotcha)),
            Written::StyledYaml(styles) => ("yaml", styled_yaml(&gotcha, styles)),
            Written::Markdown => ("md", serialize::to_markdown(&gotcha, text_fields)),
        };
        std::fs::write(records.join(format!("gotchas/{id}.{extension}")), text).unwrap();
    }
}

/// Does what `gotchas check --fix` does: fixes the corpus in memory until no certain fix is
/// left, then writes the files that changed. Returns how many it wrote.
fn fix_all(project: &Project, mut corpus: Corpus<Drawn>, diagnostics: Vec<Diagnostic>) -> usize {
    let settled = project.settle_fixes(&mut corpus, diagnostics, |corpus| project.check(corpus));
    for file in &settled.files {
        std::fs::write(&file.path, file.bytes()).unwrap();
    }
    settled.files.len()
}

/// What went wrong reading the files: duplicate keys, syntax errors.
fn load_problems<F>(corpus: &Corpus<F>) -> Vec<String> {
    corpus
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.file, d.message))
        .collect()
}

/// Every file under `folder`, by path, with its bytes.
fn snapshot(folder: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    files
}

/// `--fix` reaches a fixed point in one run: after it, no certain fix is left to apply and
/// applying the fixes again leaves every byte as it is. And a fix never makes a file worse
/// to read (a field renamed onto one the record has would be a duplicate key).
#[test]
fn fixing_leaves_nothing_to_fix() {
    // One project for every case: compiling the schemas per case would dominate the run.
    let dir = common::temp_corpus(&[]);
    let project = Project::open(dir.path(), None).unwrap();
    let gotchas = project.schemas.by_folder("gotchas").unwrap();
    let text_fields = &project.schemas.collections[gotchas].text_fields;
    let mut runner = TestRunner::new(ProptestConfig::with_cases(CASES));
    runner
        .run(&corpus_with_slips(), |corpus| {
            write_records(dir.path(), &corpus, text_fields);
            let before = project.load_for_check();
            let problems_before = load_problems(&before);
            let diagnostics = project.check(&before);
            fix_all(&project, before, diagnostics);

            let fixed = project.load_for_check();
            prop_assert_eq!(
                load_problems(&fixed),
                problems_before,
                "a fix made a file harder to read"
            );
            let diagnostics = project.check(&fixed);
            let left: Vec<String> = diagnostics
                .iter()
                .filter(|d| {
                    d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == Applicability::MachineApplicable)
                })
                .map(|d| format!("{}: {}", d.file, d.message))
                .collect();
            prop_assert!(
                left.is_empty(),
                "certain fixes left after fixing: {:?}",
                left
            );

            let files = snapshot(&dir.path().join("records"));
            prop_assert_eq!(fix_all(&project, fixed, diagnostics), 0);
            prop_assert!(
                snapshot(&dir.path().join("records")) == files,
                "fixing again changed a file"
            );
            Ok(())
        })
        .unwrap();
}
