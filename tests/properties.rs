//! Property tests: what must hold for any record, not just the fixtures.
//!
//! - Writing a value as JSON, YAML or Markdown and reading it back gives the same value.
//! - The span a source map gives for a pointer holds text that parses to that same value.

use std::collections::HashSet;

use gotchas::load::{self, json, markdown, yaml};
use gotchas::serialize;
use gotchas::source::Format;
use proptest::prelude::*;
use serde_json::{Map, Value};

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

/// A record: an object of fields, some of them long text.
fn record() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-z][a-z0-9_]{0,10}", value(), 0..6),
        prop::collection::vec("\\PC{0,200}", 0..3),
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

fn read_markdown(text: &str) -> Value {
    let fields = text_fields();
    let front = markdown::split_front_matter(text).expect("front matter");
    let mut value = yaml::parse(
        &text[front.yaml.clone()],
        front.yaml.start,
        yaml::Limits::default(),
        false,
    )
    .expect("front matter parses")
    .value
    .unwrap_or(Value::Object(Map::new()));
    for section in markdown::sections(text, &front.body, &fields) {
        value[section.field.as_str()] = Value::String(text[section.content].to_string());
    }
    value
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

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

    #[test]
    fn markdown_round_trips(record in record()) {
        let text = serialize::to_markdown(&record, &text_fields());
        prop_assert_eq!(read_markdown(&text), record, "{}", text);
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
