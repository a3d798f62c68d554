//! Extracting wiki-links: every span is inside the text and holds the target as written.
#![no_main]

use gotchas::links;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for link in links::extract(text, &(0..text.len())) {
        let slice = text
            .get(link.span.clone())
            .expect("spans are on char boundaries");
        assert!(!link.target.is_empty());
        let _ = slice;
    }
});
