//! Loading a record of each format from arbitrary bytes: a diagnostic or a record, never a
//! panic, and a source map that locates every diagnostic's pointer without panicking.
#![no_main]

use std::collections::HashSet;
use std::path::Path;

use gotchas::load::{self, LoadContext};
use gotchas::source::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let format = match selector % 3 {
        0 => Format::Json,
        1 => Format::Yaml,
        _ => Format::Markdown,
    };
    let fields: HashSet<String> = ["symptom", "root_cause", "notes"].map(String::from).into();
    let context = LoadContext {
        text_fields: &fields,
        max_file_size: 1 << 20,
    };
    let loaded = load::load_bytes(
        Path::new("fuzz"),
        "fuzz".into(),
        bytes.to_vec(),
        format,
        &context,
    );
    if let Some(text) = loaded.file.text.as_deref() {
        let map = load::source_map(text, format, &fields);
        for diagnostic in &loaded.diagnostics {
            let _ = map.locate(&diagnostic.anchor);
        }
    }
});
