//! Finding the position of every JSON pointer: for any text serde_json accepts, each mapped
//! span must be inside the text and parse back to the value at that pointer, the first of a
//! repeated key's values; and the scan finds a repeated key wherever the parse counted one.
#![no_main]

use std::collections::HashSet;

use gotchas::load::{self, json};
use gotchas::source::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((value, duplicates)) = json::parse(text) else {
        return;
    };
    let (_, repeated) = json::scan(text);
    assert!(
        repeated.len() >= duplicates,
        "the scan finds every repeated key the parse met"
    );
    assert_eq!(repeated.is_empty(), duplicates == 0);
    let map = load::source_map(text, Format::Json, &HashSet::new());
    let mut pending = vec![(String::new(), &value)];
    while let Some((pointer, expected)) = pending.pop() {
        let node = map
            .get(&pointer)
            .expect("every pointer of a parsed value is mapped");
        let slice = text
            .get(node.value.clone())
            .expect("spans are on char boundaries");
        let (found, _) = json::parse(slice).expect("the span parses");
        assert_eq!(&found, expected, "at {pointer}");
        match expected {
            serde_json::Value::Array(items) => {
                pending.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{pointer}/{i}"), v)),
                );
            }
            serde_json::Value::Object(members) => pending.extend(
                members
                    .iter()
                    .map(|(k, v)| (gotchas::diagnostic::join_pointer(&pointer, k), v)),
            ),
            _ => {}
        }
    }
});
